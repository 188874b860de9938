//! What a stolen copy of the database gives: after a run that used every kind of secret,
//! a dump (the SQLite file, `pg_dump`) holds none of them in raw form, nor the key that
//! seals them, and no token can be made from anything in it; the server's logs (at debug
//! level) hold no secret either, nor the SMTP password or a mail's one-time token.

use std::process::Stdio;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use domain::Clock;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::Command;

use crate::binary::{BIN, seed_demo};
use crate::on_both_backends;
use crate::support::smtp::SmtpServer;
use crate::support::{Backend, TestDb, TestServer, access_token, eventually, json};

on_both_backends!(
    no_secret_is_stored_or_logged_in_raw_form,
    no_token_can_be_made_from_a_dump,
);

/// The database as a thief would take it: the SQLite files, or `pg_dump`'s output.
async fn dump(db: &TestDb) -> Vec<u8> {
    match db.backend {
        Backend::Sqlite => {
            let path = db.url.trim_start_matches("sqlite://");
            let mut bytes = Vec::new();
            for suffix in ["", "-wal"] {
                if let Ok(mut file) = std::fs::read(format!("{path}{suffix}")) {
                    bytes.append(&mut file);
                }
            }
            bytes
        }
        Backend::Postgres => {
            let dumped = Command::new("pg_dump")
                .args(["--data-only", "--no-owner", &db.url])
                .output()
                .await
                .expect("pg_dump runs");
            assert!(
                dumped.status.success(),
                "{}",
                String::from_utf8_lossy(&dumped.stderr)
            );
            dumped.stdout
        }
    }
}

