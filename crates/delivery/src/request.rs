//! One HTTP POST to a webhook target: the body of an event as a subscriber sees it, the
//! headers (hook headers, Standard Webhooks signature, basic credentials), and how the
//! answer is read and classified. Never more than a few KiB of an answer are read.

use std::time::{Duration, Instant};

use base64::Engine;
use domain::webhook::ErrorClass;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};
use storage::events::Event;

use crate::signature::{WebhookSecret, signature_header};
use crate::ssrf::{Blocked, Guard};

/// How much of an answer is read before the connection is dropped.
const ANSWER_BYTES_MAX: usize = 4 * 1024;
const USER_AGENT: &str = concat!("commerce-webhooks/", env!("CARGO_PKG_VERSION"));

/// The body delivered for an event to a subscription of `shop`: Bootic-compatible.
pub fn event_body(event: &Event, shop: (i64, &str), webhook_href: &str) -> Vec<u8> {
    let item: Value = serde_json::from_str(&event.item).unwrap_or(Value::Null);
    let body = json!({
        "sequence": event.id,
        "topic": event.topic,
        "created_on": event.created_on,
        "shop_id": shop.0,
        "shop_subdomain": shop.1,
        "user_id": event.user_id,
        "user_name": event.user_name,
        "app_id": event.app_id,
        "item_type": event.item_type,
        "item_id": event.item_id,
        "item_slug": event.item_slug,
        "_embedded": {"item": item},
        "_links": {"webhook": {"href": webhook_href}},
    });
    serde_json::to_vec(&body).expect("JSON values serialise")
}

/// What identifies and authenticates one attempt.
pub struct Envelope<'a> {
    /// Stable across attempts and subscriptions: the subscriber's deduplication key.
    pub message_id: &'a str,
    pub timestamp: i64,
    pub secrets: &'a [&'a WebhookSecret],
    pub basic: Option<(&'a str, &'a str)>,
    /// Extra headers (`X-Hook-Topic`, `X-Hook-Delivery`, `X-Hook-Attempt`, `X-Hook-Ping`).
    pub hook_headers: &'a [(&'static str, String)],
}

/// How an attempt ended.
#[derive(Debug)]
pub struct Answer {
    pub status: Option<u16>,
    pub headers: HeaderMap,
    pub duration: Duration,
    /// Why it failed, if it did (a non-2xx status is a failure too).
    pub error: Option<(ErrorClass, String)>,
}

impl Answer {
    pub fn succeeded(&self) -> bool {
        self.error.is_none()
    }

    /// `Retry-After` in seconds (delta-seconds or an HTTP date), if given.
    pub fn retry_after_secs(&self, now_secs: i64) -> Option<i64> {
        let value = self
            .headers
            .get(reqwest::header::RETRY_AFTER)?
            .to_str()
            .ok()?;
        if let Ok(secs) = value.trim().parse::<i64>() {
            return Some(secs.max(0));
        }
        let at = httpdate::parse_http_date(value.trim()).ok()?;
        let at = at.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs();
        Some((i64::try_from(at).unwrap_or(i64::MAX) - now_secs).max(0))
    }
}

/// POSTs `body` to `url` and classifies the answer. The URL is checked first: a literal
/// private address is refused without a request (names are checked as they resolve).
pub async fn post(
    client: &reqwest::Client,
    guard: &Guard,
    url: &str,
    body: Vec<u8>,
    envelope: &Envelope<'_>,
) -> Answer {
    let started = Instant::now();
    let failed = |class, message: String| Answer {
        status: None,
        headers: HeaderMap::new(),
        duration: started.elapsed(),
        error: Some((class, message)),
    };
    let target = match guard.check_url(url) {
        Ok(target) => target,
        Err(blocked) => return failed(ErrorClass::Blocked, blocked.to_string()),
    };
    let signature = signature_header(
        envelope.message_id,
        envelope.timestamp,
        &body,
        envelope.secrets,
    );
    let mut headers = HeaderMap::new();
    let mut put = |name: &str, value: &str| {
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(value),
        ) {
            headers.insert(name, value);
        }
    };
    put("content-type", "application/json");
    put("user-agent", USER_AGENT);
    put("webhook-id", envelope.message_id);
    put("webhook-timestamp", &envelope.timestamp.to_string());
    if !signature.is_empty() {
        put("webhook-signature", &signature);
    }
    if let Some((user, password)) = envelope.basic {
        let token = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
        put("authorization", &format!("Basic {token}"));
    }
    for (name, value) in envelope.hook_headers {
        put(name, value);
    }
    let sent = client
        .post(target.into_url())
        .headers(headers)
        .body(body)
        .send()
        .await;
    let mut response = match sent {
        Ok(response) => response,
        Err(err) => {
            let (class, message) = classify(&err);
            return failed(class, message);
        }
    };
    // Read a little of the answer (a connection is reusable only once its body is read),
    // and never more.
    let mut read = 0;
    while read < ANSWER_BYTES_MAX {
        match response.chunk().await {
            Ok(Some(chunk)) => read += chunk.len(),
            _ => break,
        }
    }
    let status = response.status();
    let error = if status.is_success() {
        None
    } else if status.is_redirection() {
        Some((
            ErrorClass::Redirect,
            format!("answered {status}; redirects are not followed"),
        ))
    } else {
        Some((ErrorClass::Status, format!("answered {status}")))
    };
    Answer {
        status: Some(status.as_u16()),
        headers: response.headers().clone(),
        duration: started.elapsed(),
        error,
    }
}

fn classify(err: &reqwest::Error) -> (ErrorClass, String) {
    if let Some(blocked) = Blocked::cause_of(err) {
        return (ErrorClass::Blocked, blocked.to_string());
    }
    if err.is_timeout() {
        (ErrorClass::Timeout, "timed out".to_owned())
    } else if err.is_connect() {
        (
            ErrorClass::Connect,
            format!("could not connect: {}", root_cause(err)),
        )
    } else {
        (ErrorClass::Other, root_cause(err))
    }
}

fn root_cause(err: &(dyn std::error::Error + 'static)) -> String {
    std::iter::successors(Some(err), |e| e.source())
        .last()
        .map_or_else(String::new, ToString::to_string)
}
