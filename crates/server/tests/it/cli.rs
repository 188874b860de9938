//! The `commerce` binary as operators and newcomers use it: one process per command.

use std::sync::Arc;
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::binary::{commerce, demo_owner_token, seed_demo, sigkill, sigterm, spawn_serve};
use crate::on_both_backends;
use crate::receiver::{Receiver, Reply};
use crate::support::{TestDb, TestServer, access_token, eventually, json};

on_both_backends!(
    seed_demo_prints_exactly_one_json_object,
    seed_products_loads_a_catalog_the_api_serves,
    seed_orders_loads_a_history_the_api_serves,
    seed_purchases_loads_due_purchases_the_server_renews,
    apps_and_users_created_on_the_command_line_work,
    a_request_in_flight_when_sigterm_arrives_completes,
    signing_keys_rotate_and_retire_across_nodes,
    the_webhook_error_limit_flag_fails_a_subscription_sooner,
    personal_tokens_name_the_issuer_the_servers_verify,
);

async fn seed_products_loads_a_catalog_the_api_serves(s: TestServer) {
    let seller = s.seller_id().to_string();
    for _ in 0..2 {
        let run =
            commerce(
                &s.db
                    .args(&["seed", "--products", "120", "--seller", &seller, "--json"]),
            )
            .await;
        assert!(run.ok, "{}", run.stderr);
        let loaded: Value = serde_json::from_str(run.stdout.trim()).expect("one JSON object");
        assert_eq!(loaded["products"], 120);
    }
    let token = s.owner_token().await;
    let (status, list) = s.get_json("/v2/products?per_page=200", &token).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(list["total_items"], 240, "a second load adds to the first");
    let items = list["_embedded"]["items"].as_array().unwrap();
    let mut slugs: Vec<&str> = items.iter().map(|p| p["slug"].as_str().unwrap()).collect();
    slugs.sort_unstable();
    slugs.dedup();
    assert_eq!(slugs.len(), 200, "slugs are distinct");
    assert!(
        items
            .iter()
            .all(|p| !p["_embedded"]["variants"].as_array().unwrap().is_empty())
    );
    // The loaded rows serve every read path: search, tags, types, status counts.
    let word = items[0]["title"]
        .as_str()
        .unwrap()
        .split(' ')
        .next_back()
        .unwrap();
    let (_, found) = s.get_json(&format!("/v2/products?q={word}"), &token).await;
    assert!(found["total_items"].as_u64().unwrap() >= 1);
    let tag = items[0]["tags"][0].as_str().unwrap();
    let (_, tagged) = s
        .get_json(&format!("/v2/products?tags={tag}"), &token)
        .await;
    assert!(tagged["total_items"].as_u64().unwrap() >= 1);
    let visible =
        s.db.scalar("SELECT COUNT(*) FROM products WHERE status = 'visible'")
            .await;
    let (_, listed) = s.get_json("/v2/products?status=visible", &token).await;
    assert_eq!(listed["total_items"], visible);
    let typed =
        s.db.scalar("SELECT CAST(SUM(products_count) AS BIGINT) FROM product_types")
            .await;
    let with_type =
        s.db.scalar("SELECT COUNT(*) FROM products WHERE product_type_id IS NOT NULL")
            .await;
    assert_eq!(typed, with_type);
    // New products take the ids after the loaded ones.
    let created = s
        .create_product(&token, json!({"title": "After", "price": 1}))
        .await;
    assert_eq!(created["id"], 241);
    let run = commerce(
        &s.db
            .args(&["seed", "--products", "5", "--seller", "999999"]),
    )
    .await;
    assert!(!run.ok);
    assert!(run.stderr.contains("no such seller"), "{}", run.stderr);
}