/// Every form a key or secret could take in a dump: as text, and its bytes raw, in
/// base64 or in hex (as `pg_dump` writes binary columns).
fn forms(secret: &[u8]) -> Vec<Vec<u8>> {
    let hex: String = secret.iter().map(|b| format!("{b:02x}")).collect();
    vec![
        secret.to_vec(),
        STANDARD.encode(secret).into_bytes(),
        URL_SAFE_NO_PAD.encode(secret).into_bytes(),
        hex.into_bytes(),
    ]
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The encryption keys of the database's servers, as bytes.
async fn encryption_keys(db: &TestDb) -> Vec<[u8; 32]> {
    db.key_source()
        .read()
        .await
        .expect("the keys read")
        .expect("the keys exist")
}

async fn no_secret_is_stored_or_logged_in_raw_form(db: TestDb) {
    let demo = seed_demo(&db).await;
    let dir = tempfile::tempdir().unwrap();
    // A server that offers no authentication: every mail fails, and its failure is logged.
    let smtp = SmtpServer::start().await;
    let smtp_password = "smtp-password-of-the-relay";
    let smtp_url = smtp
        .url()
        .replace("smtp://", &format!("smtp://mailer:{smtp_password}@"));
    let mut child = Command::new(BIN)
        .args(db.args(&[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--log-format",
            "json",
            "--allow-private-webhook-targets",
            "--smtp-url",
            &smtp_url,
            "--mail-from",
            "shop@example.com",
        ]))
        .current_dir(dir.path())
        .env("COMMERCE_LOG", "debug")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    // Read from the start: a full pipe would stop the server before it prints its address.
    let mut stderr = child.stderr.take().unwrap();
    let logs = tokio::spawn(async move {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text).await;
        text
    });
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
    // personal token and a new app's secret (both also kept for idempotent replay), a
    // webhook's signing secret, its rotated successor and its Basic password.
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
    let post = |path: &str, key: &str, body: Value| {
        client
            .post(format!("{base}{path}"))
            .bearer_auth(&access)
            .header("idempotency-key", key)
            .json(&body)
            .send()
    };
    let (status, pat) = json(
        post(
            "/v2/personal_access_tokens",
            "pat-1",
            json!({"name": "scan", "expires": "30d", "scopes": "shops.read"}),
        )
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{pat}");
    let pat = pat["token"].as_str().unwrap().to_owned();
    let (_, registered) = json(
        post(
            "/v2/apps",
            "app-1",
            json!({"name": "Scan", "scopes": "shops.read", "grants": ["client_credentials"]}),
        )
        .await
        .unwrap(),
    )
    .await;
    let new_secret = registered["client_secret"].as_str().unwrap().to_owned();
    let shop = demo["shops"][0]["id"].as_i64().unwrap();
    let hook_password = "basic-password-of-the-hook";
    let (status, hook) = json(
        post(
            &format!("/v2/hub/{shop}/subscriptions"),
            "hook-1",
            json!({"topic": "products", "url": "http://127.0.0.1:9/hook",
                   "auth": {"type": "basic", "username": "u", "password": hook_password}}),
        )
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{hook}");
    let hook_secret = hook["secret"].as_str().unwrap().to_owned();
    let (status, rotated) = json(
        post(
            &format!("/v2/webhooks/{}/secret", hook["id"]),
            "rotate-1",
            json!({}),
        )
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{rotated}");
    let next_hook_secret = rotated["secret"].as_str().unwrap().to_owned();
    // A payment method's secret key, and a card charged through it.
    let gateway_secret = "sk_test_secret-key-of-the-gateway";
    let card_number = "4242424242424242";
    let (status, method) = json(
        post(
            &format!("/v2/shops/{shop}/payment_methods"),
            "method-1",
            json!({"type": "test_gateway", "settings": {"secret_key": gateway_secret}}),
        )
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{method}");
    let (_, product) = json(
        post(
            "/v2/products",
            "product-1",
            json!({"title": "Paid", "variants": [{"price": 1000, "stock": 5}]}),
        )
        .await
        .unwrap(),
    )
    .await;
    let variant = &product["_embedded"]["variants"][0]["id"];
    let (status, order) = json(
        post(
            &format!("/v2/shops/{shop}/orders"),
            "order-1",
            json!({"lines": [{"variant_id": variant}], "payment_method_id": method["id"]}),
        )
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{order}");
    let placed = client
        .put(format!("{base}/v2/orders/{}/place", order["id"]))
        .bearer_auth(&access)
        .send()
        .await
        .unwrap();
    assert_eq!(placed.status(), StatusCode::OK);
    let (status, paid) = json(
        post(
            &format!("/v2/orders/{}/payments", order["id"]),
            "payment-1",
            json!({"card": {"number": card_number, "exp_month": 12, "exp_year": 2099, "cvc": "123"}}),
        )
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{paid}");
    assert_eq!(paid["card"]["last4"], "4242");
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
    // A mail carrying a one-time token, tried (and failed) before the server stops.
    let mail_token = "one-time-token-of-a-mail";
    let outbox = storage::Database::connect(&db.url, &storage::StoreOptions::default())
        .await
        .unwrap();
    let secret_box = db.secret_box(&outbox).await;
    let mut tx = outbox.begin().await.unwrap();
    let mail = storage::mail_outbox::NewMail {
        account_id: demo["account_id"].as_i64(),
        purpose: "customer_password_reset",
        to: "ana@example.com",
        subject: "Reset your password",
        text: &format!("Your code: {mail_token}"),
    };
    storage::mail_outbox::enqueue(&mut tx, &secret_box, &mail, domain::SystemClock.now())
        .await
        .unwrap();
    tx.commit().await.unwrap();
    outbox.close().await;
    eventually("the mail's failed attempt recorded", || async {
        let errors: Vec<(Option<String>,)> = db.rows("SELECT last_error FROM mail_outbox").await;
        errors.into_iter().find_map(|(error,)| error)
    })
    .await;
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
    assert!(
        logs.contains("mail not sent") && logs.contains("smtp://mailer:***@"),
        "the mail's failure and the SMTP server were logged"
    );
    let stored = dump(&db).await;
    assert!(
        contains(&stored, email.as_bytes()),
        "the dump holds the data"
    );
    for (what, secret) in [
        ("password", password),
        ("client secret", app.1),
        ("access token", access.as_str()),
        ("refreshed access token", next_access.as_str()),
        ("refresh token", refresh.as_str()),
        ("personal access token", pat.as_str()),
        ("new app's secret", new_secret.as_str()),
        ("webhook secret", hook_secret.as_str()),
        ("rotated webhook secret", next_hook_secret.as_str()),
        ("webhook password", hook_password),
        ("SMTP password", smtp_password),
        ("mail's one-time token", mail_token),
        ("payment method's secret key", gateway_secret),
        ("card number", card_number),
    ] {
        assert!(
            !contains(&stored, secret.as_bytes()),
            "the {what} is stored in raw form"
        );
        assert!(!logs.contains(secret), "the {what} appears in the logs");
    }
    for key in encryption_keys(&db).await {
        for form in forms(&key) {
            assert!(
                !contains(&stored, &form),
                "the encryption key is in the dump"
            );
            assert!(
                !logs.as_bytes().windows(form.len()).any(|w| w == form),
                "the encryption key is in the logs"
            );
        }
    }
}

/// Every binary value a dump holds: `\x…` in `pg_dump`'s output, or each BLOB of a copy
/// of the SQLite files.
async fn binary_values(db: &TestDb, dumped: &[u8]) -> Vec<Vec<u8>> {
    match db.backend {
        Backend::Postgres => {
            let text = String::from_utf8_lossy(dumped);
            text.split("\\\\x")
                .skip(1)
                .map(|rest| {
                    let hex: String = rest.chars().take_while(char::is_ascii_hexdigit).collect();
                    (0..hex.len() / 2)
                        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
                        .collect()
                })
                .collect()
        }
        Backend::Sqlite => {
            let copy = tempfile::tempdir().unwrap();
            let source = db.url.trim_start_matches("sqlite://");
            for suffix in ["", "-wal"] {
                if let Ok(bytes) = std::fs::read(format!("{source}{suffix}")) {
                    std::fs::write(copy.path().join(format!("stolen.db{suffix}")), bytes).unwrap();
                }
            }
            let pool =
                sqlx::SqlitePool::connect(&format!("sqlite://{}/stolen.db", copy.path().display()))
                    .await
                    .unwrap();
            let columns: Vec<(String, String)> = sqlx::query_as(
                "SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p \
                 WHERE m.type = 'table' AND p.type = 'BLOB'",
            )
            .fetch_all(&pool)
            .await
            .unwrap();
            let mut values = Vec::new();
            for (table, column) in columns {
                let mut found: Vec<Vec<u8>> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                    "SELECT \"{column}\" FROM \"{table}\" WHERE \"{column}\" IS NOT NULL"
                )))
                .fetch_all(&pool)
                .await
                .unwrap();
                values.append(&mut found);
            }
            pool.close().await;
            values
        }
    }
}

/// A token with the claims and key id of `model`, signed with `key`.
fn forge(model: &str, key: &[u8]) -> String {
    let mut parts = model.split('.');
    let header: Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts.next().unwrap()).unwrap()).unwrap();
    let claims: Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts.next().unwrap()).unwrap()).unwrap();
    let mut forged = Header::new(Algorithm::HS256);
    forged.kid = header["kid"].as_str().map(str::to_owned);
    jsonwebtoken::encode(&forged, &claims, &EncodingKey::from_secret(key)).unwrap()
}

