//! `X-Db-Queries`: how many queries a request sent to the database, when the server is
//! configured to say (tests assert with it that a page costs the same whatever its size).

use axum::extract::{Request, State};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;

use crate::kernel::state::AppState;

pub const HEADER: &str = "x-db-queries";

pub async fn middleware(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if !state.config.count_queries {
        return next.run(request).await;
    }
    let (mut response, queries) = storage::query_count::counting(next.run(request)).await;
    response
        .headers_mut()
        .insert(HEADER, HeaderValue::from(queries));
    response
}
