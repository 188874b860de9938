//! Errors of the token endpoint, as RFC 6749 section 5.2 shapes them.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthError {
    pub code: &'static str,
    pub description: String,
    /// The client authenticated with HTTP Basic, so a client failure is a 401 challenge.
    pub basic_challenge: bool,
    /// Seconds to wait before trying again (sign-in throttling).
    pub retry_after: Option<u64>,
}

impl OAuthError {
    fn new(code: &'static str, description: impl Into<String>) -> Self {
        Self {
            code,
            description: description.into(),
            basic_challenge: false,
            retry_after: None,
        }
    }

    /// Too many failed sign-ins: `slow_down` (RFC 8628's code), 429 with `Retry-After`.
    pub fn slow_down(retry_after: u64) -> Self {
        Self {
            retry_after: Some(retry_after.max(1)),
            ..Self::new(
                "slow_down",
                format!(
                    "too many failed sign-ins; retry in {} s",
                    retry_after.max(1)
                ),
            )
        }
    }

    pub fn unsupported_token_type(description: impl Into<String>) -> Self {
        Self::new("unsupported_token_type", description)
    }

    pub fn invalid_request(description: impl Into<String>) -> Self {
        Self::new("invalid_request", description)
    }

    pub fn invalid_client(description: impl Into<String>, basic: bool) -> Self {
        Self {
            basic_challenge: basic,
            ..Self::new("invalid_client", description)
        }
    }

    pub fn invalid_grant(description: impl Into<String>) -> Self {
        Self::new("invalid_grant", description)
    }

    pub fn unauthorized_client(description: impl Into<String>) -> Self {
        Self::new("unauthorized_client", description)
    }

    pub fn unsupported_grant_type(description: impl Into<String>) -> Self {
        Self::new("unsupported_grant_type", description)
    }

    pub fn invalid_scope(description: impl Into<String>) -> Self {
        Self::new("invalid_scope", description)
    }

    pub fn server_error() -> Self {
        Self::new("server_error", "the authorization server failed; try again")
    }

    pub fn status(&self) -> StatusCode {
        match self.code {
            "invalid_client" if self.basic_challenge => StatusCode::UNAUTHORIZED,
            "slow_down" => StatusCode::TOO_MANY_REQUESTS,
            "server_error" => StatusCode::INTERNAL_SERVER_ERROR,
            _ => StatusCode::BAD_REQUEST,
        }
    }
}

impl From<storage::Error> for OAuthError {
    fn from(err: storage::Error) -> Self {
        tracing::error!(error = %err, "storage failure in the token endpoint");
        Self::server_error()
    }
}

impl IntoResponse for OAuthError {
    fn into_response(self) -> Response {
        let status = self.status();
        let body = json!({"error": self.code, "error_description": self.description});
        let mut response = (status, axum::Json(body)).into_response();
        no_store(&mut response);
        if let Some(secs) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        if status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Basic realm=\"commerce\", charset=\"UTF-8\""),
            );
        }
        response
    }
}

/// Token responses must never be cached (RFC 6749 section 5.1).
pub(crate) fn no_store(response: &mut Response) {
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
}