async fn no_token_can_be_made_from_a_dump(s: TestServer) {
    let token = s.owner_token().await;
    let accepts = |candidate: String| {
        let request = s.get("/v2", &candidate).send();
        async move { request.await.unwrap().status() == StatusCode::OK }
    };
    // The forging itself works: signed with the real key, a copy of the token passes.
    let (db, secret_box) = s.open_storage().await;
    let sealed = storage::signing_keys::active(&db).await.unwrap();
    let real = secret_box.open(&sealed[0].sealed_secret).unwrap();
    db.close().await;
    assert!(accepts(forge(&token, &real)).await, "a correct forgery");

    let dumped = dump(&s.db).await;
    let values = binary_values(&s.db, &dumped).await;
    assert!(
        values
            .iter()
            .any(|v| sealed.iter().any(|k| &k.sealed_secret == v)),
        "the dump holds the sealed signing keys"
    );
    // Every binary value, and every part of it a sealed value could hide a key in.
    let mut candidates: Vec<Vec<u8>> = Vec::new();
    for value in &values {
        candidates.push(value.clone());
        for start in [9, 21] {
            if value.len() > start + 16 {
                candidates.push(value[start..].to_vec());
                candidates.push(value[start..value.len() - 16].to_vec());
            }
        }
    }
    assert!(!contains(&dumped, &real), "the signing key is in the dump");
    for candidate in candidates {
        assert!(
            !accepts(forge(&token, &candidate)).await,
            "a token signed with a value of the dump was accepted"
        );
    }
    for key in encryption_keys(&s.db).await {
        for form in forms(&key) {
            assert!(
                !contains(&dumped, &form),
                "the encryption key is in the dump"
            );
        }
    }
    s.stop().await;
}
