//! What `commerce serve` logs, read from a pipe as a log collector reads it.

use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::Command;

use crate::binary::{BIN, sigterm};

/// Logs written to a pipe (a file, a collector) carry no terminal colour codes, as text
/// or as JSON, even when nothing asks for plain output (`NO_COLOR` unset).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_to_a_pipe_carry_no_colour_codes() {
    for format in ["text", "json"] {
        let dir = tempfile::tempdir().unwrap();
        let mut child = Command::new(BIN)
            .args(["serve", "--log-format", format])
            .current_dir(dir.path())
            .env("COMMERCE_LISTEN", "127.0.0.1:0")
            .env("COMMERCE_LOG", "info")
            .env_remove("COMMERCE_DATABASE_URL")
            .env_remove("NO_COLOR")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("commerce serve starts");
        let mut stderr = child.stderr.take().unwrap();
        let logs = tokio::spawn(async move {
            let mut logs = Vec::new();
            stderr.read_to_end(&mut logs).await.unwrap();
            String::from_utf8_lossy(&logs).into_owned()
        });
        let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut printed = Vec::new();
        tokio::time::timeout(Duration::from_secs(60), async {
            while let Some(line) = stdout.next_line().await.unwrap() {
                let listening = line.starts_with("commerce listening on http://");
                printed.push(line);
                if listening {
                    return;
                }
            }
            panic!("serve exited before listening: {printed:?}");
        })
        .await
        .expect("serve starts within a minute");
        sigterm(&child).await;
        let status = tokio::time::timeout(Duration::from_secs(30), child.wait())
            .await
            .expect("serve stops after SIGTERM")
            .unwrap();
        assert!(status.success(), "{status}");
        let logs = tokio::time::timeout(Duration::from_secs(10), logs)
            .await
            .expect("the log pipe closes")
            .unwrap();
        assert!(
            logs.contains("serving") && logs.contains("shutting down"),
            "{format}: {logs}"
        );
        assert!(!logs.contains('\u{1b}'), "{format}: {logs:?}");
        assert!(!printed.concat().contains('\u{1b}'), "{printed:?}");
    }
}
