//! `X-Request-Id`: kept from the client when present, otherwise a random one, and echoed
//! on every answer.

use axum::http::{HeaderValue, Request};
use tower_http::request_id::{MakeRequestId, RequestId};

#[derive(Clone, Copy, Debug, Default)]
pub struct RandomRequestId;

impl MakeRequestId for RandomRequestId {
    fn make_request_id<B>(&mut self, _request: &Request<B>) -> Option<RequestId> {
        let id = hex::encode(oauth::secrets::random_bytes(12));
        HeaderValue::from_str(&id).ok().map(RequestId::new)
    }
}
