//! The framework answers some requests itself (405 with `Allow`, 413 from the body limit,
//! extractor rejections) with plain text or no body. This turns such an error into the
//! API's error body, keeping headers such as `Allow`. Pages that chose their own type
//! (the authorization service's HTML) are left alone.

use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::{ApiError, ErrorCode};

pub async fn middleware(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    let status = response.status();
    let framework_made = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_none_or(|v| v.starts_with("text/plain"));
    if status.as_u16() < 400 || !framework_made {
        return response;
    }
    let mut replacement = error_for(status).into_response();
    for name in [header::ALLOW, header::RETRY_AFTER, header::WWW_AUTHENTICATE] {
        if let Some(value) = response.headers().get(&name) {
            replacement.headers_mut().insert(name, value.clone());
        }
    }
    replacement
}

fn error_for(status: StatusCode) -> ApiError {
    match status {
        StatusCode::NOT_FOUND => ApiError::not_found(),
        StatusCode::METHOD_NOT_ALLOWED => ApiError::new(
            ErrorCode::MethodNotAllowed,
            "the method is not allowed on this resource; see the Allow header",
        ),
        StatusCode::PAYLOAD_TOO_LARGE => {
            ApiError::new(ErrorCode::PayloadTooLarge, "the body is too large")
        }
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ApiError::unsupported_media_type(),
        StatusCode::BAD_REQUEST => ApiError::new(ErrorCode::BadRequest, "the request is malformed"),
        StatusCode::REQUEST_TIMEOUT => {
            ApiError::new(ErrorCode::RequestTimeout, "the request took too long")
        }
        s if s.is_server_error() => {
            ApiError::internal(format!("the framework answered {s} without a body"))
        }
        s => ApiError::refused(s),
    }
}
