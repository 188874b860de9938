//! The API's error type and its bodies: 422 carries `_embedded.errors`; every other status
//! `{"_class":["error"], "status", "error", "message"}` with a code of `ErrorCode`. A 400
//! about the request body's fields (`malformed_json`, `missing_field`,
//! `malformed_multipart`) carries `_embedded.errors` as well, beside its code: clients tell
//! a refused write by the `errors` it lists, as they do for a 422.
//!
//! Storage failures are answered in one place, the conversion from `storage::Error` (and
//! from `ServiceError`, which carries them), so that no call site has to remember them:
//!
//! - A unique index refusing a write is a 422 on the field it concerns, or a 409
//!   `already_exists` where no field applies (`taken`, the registry). A value the service
//!   derived itself (a slug from a title) that stays taken is a 409 `write_conflict`.
//! - A write that lost to another (a deadlock, a serialization failure) or whose row
//!   vanished under it has been run again by the services' transaction runner (which
//!   decides through `ServiceError`'s `TxError`); when every attempt loses, the answer is
//!   409 `write_conflict` (the same request may succeed in a moment: `Retry-After` says
//!   when), or 409 `referenced_resource_deleted` when a row the write names keeps being
//!   deleted under it.
//! - A database or pool busy past its timeout, or a lost connection, is 503 `database_busy`
//!   with `Retry-After`.
//! - Anything else is a 500 whose body says nothing about it. Its cause and the place the
//!   error was made (`#[track_caller]` on every constructor and conversion, so a `?` is
//!   that place) are kept and logged when it is answered, inside the request's span, so
//!   the log line carries the request id the client sees.

use std::error::Error as StdError;
use std::fmt;
use std::panic::Location;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use domain::{FieldErrors, Scope};
use serde_json::{Value, json};
use storage::UniqueIndex;

pub use super::error_code::ErrorCode;
use services::ServiceError;
use services::taken::{self, Taken};

/// What made the server fail.
type Cause = Box<dyn StdError + Send + Sync>;

#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    answer: Answer,
    message: String,
    headers: Vec<(header::HeaderName, HeaderValue)>,
    /// The unique index whose violation this answers.
    violated: Option<UniqueIndex>,
    /// Why the server failed (500s only): logged, never sent.
    cause: Option<Cause>,
    /// Where the error was made.
    origin: &'static Location<'static>,
}

#[derive(Debug)]
enum Answer {
    Code(ErrorCode),
    /// A 400 about the body: its code, and what is wrong with each field at fault.
    CodeAndFields(ErrorCode, FieldErrors),
    /// A 422 lists what is wrong with each field instead.
    Fields(FieldErrors),
    /// An error about one resource the request made (a declined payment), embedded under
    /// its name.
    CodeAndItem(ErrorCode, Box<(&'static str, Value)>),
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    /// A handler that panicked: a 500 saying what the panic was raised with (the panic
    /// hook has already logged where).
    pub fn panicked(payload: &(dyn std::any::Any + Send)) -> Self {
        let message = payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("with a payload that is no message");
        Self::internal(format!("panicked: {message}"))
    }
}

impl ApiError {
    #[track_caller]
    fn make(status: StatusCode, answer: Answer, message: String) -> Self {
        Self {
            status,
            answer,
            message,
            headers: Vec::new(),
            violated: None,
            cause: None,
            origin: Location::caller(),
        }
    }

    #[track_caller]
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        debug_assert!(
            !code.names_fields(),
            "{code} names the fields at fault: ApiError::body_fields"
        );
        Self::make(code.status(), Answer::Code(code), message.into())
    }

    /// A 400 about the request body (`code` is one whose answers name fields), listing
    /// each field at fault in `_embedded.errors`.
    #[track_caller]
    pub fn body_fields(code: ErrorCode, message: impl Into<String>, fields: FieldErrors) -> Self {
        debug_assert!(code.names_fields() && !fields.is_empty(), "{code}");
        Self::make(
            code.status(),
            Answer::CodeAndFields(code, fields),
            message.into(),
        )
    }

    /// `body_fields` with one field.
    #[track_caller]
    pub fn body_field(
        code: ErrorCode,
        message: impl Into<String>,
        field: &str,
        problem: impl Into<String>,
    ) -> Self {
        Self::body_fields(code, message, FieldErrors::single(field, problem))
    }

    /// An error that concerns a resource the request wrote (a payment the gateway
    /// declined), embedded under `name` so that the client sees what was recorded.
    #[track_caller]
    pub fn with_embedded(
        code: ErrorCode,
        message: impl Into<String>,
        name: &'static str,
        item: Value,
    ) -> Self {
        Self::make(
            code.status(),
            Answer::CodeAndItem(code, Box::new((name, item))),
            message.into(),
        )
    }

    /// Another charge holds the amount for now: ask again in a moment.
    #[track_caller]
    pub fn payment_in_progress(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::PaymentInProgress, message)
            .with_header(header::RETRY_AFTER, HeaderValue::from(1))
    }