async fn seed_purchases_loads_due_purchases_the_server_renews(s: TestServer) {
    let shop = s.shop_id().to_string();
    let mut loads = Vec::new();
    for count in ["4", "3"] {
        let run = commerce(
            &s.db
                .args(&["seed", "--purchases", count, "--shop", &shop, "--json"]),
        )
        .await;
        assert!(run.ok, "{}", run.stderr);
        let loaded: Value = serde_json::from_str(run.stdout.trim()).expect("one JSON object");
        assert_eq!(loaded["purchases"].to_string(), count);
        loads.push(loaded);
    }
    let today = domain::CalendarDate::of(domain::Clock::now(&domain::SystemClock));
    let start = today.plus_days(-7).to_string();
    let (next, today) = (today.plus_days(7).to_string(), today.to_string());
    assert_eq!(loads[0]["due_on"], today.as_str());
    assert_eq!(
        loads[0]["payment_method_id"], loads[1]["payment_method_id"],
        "a second load pays with the method the first added"
    );
    let token = s.owner_token().await;
    let (status, list) = s
        .get_json("/v2/subscription_purchases?per_page=50&sort=id.asc", &token)
        .await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(list["total_items"], 7, "a second load adds to the first");
    let purchases = list["_embedded"]["items"].as_array().unwrap().clone();
    let mut lines = Vec::new();
    for p in &purchases {
        assert_eq!(p["shop_id"], json!(s.shop_id()), "{p}");
        assert_eq!(p["payment_interval"], "1_week", "{p}");
        // Opened a week ago (the server may have renewed it since).
        assert_eq!(p["start_date"], start.as_str(), "{p}");
        // The opening order is a real order, paid and closed, whose one line started it.
        let (status, order) = s
            .get_json(&format!("/v2/orders/{}", p["original_order_id"]), &token)
            .await;
        assert_eq!(status, StatusCode::OK, "{order}");
        assert_eq!(order["status"], "closed", "{order}");
        assert_eq!(order["outstanding"], 0, "{order}");
        assert_eq!(order["payment_method_id"], loads[0]["payment_method_id"]);
        let line = &order["_embedded"]["lines"][0];
        assert_eq!(line["variant_id"], p["variant_id"], "{order}");
        assert_eq!(
            line["subscription_fee_id"], p["subscription_fee_id"],
            "{order}"
        );
        let (status, fee) = s
            .get_json(
                &format!("/v2/subscription_fees/{}", p["subscription_fee_id"]),
                &token,
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{fee}");
        assert_eq!(fee["variant_id"], p["variant_id"], "{fee}");
        lines.push(line["id"].as_i64().unwrap());
    }
    let original: Vec<(i64,)> =
        s.db.rows("SELECT original_line_id FROM subscription_purchases ORDER BY id")
            .await;
    assert_eq!(
        original.iter().map(|l| l.0).collect::<Vec<_>>(),
        lines,
        "each purchase names its own opening line"
    );
    // The running server finds them all due and renews each with a paid order.
    let renewed = eventually("every loaded purchase renewed", || async {
        let renewed =
            s.db.scalar(
                "SELECT COUNT(DISTINCT subscription_purchase_id) FROM orders \
                 WHERE subscription_purchase_id IS NOT NULL AND status = 'closed'",
            )
            .await;
        (renewed == 7).then_some(renewed)
    })
    .await;
    assert_eq!(renewed, 7);
    for p in &purchases {
        let (_, p) = s
            .get_json(&format!("/v2/subscription_purchases/{}", p["id"]), &token)
            .await;
        assert_eq!(
            (&p["state"], &p["total_payments"], &p["last_payment_on"]),
            (&json!("active"), &json!(2), &json!(today)),
            "{p}"
        );
        assert_eq!(p["next_payment_on"], next.as_str(), "{p}");
    }
    s.assert_documented();
}

async fn seed_orders_loads_a_history_the_api_serves(s: TestServer) {
    let (shop, seller) = (s.shop_id().to_string(), s.seller_id().to_string());
    let seed_orders = |count: &'static str| {
        let args =
            s.db.args(&["seed", "--orders", count, "--shop", &shop, "--json"]);
        async move { commerce(&args).await }
    };
    // The lines sell the seller's variants: there are none yet.
    let run = seed_orders("5").await;
    assert!(
        !run.ok && run.stderr.contains("add products first"),
        "{}",
        run.stderr
    );
    let run = commerce(
        &s.db
            .args(&["seed", "--products", "30", "--seller", &seller, "--json"]),
    )
    .await;
    assert!(run.ok, "{}", run.stderr);
    for count in ["200", "50"] {
        let run = seed_orders(count).await;
        assert!(run.ok, "{}", run.stderr);
        let loaded: Value = serde_json::from_str(run.stdout.trim()).expect("one JSON object");
        assert_eq!(loaded["orders"].to_string(), count);
    }
    let token = s.owner_token().await;
    let mut orders = Vec::new();
    for page in 1..=2 {
        let path = format!("/v2/orders?per_page=200&sort=id.asc&page={page}");
        let (status, list) = s.get_json(&path, &token).await;
        assert_eq!(status, StatusCode::OK, "{list}");
        assert_eq!(list["total_items"], 250, "a second load adds to the first");
        orders.extend(list["_embedded"]["items"].as_array().unwrap().clone());
    }
    assert_eq!(orders.len(), 250);
    let variants: Vec<(i64, i64)> = s.db.rows("SELECT id, product_id FROM variants").await;
    let codes: Vec<&str> = orders.iter().map(|o| o["code"].as_str().unwrap()).collect();
    let expected: Vec<String> = (1001..1251).map(|c| c.to_string()).collect();
    assert_eq!(codes, expected, "the shop's codes, in order, without gaps");
    for order in &orders {
        assert_eq!(
            (&order["shop_id"], &order["seller_id"]),
            (&json!(s.shop_id()), &json!(s.seller_id()))
        );
        let lines = order["_embedded"]["lines"].as_array().unwrap();
        assert!((1..=3).contains(&lines.len()), "{order}");
        let mut net = 0;
        for line in lines {
            let sold = (
                line["variant_id"].as_i64().unwrap(),
                line["product_id"].as_i64().unwrap(),
            );
            assert!(
                variants.contains(&sold),
                "a line sells a real variant: {line}"
            );
            let (unit, quantity) = (
                line["unit_price"].as_i64().unwrap(),
                line["quantity"].as_i64().unwrap(),
            );
            assert_eq!(line["line_total"].as_i64().unwrap(), unit * quantity);
            net += unit * quantity;
        }
        assert_eq!(order["net_total"], net, "{order}");
        let total = net + order["shipping_total"].as_i64().unwrap();
        assert_eq!(order["total"], total, "{order}");
        assert_eq!(
            order["outstanding"].as_i64().unwrap() > 0,
            order["status"] != "cancelled"
        );
    }
    // The list's filters find the loaded rows as the database holds them.
    let shipped =
        s.db.scalar("SELECT COUNT(*) FROM orders WHERE status = 'shipped'")
            .await;
    assert!(shipped > 0);
    let (_, listed) = s.get_json("/v2/orders?status=shipped", &token).await;
    assert_eq!(listed["total_items"], shipped);
    let email = orders.iter().find_map(|o| o["email"].as_str()).unwrap();
    let (_, found) = s.get_json(&format!("/v2/orders?q={email}"), &token).await;
    assert!(found["total_items"].as_u64().unwrap() >= 1, "{found}");
    // Another account sees none of them; a load into its shop sells its own seller's
    // variants only, of which it has none.
    let other = s.seed_another_account().await;
    let other_token = s.owner_token_of(&other).await;
    let (_, theirs) = s.get_json("/v2/orders", &other_token).await;
    assert_eq!(theirs["total_items"], 0);
    let (status, _) = s
        .get_json(&format!("/v2/orders/{}", orders[0]["id"]), &other_token)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let other_shop = other.shops[0].id.to_string();
    let run = commerce(&s.db.args(&["seed", "--orders", "5", "--shop", &other_shop])).await;
    assert!(
        !run.ok && run.stderr.contains("add products first"),
        "{}",
        run.stderr
    );
    // An order made afterwards takes the next id and code.
    let variant = variants[0].0;
    let (status, made) = s
        .call(
            reqwest::Method::POST,
            &format!("/v2/shops/{}/orders", s.shop_id()),
            &token,
            Some(json!({"lines": [{"variant_id": variant}]})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    assert_eq!(made["code"], "1251");
    assert_eq!(made["id"], orders[249]["id"].as_i64().unwrap() + 1);
}

async fn seed_demo_prints_exactly_one_json_object(db: TestDb) {
    let run = commerce(&db.args(&["seed", "--demo", "--json"])).await;
    assert!(run.ok, "{}", run.stderr);
    let mut stream = serde_json::Deserializer::from_str(&run.stdout).into_iter::<Value>();
    let data = stream.next().expect("one JSON object").expect("valid JSON");
    assert!(
        stream.next().is_none(),
        "exactly one object: {}",
        run.stdout
    );
    assert!(data["account_id"].is_i64());
    assert!(data["user"]["email"].is_string() && data["user"]["password"].is_string());
    assert!(data["app"]["client_id"].is_string() && data["app"]["client_secret"].is_string());
    assert_eq!(data["sellers"].as_array().unwrap().len(), 1);
    assert!(data["sellers"][0]["id"].is_i64());
    let shops = data["shops"].as_array().unwrap();
    assert_eq!(shops.len(), 2);
    assert!(
        shops
            .iter()
            .all(|s| s["id"].is_i64() && s["subdomain"].is_string())
    );
    assert_eq!(
        db.scalar("SELECT COUNT(*) FROM shops WHERE storefront = 'hosted'")
            .await,
        1
    );
    assert_eq!(
        db.scalar("SELECT COUNT(*) FROM shops WHERE storefront = 'headless'")
            .await,
        1
    );
    // `migrate` on an up-to-date database is a no-op that succeeds.
    let run = commerce(&db.args(&["migrate"])).await;
    assert!(
        run.ok && run.stdout.contains("migrations applied"),
        "{}",
        run.stderr
    );
}

async fn apps_and_users_created_on_the_command_line_work(db: TestDb) {
    let seeded = commerce(&db.args(&["seed", "--demo", "--json"])).await;
    let demo: Value = serde_json::from_str(&seeded.stdout).unwrap();
    let account = demo["account_id"].to_string();
    let app = commerce(&db.args(&[
        "apps",
        "create",
        "--name",
        "Reporting",
        "--scopes",
        "shops.read,sellers.read",
        "--grants",
        "client_credentials",
        "--account",
        &account,
        "--redirect-uri",
        "https://reports.example/cb",
        "--json",
    ]))
    .await;
    assert!(app.ok, "{}", app.stderr);
    let app: Value = serde_json::from_str(app.stdout.trim()).unwrap();
    let user = commerce(&db.args(&[
        "users",
        "create",
        "--account",
        &account,
        "--email",
        "Staff@Demo.Example",
        "--password",
        "a-long-password",
        "--role",
        "staff",
        "--json",
    ]))
    .await;
    assert!(user.ok, "{}", user.stderr);
    let user: Value = serde_json::from_str(user.stdout.trim()).unwrap();
    assert_eq!(user["email"], "staff@demo.example");
    assert_eq!(user["role"], "staff");

    let db = Arc::new(db);
    let mut config = server::ServeConfig::defaults();
    config.listen = "127.0.0.1:0".parse().unwrap();
    config.database_url = db.url.clone();
    let s = TestServer::start_on(db.clone(), config).await;
    let token = s
        .client_credentials_token(
            app["client_id"].as_str().unwrap(),
            app["client_secret"].as_str().unwrap(),
            None,
        )
        .await;
    let (status, shops) = json(s.get("/v2/shops", &token).send().await.unwrap()).await;
    assert_eq!(
        (status, shops["total_items"].as_i64()),
        (StatusCode::OK, Some(2))
    );
    let response = s
        .token_request(&[
            ("grant_type", "password"),
            ("client_id", demo["app"]["client_id"].as_str().unwrap()),
            (
                "client_secret",
                demo["app"]["client_secret"].as_str().unwrap(),
            ),
            ("username", "staff@demo.example"),
            ("password", "a-long-password"),
        ])
        .await;
    let staff = access_token(response).await;
    let (_, root) = json(s.get("/v2", &staff).send().await.unwrap()).await;
    assert_eq!(root["role"], "staff");
    let first_shop = &root["_embedded"]["shops"][0];
    assert!(
        first_shop["_links"].get("shops:update").is_none(),
        "staff do not change shop settings"
    );

    // Mistakes are one clear line and a failure status.
    for args in [
        vec![
            "users",
            "create",
            "--account",
            "999999",
            "--email",
            "x@y.example",
            "--password",
            "a-long-password",
            "--role",
            "staff",
        ],
        vec![
            "users",
            "create",
            "--account",
            &account,
            "--email",
            "staff@demo.example",
            "--password",
            "a-long-password",
            "--role",
            "admin",
        ],
        vec![
            "users",
            "create",
            "--account",
            &account,
            "--email",
            "short@demo.example",
            "--password",
            "short",
            "--role",
            "admin",
        ],
        vec!["apps", "create", "--name", "Bad", "--scopes", "everything"],
        vec![
            "apps",
            "create",
            "--name",
            "Bad",
            "--redirect-uri",
            "not a uri",
        ],
        vec!["seed"],
    ] {
        let run = commerce(&db.args(&args)).await;
        assert!(!run.ok, "{args:?} should fail");
        let lines: Vec<&str> = run.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{args:?}: {}", run.stderr);
        assert!(lines[0].starts_with("error: "), "{args:?}: {}", run.stderr);
    }
    let run = commerce(&["migrate", "--database-url", "mysql://localhost/x"]).await;
    assert!(!run.ok && run.stderr.starts_with("error: ") && run.stderr.lines().count() == 1);
    s.stop().await;
}

async fn a_request_in_flight_when_sigterm_arrives_completes(db: TestDb) {
    let demo = seed_demo(&db).await;
    let dir = tempfile::tempdir().unwrap();
    let (mut child, address, _) = spawn_serve(&db.args(&[]), dir.path()).await;
    let base = format!("http://{address}");
    let client = reqwest::Client::new();
    let token = demo_owner_token(&client, &base, &demo).await;
    let shop = demo["shops"][0]["id"].as_i64().unwrap();

    // Send the headers and half the body, then SIGTERM, then the rest.
    let body = br#"{"name": "Finished after SIGTERM"}"#;
    let (head, tail) = body.split_at(body.len() / 2);
    let mut stream = TcpStream::connect(&address).await.unwrap();
    let request = format!(
        "PUT /v2/shops/{shop} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    stream.write_all(head).await.unwrap();
    stream.flush().await.unwrap();
    // Time for the server to take the connection and start reading the request: the
    // fault is a signal arriving mid-request, and nothing outside shows that moment.
    tokio::time::sleep(Duration::from_millis(300)).await;
    sigterm(&child).await;
    // The rest is sent once the server is shutting down, i.e. refuses new connections.
    eventually("the server to stop accepting connections", || async {
        TcpStream::connect(&address).await.is_err().then_some(())
    })
    .await;
    stream.write_all(tail).await.unwrap();
    let mut answer = String::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_string(&mut answer))
        .await
        .expect("the answer arrives")
        .unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("Finished after SIGTERM"));
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("the server exits after finishing")
        .unwrap();
    assert!(status.success(), "{status}");
    assert_eq!(
        db.scalar("SELECT COUNT(*) FROM events WHERE topic = 'shops.updated'")
            .await,
        1
    );
}

/// The README's quick start: `commerce serve --demo` in a fresh folder, then the printed
/// token request and root fetch.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_start_serves_demo_data_on_the_embedded_database() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, address, printed) = spawn_serve(&["--demo"], dir.path()).await;
    assert!(
        dir.path().join("data/commerce.db").exists(),
        "the default database is created with its folder"
    );
    let value_after = |label: &str| -> String {
        let line = printed
            .iter()
            .find(|l| l.trim_start().starts_with(label))
            .expect(label);
        line.trim_start()[label.len()..].trim().to_owned()
    };
    let owner = value_after("owner:");
    let (email, password) = owner.split_once(" / ").unwrap();
    let client_id = value_after("app:")
        .trim_start_matches("client_id")
        .trim()
        .to_owned();
    let client_secret = value_after("client_secret").to_owned();
    assert!(
        printed
            .iter()
            .any(|l| l.contains("curl -s") && l.contains("/v2")),
        "{printed:?}"
    );
    let base = format!("http://{address}");
    let client = reqwest::Client::new();
    let response = client
        .post(format!("{base}/oauth/token"))
        .basic_auth(&client_id, Some(&client_secret))
        .form(&[
            ("grant_type", "password"),
            ("username", email),
            ("password", password),
        ])
        .send()
        .await
        .unwrap();
    let token = access_token(response).await;
    let (status, root) = json(
        client
            .get(format!("{base}/v2"))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(root["_embedded"]["shops"].as_array().unwrap().len(), 2);
    sigkill(&mut child).await;
    // A second start on the same data adds nothing and says so.
    let (mut again, _, printed) = spawn_serve(&["--demo"], dir.path()).await;
    assert!(!printed.iter().any(|l| l.contains("owner:")), "{printed:?}");
    sigkill(&mut again).await;
}

/// The `kid` in a token's header.
fn kid_of(token: &str) -> String {
    use base64::Engine;
    let header = token.split('.').next().unwrap();
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(header)
        .unwrap();
    let header: Value = serde_json::from_slice(&bytes).unwrap();
    header["kid"].as_str().unwrap().to_owned()
}

/// One node of a deployment: all share the database and the public URL (the issuer).
async fn node(db: &Arc<TestDb>) -> TestServer {
    let mut config = server::ServeConfig::defaults();
    config.listen = "127.0.0.1:0".parse().unwrap();
    config.database_url = db.url.clone();
    config.public_url = Some("http://commerce.test".into());
    TestServer::start_on(db.clone(), config).await
}

async fn signing_keys_rotate_and_retire_across_nodes(db: TestDb) {
    let db = Arc::new(db);
    let first = node(&db).await;
    let old_token = first.owner_token().await;
    let old_kid = kid_of(&old_token);

    let rotated = commerce(&db.args(&["keys", "rotate"])).await;
    assert!(rotated.ok, "{}", rotated.stderr);
    let new_kid = rotated.stdout.trim().to_owned();
    assert_ne!(new_kid, old_kid);
    let listed = commerce(&db.args(&["keys", "list"])).await;
    assert!(
        listed.stdout.lines().next().unwrap().starts_with(&new_kid),
        "newest first: {}",
        listed.stdout
    );

    // A node started now signs with the new key; the old node verifies its tokens, and
    // the old key's tokens keep working everywhere.
    let second = node(&db).await;
    let new_token = second.owner_token().await;
    assert_eq!(kid_of(&new_token), new_kid);
    for (s, token) in [
        (&first, &new_token),
        (&second, &old_token),
        (&first, &old_token),
    ] {
        assert_eq!(
            s.get("/v2", token).send().await.unwrap().status(),
            StatusCode::OK
        );
    }

    // Retiring the old key ends its tokens.
    let retired = commerce(&db.args(&["keys", "retire", "--kid", &old_kid])).await;
    assert!(retired.ok, "{}", retired.stderr);
    let third = node(&db).await;
    assert_eq!(
        third.get("/v2", &old_token).send().await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        third.get("/v2", &new_token).send().await.unwrap().status(),
        StatusCode::OK
    );
    // The last key cannot go, and unknown keys are named.
    for kid in [new_kid.as_str(), "no-such-key"] {
        let run = commerce(&db.args(&["keys", "retire", "--kid", kid])).await;
        assert!(!run.ok);
        assert!(
            run.stderr.starts_with("error: ") && run.stderr.lines().count() == 1,
            "{}",
            run.stderr
        );
    }
}

/// A personal access token for the demo owner of `s`, made with `commerce tokens create`
/// (which finds the servers' issuer in the database).
pub async fn personal_token(s: &TestServer, scopes: &str, expires: &str) -> String {
    try_personal_token(s, &s.demo.user.email, scopes, expires)
        .await
        .unwrap_or_else(|stderr| panic!("{stderr}"))
}

/// `commerce tokens create` for `user`: the token, or the one-line error.
pub async fn try_personal_token(
    s: &TestServer,
    user: &str,
    scopes: &str,
    expires: &str,
) -> Result<String, String> {
    let run = commerce(&s.db.args(&[
        "tokens",
        "create",
        "--user",
        user,
        "--name",
        "script",
        "--scopes",
        scopes,
        "--expires",
        expires,
        "--json",
    ]))
    .await;
    if !run.ok {
        assert!(
            run.stderr.starts_with("error: ") && run.stderr.lines().count() == 1,
            "{}",
            run.stderr
        );
        return Err(run.stderr);
    }
    let created: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    Ok(created["token"].as_str().unwrap().to_owned())
}

/// A lease no longer than an attempt can take (request and connect timeouts together)
/// would let a slow target get the same delivery twice: `serve` refuses it before touching
/// the database, in one line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_refuses_a_webhook_lease_not_longer_than_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}/data/commerce.db", dir.path().display());
    let base = [
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--database-url",
        url.as_str(),
    ];
    for (extra, says) in [
        (
            &["--webhook-lease", "2s", "--webhook-timeout", "2s"][..],
            "lease",
        ),
        (
            &["--webhook-lease", "4s", "--webhook-timeout", "2s"][..],
            "lease",
        ),
        (
            &["--webhook-lease", "3500ms", "--webhook-timeout", "2s"][..],
            "lease",
        ),
        (&["--webhook-lease", "20s"][..], "lease"),
        (&["--webhook-max-errors", "0"][..], "at least 1"),
        (&["--webhook-max-exhausted", "0"][..], "at least 1"),
        (&["--webhook-poll", "0ms"][..], "positive"),
    ] {
        let args: Vec<&str> = base.iter().chain(extra).copied().collect();
        let run = tokio::time::timeout(Duration::from_secs(30), commerce(&args))
            .await
            .expect("serve stops at once");
        assert!(!run.ok, "{extra:?} should be refused");
        let lines: Vec<&str> = run.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{extra:?}: {}", run.stderr);
        assert!(
            lines[0].starts_with("error: ") && lines[0].contains(says),
            "{extra:?}: {}",
            run.stderr
        );
    }
    assert!(
        !dir.path().join("data").exists(),
        "refused before the database is opened"
    );
}

