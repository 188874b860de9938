//! Bearer authentication, scopes and tenancy.

use std::sync::Arc;
use std::time::Duration;

use domain::Clock;
use domain::clock::ManualClock;
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::on_both_backends;
use crate::support::{Backend, TestServer, expect_error, json};

on_both_backends!(
    missing_malformed_and_foreign_tokens_are_refused,
    expired_tokens_are_refused,
    query_string_tokens_are_refused,
    read_only_token_cannot_write,
    readonly_role_caps_an_admin_token,
    accounts_see_nothing_of_each_other,
    seller_bound_token_sees_one_seller,
    unverifiable_tokens_say_why,
);

fn challenge(response: &reqwest::Response) -> String {
    response.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .to_owned()
}

/// BR-01, BR-02, BR-03 (malformed, `alg: none`, foreign key).
async fn missing_malformed_and_foreign_tokens_are_refused(s: TestServer) {
    let anonymous = s.client.get(s.url("/v2/shops")).send().await.unwrap();
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    assert!(challenge(&anonymous).starts_with("Bearer realm=\"commerce\""));
    let (_, body) = json(anonymous).await;
    assert_eq!(body["error"], "invalid_token");
    assert_eq!(body["status"], 401);

    for bad in [
        "nonsense",
        "a.b.c",
        "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ1c2VyOjEifQ.",
    ] {
        let response = s.get("/v2", bad).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{bad}");
        assert!(challenge(&response).contains("error=\"invalid_token\""));
    }
    let basic = s
        .client
        .get(s.url("/v2"))
        .basic_auth("a", Some("b"))
        .send()
        .await
        .unwrap();
    assert_eq!(basic.status(), StatusCode::UNAUTHORIZED);

    // A token signed by another server's key (another database, another key).
    let other = TestServer::start(s.db.backend).await;
    let foreign = other.owner_token().await;
    let response = s.get("/v2", &foreign).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    // The same token works where it was issued.
    assert_eq!(
        other.get("/v2", &foreign).send().await.unwrap().status(),
        StatusCode::OK
    );
}

/// The challenge's `error_description`: in RFC 6750's characters.
fn reason(response: &reqwest::Response) -> String {
    let challenge = challenge(response);
    let (_, rest) = challenge
        .split_once("error_description=\"")
        .unwrap_or_else(|| panic!("no description in {challenge}"));
    let reason = rest.split('"').next().unwrap().to_owned();
    assert!(
        reason
            .chars()
            .all(|c| matches!(c, ' '..='!' | '#'..='[' | ']'..='~')),
        "{reason:?}"
    );
    reason
}

