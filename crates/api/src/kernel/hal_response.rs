//! A HAL document as a response: JSON bytes, `Last-Modified`, and `Location` on creation.
//! The content type follows the request's `Accept` (see `conditional`).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use domain::Timestamp;
use serde_json::Value;

use super::revalidation::AccountData;

pub const JSON: &str = "application/json; charset=utf-8";
pub const HAL_JSON: &str = "application/hal+json; charset=utf-8";

pub struct Hal {
    status: StatusCode,
    body: Document,
    last_modified: Option<Timestamp>,
    location: Option<String>,
    shows: Option<AccountData>,
    /// The document holds a secret (a new session's token): no cache may keep it.
    no_store: bool,
}

/// A response's document: a value, or JSON text a resource was written as (see
/// `hal::Resource::into_json`).
pub enum Document {
    Value(Value),
    Json(Vec<u8>),
}

impl From<Value> for Document {
    fn from(value: Value) -> Self {
        Document::Value(value)
    }
}

impl From<Vec<u8>> for Document {
    fn from(json: Vec<u8>) -> Self {
        Document::Json(json)
    }
}

impl Hal {
    pub fn ok(body: impl Into<Document>, last_modified: Timestamp) -> Self {
        Self {
            status: StatusCode::OK,
            body: body.into(),
            last_modified: Some(last_modified),
            location: None,
            shows: None,
            no_store: false,
        }
    }

    /// Says that the document shows these accounts' data and nothing else that can
    /// change besides the token and the URL: a conditional read of it may be answered
    /// without reading (see `revalidation`). `None` says nothing.
    pub fn showing(mut self, accounts: Option<AccountData>) -> Self {
        self.shows = accounts;
        self
    }

    /// `202 Accepted`: the resource, which work off the request path completes, at `location`.
    pub fn accepted(body: Value, location: String, last_modified: Timestamp) -> Self {
        Self {
            status: StatusCode::ACCEPTED,
            ..Self::created(body, location, last_modified)
        }
    }

    pub fn created(body: Value, location: String, last_modified: Timestamp) -> Self {
        Self {
            status: StatusCode::CREATED,
            body: body.into(),
            last_modified: Some(last_modified),
            location: Some(location),
            shows: None,
            no_store: false,
        }
    }

    /// The document holds a secret shown this once: `Cache-Control: no-store`.
    pub fn no_store(mut self) -> Self {
        self.no_store = true;
        self
    }
}

/// An HTTP date for `Last-Modified` and friends.
pub fn http_date(t: Timestamp) -> HeaderValue {
    let secs = u64::try_from(t.as_secs()).unwrap_or(0);
    let time = std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs);
    HeaderValue::from_str(&httpdate::fmt_http_date(time)).expect("HTTP dates are header-safe")
}

pub fn parse_http_date(value: &HeaderValue) -> Option<Timestamp> {
    let time = httpdate::parse_http_date(value.to_str().ok()?).ok()?;
    let secs = time.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs();
    Some(Timestamp::from_secs(i64::try_from(secs).ok()?))
}

impl IntoResponse for Hal {
    fn into_response(self) -> Response {
        let body = match self.body {
            Document::Value(value) => serde_json::to_vec(&value).expect("HAL documents serialise"),
            Document::Json(json) => json,
        };
        let mut response = (self.status, body).into_response();
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(JSON));
        if let Some(t) = self.last_modified {
            headers.insert(header::LAST_MODIFIED, http_date(t));
        }
        if let Some(location) = self.location
            && let Ok(value) = HeaderValue::from_str(&location)
        {
            headers.insert(header::LOCATION, value);
        }
        if self.no_store {
            headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            headers.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
        }
        if let Some(accounts) = self.shows {
            response.extensions_mut().insert(accounts);
        }
        response
    }
}
