//! `Idempotency-Key` on POST: the first request with a key runs and its answer is kept for
//! 24 hours; a retry of the same request replays that answer with `Idempotent-Replayed:
//! true`; the key reused for a different request is a 422; a retry while the first is
//! still running is a 409. Server failures (5xx) and answers that ask to be retried
//! (`Retry-After`: a write that lost to concurrent ones) are not kept, so they may be
//! retried. Keys belong to the caller (user and app, or app), never shared across callers.
//! Kept answers are sealed, as some hold a secret shown once.
//!
//! From the claim of its key to the keeping of its answer, a request runs as a task of its
//! own: a client that goes away mid-request must not leave its key claimed with no answer
//! (a 409 for every retry until the claim is abandoned, and then the change made twice).

use std::panic::AssertUnwindSafe;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::FutureExt;
use http_body_util::BodyExt;
use sha2::{Digest, Sha256};
use storage::idempotency::{self, Claim, StoredResponse};
use tracing::Instrument;

use super::auth::Authentication;
use super::error::{ApiError, ErrorCode};
use crate::kernel::state::AppState;

const KEY_HEADER: &str = "idempotency-key";
const KEEP_SECS: i64 = 24 * 3600;
pub const MAX_KEY_LENGTH: usize = 255;
/// The answer headers worth replaying (rate-limit headers are fresh on every answer).
const KEPT_HEADERS: [HeaderName; 4] = [
    header::CONTENT_TYPE,
    header::LOCATION,
    header::LAST_MODIFIED,
    header::ETAG,
];

pub async fn middleware(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let Some(raw_key) = request.headers().get(KEY_HEADER) else {
        return next.run(request).await;
    };
    let key = match raw_key.to_str() {
        Ok(k)
            if (1..=MAX_KEY_LENGTH).contains(&k.len())
                && k.bytes().all(|b| b.is_ascii_graphic()) =>
        {
            k.to_owned()
        }
        _ => {
            return ApiError::new(
                ErrorCode::InvalidIdempotencyKey,
                format!("Idempotency-Key must be 1 to {MAX_KEY_LENGTH} visible ASCII characters"),
            )
            .into_response();
        }
    };
    // Without a principal the handler refuses the request anyway; nothing to remember.
    let Some(caller) = request
        .extensions()
        .get::<Authentication>()
        .and_then(Authentication::principal)
        .map(|p| p.caller_key())
    else {
        return next.run(request).await;
    };
    let limit = state.config.max_body_bytes;
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, limit).await else {
        return ApiError::payload_too_large(limit).into_response();
    };
    let key_digest = Sha256::digest(format!("{caller}\n{key}").as_bytes());
    let mut fingerprint = Sha256::new();
    fingerprint.update(parts.method.as_str().as_bytes());
    fingerprint.update(b"\n");
    fingerprint.update(
        parts
            .uri
            .path_and_query()
            .map_or("", |p| p.as_str())
            .as_bytes(),
    );
    fingerprint.update(b"\n");
    fingerprint.update(&bytes);
    let fingerprint = fingerprint.finalize();

    let keyed = Keyed {
        key_digest: key_digest.to_vec(),
        fingerprint: fingerprint.to_vec(),
        request: Request::from_parts(parts, Body::from(bytes)),
    };
    let work = storage::query_count::counting(answer(state, keyed, next));
    match tokio::spawn(work.in_current_span()).await {
        Ok((response, queries)) => {
            storage::query_count::note(queries);
            response
        }
        Err(err) => ApiError::internal(err).into_response(),
    }
}

/// A request with an `Idempotency-Key`, read whole.
struct Keyed {
    key_digest: Vec<u8>,
    fingerprint: Vec<u8>,
    request: Request,
}

/// Claims the key, then replays the kept answer or runs the request and keeps its answer.
async fn answer(state: AppState, keyed: Keyed, next: Next) -> Response {
    let Keyed {
        key_digest,
        fingerprint,
        request,
    } = keyed;
    let now = state.clock.now();
    match idempotency::claim(&state.db, &key_digest, &fingerprint, now, KEEP_SECS).await {
        Err(err) => ApiError::from(err).into_response(),
        Ok(Claim::Mismatch) => ApiError::invalid_field(
            "Idempotency-Key",
            "was already used for a different request",
        )
        .into_response(),
        Ok(Claim::InProgress) => ApiError::new(
            ErrorCode::RequestInProgress,
            "a request with this Idempotency-Key is still being processed",
        )
        .into_response(),
        Ok(Claim::Completed(stored)) => replay(&state, stored),
        Ok(Claim::Acquired) => {
            let response = match AssertUnwindSafe(next.run(request)).catch_unwind().await {
                Ok(response) => response,
                // Not an outcome: the key is released below, so a retry runs again.
                Err(panic) => ApiError::panicked(&*panic).into_response(),
            };
            remember(&state, &key_digest, response).await
        }
    }
}

async fn remember(state: &AppState, key: &[u8], response: Response) -> Response {
    if !worth_keeping(&response) {
        if let Err(err) = idempotency::release(&state.db, key).await {
            tracing::error!(error = %err, "could not release an idempotency key");
        }
        return response;
    }
    let (parts, body) = response.into_parts();
    let bytes = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(err) => return ApiError::internal(err).into_response(),
    };
    let stored = StoredResponse {
        status: parts.status.as_u16(),
        headers: KEPT_HEADERS
            .iter()
            .filter_map(|name| {
                let value = parts.headers.get(name)?.to_str().ok()?;
                Some((name.as_str().to_owned(), value.to_owned()))
            })
            .collect(),
        sealed_body: state.auth.secret_box().seal(&bytes),
    };
    if let Err(err) = idempotency::complete(&state.db, key, &stored).await {
        tracing::error!(error = %err, "could not keep an idempotent answer");
    }
    Response::from_parts(parts, Body::from(bytes))
}

/// Whether an answer is the request's outcome, to replay: not a server failure, nor an
/// answer asking to be sent again.
fn worth_keeping(response: &Response) -> bool {
    !response.status().is_server_error() && !response.headers().contains_key(header::RETRY_AFTER)
}

fn replay(state: &AppState, stored: StoredResponse) -> Response {
    let body = match state.auth.secret_box().open(&stored.sealed_body) {
        Ok(body) => body,
        Err(err) => return ApiError::internal(err).into_response(),
    };
    let status = StatusCode::from_u16(stored.status).unwrap_or(StatusCode::OK);
    let mut response = (status, body).into_response();
    let headers = response.headers_mut();
    for (name, value) in stored.headers {
        if let (Ok(name), Ok(value)) = (HeaderName::try_from(name), HeaderValue::try_from(value)) {
            headers.insert(name, value);
        }
    }
    headers.insert("idempotent-replayed", HeaderValue::from_static("true"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_are_kept_and_answers_asking_for_a_retry_are_not() {
        let kept = |response: ApiError| worth_keeping(&response.into_response());
        assert!(kept(ApiError::not_found()));
        assert!(kept(ApiError::invalid_field("name", "is taken")));
        assert!(!kept(ApiError::write_conflict()));
        assert!(!kept(ApiError::internal("failed")));
        assert!(worth_keeping(&StatusCode::CREATED.into_response()));
    }
}
