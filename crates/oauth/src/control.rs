//! The authorization service's side of the control-character rule (`domain::text`). A
//! query string holding a control character anywhere is refused before any handler runs:
//! a 400 `invalid_request` at the endpoints, a 400 page on the pages (`pages::guard`). Form bodies are
//! checked where they are parsed: the endpoints' fields are single values
//! (`TextKind::Single`), the pages' may span lines (`TextKind::Free`: text areas).
//! Refusals never repeat what was sent.

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use domain::text::TextKind;

use crate::error::OAuthError;

/// The `error_description` of a refused request.
pub const DESCRIPTION: &str = "parameters must not contain control characters";
/// What a refused page says.
pub const PAGE_MESSAGE: &str = "The request holds control characters, which no field may hold.";

/// Whether a name or value of form-encoded `bytes` holds a control character `rule`
/// refuses.
pub fn refused(bytes: &[u8], rule: TextKind) -> bool {
    form_urlencoded::parse(bytes).any(|(name, value)| rule.refuses(&name) || rule.refuses(&value))
}

/// Whether the request's query holds a control character.
pub fn query_refused(request: &Request) -> bool {
    refused(
        request.uri().query().unwrap_or("").as_bytes(),
        TextKind::Single,
    )
}

/// Middleware of the endpoints (token, revocation, introspection, metadata).
pub async fn endpoint_guard(request: Request, next: Next) -> Response {
    if query_refused(&request) {
        return OAuthError::invalid_request(DESCRIPTION).into_response();
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_controls_in_names_and_values() {
        assert!(!refused(b"a=1&b=caf%C3%A9+x&c=%E2%80%AE", TextKind::Single));
        assert!(refused(b"a=1&b=%00", TextKind::Single));
        assert!(refused(b"%1B=1", TextKind::Free));
        assert!(refused(b"uris=a%0Ab", TextKind::Single));
        assert!(!refused(b"uris=a%0D%0Ab%09", TextKind::Free));
        assert!(refused(b"x=%C2%9F", TextKind::Free));
    }
}
