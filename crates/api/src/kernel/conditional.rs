//! Conditional requests and caching headers. Every successful GET gets a strong `ETag`
//! (a digest of the exact body, so it changes whenever the body would, links included),
//! `Cache-Control` and `Vary`; `If-None-Match` (which wins) or `If-Modified-Since` turn
//! an unchanged answer into `304`. Writes check `If-Match`/`If-Unmodified-Since` against
//! the current representation through `IfMatch`, which the service operations check once
//! they hold the resource's row. A read whose answer is remembered and still holds is
//! answered from it, without its handler (see `revalidation`).

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::response::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use domain::Timestamp;
use http_body_util::BodyExt;
use serde_json::Value;
use services::{Precondition, ServiceError, ServiceResult};
use sha2::{Digest, Sha256};

use super::error::ApiError;
use super::hal_response::{HAL_JSON, JSON, parse_http_date};
use super::revalidation::AccountData;
use super::state::AppState;

const CACHE_CONTROL: &str = "private, max-age=0, must-revalidate";

/// The entity tag an answer's representation is known by, when not the digest of its
/// bytes (the `/v1` profile takes its v2 document's: see `versioning`).
#[derive(Clone, Debug)]
pub struct RepresentationTag(pub String);

/// The strong entity tag of a body.
pub fn etag_of(body: &[u8]) -> String {
    format!("\"{}\"", &hex::encode(Sha256::digest(body))[..32])
}

pub fn etag_of_value(value: &Value) -> String {
    etag_of(&serde_json::to_vec(value).expect("HAL documents serialise"))
}

/// Whether an `If-None-Match`/`If-Match` list names `etag` (`*` names any). Weak
/// comparison: `W/` prefixes are ignored.
fn list_matches(header_value: &str, etag: &str) -> bool {
    let bare = |t: &str| t.trim().trim_start_matches("W/").to_owned();
    let wanted = bare(etag);
    header_value
        .split(',')
        .any(|t| t.trim() == "*" || bare(t) == wanted)
}

pub async fn middleware(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let wants_hal = prefers_hal(request.headers());
    let asked = Conditions::of(request.headers());
    let is_read = matches!(*request.method(), Method::GET | Method::HEAD);
    let candidate = state.revalidation.candidate(&request).await;
    if let Some(recalled) = candidate
        .as_ref()
        .and_then(|candidate| state.revalidation.recall(candidate))
    {
        let (mut parts, ()) = Response::new(()).into_parts();
        parts.headers = recalled.headers;
        match recalled.body {
            Some(body) => return negotiated(asked.answer(parts, body), wants_hal),
            None if asked.names_tag_of(&parts.headers) => return not_modified(parts),
            None => {}
        }
    }
    let response = next.run(request).await;
    if !is_read || response.status() != StatusCode::OK {
        return negotiated(response, wants_hal);
    }
    // A response that names its own version (a file named by its digest) is not read here.
    if response.headers().contains_key(header::ETAG) {
        if asked.names_tag_of(response.headers()) {
            return not_modified(response.into_parts().0);
        }
        return negotiated(response, wants_hal);
    }
    let (mut parts, body) = response.into_parts();
    let bytes = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(err) => return ApiError::internal(err).into_response(),
    };
    let etag = match parts.extensions.remove::<RepresentationTag>() {
        Some(RepresentationTag(etag)) => etag,
        None => etag_of(&bytes),
    };
    let headers = &mut parts.headers;
    headers.insert(
        header::ETAG,
        HeaderValue::from_str(&etag).expect("hex is header-safe"),
    );
    // A page that forbids caching (the authorization pages) keeps saying so.
    headers
        .entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static(CACHE_CONTROL));
    headers.insert(
        header::VARY,
        HeaderValue::from_static("Authorization, Accept, Cookie"),
    );
    if let (Some(candidate), Some(data)) = (candidate, parts.extensions.remove::<AccountData>()) {
        state
            .revalidation
            .remember(candidate, data, headers, &bytes);
    }
    negotiated(asked.answer(parts, bytes), wants_hal)
}

/// What a read's `If-None-Match` and `If-Modified-Since` ask.
struct Conditions {
    if_none_match: Option<HeaderValue>,
    if_modified_since: Option<HeaderValue>,
}

