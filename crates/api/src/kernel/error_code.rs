//! The `error` codes of non-422 error bodies, each spelled once with its status. Clients
//! branch on these strings, so they never change; keeping them in one enum makes the set
//! enumerable (for documentation) and a misspelt code a compile error.

use axum::http::StatusCode;

/// Declares the codes: the enum, each one's wire string and its status.
macro_rules! error_codes {
    ($($(#[$doc:meta])* $variant:ident = $code:literal, $status:ident;)+) => {
        /// A stable code of a non-422 error body.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $($(#[$doc])* $variant,)+
        }

        impl ErrorCode {
            /// Every code, in declaration order (the tests check the published list by it).
            #[cfg(test)]
            pub const ALL: &[ErrorCode] = &[$(ErrorCode::$variant),+];

            /// The code as the body's `error` spells it.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $code,)+
                }
            }

            /// The status an error of this code is answered with.
            pub const fn status(self) -> StatusCode {
                match self {
                    $(ErrorCode::$variant => StatusCode::$status,)+
                }
            }
        }
    };
}

error_codes! {
    /// A request the framework could not read (an unparsable path or query, …).
    BadRequest = "bad_request", BAD_REQUEST;
    /// An access token outside the `Authorization` header.
    InvalidRequest = "invalid_request", BAD_REQUEST;
    /// The body is not JSON (`_embedded.errors` names `body`).
    MalformedJson = "malformed_json", BAD_REQUEST;
    /// A required field (or a multipart body's `file` part) is missing; `_embedded.errors`
    /// names it, and every other field at fault.
    MissingField = "missing_field", BAD_REQUEST;
    /// A multipart body that cannot be read (`_embedded.errors` names `body` or `file`).
    MalformedMultipart = "malformed_multipart", BAD_REQUEST;
    InvalidIdempotencyKey = "invalid_idempotency_key", BAD_REQUEST;
    /// Another client error the framework answered itself; its status is the framework's
    /// (`ApiError::refused`), 400 standing for them here.
    RequestRefused = "request_refused", BAD_REQUEST;
    /// A missing, malformed, expired or revoked bearer token.
    InvalidToken = "invalid_token", UNAUTHORIZED;
    /// A customer's email and password that do not sign them in (wrong, unknown, no
    /// password yet or a disabled customer: the answer does not tell which).
    InvalidCredentials = "invalid_credentials", BAD_REQUEST;
    InsufficientScope = "insufficient_scope", FORBIDDEN;
    /// A signed-in customer's own routes take a customer session's token only.
    CustomerTokenRequired = "customer_token_required", FORBIDDEN;
    /// Developer credentials are managed with a user's token only.
    UserTokenRequired = "user_token_required", FORBIDDEN;
    /// The user's role may not do this: register apps, or manage a shop (its settings and
    /// admins) they are not an owner or admin of.
    RoleForbidden = "role_forbidden", FORBIDDEN;
    NotFound = "not_found", NOT_FOUND;
    MethodNotAllowed = "method_not_allowed", METHOD_NOT_ALLOWED;
    RequestTimeout = "request_timeout", REQUEST_TIMEOUT;
    /// Concurrent writes got in the way of every attempt; `Retry-After` says when to
    /// send the request again.
    WriteConflict = "write_conflict", CONFLICT;
    /// A resource the write names kept being deleted under it.
    ReferencedResourceDeleted = "referenced_resource_deleted", CONFLICT;
    /// A request with the same `Idempotency-Key` is still running.
    RequestInProgress = "request_in_progress", CONFLICT;
    /// A unique index no field of the request is answerable for refused the write (a
    /// field's is a 422 on it).
    AlreadyExists = "already_exists", CONFLICT;
    /// Another charge of the order is waiting for its gateway and holds the amount;
    /// `Retry-After` says when to ask again.
    PaymentInProgress = "payment_in_progress", CONFLICT;
    /// The gateway declined the card; the recorded attempt is embedded as `payment`.
    PaymentDeclined = "payment_declined", PAYMENT_REQUIRED;
    PreconditionFailed = "precondition_failed", PRECONDITION_FAILED;
    PayloadTooLarge = "payload_too_large", PAYLOAD_TOO_LARGE;
    UnsupportedMediaType = "unsupported_media_type", UNSUPPORTED_MEDIA_TYPE;
    RateLimitExceeded = "rate_limit_exceeded", TOO_MANY_REQUESTS;
    /// The server failed; the cause is logged, never sent.
    InternalError = "internal_error", INTERNAL_SERVER_ERROR;
    /// A lock or connection stayed out of reach past its timeout.
    /// The payment gateway failed (nothing was charged); the recorded attempt is embedded
    /// as `payment`.
    GatewayError = "gateway_error", BAD_GATEWAY;
    DatabaseBusy = "database_busy", SERVICE_UNAVAILABLE;
    /// `GET /readyz`: the database does not answer.
    DatabaseUnavailable = "database_unavailable", SERVICE_UNAVAILABLE;
}

impl ErrorCode {
    /// Whether an answer with this code is about fields of the request body, and lists
    /// them in `_embedded.errors` (`ApiError::body_fields`).
    pub const fn names_fields(self) -> bool {
        matches!(
            self,
            ErrorCode::MalformedJson | ErrorCode::MissingField | ErrorCode::MalformedMultipart
        )
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Clients depend on every code and its status: changing one is changing the API.
    #[test]
    fn codes_and_statuses_stay_as_published() {
        let published: Vec<(&str, u16)> = ErrorCode::ALL
            .iter()
            .map(|c| (c.as_str(), c.status().as_u16()))
            .collect();
        assert_eq!(
            published,
            [
                ("bad_request", 400),
                ("invalid_request", 400),
                ("malformed_json", 400),
                ("missing_field", 400),
                ("malformed_multipart", 400),
                ("invalid_idempotency_key", 400),
                ("request_refused", 400),
                ("invalid_token", 401),
                ("invalid_credentials", 400),
                ("insufficient_scope", 403),
                ("customer_token_required", 403),
                ("user_token_required", 403),
                ("role_forbidden", 403),
                ("not_found", 404),
                ("method_not_allowed", 405),
                ("request_timeout", 408),
                ("write_conflict", 409),
                ("referenced_resource_deleted", 409),
                ("request_in_progress", 409),
                ("already_exists", 409),
                ("payment_in_progress", 409),
                ("payment_declined", 402),
                ("precondition_failed", 412),
                ("payload_too_large", 413),
                ("unsupported_media_type", 415),
                ("rate_limit_exceeded", 429),
                ("internal_error", 500),
                ("gateway_error", 502),
                ("database_busy", 503),
                ("database_unavailable", 503),
            ]
        );
    }

    #[test]
    fn codes_are_distinct_snake_case() {
        for (i, code) in ErrorCode::ALL.iter().enumerate() {
            let s = code.as_str();
            assert!(s.chars().all(|c| c.is_ascii_lowercase() || c == '_'), "{s}");
            assert!(!ErrorCode::ALL[i + 1..].iter().any(|c| c.as_str() == s));
        }
    }
}