    /// Says after the message that the fields listed may not be all.
    pub fn more_may_follow(mut self) -> Self {
        self.message
            .push_str(" (the first problems found are listed; more may follow)");
        self
    }

    pub fn with_header(mut self, name: header::HeaderName, value: HeaderValue) -> Self {
        self.headers.push((name, value));
        self
    }

    /// A client error the framework answered with `status` and no code of its own.
    #[track_caller]
    pub fn refused(status: StatusCode) -> Self {
        let reason = status
            .canonical_reason()
            .unwrap_or("the request was refused");
        Self::make(
            status,
            Answer::Code(ErrorCode::RequestRefused),
            reason.into(),
        )
    }

    /// A malformed, expired, revoked or foreign bearer token (RFC 6750 section 3). The
    /// reason is fixed wording, which `Description` keeps to the RFC's characters.
    #[track_caller]
    pub fn invalid_token(reason: &'static str) -> Self {
        let challenge = format!(
            "Bearer realm=\"commerce\", error=\"invalid_token\", error_description=\"{}\"",
            oauth::Description::from(reason)
        );
        Self::new(ErrorCode::InvalidToken, reason).with_header(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_str(&challenge)
                .unwrap_or(HeaderValue::from_static("Bearer realm=\"commerce\"")),
        )
    }

