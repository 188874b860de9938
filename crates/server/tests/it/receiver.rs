//! A scripted webhook receiver: a real HTTP server on 127.0.0.1 that records every request
//! and answers as the test says (a status, the pong or a wrong one, `Retry-After`, a
//! delay, a redirect).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use tokio::net::TcpListener;

/// How to answer one request.
#[derive(Clone, Debug)]
pub struct Reply {
    pub status: u16,
    pub pong: Pong,
    pub retry_after: Option<&'static str>,
    pub delay: Duration,
    pub location: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pong {
    /// Echo `X-Hook-Ping` in `X-Hook-Pong`.
    Echo,
    Wrong,
    Missing,
}

impl Reply {
    pub fn status(status: u16) -> Self {
        Self {
            status,
            pong: Pong::Echo,
            retry_after: None,
            delay: Duration::ZERO,
            location: None,
        }
    }

    pub fn ok() -> Self {
        Self::status(200)
    }

    pub fn pong(mut self, pong: Pong) -> Self {
        self.pong = pong;
        self
    }

    pub fn retry_after(mut self, value: &'static str) -> Self {
        self.retry_after = Some(value);
        self
    }

    pub fn delayed(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    pub fn redirect_to(mut self, location: &str) -> Self {
        self.status = 301;
        self.location = Some(location.to_owned());
        self
    }
}

/// One request as received.
#[derive(Clone, Debug)]
pub struct Received {
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }

    pub fn is_ping(&self) -> bool {
        self.headers.contains_key("x-hook-ping")
    }
}

#[derive(Default)]
struct Script {
    next: VecDeque<Reply>,
    default: Option<Reply>,
    received: Vec<Received>,
}

#[derive(Clone)]
pub struct Receiver {
    script: Arc<Mutex<Script>>,
    pub url: String,
}

impl Receiver {
    pub async fn start() -> Self {
        let script = Arc::new(Mutex::new(Script::default()));
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a loopback port");
        let url = format!("http://{}", listener.local_addr().unwrap());
        let app = Router::new().fallback(answer).with_state(script.clone());
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self { script, url }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.url)
    }

    /// The answer to every request not scripted otherwise (200 with the pong by default).
    pub fn answer_always(&self, reply: Reply) {
        self.script.lock().unwrap().default = Some(reply);
    }

    /// The answer to the next request.
    pub fn answer_next(&self, reply: Reply) {
        self.script.lock().unwrap().next.push_back(reply);
    }

    pub fn received(&self) -> Vec<Received> {
        self.script.lock().unwrap().received.clone()
    }

    /// The deliveries received (not the pings).
    pub fn deliveries(&self) -> Vec<Received> {
        self.received()
            .into_iter()
            .filter(|r| !r.is_ping())
            .collect()
    }

    /// Waits (boundedly) until `done` holds for what was received.
    pub async fn wait_until(
        &self,
        what: &str,
        done: impl Fn(&[Received]) -> bool,
    ) -> Vec<Received> {
        for _ in 0..200 {
            let received = self.received();
            if done(&received) {
                return received;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!(
            "timed out waiting for {what}; received {:?}",
            self.received().len()
        );
    }
}

async fn answer(
    State(script): State<Arc<Mutex<Script>>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let reply = {
        let mut script = script.lock().unwrap();
        script.received.push(Received {
            headers: headers.clone(),
            body,
        });
        script
            .next
            .pop_front()
            .or_else(|| script.default.clone())
            .unwrap_or_else(Reply::ok)
    };
    if !reply.delay.is_zero() {
        tokio::time::sleep(reply.delay).await;
    }
    let mut response = StatusCode::from_u16(reply.status)
        .unwrap_or(StatusCode::OK)
        .into_response();
    let out = response.headers_mut();
    if let Some(ping) = headers.get("x-hook-ping") {
        match reply.pong {
            Pong::Echo => {
                out.insert("x-hook-pong", ping.clone());
            }
            Pong::Wrong => {
                out.insert("x-hook-pong", HeaderValue::from_static("not-the-ping"));
            }
            Pong::Missing => {}
        }
    }
    if let Some(value) = reply.retry_after {
        out.insert("retry-after", HeaderValue::from_static(value));
    }
    if let Some(location) = reply.location {
        out.insert("location", HeaderValue::from_str(&location).unwrap());
    }
    response
}
