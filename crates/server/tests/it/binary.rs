//! The `commerce` binary as a child process: one-shot commands, and `commerce serve`
//! nodes that tests start, stop with SIGTERM, or kill with SIGKILL.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::support::{TestDb, access_token};

pub const BIN: &str = env!("CARGO_BIN_EXE_commerce");

/// What a one-shot command did.
pub struct Run {
    pub ok: bool,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `commerce ARGS` to its end (without the environment's database URL).
pub async fn commerce(args: &[&str]) -> Run {
    let output = Command::new(BIN)
        .args(args)
        .env_remove("COMMERCE_DATABASE_URL")
        .output()
        .await
        .expect("the binary runs");
    Run {
        ok: output.status.success(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// `commerce seed --demo --json` on the database: the demo data it printed.
pub async fn seed_demo(db: &TestDb) -> Value {
    let run = commerce(&db.args(&["seed", "--demo", "--json"])).await;
    assert!(run.ok, "{}", run.stderr);
    serde_json::from_str(run.stdout.trim()).expect("one JSON object")
}

/// Starts `commerce serve ARGS` in `dir` on a random loopback port and waits for its
/// "listening" line: the child, the address it listens on, and the lines printed before.
pub async fn spawn_serve(args: &[&str], dir: &Path) -> (Child, String, Vec<String>) {
    let mut child = Command::new(BIN)
        .arg("serve")
        .args(args)
        .current_dir(dir)
        .env("COMMERCE_LISTEN", "127.0.0.1:0")
        .env("COMMERCE_LOG", "warn")
        .env_remove("COMMERCE_DATABASE_URL")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("commerce serve starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    let address = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(rest) = line.strip_prefix("commerce listening on http://") {
                return rest.split_whitespace().next().unwrap().to_owned();
            }
            seen.push(line);
        }
        panic!("serve exited before listening: {seen:?}");
    })
    .await
    .expect("serve starts within a minute");
    (child, address, seen)
}

/// Sends SIGTERM (the child then finishes what it is doing and exits by itself).
pub async fn sigterm(child: &Child) {
    signal(child, "-TERM").await;
}

/// Kills the child with SIGKILL, with no chance to clean up, and reaps it.
pub async fn sigkill(child: &mut Child) {
    signal(child, "-KILL").await;
    let status: ExitStatus = tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("a killed process ends")
        .unwrap();
    assert_eq!(status.signal(), Some(9), "{status}");
}

async fn signal(child: &Child, which: &str) {
    let pid = child.id().expect("the child is running").to_string();
    let sent = Command::new("kill")
        .args([which, &pid])
        .status()
        .await
        .unwrap();
    assert!(sent.success(), "kill {which} {pid}");
}

/// A `commerce serve` process of a test.
pub struct Node {
    pub child: Child,
    /// `http://127.0.0.1:PORT`
    pub base: String,
}

impl Node {
    /// Starts `commerce serve ARGS` in `dir`.
    pub async fn start(args: &[&str], dir: &Path) -> Self {
        let (child, address, _) = spawn_serve(args, dir).await;
        Self {
            child,
            base: format!("http://{address}"),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Kills the node with SIGKILL.
    pub async fn kill(&mut self) {
        sigkill(&mut self.child).await;
    }
}

/// A password-grant token of the demo owner, from the node at `base`.
pub async fn demo_owner_token(client: &reqwest::Client, base: &str, demo: &Value) -> String {
    let response = client
        .post(format!("{base}/oauth/token"))
        .form(&[
            ("grant_type", "password"),
            ("client_id", demo["app"]["client_id"].as_str().unwrap()),
            (
                "client_secret",
                demo["app"]["client_secret"].as_str().unwrap(),
            ),
            ("username", demo["user"]["email"].as_str().unwrap()),
            ("password", demo["user"]["password"].as_str().unwrap()),
        ])
        .send()
        .await
        .unwrap();
    access_token(response).await
}
