//! The pages' HTML: escaping, one layout, and the headers every page carries (no
//! framing, no referrer, no caching, no sniffing).

use std::borrow::Cow;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

pub fn escape(text: &str) -> Cow<'_, str> {
    html_escape::encode_quoted_attribute(text)
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:30rem;margin:3rem auto;padding:0 1rem;\
line-height:1.5;color:#1d1d1f}h1{font-size:1.4rem}label{display:block;margin:.75rem 0 .25rem}\
input[type=email],input[type=password],input[type=text],select{width:100%;padding:.5rem;box-sizing:border-box}\
button{padding:.5rem 1rem;margin:1rem .5rem 0 0}.error{color:#b00020}.muted{color:#666;font-size:.9rem}\
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.25rem .5rem .25rem 0;vertical-align:top}\
code{word-break:break-all}";

/// A full page.
pub fn page(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>{}</title><style>{STYLE}</style></head><body>{body}</body></html>",
        escape(title)
    );
    let mut response = (status, html).into_response();
    secure(&mut response);
    response
}

/// A page saying what went wrong, where no redirect to the client is safe.
pub fn error_page(status: StatusCode, message: &str) -> Response {
    page(
        status,
        "Request refused",
        &format!(
            "<h1>This request cannot go on</h1><p class=\"error\">{}</p>",
            escape(message)
        ),
    )
}

/// The headers of every page and redirect of the authorization service.
pub fn secure(response: &mut Response) {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
}

/// A 303 to `location` (never 307: the browser must not re-post credentials).
pub fn see_other(location: &str) -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    secure(&mut response);
    if let Ok(value) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}

/// Hidden form fields carrying `params`.
pub fn hidden_fields<'a>(params: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    params
        .into_iter()
        .map(|(name, value)| {
            format!(
                "<input type=\"hidden\" name=\"{}\" value=\"{}\">",
                escape(name),
                escape(value)
            )
        })
        .collect()
}
