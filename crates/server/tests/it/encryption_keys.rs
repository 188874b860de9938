//! The encryption keys that seal the database's secrets live outside it: a key file made
//! beside a SQLite database, or keys configured on every PostgreSQL node (refused at start
//! when missing); and rotating them keeps every secret readable by running and restarted
//! servers alike.

use std::path::{Path, PathBuf};
use std::time::Duration;

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

use crate::binary::{Node, commerce, demo_owner_token, sigterm};
use crate::on_both_backends;
use crate::receiver::{Received, Receiver};
use crate::support::{Backend, TestDb, json};

on_both_backends!(
    the_encryption_key_lives_outside_the_database,
    rotating_the_key_file_keeps_every_secret_readable,
    configured_keys_rotate_by_resealing,
);

/// `commerce ARGS` on `url` with these key arguments, which must succeed: its output.
async fn run(args: &[&str], url: &str, keys: &[&str]) -> String {
    let mut all = args.to_vec();
    all.extend(["--database-url", url]);
    all.extend(keys);
    let done = commerce(&all).await;
    assert!(done.ok, "{all:?}: {}", done.stderr);
    done.stdout
}

/// `commerce ARGS`, which must fail with one line: that line.
async fn refused(args: &[&str]) -> String {
    let done = commerce(args).await;
    assert!(!done.ok, "{args:?} should fail");
    let lines: Vec<&str> = done.stderr.lines().collect();
    assert!(
        lines.len() == 1 && lines[0].starts_with("error: "),
        "{args:?}: {}",
        done.stderr
    );
    lines[0].to_owned()
}

fn key_file_of(db: &TestDb) -> PathBuf {
    Path::new(db.url.trim_start_matches("sqlite://")).with_extension("key")
}