    /// No credentials at all: a bare challenge, as RFC 6750 section 3.1 asks.
    #[track_caller]
    pub fn unauthenticated() -> Self {
        Self::new(ErrorCode::InvalidToken, "an access token is required").with_header(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"commerce\", error=\"invalid_token\""),
        )
    }

    #[track_caller]
    pub fn insufficient_scope(scope: Scope) -> Self {
        let challenge =
            format!("Bearer realm=\"commerce\", error=\"insufficient_scope\", scope=\"{scope}\"");
        Self::new(
            ErrorCode::InsufficientScope,
            format!("the access token lacks the {scope} scope"),
        )
        .with_header(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_str(&challenge).expect("scope names are header-safe"),
        )
    }

    #[track_caller]
    pub fn not_found() -> Self {
        Self::new(ErrorCode::NotFound, "the resource does not exist")
    }

    #[track_caller]
    pub fn precondition_failed() -> Self {
        Self::new(
            ErrorCode::PreconditionFailed,
            "the resource changed since the version named in If-Match or If-Unmodified-Since",
        )
    }

    #[track_caller]
    pub fn payload_too_large(limit: usize) -> Self {
        Self::new(
            ErrorCode::PayloadTooLarge,
            format!("the body exceeds {limit} bytes"),
        )
    }

    #[track_caller]
    pub fn unsupported_media_type() -> Self {
        Self::new(
            ErrorCode::UnsupportedMediaType,
            "the body must be JSON (Content-Type: application/json)",
        )
    }

    #[track_caller]
    pub fn too_many_requests(retry_after_secs: u64) -> Self {
        Self::new(
            ErrorCode::RateLimitExceeded,
            format!("too many requests; retry in {retry_after_secs} s"),
        )
        .with_header(header::RETRY_AFTER, HeaderValue::from(retry_after_secs))
    }

    /// A write that lost to concurrent ones on every attempt (the services' transaction
    /// runner retried it first).
    #[track_caller]
    pub fn write_conflict() -> Self {
        Self::new(
            ErrorCode::WriteConflict,
            "concurrent writes to the same resources got in the way; send the request again",
        )
        .with_header(header::RETRY_AFTER, HeaderValue::from(1))
    }

    /// A row the write names kept being deleted by concurrent writes while it ran.
    #[track_caller]
    fn referenced_resource_deleted() -> Self {
        Self::new(
            ErrorCode::ReferencedResourceDeleted,
            "a resource this request refers to was deleted while it ran",
        )
    }

    #[track_caller]
    fn database_busy() -> Self {
        Self::new(
            ErrorCode::DatabaseBusy,
            "the database is busy; send the request again shortly",
        )
        .with_header(header::RETRY_AFTER, HeaderValue::from(1))
    }

    /// The server failed because of `cause`, which is logged with where this was called
    /// when the error is answered; the client learns nothing of it.
    #[track_caller]
    pub fn internal(cause: impl Into<Cause>) -> Self {
        Self {
            cause: Some(cause.into()),
            ..Self::new(
                ErrorCode::InternalError,
                "the server failed to answer; the failure is logged",
            )
        }
    }

    #[track_caller]
    pub fn validation(fields: FieldErrors) -> Self {
        Self::make(
            StatusCode::UNPROCESSABLE_ENTITY,
            Answer::Fields(fields),
            "the request has invalid values".into(),
        )
    }

    #[track_caller]
    pub fn invalid_field(field: &str, message: impl Into<String>) -> Self {
        Self::validation(FieldErrors::single(field, message))
    }

    /// A unique index refused the write: answered as the registry says (`taken`).
    #[track_caller]
    fn taken(index: UniqueIndex) -> Self {
        let answer = match taken::answer(index) {
            Taken::Field(field) => {
                tracing::debug!(%index, "a unique value is taken");
                Self::invalid_field(field, "has already been taken")
            }
            Taken::Conflict => {
                tracing::info!(%index, "a unique index no field answers for refused a write");
                Self::new(
                    ErrorCode::AlreadyExists,
                    "a resource with the same unique values already exists",
                )
            }
        };
        Self {
            violated: Some(index),
            ..answer
        }
    }

    /// For a value the server derived rather than the client gave (a slug made from a
    /// title, a product type created by name): a violation of `index` means concurrent
    /// writes kept taking the value after it was found free. No field of the request is
    /// at fault: a write conflict.
    #[track_caller]
    fn retry_if_taken(self, index: UniqueIndex) -> Self {
        if self.violated == Some(index) {
            Self::write_conflict()
        } else {
            self
        }
    }

    #[cfg(test)]
    pub fn status(&self) -> StatusCode {
        self.status
    }

    pub fn body(&self) -> Value {
        let listed = |fields: &FieldErrors| -> Value {
            let errors: Vec<Value> = fields
                .errors()
                .iter()
                .map(|e| json!({"_class": ["error"], "field": e.field, "messages": e.messages}))
                .collect();
            json!({"errors": errors})
        };
        match &self.answer {
            Answer::Fields(fields) => json!({
                "_class": ["errors"],
                "status": self.status.as_u16(),
                "message": self.message,
                "_embedded": listed(fields),
            }),
            Answer::Code(code) => json!({
                "_class": ["error"],
                "status": self.status.as_u16(),
                "error": code.as_str(),
                "message": self.message,
            }),
            Answer::CodeAndFields(code, fields) => json!({
                "_class": ["error"],
                "status": self.status.as_u16(),
                "error": code.as_str(),
                "message": self.message,
                "_embedded": listed(fields),
            }),
            Answer::CodeAndItem(code, item) => json!({
                "_class": ["error"],
                "status": self.status.as_u16(),
                "error": code.as_str(),
                "message": self.message,
                "_embedded": { item.0: item.1 },
            }),
        }
    }

    /// Logs a server failure with its cause chain and where it was made.
    fn log(&self) {
        if self.status == StatusCode::INTERNAL_SERVER_ERROR {
            tracing::error!(
                error = %Chain(self.cause.as_deref()),
                at = %self.origin,
                "internal error"
            );
        }
    }
}

/// An error and its `source()`s, `: `-separated. A level whose message already ends with
/// its source's (thiserror's `"…: {0}"`) does not repeat it.
struct Chain<'a>(Option<&'a (dyn StdError + Send + Sync + 'static)>);

impl fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(first) = self.0 else {
            return f.write_str("no cause recorded");
        };
        let mut shown = first.to_string();
        f.write_str(&shown)?;
        let mut next = first.source();
        while let Some(err) = next {
            let message = err.to_string();
            if !shown.ends_with(&message) {
                write!(f, ": {message}")?;
                shown = message;
            }
            next = err.source();
        }
        Ok(())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        self.log();
        let body = serde_json::to_vec(&self.body()).expect("error bodies serialise");
        let mut response = (self.status, body).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(super::hal_response::JSON),
        );
        for (name, value) in self.headers {
            headers.append(name, value);
        }
        response
    }
}

impl From<FieldErrors> for ApiError {
    #[track_caller]
    fn from(fields: FieldErrors) -> Self {
        Self::validation(fields)
    }
}