impl Conditions {
    fn of(headers: &HeaderMap) -> Self {
        Self {
            if_none_match: headers.get(header::IF_NONE_MATCH).cloned(),
            if_modified_since: headers.get(header::IF_MODIFIED_SINCE).cloned(),
        }
    }

    /// Whether `If-None-Match` names the answer's `ETag`.
    fn names_tag_of(&self, answer: &HeaderMap) -> bool {
        self.if_none_match
            .as_ref()
            .and_then(|v| v.to_str().ok())
            .zip(answer.get(header::ETAG).and_then(|v| v.to_str().ok()))
            .is_some_and(|(list, etag)| list_matches(list, etag))
    }

    /// The answer with these headers and body: `304` when the client's copy is current
    /// (`If-None-Match` wins over `If-Modified-Since`).
    fn answer(&self, parts: Parts, body: Bytes) -> Response {
        let unchanged = match (&self.if_none_match, &self.if_modified_since) {
            (Some(_), _) => self.names_tag_of(&parts.headers),
            (None, Some(ims)) => match (
                parse_http_date(ims),
                parts
                    .headers
                    .get(header::LAST_MODIFIED)
                    .and_then(parse_http_date),
            ) {
                (Some(since), Some(modified)) => modified <= since,
                _ => false,
            },
            (None, None) => false,
        };
        if unchanged {
            return not_modified(parts);
        }
        Response::from_parts(parts, Body::from(body))
    }
}

/// The response in the content type the request prefers: `application/hal+json` for a
/// JSON document when asked for alone.
fn negotiated(mut response: Response, wants_hal: bool) -> Response {
    if wants_hal
        && response
            .headers()
            .get(header::CONTENT_TYPE)
            .is_some_and(|v| v == JSON)
    {
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(HAL_JSON));
    }
    response
}

/// `304` with an answer's headers (but those of its body) and no body.
fn not_modified(mut parts: Parts) -> Response {
    parts.status = StatusCode::NOT_MODIFIED;
    parts.headers.remove(header::CONTENT_TYPE);
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::empty())
}

/// `application/hal+json` only when the client's `Accept` names it and not plain JSON.
fn prefers_hal(headers: &HeaderMap) -> bool {
    let Some(accept) = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let types: Vec<&str> = accept
        .split(',')
        .map(|t| t.split(';').next().unwrap_or("").trim())
        .collect();
    types.contains(&"application/hal+json")
        && !types
            .iter()
            .any(|t| matches!(*t, "application/json" | "*/*" | "application/*"))
}

fn preconditions_hold(
    headers: &HeaderMap,
    shown: &dyn Fn() -> Value,
    last_modified: Timestamp,
) -> bool {
    if let Some(if_match) = headers.get(header::IF_MATCH) {
        let etag = etag_of_value(&shown());
        if_match
            .to_str()
            .is_ok_and(|v| v.split(',').any(|t| t.trim() == "*" || t.trim() == etag))
    } else if let Some(since) = headers
        .get(header::IF_UNMODIFIED_SINCE)
        .and_then(parse_http_date)
    {
        last_modified.truncated_to_secs() <= since
    } else {
        true
    }
}

/// A request's `If-Match` and `If-Unmodified-Since`, checked by a service operation once
/// it holds the resource's row.
pub struct IfMatch<'a>(pub &'a HeaderMap);

impl Precondition for IfMatch<'_> {
    fn check(&self, shown: &dyn Fn() -> Value, updated_on: Timestamp) -> ServiceResult<()> {
        if preconditions_hold(self.0, shown, updated_on) {
            Ok(())
        } else {
            Err(ServiceError::PreconditionFailed)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn etag_lists() {
        let etag = etag_of(b"{}");
        assert!(list_matches(&etag, &etag));
        assert!(list_matches(&format!("\"x\", W/{etag}"), &etag));
        assert!(list_matches("*", &etag));
        assert!(!list_matches("\"other\"", &etag));
    }

    #[test]
    fn hal_only_when_asked_for_alone() {
        let mut h = HeaderMap::new();
        h.insert(
            header::ACCEPT,
            HeaderValue::from_static("application/hal+json"),
        );
        assert!(prefers_hal(&h));
        h.insert(
            header::ACCEPT,
            HeaderValue::from_static("application/hal+json, application/json;q=0.9"),
        );
        assert!(!prefers_hal(&h));
    }
}
