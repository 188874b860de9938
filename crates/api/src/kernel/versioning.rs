//! `/v1` is served as a deprecated alias of `/v2`: the same handlers, plus `Deprecation`
//! (RFC 9745), `Sunset` (RFC 8594) and a `successor-version` link. Bodies link to `/v2`.

use axum::extract::{Request, State};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;

use crate::kernel::state::AppState;

/// When `/v1` was deprecated (2026-01-01T00:00:00Z) and when it goes away.
const DEPRECATED_SINCE: &str = "@1767225600";
const SUNSET: &str = "Fri, 31 Dec 2027 23:59:59 GMT";

pub async fn deprecated_alias(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    // Inside the `/v1` nest the path no longer carries the prefix.
    let rest = match request.uri().path() {
        "/" => "",
        path => path,
    };
    let successor = format!("<{}>; rel=\"successor-version\"", state.urls.api(rest));
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert("deprecation", HeaderValue::from_static(DEPRECATED_SINCE));
    headers.insert("sunset", HeaderValue::from_static(SUNSET));
    if let Ok(link) = HeaderValue::from_str(&successor) {
        headers.append(axum::http::header::LINK, link);
    }
    response
}