impl From<storage::Error> for ApiError {
    #[track_caller]
    fn from(err: storage::Error) -> Self {
        use storage::Error as E;
        match &err {
            E::UniqueViolation {
                index: Some(index), ..
            } => Self::taken(*index),
            E::Conflict(_) | E::LockOrderChanged => {
                tracing::debug!(error = %err, "write conflict");
                Self::write_conflict()
            }
            E::ForeignKeyViolation { .. } => {
                tracing::info!(error = %err, "a row the write names was deleted concurrently");
                Self::referenced_resource_deleted()
            }
            E::Busy(_) => {
                tracing::warn!(error = %err, "database busy");
                Self::database_busy()
            }
            // Including a violation of an index the schema does not declare: a bug.
            _ => Self::internal(err),
        }
    }
}

impl From<ServiceError> for ApiError {
    /// Answered as the same failure met in a handler would be, keeping where an internal
    /// or storage failure arose.
    #[track_caller]
    fn from(err: ServiceError) -> Self {
        let origin = err.origin();
        let answer = match err {
            ServiceError::NotFound => Self::not_found(),
            ServiceError::Invalid(fields) => Self::validation(fields),
            ServiceError::PreconditionFailed => Self::precondition_failed(),
            ServiceError::Forbidden(why) => Self::new(ErrorCode::RoleForbidden, why),
            ServiceError::Storage { error, derived, .. } => {
                let answer = Self::from(error);
                match derived {
                    Some(index) => answer.retry_if_taken(index),
                    None => answer,
                }
            }
            ServiceError::Internal { cause, .. } => Self::internal(cause),
        };
        Self {
            origin: origin.unwrap_or(answer.origin),
            ..answer
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::sync::{Arc, Mutex};

    use storage::TxError;

    use super::*;

    /// Whether the services' transaction runner runs the work again after `err`, and the
    /// answer once it gives up.
    fn answer(err: storage::Error) -> (bool, ApiError, Value) {
        answer_service(ServiceError::from(err))
    }

    fn answer_service(err: ServiceError) -> (bool, ApiError, Value) {
        let retried = err.is_retryable();
        let err = ApiError::from(err);
        let body = err.body();
        (retried, err, body)
    }

    fn retry_after(err: &ApiError) -> Option<&HeaderValue> {
        err.headers
            .iter()
            .find(|(name, _)| name == header::RETRY_AFTER)
            .map(|(_, value)| value)
    }

    #[test]
    fn lost_conflicts_are_retried_then_answered_409_with_retry_after() {
        for lost in [
            storage::Error::Conflict(sqlx_error()),
            storage::Error::LockOrderChanged,
        ] {
            let (retried, err, body) = answer(lost);
            assert!(retried);
            assert_eq!(err.status(), StatusCode::CONFLICT);
            assert_eq!(body["error"], "write_conflict");
            assert_eq!(body["_class"], json!(["error"]));
            assert_eq!(retry_after(&err), Some(&HeaderValue::from(1)));
        }
    }

    #[test]
    fn a_vanished_reference_is_retried_then_answered_409() {
        let (retried, err, body) = answer(storage::Error::ForeignKeyViolation {
            target: "collection_products_product_id_fkey".into(),
        });
        assert!(retried);
        assert_eq!(err.status(), StatusCode::CONFLICT);
        assert_eq!(body["error"], "referenced_resource_deleted");
        assert_eq!(body["status"], 409);
    }

    #[test]
    fn a_busy_database_is_503_with_retry_after_and_not_retried() {
        let (retried, err, body) = answer(storage::Error::Busy(sqlx_error()));
        assert!(!retried);
        assert_eq!(err.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(body["error"], "database_busy");
        assert_eq!(retry_after(&err), Some(&HeaderValue::from(1)));
    }

    #[test]
    fn other_storage_failures_stay_internal_and_are_not_retried() {
        let (retried, err, body) = answer(storage::Error::Corrupt("x".into()));
        assert!(!retried);
        assert_eq!(err.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(body["error"], "internal_error");
        assert!(!ServiceError::NotFound.is_retryable());
    }

    fn sqlx_error() -> sqlx::Error {
        sqlx::Error::Protocol("from the database".into())
    }

    fn violation(index: Option<UniqueIndex>) -> storage::Error {
        storage::Error::UniqueViolation {
            index,
            target: "as the database said".into(),
        }
    }

    #[test]
    fn a_unique_violation_is_a_422_on_the_field_the_registry_names() {
        let (retried, err, body) = answer(violation(Some(UniqueIndex::VariantsSku)));
        assert!(!retried);
        assert_eq!(err.status(), StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(
            body["_embedded"]["errors"],
            json!([{"_class": ["error"], "field": "sku", "messages": ["has already been taken"]}])
        );
    }

    #[test]
    fn a_unique_violation_no_field_answers_for_is_retried_then_409() {
        let (retried, err, body) = answer(violation(Some(UniqueIndex::OrdersCode)));
        assert!(retried);
        assert_eq!(err.status(), StatusCode::CONFLICT);
        assert_eq!(body["error"], "already_exists");
        assert_eq!(body["status"], 409);
    }

    #[test]
    fn a_violation_of_an_undeclared_index_is_internal() {
        let (retried, _, body) = answer(violation(None));
        assert!(!retried);
        assert_eq!(body["error"], "internal_error");
        assert!(!body.to_string().contains("as the database said"));
    }

    #[test]
    fn a_derived_value_taken_meanwhile_is_retried_but_only_on_its_index() {
        let slug = || ServiceError::from(violation(Some(UniqueIndex::ProductsSlug)));
        let (retried, _, body) = answer_service(slug().derived(UniqueIndex::ProductsSlug));
        assert!(retried);
        assert_eq!(body["error"], "write_conflict");
        let (retried, other, _) = answer_service(slug().derived(UniqueIndex::CollectionsSlug));
        assert!(!retried);
        assert_eq!(other.status(), StatusCode::UNPROCESSABLE_ENTITY);
        assert!(
            !ServiceError::NotFound
                .derived(UniqueIndex::ProductsSlug)
                .is_retryable()
        );
    }

    #[test]
    fn an_error_made_by_a_question_mark_was_made_there() {
        fn read() -> ApiResult<()> {
            Err(storage::Error::Corrupt("a row is unreadable".into()))?
        }
        let line = line!() - 2;
        let err = read().unwrap_err();
        assert_eq!((err.origin.file(), err.origin.line()), (file!(), line));
    }

    /// Where a test's subscriber writes its log lines.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[derive(Debug, thiserror::Error)]
    #[error("reading the ledger failed")]
    struct Ledger(#[source] io::Error);

    /// The log lines of every test of this binary. A subscriber installed for one thread
    /// (`with_default`) can miss an event whose callsite another test thread registered
    /// at the same moment under no subscriber; a process-wide one cannot.
    fn captured_logs() -> &'static Captured {
        static LOGS: std::sync::OnceLock<Captured> = std::sync::OnceLock::new();
        LOGS.get_or_init(|| {
            let logs = Captured::default();
            let writer = logs.clone();
            let subscriber = tracing_subscriber::fmt()
                .with_writer(move || writer.clone())
                .with_ansi(false)
                .finish();
            tracing::subscriber::set_global_default(subscriber)
                .expect("no other test sets a global subscriber");
            logs
        })
    }

    #[tokio::test]
    async fn an_internal_error_logs_its_causes_origin_and_request_id_and_tells_the_client_nothing()
    {
        let logs = captured_logs();
        let request = axum::extract::Request::builder()
            .uri("/v2/orders?secret=1")
            .header("x-request-id", "req-4711")
            .body(axum::body::Body::empty())
            .unwrap();
        let (response, line) = {
            let _span = crate::app::request_span(&request).entered();
            let err = ApiError::internal(Ledger(io::Error::other("disk on fire")));
            (err.into_response(), line!() - 1)
        };

        let logged = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
        let line_of = |needle: &str| {
            logged
                .lines()
                .find(|l| l.contains(needle))
                .map(str::to_owned)
        };
        let logged = line_of("req-4711").unwrap_or_else(|| panic!("no log line: {logged}"));
        assert!(logged.contains("ERROR"), "{logged}");
        assert!(logged.contains("request_id=req-4711"), "{logged}");
        assert!(
            logged.contains("error=reading the ledger failed: disk on fire"),
            "{logged}"
        );
        assert!(
            logged.contains(&format!("at={}:{line}:", file!())),
            "{logged}"
        );

        assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let body = http_body_util::BodyExt::collect(response.into_body())
            .await
            .unwrap()
            .to_bytes();
        let body: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            body,
            json!({
                "_class": ["error"], "status": 500, "error": "internal_error",
                "message": "the server failed to answer; the failure is logged",
            })
        );
    }

    #[test]
    fn a_chain_shows_each_cause_once() {
        let shown =
            |err: &(dyn std::error::Error + Send + Sync + 'static)| Chain(Some(err)).to_string();
        assert_eq!(
            shown(&Ledger(io::Error::other("disk on fire"))),
            "reading the ledger failed: disk on fire"
        );
        // Each level repeats its source's message: said once.
        let storage = storage::Error::Database(sqlx::Error::Io(io::Error::other("reset")));
        assert_eq!(
            shown(&storage),
            "database error: error communicating with database: reset"
        );
        assert_eq!(Chain(None).to_string(), "no cause recorded");
    }
}
