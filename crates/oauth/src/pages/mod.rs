//! The authorization service's pages: sign-in, consent at the authorization endpoint, the
//! developer credentials page, and the page where an invited shop admin accepts.
//! Server-rendered HTML, no scripts.

use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use domain::text::TextKind;

use crate::{control, paths};
use html::error_page;

pub mod authorize;
pub mod credentials;
pub(crate) mod html;
pub mod invitations;
pub mod login;
mod session;

pub use session::SESSION_COOKIE;

/// Middleware of the pages: a query holding a control character is a 400 page.
pub async fn guard(request: Request, next: Next) -> Response {
    if control::query_refused(&request) {
        return ControlCharacters.into_response();
    }
    next.run(request).await
}

/// Parameters holding control characters: a 400 page.
pub struct ControlCharacters;

impl IntoResponse for ControlCharacters {
    fn into_response(self) -> Response {
        error_page(StatusCode::BAD_REQUEST, control::PAGE_MESSAGE)
    }
}

/// Query or form parameters of a page request: empty values count as absent; a name
/// may repeat (check boxes), which an authorization request treats as an error.
pub struct Params(Vec<(String, String)>);

impl Params {
    /// The parameters, refused when they hold a control character other than the tab
    /// and line breaks a text area sends (`control`).
    pub fn parse(bytes: &[u8]) -> Result<Self, ControlCharacters> {
        if control::refused(bytes, TextKind::Free) {
            return Err(ControlCharacters);
        }
        Ok(Self(
            form_urlencoded::parse(bytes)
                .filter(|(_, value)| !value.is_empty())
                .map(|(name, value)| (name.into_owned(), value.into_owned()))
                .collect(),
        ))
    }

    /// The first value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.0
            .iter()
            .filter(move |(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn is_repeated(&self, name: &str) -> bool {
        self.0.iter().filter(|(n, _)| n == name).nth(1).is_some()
    }

    pub fn first_repeated(&self) -> Option<&str> {
        self.0
            .iter()
            .map(|(name, _)| name.as_str())
            .find(|name| self.is_repeated(name))
    }
}

/// The sign-in page, sending the browser on to `back` once signed in.
pub fn sign_in_then(back: &str) -> String {
    let query = form_urlencoded::Serializer::new(String::new())
        .append_pair("continue", back)
        .finish();
    format!("{}?{query}", paths::LOGIN)
}

/// Where the sign-in page may send the browser afterwards, so that the login form is no
/// open redirect: the authorization endpoint or the credentials page, by exactly their
/// paths, with any query of printable ASCII (an authorization request's query may hold
/// an unencoded redirect URI, `//` and all: after a path of our own it cannot change the
/// origin). Anything else (`//evil`, `/\evil`, `https://evil`, an encoded or look-alike
/// path, whitespace a browser would drop) goes to the credentials page.
pub fn safe_continue(target: Option<&str>) -> &str {
    let ours = |target: &&str| {
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        [paths::AUTHORIZE, paths::CREDENTIALS].contains(&path)
            && query.bytes().all(|b| b.is_ascii_graphic())
    };
    target.filter(ours).unwrap_or(paths::CREDENTIALS)
}

#[cfg(test)]
mod tests {
    use super::safe_continue;

    #[test]
    fn continue_keeps_any_authorization_request() {
        for target in [
            "/oauth/authorize?client_id=a&redirect_uri=http://localhost:3000/cb&response_type=code&state=x",
            "/oauth/authorize?client_id=a&redirect_uri=http%3A%2F%2Flocalhost%3A3000%2Fcb&response_type=code",
            "/oauth/authorize?redirect_uri=https://a.example/cb?next=//b&scope=a,b&extra=\\x#frag",
            "/oauth/authorize?",
            "/oauth/authorize",
            "/oauth/credentials",
        ] {
            assert_eq!(safe_continue(Some(target)), target);
        }
    }

    #[test]
    fn continue_never_leaves_the_service() {
        for target in [
            "//evil.example",
            "//evil.example/oauth/authorize?x=1",
            "/\\evil.example",
            "/\\evil.example/oauth/authorize",
            "\\\\evil.example",
            "https://evil.example/oauth/authorize",
            "http:evil.example",
            "javascript:alert(1)",
            "/%2F/evil.example",
            "%2F%2Fevil.example",
            "/oauth/authorize/../..//evil.example",
            "/oauth//authorize",
            "/oauth/authorize.evil.example",
            "/oauth/%61uthorize?x=1",
            "/oauth/authorize#//evil.example?x",
            " /oauth/authorize",
            "\t//evil.example",
            "/\t/evil.example",
            "/oauth/authorize?x=\n",
            "/oauth/authorize?x=caf\u{e9}",
            "/oauth/credentials/tokens",
            "/oauth/login?continue=//evil.example",
            "",
        ] {
            assert_eq!(
                safe_continue(Some(target)),
                "/oauth/credentials",
                "{target:?}"
            );
        }
        assert_eq!(safe_continue(None), "/oauth/credentials");
    }
}
