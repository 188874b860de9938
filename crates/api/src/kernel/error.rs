//! The API's error type and its bodies: 422 carries `_embedded.errors`; every other status
//! `{"_class":["error"], "status", "error", "message"}`. Internal details are logged, never
//! sent.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use domain::{FieldErrors, Scope};
use serde_json::{Value, json};

#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
    fields: Option<FieldErrors>,
    headers: Vec<(header::HeaderName, HeaderValue)>,
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            fields: None,
            headers: Vec::new(),
        }
    }

    pub fn with_header(mut self, name: header::HeaderName, value: HeaderValue) -> Self {
        self.headers.push((name, value));
        self
    }

    pub fn bad_request(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, code, message)
    }

    /// A missing, malformed, expired or foreign bearer token (RFC 6750 section 3).
    pub fn invalid_token(message: impl Into<String>) -> Self {
        let message = message.into();
        let challenge = format!(
            "Bearer realm=\"commerce\", error=\"invalid_token\", error_description=\"{}\"",
            message.replace(['"', '\\'], "'")
        );
        Self::new(StatusCode::UNAUTHORIZED, "invalid_token", message).with_header(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_str(&challenge)
                .unwrap_or(HeaderValue::from_static("Bearer realm=\"commerce\"")),
        )
    }

    /// No credentials at all: a bare challenge, as RFC 6750 section 3.1 asks.
    pub fn unauthenticated() -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "invalid_token",
            "an access token is required",
        )
        .with_header(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"commerce\", error=\"invalid_token\""),
        )
    }

    pub fn insufficient_scope(scope: Scope) -> Self {
        let challenge =
            format!("Bearer realm=\"commerce\", error=\"insufficient_scope\", scope=\"{scope}\"");
        Self::new(
            StatusCode::FORBIDDEN,
            "insufficient_scope",
            format!("the access token lacks the {scope} scope"),
        )
        .with_header(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_str(&challenge).expect("scope names are header-safe"),
        )
    }

    pub fn not_found() -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "not_found",
            "the resource does not exist",
        )
    }

    pub fn conflict(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, code, message)
    }

    pub fn precondition_failed() -> Self {
        Self::new(
            StatusCode::PRECONDITION_FAILED,
            "precondition_failed",
            "the resource changed since the version named in If-Match or If-Unmodified-Since",
        )
    }

    pub fn payload_too_large(limit: usize) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            format!("the body exceeds {limit} bytes"),
        )
    }

    pub fn unsupported_media_type() -> Self {
        Self::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "the body must be JSON (Content-Type: application/json)",
        )
    }

    pub fn too_many_requests(retry_after_secs: u64) -> Self {
        Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limit_exceeded",
            format!("too many requests; retry in {retry_after_secs} s"),
        )
        .with_header(header::RETRY_AFTER, HeaderValue::from(retry_after_secs))
    }

    pub fn internal() -> Self {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal_error",
            "the server failed to answer; the failure is logged",
        )
    }

    pub fn validation(fields: FieldErrors) -> Self {
        Self {
            fields: Some(fields),
            ..Self::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid",
                "the request has invalid values",
            )
        }
    }

    pub fn invalid_field(field: &str, message: impl Into<String>) -> Self {
        Self::validation(FieldErrors::single(field, message))
    }

    #[cfg(test)]
    pub fn status(&self) -> StatusCode {
        self.status
    }

    pub fn body(&self) -> Value {
        match &self.fields {
            Some(fields) => {
                let errors: Vec<Value> = fields
                    .errors()
                    .iter()
                    .map(|e| json!({"_class": ["error"], "field": e.field, "messages": e.messages}))
                    .collect();
                json!({
                    "_class": ["errors"],
                    "status": self.status.as_u16(),
                    "message": self.message,
                    "_embedded": {"errors": errors},
                })
            }
            None => json!({
                "_class": ["error"],
                "status": self.status.as_u16(),
                "error": self.code,
                "message": self.message,
            }),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
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
    fn from(fields: FieldErrors) -> Self {
        Self::validation(fields)
    }
}

impl From<storage::Error> for ApiError {
    fn from(err: storage::Error) -> Self {
        tracing::error!(error = %err, "storage failure");
        Self::internal()
    }
}