/// `--webhook-max-errors 2`: a subscription whose target answers 500 is `failed` after
/// two failed attempts (the default would wait for 100).
async fn the_webhook_error_limit_flag_fails_a_subscription_sooner(db: TestDb) {
    let demo = seed_demo(&db).await;
    let receiver = Receiver::start().await;
    let dir = tempfile::tempdir().unwrap();
    let (mut child, address, _) = spawn_serve(
        &db.args(&[
            "--allow-private-webhook-targets",
            "--webhook-max-errors",
            "2",
            "--webhook-poll",
            "100ms",
        ]),
        dir.path(),
    )
    .await;
    let base = format!("http://{address}");
    let client = reqwest::Client::new();
    let token = demo_owner_token(&client, &base, &demo).await;
    let shop = demo["shops"][0]["id"].as_i64().unwrap();
    let call = |method: reqwest::Method, path: String, body: Option<Value>| {
        let mut request = client
            .request(method, format!("{base}{path}"))
            .bearer_auth(&token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        async move { json(request.send().await.unwrap()).await }
    };
    let (status, created) = call(
        reqwest::Method::POST,
        format!("/v2/hub/{shop}/subscriptions"),
        Some(json!({"topic": "products", "url": receiver.url("/failing")})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let webhook = format!("/v2/webhooks/{}", created["id"]);
    let until = |wanted: &'static str| {
        let call = &call;
        let webhook = webhook.clone();
        async move {
            for _ in 0..200 {
                let (_, hook) = call(reqwest::Method::GET, webhook.clone(), None).await;
                if hook["status"] == wanted {
                    return hook;
                }
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
            panic!("the webhook did not become {wanted}");
        }
    };
    until("active").await;
    receiver.answer_always(Reply::status(500));
    for (n, title) in ["First", "Second"].into_iter().enumerate() {
        let (status, _) = call(
            reqwest::Method::POST,
            "/v2/products".into(),
            Some(json!({"title": title, "price": 1})),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED);
        receiver
            .wait_until("the failed attempt", |r| {
                r.iter().filter(|r| !r.is_ping()).count() == n + 1
            })
            .await;
    }
    let failed = until("failed").await;
    assert_eq!(failed["error_count"], 2, "{failed}");
    // A failed subscription is sent nothing more.
    let (status, _) = call(
        reqwest::Method::POST,
        "/v2/products".into(),
        Some(json!({"title": "Third", "price": 1})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    // Its delivery is parked in the outbox (made in the product's transaction): nothing
    // is due for it, however long one waits.
    let due = db
        .due_deliveries(created["id"].as_i64(), domain::Timestamp::MAX.as_micros())
        .await;
    assert_eq!(due, 0, "a delivery is due to a failed subscription");
    assert_eq!(receiver.deliveries().len(), 2);
    sigkill(&mut child).await;
}

/// The claims of a JWT, unverified.
fn claims_of(token: &str) -> Value {
    use base64::Engine;
    let payload = token.split('.').nth(1).unwrap();
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

/// `commerce tokens create` on `db` with `extra` flags: the token, or the error line.
async fn create_token(db: &TestDb, email: &str, extra: &[&str]) -> Result<String, String> {
    let mut args = vec![
        "tokens",
        "create",
        "--user",
        email,
        "--name",
        "ci",
        "--scopes",
        "shops.read",
        "--expires",
        "30d",
        "--json",
    ];
    args.extend(extra);
    let run = commerce(&db.args(&args)).await;
    if !run.ok {
        return Err(run.stderr);
    }
    let created: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    Ok(created["token"].as_str().unwrap().to_owned())
}

/// A personal token made on the command line names the issuer the running servers
/// verify against (their public URL, as configured for `serve`), which they recorded in
/// the database they share: the operator does not repeat it. Worker nodes, whose address
/// is no issuer, record nothing; a different configured public URL is refused.
async fn personal_tokens_name_the_issuer_the_servers_verify(db: TestDb) {
    let db = Arc::new(db);
    let demo = seed_demo(&db).await;
    let email = demo["user"]["email"].as_str().unwrap();
    // Before any server ran: what `serve` would resolve from the same settings.
    let early = create_token(&db, email, &["--listen", "0.0.0.0:9"])
        .await
        .unwrap();
    assert_eq!(claims_of(&early)["iss"], "http://127.0.0.1:9");

    let public_url = "http://api.commerce.test";
    let mut config = server::ServeConfig::defaults();
    config.listen = "127.0.0.1:0".parse().unwrap();
    config.database_url = db.url.clone();
    config.public_url = Some(format!("{public_url}/"));
    let api = TestServer::start_on(db.clone(), config.clone()).await;
    config.public_url = None;
    config.role = server::NodeRole::Worker;
    let worker = TestServer::start_on(db.clone(), config).await;

    let token = create_token(&db, email, &[]).await.unwrap();
    assert_eq!(claims_of(&token)["iss"], public_url);
    let (status, root) = api.get_json("/v2", &token).await;
    assert_eq!(status, StatusCode::OK, "{root}");
    assert_eq!(root["email"], email);
    // Naming the same public URL is fine; naming another is refused, saying which.
    let same = create_token(&db, email, &["--public-url", public_url]).await;
    assert_eq!(
        api.get("/v2", &same.unwrap())
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::OK
    );
    let refused = create_token(&db, email, &["--public-url", "http://elsewhere.test"])
        .await
        .unwrap_err();
    assert!(
        refused.starts_with("error: ") && refused.lines().count() == 1,
        "{refused}"
    );
    assert!(refused.contains(public_url), "{refused}");
    worker.stop().await;
    api.stop().await;
}
