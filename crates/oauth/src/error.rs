//! Errors of the authorization service: the codes it answers with, each spelled once
//! (`OAuthCode`), and the token endpoint's error bodies, as RFC 6749 section 5.2 shapes them.
//! Their descriptions are `Description`s: the service's own wording, never the client's.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::description::Description;

/// Declares the codes: the enum and each one's wire string.
macro_rules! oauth_codes {
    ($($(#[$doc:meta])* $variant:ident = $code:literal;)+) => {
        /// An error code of the authorization service: RFC 6749's (section 5.2 for the
        /// token endpoint, 4.1.2.1 for redirects from the authorization page), with
        /// RFC 7009's `unsupported_token_type` and RFC 8628's `slow_down`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum OAuthCode {
            $($(#[$doc])* $variant,)+
        }

        impl OAuthCode {
            /// Every code, in declaration order.
            pub const ALL: &[OAuthCode] = &[$(OAuthCode::$variant),+];

            /// The code as the `error` field or parameter spells it.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(OAuthCode::$variant => $code,)+
                }
            }
        }
    };
}

oauth_codes! {
    InvalidRequest = "invalid_request";
    InvalidClient = "invalid_client";
    InvalidGrant = "invalid_grant";
    UnauthorizedClient = "unauthorized_client";
    UnsupportedGrantType = "unsupported_grant_type";
    InvalidScope = "invalid_scope";
    /// Revocation of a token type the server does not know.
    UnsupportedTokenType = "unsupported_token_type";
    /// Too many failed sign-ins.
    SlowDown = "slow_down";
    ServerError = "server_error";
    /// Authorization page only: the user (or the app's account) refused.
    AccessDenied = "access_denied";
    /// Authorization page only.
    UnsupportedResponseType = "unsupported_response_type";
}

impl std::fmt::Display for OAuthCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthError {
    pub code: OAuthCode,
    pub description: Description,
    /// The client authenticated with HTTP Basic, so a client failure is a 401 challenge.
    pub basic_challenge: bool,
    /// Seconds to wait before trying again (sign-in throttling).
    pub retry_after: Option<u64>,
}

impl OAuthError {
    fn new(code: OAuthCode, description: impl Into<Description>) -> Self {
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
                OAuthCode::SlowDown,
                "too many failed sign-ins; retry after the delay in Retry-After",
            )
        }
    }

    pub fn unsupported_token_type(description: impl Into<Description>) -> Self {
        Self::new(OAuthCode::UnsupportedTokenType, description)
    }

    pub fn invalid_request(description: impl Into<Description>) -> Self {
        Self::new(OAuthCode::InvalidRequest, description)
    }

    pub fn invalid_client(description: impl Into<Description>, basic: bool) -> Self {
        Self {
            basic_challenge: basic,
            ..Self::new(OAuthCode::InvalidClient, description)
        }
    }

    pub fn invalid_grant(description: impl Into<Description>) -> Self {
        Self::new(OAuthCode::InvalidGrant, description)
    }

    pub fn unauthorized_client(description: impl Into<Description>) -> Self {
        Self::new(OAuthCode::UnauthorizedClient, description)
    }

    pub fn unsupported_grant_type(description: impl Into<Description>) -> Self {
        Self::new(OAuthCode::UnsupportedGrantType, description)
    }

    pub fn invalid_scope(description: impl Into<Description>) -> Self {
        Self::new(OAuthCode::InvalidScope, description)
    }

    pub fn server_error() -> Self {
        Self::new(
            OAuthCode::ServerError,
            "the authorization server failed; try again",
        )
    }

    pub fn status(&self) -> StatusCode {
        match self.code {
            OAuthCode::InvalidClient if self.basic_challenge => StatusCode::UNAUTHORIZED,
            OAuthCode::SlowDown => StatusCode::TOO_MANY_REQUESTS,
            OAuthCode::ServerError => StatusCode::INTERNAL_SERVER_ERROR,
            _ => StatusCode::BAD_REQUEST,
        }
    }
}

impl From<storage::Error> for OAuthError {
    /// Logs where the failure was met (a `?`): the client sees only `server_error`.
    #[track_caller]
    fn from(err: storage::Error) -> Self {
        let at = std::panic::Location::caller();
        tracing::error!(error = %err, %at, "storage failure in the token endpoint");
        Self::server_error()
    }
}

impl IntoResponse for OAuthError {
    fn into_response(self) -> Response {
        let status = self.status();
        let body =
            json!({"error": self.code.as_str(), "error_description": self.description.as_str()});
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Clients branch on these strings: changing one is changing the protocol.
    #[test]
    fn codes_stay_as_published() {
        let codes: Vec<&str> = OAuthCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(
            codes,
            [
                "invalid_request",
                "invalid_client",
                "invalid_grant",
                "unauthorized_client",
                "unsupported_grant_type",
                "invalid_scope",
                "unsupported_token_type",
                "slow_down",
                "server_error",
                "access_denied",
                "unsupported_response_type",
            ]
        );
    }

    #[test]
    fn statuses_follow_the_code() {
        let status = |err: OAuthError| err.status().as_u16();
        assert_eq!(status(OAuthError::invalid_grant("x")), 400);
        assert_eq!(status(OAuthError::invalid_client("x", false)), 400);
        assert_eq!(status(OAuthError::invalid_client("x", true)), 401);
        assert_eq!(status(OAuthError::slow_down(3)), 429);
        assert_eq!(status(OAuthError::server_error()), 500);
    }
}
