//! Browser sessions and CSRF protection for the pages. The session cookie holds a random
//! value whose digest names a row; forms carry a CSRF token that must equal the value of a
//! second, strict same-site cookie (double submit).

use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;
use storage::users::{self, User};
use storage::web_sessions;

use crate::secrets;
use crate::service::AuthService;

pub const SESSION_COOKIE: &str = "commerce_session";
pub const CSRF_COOKIE: &str = "commerce_csrf";
const SESSION_SECS: i64 = 12 * 3600;

/// The value of a cookie of the request.
pub fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(n, _)| *n == name)
        .map(|(_, value)| value)
}

fn attributes(auth: &AuthService, same_site: &str) -> String {
    let secure = if auth.config.issuer.starts_with("https://") {
        "; Secure"
    } else {
        ""
    };
    format!("; Path=/oauth; HttpOnly; SameSite={same_site}{secure}")
}

fn set_cookie(response: &mut Response, value: String) {
    if let Ok(value) = HeaderValue::from_str(&value) {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
}

/// The signed-in user, if the request carries a live session.
pub async fn current_user(
    auth: &AuthService,
    headers: &HeaderMap,
) -> storage::Result<Option<User>> {
    let Some(raw) = cookie(headers, SESSION_COOKIE) else {
        return Ok(None);
    };
    let digest = secrets::sha256(raw.as_bytes());
    match web_sessions::user_of(&auth.db, &digest, auth.clock.now()).await? {
        Some(user_id) => users::find(&auth.db, user_id).await,
        None => Ok(None),
    }
}

/// Starts a session for `user_id` on `response`.
pub async fn start(
    auth: &AuthService,
    user_id: i64,
    response: &mut Response,
) -> storage::Result<()> {
    let raw = secrets::random_token(32);
    let now = auth.clock.now();
    let mut tx = auth.db.begin().await?;
    web_sessions::insert(
        &mut tx,
        &secrets::sha256(raw.as_bytes()),
        user_id,
        now,
        now.plus_secs(SESSION_SECS),
    )
    .await?;
    tx.commit().await?;
    set_cookie(
        response,
        format!(
            "{SESSION_COOKIE}={raw}; Max-Age={SESSION_SECS}{}",
            attributes(auth, "Lax")
        ),
    );
    Ok(())
}

/// Ends the request's session, if any.
pub async fn end(
    auth: &AuthService,
    headers: &HeaderMap,
    response: &mut Response,
) -> storage::Result<()> {
    if let Some(raw) = cookie(headers, SESSION_COOKIE) {
        let mut tx = auth.db.begin().await?;
        web_sessions::delete(&mut tx, &secrets::sha256(raw.as_bytes())).await?;
        tx.commit().await?;
    }
    set_cookie(
        response,
        format!("{SESSION_COOKIE}=; Max-Age=0{}", attributes(auth, "Lax")),
    );
    Ok(())
}

/// The CSRF token for the forms of a page: the request's, or a new one to be set with
/// [`Csrf::set_on`].
pub struct Csrf {
    pub token: String,
    fresh: bool,
}

impl Csrf {
    pub fn for_request(headers: &HeaderMap) -> Self {
        match cookie(headers, CSRF_COOKIE).filter(|t| t.len() >= 32) {
            Some(token) => Self {
                token: token.to_owned(),
                fresh: false,
            },
            None => Self {
                token: secrets::random_token(32),
                fresh: true,
            },
        }
    }

    pub fn set_on(&self, auth: &AuthService, response: &mut Response) {
        if self.fresh {
            set_cookie(
                response,
                format!("{CSRF_COOKIE}={}{}", self.token, attributes(auth, "Strict")),
            );
        }
    }

    /// Whether a form's token matches the request's cookie.
    pub fn verify(headers: &HeaderMap, submitted: Option<&str>) -> bool {
        match (cookie(headers, CSRF_COOKIE), submitted) {
            (Some(expected), Some(given)) => {
                expected.len() >= 32
                    && secrets::constant_time_eq(expected.as_bytes(), given.as_bytes())
            }
            _ => false,
        }
    }
}