#[cfg(unix)]
fn mode_of(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

async fn the_encryption_key_lives_outside_the_database(db: TestDb) {
    let dir = tempfile::tempdir().unwrap();
    match db.backend {
        Backend::Sqlite => {
            run(&["seed", "--demo", "--json"], &db.url, &[]).await;
            // A key file beside the database, readable by its owner alone.
            let file = key_file_of(&db);
            let keys = std::fs::read_to_string(&file).expect("the key file is made");
            assert_eq!(storage::secret_box::parse_keys(&keys).unwrap().len(), 1);
            #[cfg(unix)]
            assert_eq!(mode_of(&file), 0o600);
            let kept: Vec<(String,)> = db.rows("SELECT name FROM settings").await;
            assert_eq!(
                kept,
                vec![("sealed_format".to_owned(),)],
                "no key in the database"
            );
            // Without it, nothing starts: a new key would not open what the old one sealed.
            std::fs::rename(&file, dir.path().join("saved.key")).unwrap();
            let line = refused(&[
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--database-url",
                &db.url,
            ])
            .await;
            assert!(
                line.contains("key file") && line.contains("missing"),
                "{line}"
            );
            assert!(!file.exists(), "no new key replaces it");
            std::fs::rename(dir.path().join("saved.key"), &file).unwrap();
            let node = Node::start(&["--database-url", &db.url], dir.path()).await;
            let mut child = node.child;
            sigterm(&child).await;
            let _ = tokio::time::timeout(Duration::from_secs(10), child.wait()).await;
        }
        Backend::Postgres => {
            // PostgreSQL nodes must share a key: none given, none made, nothing touched.
            for args in [
                &["serve", "--listen", "127.0.0.1:0"][..],
                &["seed", "--demo"][..],
                &["apps", "create", "--name", "x"][..],
            ] {
                let mut all = args.to_vec();
                all.extend(["--database-url", &db.url]);
                let line = refused(&all).await;
                assert!(line.contains("--encryption-key"), "{line}");
            }
            let tables: Vec<(i64,)> = db
                .rows(
                    "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'public'",
                )
                .await;
            assert_eq!(tables, vec![(0,)], "refused before the database is touched");
            // A configured key file must exist: every node needs the same one.
            let missing = dir.path().join("missing.key");
            let line = refused(&[
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--database-url",
                &db.url,
                "--encryption-key-file",
                missing.to_str().unwrap(),
            ])
            .await;
            assert!(line.contains("missing.key"), "{line}");
            assert!(!missing.exists());
            // A key that is not 32 bytes of base64 is named as such.
            let line = refused(&[
                "seed",
                "--demo",
                "--database-url",
                &db.url,
                "--encryption-key",
                "c2hvcnQ=",
            ])
            .await;
            assert!(line.contains("32 bytes"), "{line}");
        }
    }
}

/// What a deployment holds before its keys change: an owner token, a webhook with a
/// signing secret and a Basic password, an answer kept for an idempotent retry, and a
/// payment method with a secret setting (at this path).
struct Secrets {
    token: String,
    hook_secret: String,
    kept: Value,
    payment_method: String,
}

/// Makes every kind of sealed secret on the node at `base`.
async fn make_secrets(client: &Client, base: &str, demo: &Value, receiver: &Receiver) -> Secrets {
    let token = demo_owner_token(client, base, demo).await;
    let shop = demo["shops"][0]["id"].as_i64().unwrap();
    let (status, hook) = json(
        client
            .post(format!("{base}/v2/hub/{shop}/subscriptions"))
            .bearer_auth(&token)
            .json(&json!({"topic": "products", "url": receiver.url("/hook"),
                          "auth": {"type": "basic", "username": "hook", "password": "pw"}}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{hook}");
    let webhook = format!("{base}/v2/webhooks/{}", hook["id"]);
    for _ in 0..400 {
        let (_, now) = json(
            client
                .get(&webhook)
                .bearer_auth(&token)
                .send()
                .await
                .unwrap(),
        )
        .await;
        if now["status"] == "active" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let kept = idempotent_token(client, base, &token).await;
    assert_eq!(kept.0, None, "the first answer is not a replay");
    let (status, method) = json(
        client
            .post(format!("{base}/v2/shops/{shop}/payment_methods"))
            .bearer_auth(&token)
            .json(&json!({"type": "test_gateway", "settings": {"secret_key": "sk_test_sealed"}}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{method}");
    Secrets {
        token,
        hook_secret: hook["secret"].as_str().unwrap().to_owned(),
        kept: kept.1,
        payment_method: format!("/v2/shops/{shop}/payment_methods/{}", method["id"]),
    }
}

/// Creates a personal access token under one idempotency key: whether the answer was a
/// replay, and the answer.
async fn idempotent_token(client: &Client, base: &str, token: &str) -> (Option<String>, Value) {
    let response = client
        .post(format!("{base}/v2/personal_access_tokens"))
        .bearer_auth(token)
        .header("idempotency-key", "rotation")
        .json(&json!({"name": "kept", "expires": "30d", "scopes": "shops.read"}))
        .send()
        .await
        .unwrap();
    let replayed = response
        .headers()
        .get("idempotent-replayed")
        .map(|v| v.to_str().unwrap().to_owned());
    let (status, body) = json(response).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    (replayed, body)
}

/// Every secret still works on the node at `base`: the owner's token verifies (its signing
/// key opens), the demo app renews a token by the JWT bearer grant (its client secret
/// opens), a change reaches the webhook signed and with its Basic password, and the kept
/// answer is replayed.
async fn every_secret_works(
    client: &Client,
    base: &str,
    demo: &Value,
    receiver: &Receiver,
    secrets: &Secrets,
) {
    let status = client
        .get(format!("{base}/v2"))
        .bearer_auth(&secrets.token)
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, StatusCode::OK, "the owner's token verifies");
    let fresh = demo_owner_token(client, base, demo).await;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let assertion = jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &json!({"iss": demo["app"]["client_id"], "aud": "commerce", "exp": now + 300, "sub": fresh}),
        &EncodingKey::from_secret(demo["app"]["client_secret"].as_str().unwrap().as_bytes()),
    )
    .unwrap();
    let (status, renewed) = json(
        client
            .post(format!("{base}/oauth/token"))
            .form(&[
                ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
                ("assertion", assertion.as_str()),
            ])
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "the client secret opens: {renewed}");
    // The renewal superseded `fresh`: a chain has one live token.
    let renewed = renewed["access_token"].as_str().unwrap();
    let title = format!("Sealed {}", fresh.len() + receiver.deliveries().len());
    let (status, _) = json(
        client
            .post(format!("{base}/v2/products"))
            .bearer_auth(renewed)
            .json(&json!({"title": title, "price": 1}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let received = receiver
        .wait_until("the change's delivery", |r| {
            r.iter()
                .any(|d| !d.is_ping() && d.json()["_embedded"]["item"]["title"] == title)
        })
        .await;
    let delivery: &Received = received
        .iter()
        .find(|d| !d.is_ping() && d.json()["_embedded"]["item"]["title"] == title)
        .unwrap();
    let mut headers = http::HeaderMap::new();
    for name in ["webhook-id", "webhook-timestamp", "webhook-signature"] {
        headers.insert(name, delivery.headers[name].clone());
    }
    standardwebhooks::Webhook::new(&secrets.hook_secret)
        .unwrap()
        .verify(&delivery.body, &headers)
        .expect("the webhook secret opens and signs");
    use base64::Engine;
    let basic = base64::engine::general_purpose::STANDARD.encode("hook:pw");
    assert_eq!(
        delivery.header("authorization"),
        Some(format!("Basic {basic}").as_str()),
        "the webhook password opens"
    );
    let (replayed, answer) = idempotent_token(client, base, &secrets.token).await;
    assert_eq!(replayed.as_deref(), Some("true"));
    assert_eq!(answer, secrets.kept, "the kept answer opens");
    // A new secret setting is merged into the sealed ones, which must open.
    let method = format!("{base}{}", secrets.payment_method);
    let (status, changed) = json(
        client
            .put(&method)
            .bearer_auth(&secrets.token)
            .json(&json!({"settings": {"secret_key": "sk_test_resealed"}}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the payment method's secrets open: {changed}"
    );
    assert_eq!(changed["secrets_set"], json!(["secret_key"]));
}

/// The ids of the encryption keys `commerce keys list` shows, with what each does.
async fn listed_encryption_keys(url: &str, keys: &[&str]) -> Vec<String> {
    run(&["keys", "list"], url, keys)
        .await
        .lines()
        .filter_map(|l| l.strip_prefix("encryption key "))
        .map(str::to_owned)
        .collect()
}

async fn rotating_the_key_file_keeps_every_secret_readable(db: TestDb) {
    let dir = tempfile::tempdir().unwrap();
    // SQLite keeps its key file beside the database; PostgreSQL nodes are given one.
    let (file, key_args) = match db.backend {
        Backend::Sqlite => (key_file_of(&db), Vec::new()),
        Backend::Postgres => {
            let file = dir.path().join("commerce.key");
            let key = commerce(&["keys", "generate"]).await.stdout;
            std::fs::write(&file, key).unwrap();
            let path = file.to_str().unwrap().to_owned();
            (file, vec!["--encryption-key-file".to_owned(), path])
        }
    };
    let keys: Vec<&str> = key_args.iter().map(String::as_str).collect();
    let demo: Value = serde_json::from_str(
        run(&["seed", "--demo", "--json"], &db.url, &keys)
            .await
            .trim(),
    )
    .unwrap();
    let receiver = Receiver::start().await;
    let mut serve_args = vec![
        "--database-url",
        db.url.as_str(),
        // One issuer for every start, so that tokens outlive a restart.
        "--public-url",
        "http://commerce.test",
        "--allow-private-webhook-targets",
        "--webhook-poll",
        "100ms",
    ];
    serve_args.extend(&keys);
    let node = Node::start(&serve_args, dir.path()).await;
    let client = Client::new();
    let secrets = make_secrets(&client, &node.base, &demo, &receiver).await;
    let before = std::fs::read_to_string(&file).unwrap();

    let said = run(&["keys", "rotate-encryption-key"], &db.url, &keys).await;
    assert!(said.contains("now seals"), "{said}");
    let after = std::fs::read_to_string(&file).unwrap();
    let (old, new) = (
        storage::secret_box::parse_keys(&before).unwrap(),
        storage::secret_box::parse_keys(&after).unwrap(),
    );
    assert_eq!(new.len(), 1, "the old key leaves the file");
    assert_ne!(new, old);
    #[cfg(unix)]
    assert_eq!(mode_of(&file), 0o600);
    let listed = listed_encryption_keys(&db.url, &keys).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert!(listed[0].contains("seals"), "{listed:?}");

    // The running server took up the new key; so does a restarted one.
    every_secret_works(&client, &node.base, &demo, &receiver, &secrets).await;
    let mut child = node.child;
    sigterm(&child).await;
    let _ = tokio::time::timeout(Duration::from_secs(10), child.wait()).await;
    let node = Node::start(&serve_args, dir.path()).await;
    every_secret_works(&client, &node.base, &demo, &receiver, &secrets).await;
    // The old key opens nothing any more.
    std::fs::write(&file, &before).unwrap();
    let mut args = vec!["keys", "list", "--database-url", db.url.as_str()];
    args.extend(&keys);
    let line = refused(&args).await;
    assert!(line.contains("does not have"), "{line}");
}

async fn configured_keys_rotate_by_resealing(db: TestDb) {
    let dir = tempfile::tempdir().unwrap();
    let generate = || async {
        commerce(&["keys", "generate"])
            .await
            .stdout
            .trim()
            .to_owned()
    };
    let (old, new) = (generate().await, generate().await);
    let both = format!("{new},{old}");
    let demo: Value = serde_json::from_str(
        run(
            &["seed", "--demo", "--json"],
            &db.url,
            &["--encryption-key", &old],
        )
        .await
        .trim(),
    )
    .unwrap();
    let receiver = Receiver::start().await;
    let serve_with = |key: &str| {
        vec![
            "--database-url".to_owned(),
            db.url.clone(),
            "--public-url".to_owned(),
            "http://commerce.test".to_owned(),
            "--allow-private-webhook-targets".to_owned(),
            "--webhook-poll".to_owned(),
            "100ms".to_owned(),
            "--encryption-key".to_owned(),
            key.to_owned(),
        ]
    };
    let start = |key: &str| {
        let args = serve_with(key);
        let dir = dir.path().to_owned();
        async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            Node::start(&args, &dir).await
        }
    };
    let node = start(&old).await;
    let client = Client::new();
    let secrets = make_secrets(&client, &node.base, &demo, &receiver).await;
    let mut child = node.child;
    sigterm(&child).await;
    let _ = tokio::time::timeout(Duration::from_secs(10), child.wait()).await;

    // Every node is given NEW,OLD; the reseal moves everything to NEW; OLD can go.
    let node = start(&both).await;
    every_secret_works(&client, &node.base, &demo, &receiver, &secrets).await;
    let said = run(&["keys", "reseal"], &db.url, &["--encryption-key", &both]).await;
    assert!(said.contains("may now be removed"), "{said}");
    let listed = listed_encryption_keys(&db.url, &["--encryption-key", &both]).await;
    assert!(
        listed[0].contains("seals") && listed[1].contains("opens  0 secret(s)"),
        "{listed:?}"
    );
    every_secret_works(&client, &node.base, &demo, &receiver, &secrets).await;
    let mut child = node.child;
    sigterm(&child).await;
    let _ = tokio::time::timeout(Duration::from_secs(10), child.wait()).await;
    let node = start(&new).await;
    every_secret_works(&client, &node.base, &demo, &receiver, &secrets).await;
    // The old key alone is refused at start, naming what it cannot open.
    let args = serve_with(&old);
    let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
    args.insert(0, "serve");
    args.extend(["--listen", "127.0.0.1:0"]);
    let line = refused(&args).await;
    assert!(line.contains("does not have"), "{line}");
    drop(node);
}
