//! After a run that used every kind of secret, neither the database nor the server's logs
//! (at debug level) hold any of them in raw form.

use std::process::Stdio;
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::Command;

use crate::on_both_backends;
use crate::support::{Backend, TestDb, access_token, json};

on_both_backends!(no_secret_is_stored_or_logged_in_raw_form);

const BIN: &str = env!("CARGO_BIN_EXE_commerce");

/// Every table's rows as text (PostgreSQL), or the database files' bytes (SQLite).
async fn database_text(db: &TestDb) -> String {
    match db.backend {
        Backend::Sqlite => {
            let path = db.url.trim_start_matches("sqlite://");
            let mut text = String::new();
            for suffix in ["", "-wal"] {
                if let Ok(bytes) = std::fs::read(format!("{path}{suffix}")) {
                    text.push_str(&String::from_utf8_lossy(&bytes));
                }
            }
            text
        }
        Backend::Postgres => {
            let pool = sqlx::PgPool::connect(&db.url).await.unwrap();
            let tables: Vec<String> = sqlx::query_scalar(
                "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public'",
            )
            .fetch_all(&pool)
            .await
            .unwrap();
            let mut text = String::new();
            for table in tables {
                let rows: Vec<String> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                    "SELECT t::text FROM \"{table}\" t"
                )))
                .fetch_all(&pool)
                .await
                .unwrap();
                text.push_str(&rows.join("\n"));
            }
            pool.close().await;
            text
        }
    }
}

async fn no_secret_is_stored_or_logged_in_raw_form(backend: Backend) {
    let Some(db) = TestDb::create(backend).await else {
        return;
    };
    let seeded = Command::new(BIN)
        .args(["seed", "--demo", "--json", "--database-url", &db.url])
        .output()
        .await
        .unwrap();
    let demo: Value = serde_json::from_slice(&seeded.stdout).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(BIN)
        .args([
            "serve",
            "--database-url",
            &db.url,
            "--listen",
            "127.0.0.1:0",
            "--log-format",
            "json",
        ])
        .current_dir(dir.path())
        .env("COMMERCE_LOG", "debug")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let address = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            let line = lines
                .next_line()
                .await
                .unwrap()
                .expect("the server prints its address");
            if let Some(rest) = line.strip_prefix("commerce listening on http://") {
                return rest.split_whitespace().next().unwrap().to_owned();
            }
        }
    })
    .await
    .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let logs = tokio::spawn(async move {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text).await;
        text
    });
    let base = format!("http://{address}");
    let client = reqwest::Client::new();
    let app = (
        demo["app"]["client_id"].as_str().unwrap(),
        demo["app"]["client_secret"].as_str().unwrap(),
    );
    let (email, password) = (
        demo["user"]["email"].as_str().unwrap(),
        demo["user"]["password"].as_str().unwrap(),
    );
    // Every kind of secret: a password, a client secret, access and refresh tokens, a
    // personal token, a newly registered app's secret.
    let (status, tokens) = json(
        client
            .post(format!("{base}/oauth/token"))
            .basic_auth(app.0, Some(app.1))
            .form(&[
                ("grant_type", "password"),
                ("username", email),
                ("password", password),
            ])
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let access = tokens["access_token"].as_str().unwrap().to_owned();
    let refresh = tokens["refresh_token"].as_str().unwrap().to_owned();
    let (_, pat) = json(
        client
            .post(format!("{base}/v2/personal_access_tokens"))
            .bearer_auth(&access)
            .json(&json!({"name": "scan", "expires": "30d", "scopes": "shops.read"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    let pat = pat["token"].as_str().unwrap().to_owned();
    let (_, registered) = json(
        client
            .post(format!("{base}/v2/apps"))
            .bearer_auth(&access)
            .json(
                &json!({"name": "Scan", "scopes": "shops.read", "grants": ["client_credentials"]}),
            )
            .send()
            .await
            .unwrap(),
    )
    .await;
    let new_secret = registered["client_secret"].as_str().unwrap().to_owned();
    // Use them, so they pass through the logs' reach.
    assert_eq!(
        client
            .get(format!("{base}/v2"))
            .bearer_auth(&pat)
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::OK
    );
    let refreshed = client
        .post(format!("{base}/oauth/token"))
        .basic_auth(app.0, Some(app.1))
        .form(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh.as_str()),
        ])
        .send()
        .await
        .unwrap();
    let next_access = access_token(refreshed).await;
    let _ = client
        .post(format!("{base}/oauth/token"))
        .form(&[
            ("grant_type", "client_credentials"),
            ("client_id", registered["client_id"].as_str().unwrap()),
            ("client_secret", new_secret.as_str()),
        ])
        .send()
        .await
        .unwrap();
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().unwrap().to_string()])
        .status()
        .await;
    let _ = tokio::time::timeout(Duration::from_secs(10), child.wait()).await;
    let logs = logs.await.unwrap();
    assert!(
        logs.contains("\"level\":\"DEBUG\""),
        "debug logs were captured"
    );
    let stored = database_text(&db).await;
    assert!(stored.contains(email), "the scan reads the data");
    for (what, secret) in [
        ("password", password),
        ("client secret", app.1),
        ("access token", access.as_str()),
        ("refreshed access token", next_access.as_str()),
        ("refresh token", refresh.as_str()),
        ("personal access token", pat.as_str()),
        ("new app's secret", new_secret.as_str()),
    ] {
        assert!(!stored.contains(secret), "the {what} is stored in raw form");
        assert!(!logs.contains(secret), "the {what} appears in the logs");
    }
}
