//! Revocation (RFC 7009), introspection (RFC 7662), revocation across nodes, personal
//! access tokens as bearer tokens, and sign-in throttling.

use std::sync::Arc;
use std::time::Duration;

use domain::Clock;
use domain::clock::ManualClock;
use reqwest::StatusCode;
use serde_json::Value;

use crate::on_both_backends;
use crate::support::{Backend, TestServer, expect_error, json};

on_both_backends!(
    rv_01_to_09_revocation,
    in_01_to_04_introspection,
    revocation_reaches_every_node_within_a_second,
    pat_04_06_personal_tokens_as_bearer_tokens,
    pw_06_password_guessing_is_throttled,
);

async fn form_post(
    s: &TestServer,
    path: &str,
    client: Option<(&str, &str)>,
    params: &[(&str, &str)],
) -> (StatusCode, Value) {
    let mut request = s.client.post(s.url(path)).form(params);
    if let Some((id, secret)) = client {
        request = request.basic_auth(id, Some(secret));
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.headers()["cache-control"], "no-store");
    json(response).await
}

async fn user_tokens(s: &TestServer) -> Value {
    let response = s
        .password_grant(
            (&s.demo.app.client_id, &s.demo.app.client_secret),
            &s.demo.user.email,
            &s.demo.user.password,
            &[],
        )
        .await;
    json(response).await.1
}