/// BR-03: a refused token's challenge says why, so that an operator can tell a token
/// made for another public URL from a forged or an expired one; it says nothing of the
/// token itself.
async fn unverifiable_tokens_say_why(backend: Backend) {
    let clock = Arc::new(ManualClock::new(domain::SystemClock.now()));
    let manual = clock.clone() as Arc<dyn Clock>;
    let s = TestServer::start_with(backend, move |c| c.clock = manual).await;
    // A second node on the same database (so the same keys) under another public URL.
    let mut config = server::ServeConfig::defaults();
    config.listen = "127.0.0.1:0".parse().unwrap();
    config.database_url = s.db.url.clone();
    config.public_url = Some("http://elsewhere.test".into());
    config.clock = clock.clone();
    let elsewhere = TestServer::start_on(s.db.clone(), config).await;
    let good = s.owner_token().await;
    let foreign_issuer = elsewhere.owner_token().await;
    assert_eq!(
        elsewhere
            .get("/v2", &foreign_issuer)
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::OK
    );
    // Another first character of the signature (the last one may hold only padding bits).
    let (signed, signature) = good.rsplit_once('.').unwrap();
    let other = if signature.starts_with('A') { 'B' } else { 'A' };
    let forged = format!("{signed}.{other}{}", &signature[1..]);
    let unknown_key = jsonwebtoken::encode(
        &jsonwebtoken::Header {
            kid: Some("no-such-key".into()),
            ..jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256)
        },
        &json!({"iss": s.url, "sub": "user:1", "exp": clock.now().as_secs() + 60}),
        &jsonwebtoken::EncodingKey::from_secret(b"a key of someone else"),
    )
    .unwrap();
    let revoked = s.owner_token().await;
    let response = s
        .client
        .post(s.url("/oauth/revoke"))
        .basic_auth(&s.demo.app.client_id, Some(&s.demo.app.client_secret))
        .form(&[("token", revoked.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    for (token, why) in [
        (
            &foreign_issuer,
            "the access token's issuer is not this server",
        ),
        (&forged, "the access token's signature does not verify"),
        (
            &unknown_key,
            "the access token was signed with a key this server does not have",
        ),
        (&"nonsense".to_owned(), "the access token is malformed"),
        (&revoked, "the access token was revoked"),
    ] {
        let response = s.get("/v2", token).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        let said = reason(&response);
        assert_eq!(said, why);
        let (_, body) = json(response).await;
        assert_eq!(body["message"], why);
    }
    clock.advance_secs(7201);
    let response = s.get("/v2", &good).send().await.unwrap();
    assert_eq!(reason(&response), "the access token expired");
    elsewhere.stop().await;
}

/// BR-03 (expired), on a manual clock moved past the token's one second.
async fn expired_tokens_are_refused(backend: Backend) {
    let clock = Arc::new(ManualClock::new(domain::SystemClock.now()));
    let manual = clock.clone();
    let s = TestServer::start_with(backend, move |c| {
        c.access_token_ttl = Duration::from_secs(1);
        c.clock = manual;
    })
    .await;
    let response = s
        .password_grant(
            (&s.demo.app.client_id, &s.demo.app.client_secret),
            &s.demo.user.email,
            &s.demo.user.password,
            &[],
        )
        .await;
    let (_, body) = json(response).await;
    assert_eq!(body["expires_in"], 1);
    let token = body["access_token"].as_str().unwrap().to_owned();
    assert_eq!(
        s.get("/v2", &token).send().await.unwrap().status(),
        StatusCode::OK
    );
    clock.advance_secs(2);
    let response = s.get("/v2", &token).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    assert!(challenge(&response).contains("expired"));
}

/// BR-06.
async fn query_string_tokens_are_refused(s: TestServer) {
    let token = s.owner_token().await;
    for path in ["/v2", "/v1/shops", "/v2/shops"] {
        let response = s
            .client
            .get(s.url(&format!("{path}?access_token={token}")))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{path}");
        let (_, body) = json(response).await;
        assert_eq!(body["error"], "invalid_request");
    }
}

/// BR-04.
async fn read_only_token_cannot_write(s: TestServer) {
    let token = s
        .password_token(
            &s.demo.user.email,
            &s.demo.user.password,
            Some("shops.read sellers.read"),
        )
        .await;
    let path = format!("/v2/shops/{}", s.shop_id());
    let (_, shop) = json(s.get(&path, &token).send().await.unwrap()).await;
    assert!(
        shop["_links"].get("shops:update").is_none(),
        "no write link without the scope"
    );
    let response = s
        .request(Method::PUT, &path, &token)
        .json(&json!({"name": "Renamed"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    assert_eq!(
        challenge(&response),
        "Bearer realm=\"commerce\", error=\"insufficient_scope\", scope=\"shops.write\""
    );
    let (_, body) = json(response).await;
    assert_eq!(body["error"], "insufficient_scope");
    let (_, after) = json(s.get(&path, &token).send().await.unwrap()).await;
    assert_eq!(after["name"], shop["name"], "nothing changed");
    // Without sellers.read there is no sellers list.
    let narrow = s
        .password_token(
            &s.demo.user.email,
            &s.demo.user.password,
            Some("shops.read"),
        )
        .await;
    assert_eq!(
        s.get("/v2/sellers", &narrow).send().await.unwrap().status(),
        StatusCode::FORBIDDEN
    );
}

/// PW-05.
async fn readonly_role_caps_an_admin_token(s: TestServer) {
    s.add_user("reader@demo.example", "reader-password-1", "readonly")
        .await;
    // Asking for more than the role allows is refused at the token endpoint...
    let response = s
        .password_grant(
            (&s.demo.app.client_id, &s.demo.app.client_secret),
            "reader@demo.example",
            "reader-password-1",
            &[("scope", "shops.write")],
        )
        .await;
    let (status, body) = json(response).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_scope");
    // ...and `admin` means only what the role allows.
    let token = s
        .password_token("reader@demo.example", "reader-password-1", Some("admin"))
        .await;
    let response = s
        .request(Method::PUT, &format!("/v2/shops/{}", s.shop_id()), &token)
        .json(&json!({"name": "x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    assert_eq!(
        s.get("/v2/shops", &token).send().await.unwrap().status(),
        StatusCode::OK
    );
}

async fn accounts_see_nothing_of_each_other(s: TestServer) {
    let other = s.seed_another_account().await;
    let mine = s.owner_token().await;
    let response = s
        .password_grant(
            (&other.app.client_id, &other.app.client_secret),
            &other.user.email,
            &other.user.password,
            &[],
        )
        .await;
    let theirs = crate::support::access_token(response).await;
    let their_shop = other.shops[0].id;
    let their_seller = other.sellers[0].id;
    for path in [
        format!("/v2/shops/{their_shop}"),
        format!("/v2/sellers/{their_seller}"),
    ] {
        let response = s.get(&path, &mine).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
    }
    let response = s
        .request(Method::PUT, &format!("/v2/shops/{their_shop}"), &mine)
        .json(&json!({"name": "Hijacked"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    let response = s
        .request(
            Method::POST,
            &format!("/v2/sellers/{their_seller}/shops"),
            &mine,
        )
        .json(&json!({"subdomain": "intruder", "name": "Intruder"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    let (_, their_view) = json(
        s.get(&format!("/v2/shops/{their_shop}"), &theirs)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(their_view["name"], "Demo Store", "untouched");
    for (token, expected) in [(&mine, &s.demo.shops), (&theirs, &other.shops)] {
        let (_, list) = json(s.get("/v2/shops", token).send().await.unwrap()).await;
        let ids: Vec<i64> = list["_embedded"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["id"].as_i64().unwrap())
            .collect();
        let want: Vec<i64> = expected.iter().map(|shop| shop.id).collect();
        assert_eq!(ids, want);
        let (_, sellers) = json(s.get("/v2/sellers", token).send().await.unwrap()).await;
        assert_eq!(sellers["total_items"], 1);
    }
}

async fn seller_bound_token_sees_one_seller(s: TestServer) {
    // A second seller of the same account, with a shop of its own.
    let db = storage::Database::connect(&s.db.url, &storage::StoreOptions::default())
        .await
        .unwrap();
    let mut tx = db.begin().await.unwrap();
    let now = domain::Timestamp::from_secs(1_800_000_000);
    let second = storage::sellers::insert(
        &mut tx,
        &storage::sellers::NewSeller {
            account_id: s.demo.account_id,
            name: "Second Seller",
            slug: "second",
            default_currency_code: "CLP",
            country_code: Some("CL"),
        },
        now,
    )
    .await
    .unwrap();
    let settings = storage::shops::ShopSettings {
        name: "Second Shop".into(),
        description: String::new(),
        locale: "es-CL".into(),
        currency_code: "CLP".into(),
        timezone: "America/Santiago".into(),
        contact_email: None,
        storefront: domain::shop::Storefront::Hosted,
    };
    let other_shop = storage::shops::insert(
        &mut tx,
        s.demo.account_id,
        second.id,
        "second-shop",
        &settings,
        now,
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
    db.close().await;
    let owner = s.owner_token().await;
    let (_, all) = json(s.get("/v2/shops", &owner).send().await.unwrap()).await;
    assert_eq!(all["total_items"], 3);

    let seller = s.seller_id().to_string();
    let response = s
        .password_grant(
            (&s.demo.app.client_id, &s.demo.app.client_secret),
            &s.demo.user.email,
            &s.demo.user.password,
            &[("seller_id", &seller)],
        )
        .await;
    let token = crate::support::access_token(response).await;
    let (_, root) = json(s.get("/v2", &token).send().await.unwrap()).await;
    assert_eq!(root["seller_id"], s.seller_id());
    assert_eq!(root["_embedded"]["shops"].as_array().unwrap().len(), 2);
    assert_eq!(root["_embedded"]["sellers"].as_array().unwrap().len(), 1);
    let (_, bound) = json(s.get("/v2/shops", &token).send().await.unwrap()).await;
    assert_eq!(bound["total_items"], 2);
    for path in [
        format!("/v2/shops/{}", other_shop.id),
        format!("/v2/sellers/{}", second.id),
    ] {
        assert_eq!(
            s.get(&path, &token).send().await.unwrap().status(),
            StatusCode::NOT_FOUND,
            "{path}"
        );
    }
    // A seller of no account of this user cannot be named.
    let response = s
        .password_grant(
            (&s.demo.app.client_id, &s.demo.app.client_secret),
            &s.demo.user.email,
            &s.demo.user.password,
            &[("seller_id", "999999")],
        )
        .await;
    let (status, body) = json(response).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_request");
}
