//! The authorization service's pages: sign-in, consent at the authorization endpoint, and
//! the developer credentials page. Server-rendered HTML, no scripts.

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

/// Where the sign-in page may send the browser afterwards: only our own pages, so the
/// login form is no open redirect.
pub fn safe_continue(target: Option<&str>) -> &str {
    match target {
        Some(t) if t.starts_with("/oauth/") && !t.contains("//") && !t.contains('\\') => t,
        _ => paths::CREDENTIALS,
    }
}
