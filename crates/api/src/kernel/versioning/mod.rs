//! `/v1`: the v1 profile of the same handlers, for the published v1 clients (see
//! [`profile`]), with `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and a
//! `successor-version` link to `/v2`.
//!
//! A v1 document's `ETag` is its v2 document's: the profile is a function of the v2
//! document, so the tag changes exactly when the v1 body does, and an `If-Match` a v1
//! client sends is checked as a v2 client's would be.

pub mod profile;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::BodyExt;

use self::profile::Profile;
use crate::kernel::conditional::{RepresentationTag, etag_of};
use crate::kernel::error::ApiError;
use crate::kernel::state::AppState;

/// When `/v1` was deprecated (2026-01-01T00:00:00Z) and when it goes away.
const DEPRECATED_SINCE: &str = "@1767225600";
const SUNSET: &str = "Fri, 31 Dec 2027 23:59:59 GMT";

pub async fn v1_profile(State(state): State<AppState>, request: Request, next: Next) -> Response {
    // Inside the `/v1` nest the path no longer carries the prefix.
    let rest = match request.uri().path() {
        "/" => "",
        path => path,
    };
    let successor = format!("<{}>; rel=\"successor-version\"", state.urls.api(rest));
    let response = next.run(request).await;
    let mut response = in_profile(&state, response).await;
    let headers = response.headers_mut();
    headers.insert("deprecation", HeaderValue::from_static(DEPRECATED_SINCE));
    headers.insert("sunset", HeaderValue::from_static(SUNSET));
    if let Ok(link) = HeaderValue::from_str(&successor) {
        headers.append(header::LINK, link);
    }
    response
}

/// The answer with its JSON document, `Location` and `Link` headers in the v1 profile.
async fn in_profile(state: &AppState, response: Response) -> Response {
    let v1 = format!("{}/v1", state.urls.public());
    let profile = Profile {
        v2: state.urls.base(),
        v1: &v1,
        docs: &format!("{}/docs/v1", state.urls.public()),
    };
    let (mut parts, body) = response.into_parts();
    if let Some(location) = parts
        .headers
        .get(header::LOCATION)
        .and_then(|v| v.to_str().ok())
        && let Some(rest) = location.strip_prefix(profile.v2)
        && let Ok(moved) = HeaderValue::from_str(&format!("{v1}{rest}"))
    {
        parts.headers.insert(header::LOCATION, moved);
    }
    let is_json = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !is_json {
        return Response::from_parts(parts, body);
    }
    let bytes = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(err) => return ApiError::internal(err).into_response(),
    };
    let Ok(mut document) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    if parts.status == StatusCode::OK && !parts.headers.contains_key(header::ETAG) {
        parts.extensions.insert(RepresentationTag(etag_of(&bytes)));
    }
    profile.convert(&mut document);
    let converted = serde_json::to_vec(&document).expect("JSON documents serialise");
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(converted))
}