async fn rv_01_to_09_revocation(s: TestServer) {
    let app = (
        s.demo.app.client_id.as_str(),
        s.demo.app.client_secret.as_str(),
    );
    // RV-09: the token is required.
    let (status, body) = form_post(&s, "/oauth/revoke", Some(app), &[]).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_request");
    // RV-02: the client must authenticate.
    let tokens = user_tokens(&s).await;
    let access = tokens["access_token"].as_str().unwrap();
    let (status, body) = form_post(
        &s,
        "/oauth/revoke",
        Some((app.0, "wrong")),
        &[("token", access)],
    )
    .await;
    expect_error(status, &body, StatusCode::UNAUTHORIZED, "invalid_client");
    // RV-03: another client may not revoke it, and it stays valid.
    let (other_id, other_secret) = s
        .register_app(
            Some(s.demo.account_id),
            "admin",
            "client_credentials",
            false,
        )
        .await;
    let (status, body) = form_post(
        &s,
        "/oauth/revoke",
        Some((&other_id, &other_secret)),
        &[("token", access)],
    )
    .await;
    expect_error(
        status,
        &body,
        StatusCode::BAD_REQUEST,
        "unauthorized_client",
    );
    assert_eq!(
        s.get("/v2", access).send().await.unwrap().status(),
        StatusCode::OK
    );
    // RV-01 and RV-07: revoking an access token ends it at once.
    let (status, _) = form_post(
        &s,
        "/oauth/revoke",
        Some(app),
        &[("token", access), ("token_type_hint", "access_token")],
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        s.get("/v2", access).send().await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    // RV-04: unknown and already revoked tokens answer 200.
    for token in ["nothing-like-a-token", access] {
        let (status, _) = form_post(&s, "/oauth/revoke", Some(app), &[("token", token)]).await;
        assert_eq!(status, StatusCode::OK);
    }
    // RV-05 and RV-06: a refresh token with the wrong hint is still found, and its
    // family's access token dies with it.
    let tokens = user_tokens(&s).await;
    let refresh = tokens["refresh_token"].as_str().unwrap();
    let access = tokens["access_token"].as_str().unwrap();
    let (status, _) = form_post(
        &s,
        "/oauth/revoke",
        Some(app),
        &[("token", refresh), ("token_type_hint", "access_token")],
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = form_post(
        &s,
        "/oauth/token",
        Some(app),
        &[("grant_type", "refresh_token"), ("refresh_token", refresh)],
    )
    .await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
    assert_eq!(
        s.get("/v2", access).send().await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
}

async fn in_01_to_04_introspection(s: TestServer) {
    let app = (
        s.demo.app.client_id.as_str(),
        s.demo.app.client_secret.as_str(),
    );
    let tokens = user_tokens(&s).await;
    let access = tokens["access_token"].as_str().unwrap();
    // IN-02: anonymous callers are refused.
    let (status, body) = form_post(&s, "/oauth/introspect", None, &[("token", access)]).await;
    expect_error(status, &body, StatusCode::UNAUTHORIZED, "invalid_client");
    // IN-01 and IN-03: an active token and what it grants.
    let (status, body) = form_post(&s, "/oauth/introspect", Some(app), &[("token", access)]).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["active"], true);
    assert_eq!(
        body["scope"],
        "admin,public,credentials.read,credentials.write"
    );
    assert_eq!(body["client_id"], app.0);
    assert_eq!(body["username"], "Demo Owner");
    assert!(body["exp"].is_i64() && body["jti"].is_string());
    let (_, refresh) = form_post(
        &s,
        "/oauth/introspect",
        Some(app),
        &[("token", tokens["refresh_token"].as_str().unwrap())],
    )
    .await;
    assert_eq!(
        (refresh["active"].as_bool(), refresh["token_type"].as_str()),
        (Some(true), Some("refresh_token"))
    );
    // IN-04: another client's, revoked and unknown tokens are just inactive.
    let (other_id, other_secret) = s
        .register_app(
            Some(s.demo.account_id),
            "admin",
            "client_credentials",
            false,
        )
        .await;
    let (_, body) = form_post(
        &s,
        "/oauth/introspect",
        Some((&other_id, &other_secret)),
        &[("token", access)],
    )
    .await;
    assert_eq!(body, serde_json::json!({"active": false}));
    form_post(&s, "/oauth/revoke", Some(app), &[("token", access)]).await;
    for token in [access, "unknown"] {
        let (_, body) = form_post(&s, "/oauth/introspect", Some(app), &[("token", token)]).await;
        assert_eq!(body, serde_json::json!({"active": false}));
    }
}

async fn revocation_reaches_every_node_within_a_second(first: TestServer) {
    let mut config = server::ServeConfig::defaults();
    config.listen = "127.0.0.1:0".parse().unwrap();
    config.database_url = first.db.url.clone();
    config.public_url = Some(first.url.clone());
    let second = TestServer::start_on(first.db.clone(), config).await;
    let tokens = user_tokens(&first).await;
    let access = tokens["access_token"].as_str().unwrap();
    assert_eq!(
        second.get("/v2", access).send().await.unwrap().status(),
        StatusCode::OK
    );
    let app = (
        first.demo.app.client_id.as_str(),
        first.demo.app.client_secret.as_str(),
    );
    form_post(&first, "/oauth/revoke", Some(app), &[("token", access)]).await;
    // At once on the node that revoked it...
    assert_eq!(
        first.get("/v2", access).send().await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    // ...and on the other within a second (polled for at most two).
    let mut refused = false;
    for _ in 0..40 {
        if second.get("/v2", access).send().await.unwrap().status() == StatusCode::UNAUTHORIZED {
            refused = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(refused, "the second node still accepts a revoked token");
}

async fn pat_04_06_personal_tokens_as_bearer_tokens(backend: Backend) {
    let clock = Arc::new(ManualClock::new(domain::SystemClock.now()));
    let s = TestServer::start_with(backend, |c| c.clock = clock.clone() as Arc<dyn Clock>).await;
    // PAT-04: a personal token works as a bearer token with its scopes.
    let pat = crate::cli::personal_token(&s, "shops.read,sellers.read", "30d").await;
    let (status, root) = json(s.get("/v2", &pat).send().await.unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(root["scopes"], "shops.read,sellers.read");
    let response = s
        .request(
            reqwest::Method::PUT,
            &format!("/v2/shops/{}", s.shop_id()),
            &pat,
        )
        .json(&serde_json::json!({"name": "x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    // PAT-06: it ends at its expiry; one that never expires goes on.
    let forever = crate::cli::personal_token(&s, "shops.read", "never").await;
    clock.advance_secs(31 * 86_400);
    assert_eq!(
        s.get("/v2", &pat).send().await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        s.get("/v2", &forever).send().await.unwrap().status(),
        StatusCode::OK
    );
    // PAT-07: no refresh flow: a personal token is no refresh token.
    let (status, body) = form_post(
        &s,
        "/oauth/token",
        Some((&s.demo.app.client_id, &s.demo.app.client_secret)),
        &[("grant_type", "refresh_token"), ("refresh_token", &forever)],
    )
    .await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
    // Scopes beyond the role, a bad expiry or no name are refused by the command.
    s.add_user("reader@demo.example", "reader-password-1", "readonly")
        .await;
    for (user, scopes, expires) in [
        ("reader@demo.example", "shops.write", "30d"),
        (s.demo.user.email.as_str(), "shops.read", "45d"),
    ] {
        let run = crate::cli::try_personal_token(&s, user, scopes, expires).await;
        assert!(run.is_err(), "{user} {scopes} {expires}");
    }
}

async fn pw_06_password_guessing_is_throttled(s: TestServer) {
    let app = (
        s.demo.app.client_id.as_str(),
        s.demo.app.client_secret.as_str(),
    );
    let attempt = |password: &'static str| s.password_grant(app, &s.demo.user.email, password, &[]);
    for _ in 0..5 {
        let (status, body) = json(attempt("wrong-password").await).await;
        expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
    }
    // Locked now, even with the right password; the answer says when to retry.
    let response = s
        .password_grant(app, &s.demo.user.email, &s.demo.user.password, &[])
        .await;
    let retry: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=30).contains(&retry), "{retry}");
    let (status, body) = json(response).await;
    expect_error(status, &body, StatusCode::TOO_MANY_REQUESTS, "slow_down");
    // Other users are not affected.
    s.add_user("staff@demo.example", "staff-password-1", "staff")
        .await;
    let response = s
        .password_grant(app, "staff@demo.example", "staff-password-1", &[])
        .await;
    assert_eq!(response.status(), StatusCode::OK);
}
