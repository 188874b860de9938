//! Just enough of the W3C WebDriver protocol to drive Debian's Chromium through
//! chromedriver: a session, navigation, finding and clicking elements, typing.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::process::{Child, Command};

const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

fn binary(variable: &str, default: &str) -> Option<String> {
    let path = std::env::var(variable).unwrap_or_else(|_| default.to_owned());
    Path::new(&path).exists().then_some(path)
}

/// A headless Chromium controlled through chromedriver; both end when dropped.
pub struct Browser {
    client: reqwest::Client,
    session: String,
    _driver: Child,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// `None` (with a notice) when Chromium or chromedriver is missing outside CI.
    pub async fn start() -> Option<Self> {
        let (Some(chromium), Some(chromedriver)) = (
            binary("COMMERCE_TEST_CHROMIUM", "/usr/bin/chromium"),
            binary("COMMERCE_TEST_CHROMEDRIVER", "/usr/bin/chromedriver"),
        ) else {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("CI needs Debian's chromium and chromium-driver (.ci/run installs them)");
            }
            eprintln!("notice: chromium or chromedriver is missing; skipping the browser test");
            return None;
        };
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let driver = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("chromedriver starts");
        let client = reqwest::Client::new();
        let base = format!("http://127.0.0.1:{port}");
        let mut ready = false;
        for _ in 0..100 {
            if let Ok(response) = client.get(format!("{base}/status")).send().await
                && response.status().is_success()
            {
                ready = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(ready, "chromedriver did not start");
        let profile = tempfile::tempdir().unwrap();
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--no-first-run", "--disable-quic", format!("--user-data-dir={}", profile.path().display()),
                ]
            }
        }}});
        let created: Value = client
            .post(format!("{base}/session"))
            .json(&capabilities)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let session = created["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no WebDriver session: {created}"))
            .to_owned();
        Some(Self {
            client,
            session: format!("{base}/session/{session}"),
            _driver: driver,
            _profile: profile,
        })
    }

    async fn call(&self, method: reqwest::Method, path: &str, body: Value) -> Value {
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.session));
        if !body.is_null() {
            request = request.json(&body);
        }
        let response: Value = request.send().await.unwrap().json().await.unwrap();
        response["value"].clone()
    }

    pub async fn goto(&self, url: &str) {
        self.call(reqwest::Method::POST, "/url", json!({"url": url}))
            .await;
    }

    pub async fn current_url(&self) -> String {
        self.call(reqwest::Method::GET, "/url", Value::Null)
            .await
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// The element matching `css`, waiting up to ten seconds for it to appear.
    pub async fn find(&self, css: &str) -> String {
        for _ in 0..100 {
            let found = self
                .call(
                    reqwest::Method::POST,
                    "/element",
                    json!({"using": "css selector", "value": css}),
                )
                .await;
            if let Some(id) = found[ELEMENT_KEY].as_str() {
                return id.to_owned();
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let last = self
            .call(
                reqwest::Method::POST,
                "/element",
                json!({"using": "css selector", "value": css}),
            )
            .await;
        let source = self
            .call(reqwest::Method::GET, "/source", Value::Null)
            .await;
        panic!(
            "no element {css} on {}: {last} in {source}",
            self.current_url().await
        );
    }

    pub async fn type_into(&self, css: &str, text: &str) {
        let element = self.find(css).await;
        self.call(
            reqwest::Method::POST,
            &format!("/element/{element}/value"),
            json!({"text": text}),
        )
        .await;
    }

    pub async fn click(&self, css: &str) {
        let element = self.find(css).await;
        self.call(
            reqwest::Method::POST,
            &format!("/element/{element}/click"),
            json!({}),
        )
        .await;
    }

    /// Waits up to ten seconds for the address to start with `prefix`.
    pub async fn wait_for_url(&self, prefix: &str) -> String {
        for _ in 0..100 {
            let url = self.current_url().await;
            if url.starts_with(prefix) {
                return url;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("never reached {prefix}; at {}", self.current_url().await);
    }

    pub async fn quit(self) {
        let _ = self.client.delete(&self.session).send().await;
    }
}
