//! The token endpoint's grants beyond the basics: refresh tokens, authorization codes with
//! PKCE, and the JWT bearer grant. Test names carry the checklist IDs they cover.

use std::sync::Arc;
use std::time::Duration;

use domain::Clock;
use domain::clock::ManualClock;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::{Backend, TestServer, expect_error, json};

on_both_backends!(
    rt_01_03_07_08_refresh_rotates_and_reuse_revokes_the_family,
    rt_02_05_06_refresh_scope_and_client_binding,
    rt_09_concurrent_refreshes_leave_one_winner,
    ac_01_to_07_and_10_authorization_code_rules,
    ac_08_09_code_reuse_and_concurrent_redemption,
    pk_01_to_06_pkce,
    jb_01_to_14_assertion_validation,
    jb_15_17_20_21_renewal_rules,
    jb_22_renewal_follows_a_chain_to_its_newest_token,
    jb_23_concurrent_renewals_of_a_chain_leave_one_live_token,
);

async fn token(s: &TestServer, params: &[(&str, &str)]) -> (StatusCode, Value) {
    json(s.token_request(params).await).await
}

fn demo_app(s: &TestServer) -> (String, String) {
    (
        s.demo.app.client_id.clone(),
        s.demo.app.client_secret.clone(),
    )
}

async fn password_tokens(s: &TestServer, scope: Option<&str>) -> Value {
    let (id, secret) = demo_app(s);
    let extra: Vec<(&str, &str)> = scope.map(|sc| ("scope", sc)).into_iter().collect();
    let response = s
        .password_grant(
            (&id, &secret),
            &s.demo.user.email,
            &s.demo.user.password,
            &extra,
        )
        .await;
    let (status, body) = json(response).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

async fn refresh(
    s: &TestServer,
    app: &(String, String),
    refresh_token: &str,
    scope: Option<&str>,
) -> (StatusCode, Value) {
    let mut params = vec![
        ("grant_type", "refresh_token"),
        ("client_id", app.0.as_str()),
        ("client_secret", app.1.as_str()),
        ("refresh_token", refresh_token),
    ];
    if let Some(scope) = scope {
        params.push(("scope", scope));
    }
    token(s, &params).await
}

async fn root_status(s: &TestServer, access_token: &str) -> StatusCode {
    s.get("/v2", access_token).send().await.unwrap().status()
}

async fn rt_01_03_07_08_refresh_rotates_and_reuse_revokes_the_family(s: TestServer) {
    let app = demo_app(&s);
    let first = password_tokens(&s, None).await;
    let rt1 = first["refresh_token"]
        .as_str()
        .expect("the password grant issues a refresh token");
    // RT-01: a new access token and a new refresh token.
    let (status, second) = refresh(&s, &app, rt1, None).await;
    assert_eq!(status, StatusCode::OK, "{second}");
    let rt2 = second["refresh_token"].as_str().unwrap();
    assert_ne!(rt1, rt2);
    assert_eq!(
        second["scope"],
        "admin,public,credentials.read,credentials.write"
    );
    let at2 = second["access_token"].as_str().unwrap();
    assert_eq!(root_status(&s, at2).await, StatusCode::OK);
    // RT-07: the spent token is refused; RT-08: and that ends the whole family.
    let (status, body) = refresh(&s, &app, rt1, None).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
    let (status, body) = refresh(&s, &app, rt2, None).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
    assert_eq!(
        root_status(&s, at2).await,
        StatusCode::UNAUTHORIZED,
        "the family's access token is revoked"
    );
    assert_eq!(
        root_status(&s, first["access_token"].as_str().unwrap()).await,
        StatusCode::UNAUTHORIZED
    );
    // RT-03: unknown tokens.
    let (status, body) = refresh(&s, &app, "not-a-refresh-token", None).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
    // Another family is untouched.
    let other = password_tokens(&s, None).await;
    let (status, _) = refresh(&s, &app, other["refresh_token"].as_str().unwrap(), None).await;
    assert_eq!(status, StatusCode::OK);
}

async fn rt_02_05_06_refresh_scope_and_client_binding(s: TestServer) {
    let app = demo_app(&s);
    let tokens = password_tokens(&s, Some("shops.write,sellers.read")).await;
    let rt = tokens["refresh_token"].as_str().unwrap().to_owned();
    // RT-02: another client cannot use it (and it stays usable for its own client).
    let other = s
        .register_app(
            Some(s.demo.account_id),
            "admin",
            "refresh_token,password",
            true,
        )
        .await;
    let (status, body) = refresh(&s, &other, &rt, None).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
    // RT-06: no scope beyond the original.
    let (status, body) = refresh(&s, &app, &rt, Some("orders.read")).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_scope");
    // RT-05: a narrower access token; the next refresh token keeps the original scope.
    let (status, narrow) = refresh(&s, &app, &rt, Some("shops.read")).await;
    assert_eq!(status, StatusCode::OK, "{narrow}");
    assert_eq!(narrow["scope"], "shops.read");
    let narrow_token = narrow["access_token"].as_str().unwrap();
    let response = s
        .request(
            reqwest::Method::PUT,
            &format!("/v2/shops/{}", s.shop_id()),
            narrow_token,
        )
        .json(&json!({"name": "x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    let (status, wide) = refresh(&s, &app, narrow["refresh_token"].as_str().unwrap(), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(wide["scope"], "shops.write,sellers.read");
}

async fn rt_09_concurrent_refreshes_leave_one_winner(s: TestServer) {
    let app = demo_app(&s);
    let tokens = password_tokens(&s, None).await;
    let rt = tokens["refresh_token"].as_str().unwrap();
    let (a, b) = tokio::join!(refresh(&s, &app, rt, None), refresh(&s, &app, rt, None));
    let winners = [&a, &b]
        .iter()
        .filter(|(status, _)| *status == StatusCode::OK)
        .count();
    assert_eq!(winners, 1, "{a:?} {b:?}");
}

async fn exchange_code(
    s: &TestServer,
    app: &(String, String),
    extra: &[(&str, &str)],
) -> (StatusCode, Value) {
    let mut params = vec![
        ("grant_type", "authorization_code"),
        ("client_id", app.0.as_str()),
        ("client_secret", app.1.as_str()),
    ];
    params.extend_from_slice(extra);
    token(s, &params).await
}

async fn ac_01_to_07_and_10_authorization_code_rules(backend: Backend) {
    let clock = Arc::new(ManualClock::new(domain::SystemClock.now()));
    let s = TestServer::start_with(backend, |c| {
        c.clock = clock.clone() as Arc<dyn domain::Clock>
    })
    .await;
    let app = demo_app(&s);
    let redirect = "http://127.0.0.1:8000/callback";
    // AC-01 (and AC-10: the scope parameter is ignored; the code's scope is granted).
    let code = s
        .issue_code(&app.0, "shops.read", Some(redirect), None, 300)
        .await;
    let (status, body) = exchange_code(
        &s,
        &app,
        &[
            ("code", &code),
            ("redirect_uri", redirect),
            ("scope", "admin"),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["scope"], "shops.read");
    assert!(body["refresh_token"].is_string());
    assert_eq!(
        root_status(&s, body["access_token"].as_str().unwrap()).await,
        StatusCode::OK
    );
    // AC-02: no code.
    let (status, body) = exchange_code(&s, &app, &[("redirect_uri", redirect)]).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_request");
    // AC-03: unknown code.
    let (status, body) =
        exchange_code(&s, &app, &[("code", "nope"), ("redirect_uri", redirect)]).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
    // AC-04: an expired code.
    let code = s
        .issue_code(&app.0, "shops.read", Some(redirect), None, 300)
        .await;
    clock.advance_secs(301);
    let (status, body) =
        exchange_code(&s, &app, &[("code", &code), ("redirect_uri", redirect)]).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
    // AC-05: issued to another client.
    let other = s
        .register_app(
            Some(s.demo.account_id),
            "admin",
            "authorization_code",
            false,
        )
        .await;
    let code = s
        .issue_code(&app.0, "shops.read", Some(redirect), None, 300)
        .await;
    let (status, body) =
        exchange_code(&s, &other, &[("code", &code), ("redirect_uri", redirect)]).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
    // AC-06: the redirect URI named at authorization must be named again.
    let code = s
        .issue_code(&app.0, "shops.read", Some(redirect), None, 300)
        .await;
    let (status, body) = exchange_code(&s, &app, &[("code", &code)]).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
    // AC-07: and must be the same (a trailing slash differs).
    let code = s
        .issue_code(&app.0, "shops.read", Some(redirect), None, 300)
        .await;
    let (status, body) = exchange_code(
        &s,
        &app,
        &[
            ("code", &code),
            ("redirect_uri", "http://127.0.0.1:8000/callback/"),
        ],
    )
    .await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
    // A query string appended at the exchange is ignored (older clients add one).
    let code = s
        .issue_code(&app.0, "shops.read", Some(redirect), None, 300)
        .await;
    let with_query = format!("{redirect}?state=abc");
    let (status, body) =
        exchange_code(&s, &app, &[("code", &code), ("redirect_uri", &with_query)]).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

async fn ac_08_09_code_reuse_and_concurrent_redemption(s: TestServer) {
    let app = demo_app(&s);
    // AC-08: a second redemption fails and revokes what the first issued.
    let code = s.issue_code(&app.0, "admin", None, None, 300).await;
    let (status, first) = exchange_code(&s, &app, &[("code", &code)]).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    let access = first["access_token"].as_str().unwrap();
    assert_eq!(root_status(&s, access).await, StatusCode::OK);
    let (status, body) = exchange_code(&s, &app, &[("code", &code)]).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
    assert_eq!(root_status(&s, access).await, StatusCode::UNAUTHORIZED);
    let (status, body) = refresh(&s, &app, first["refresh_token"].as_str().unwrap(), None).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
    // AC-09: two redemptions at once give exactly one token.
    let code = s.issue_code(&app.0, "admin", None, None, 300).await;
    let params = [("code", code.as_str())];
    let (a, b) = tokio::join!(
        exchange_code(&s, &app, &params),
        exchange_code(&s, &app, &params)
    );
    let winners = [&a, &b]
        .iter()
        .filter(|(status, _)| *status == StatusCode::OK)
        .count();
    assert_eq!(winners, 1, "{a:?} {b:?}");
}

async fn pk_01_to_06_pkce(s: TestServer) {
    let app = demo_app(&s);
    let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    let challenge = oauth::pkce::s256(verifier);
    // PK-01
    let code = s
        .issue_code(&app.0, "admin", None, Some(&challenge), 300)
        .await;
    let (status, body) =
        exchange_code(&s, &app, &[("code", &code), ("code_verifier", verifier)]).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // PK-02 and PK-06: a wrong verifier spends the code; the right one no longer works.
    let code = s
        .issue_code(&app.0, "admin", None, Some(&challenge), 300)
        .await;
    let wrong = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXx";
    let (status, body) =
        exchange_code(&s, &app, &[("code", &code), ("code_verifier", wrong)]).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
    let (status, body) =
        exchange_code(&s, &app, &[("code", &code), ("code_verifier", verifier)]).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
    // PK-03: a challenge without a verifier.
    let code = s
        .issue_code(&app.0, "admin", None, Some(&challenge), 300)
        .await;
    let (status, body) = exchange_code(&s, &app, &[("code", &code)]).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
    // PK-04: a verifier without a challenge (downgrade).
    let code = s.issue_code(&app.0, "admin", None, None, 300).await;
    let (status, body) =
        exchange_code(&s, &app, &[("code", &code), ("code_verifier", verifier)]).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
    // PK-05: a malformed verifier.
    let code = s
        .issue_code(&app.0, "admin", None, Some(&challenge), 300)
        .await;
    let (status, body) =
        exchange_code(&s, &app, &[("code", &code), ("code_verifier", "short")]).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
    // A public client exchanges its code with its id alone, and must use PKCE.
    let (public_id, _) = s
        .register(
            Some(s.demo.account_id),
            "admin",
            "authorization_code,refresh_token",
            false,
            true,
        )
        .await;
    let code = s
        .issue_code(&public_id, "admin", None, Some(&challenge), 300)
        .await;
    let (status, body) = token(
        &s,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", &public_id),
            ("code", &code),
            ("code_verifier", verifier),
        ],
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let code = s.issue_code(&public_id, "admin", None, None, 300).await;
    let (status, body) = token(
        &s,
        &[
            ("grant_type", "authorization_code"),
            ("client_id", &public_id),
            ("code", &code),
        ],
    )
    .await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
    // A public client cannot use grants that need a secret.
    let (status, body) = token(
        &s,
        &[
            ("grant_type", "client_credentials"),
            ("client_id", &public_id),
        ],
    )
    .await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_client");
}

fn sign(secret: &str, claims: &Value) -> String {
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        claims,
        &EncodingKey::from_secret(secret.as_bytes()),
    )
    .unwrap()
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

async fn jwt_bearer(s: &TestServer, assertion: &str) -> (StatusCode, Value) {
    token(
        s,
        &[
            ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
            ("assertion", assertion),
        ],
    )
    .await
}

async fn jb_01_to_14_assertion_validation(s: TestServer) {
    let (id, secret) = demo_app(&s);
    let subject = password_tokens(&s, None).await["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let now = unix_now();
    let good = json!({"iss": id, "aud": "commerce", "exp": now + 300, "sub": subject});
    let refused = |claims: Value| sign(&secret, &claims);
    // JB-01: no assertion.
    let (status, body) = token(
        &s,
        &[("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer")],
    )
    .await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_request");
    let mut cases: Vec<(&str, String)> = vec![
        ("JB-02 not a JWT", "garbage".into()),
        (
            "JB-02 two JWTs",
            format!("{}.{}", refused(good.clone()), refused(good.clone())),
        ),
        ("JB-03 another key", sign("not-the-client-secret", &good)),
        (
            "JB-05 no exp",
            refused(json!({"iss": id, "aud": "commerce", "sub": subject})),
        ),
        (
            "JB-06 expired",
            refused(json!({"iss": id, "aud": "commerce", "exp": now - 3600, "sub": subject})),
        ),
        (
            "JB-07 far future",
            refused(
                json!({"iss": id, "aud": "commerce", "exp": now + 30 * 86_400, "sub": subject}),
            ),
        ),
        (
            "JB-08 exp as text",
            refused(json!({"iss": id, "aud": "commerce", "exp": "never", "sub": subject})),
        ),
        (
            "JB-09 no iss",
            refused(json!({"aud": "commerce", "exp": now + 300, "sub": subject})),
        ),
        (
            "JB-09 unknown iss",
            refused(json!({"iss": "nobody", "aud": "commerce", "exp": now + 300, "sub": subject})),
        ),
        (
            "JB-10 no aud",
            refused(json!({"iss": id, "exp": now + 300, "sub": subject})),
        ),
        (
            "JB-11 no subject",
            refused(json!({"iss": id, "aud": "commerce", "exp": now + 300})),
        ),
        (
            "JB-12 not our token",
            refused(json!({"iss": id, "aud": "commerce", "exp": now + 300, "sub": "eyJ.x.y"})),
        ),
    ];
    // JB-04: alg none, and an algorithm other than HS256.
    let claims_part = {
        use base64::Engine;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(good.to_string())
    };
    cases.push((
        "JB-04 alg none",
        format!("eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.{claims_part}."),
    ));
    let hs512 = jsonwebtoken::encode(
        &Header::new(Algorithm::HS512),
        &good,
        &EncodingKey::from_secret(secret.as_bytes()),
    )
    .unwrap();
    cases.push(("JB-04 HS512", hs512));
    // JB-13: a token issued to another client.
    let (other_id, other_secret) = s
        .register_app(
            Some(s.demo.account_id),
            "admin",
            "client_credentials,urn:ietf:params:oauth:grant-type:jwt-bearer",
            false,
        )
        .await;
    let foreign = s
        .client_credentials_token(&other_id, &other_secret, None)
        .await;
    cases.push((
        "JB-13 foreign token",
        refused(json!({"iss": id, "aud": "commerce", "exp": now + 300, "sub": foreign})),
    ));
    // JB-16: a personal access token as the subject.
    let pat = crate::cli::personal_token(&s, "shops.read", "30d").await;
    cases.push((
        "JB-16 personal token",
        refused(json!({"iss": id, "aud": "commerce", "exp": now + 300, "sub": pat})),
    ));
    for (case, assertion) in &cases {
        let (status, body) = jwt_bearer(&s, assertion).await;
        assert_eq!(
            (status, body["error"].as_str()),
            (StatusCode::BAD_REQUEST, Some("invalid_grant")),
            "{case}: {body}"
        );
    }
    // JB-14: a revoked subject token.
    let revoked = password_tokens(&s, None).await["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let response = s
        .client
        .post(s.url("/oauth/revoke"))
        .basic_auth(&id, Some(&secret))
        .form(&[("token", revoked.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let (status, body) = jwt_bearer(
        &s,
        &refused(json!({"iss": id, "aud": "commerce", "exp": now + 300, "sub": revoked})),
    )
    .await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
    // JB-18: client credentials that do not match the assertion's issuer.
    let response = s
        .client
        .post(s.url("/oauth/token"))
        .basic_auth(&other_id, Some(&other_secret))
        .form(&[
            ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
            ("assertion", sign(&secret, &good).as_str()),
        ])
        .send()
        .await
        .unwrap();
    let (status, body) = json(response).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_client");
    // The good assertion still works (nothing above spent the subject).
    let (status, body) = jwt_bearer(&s, &sign(&secret, &good)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

async fn jb_15_17_20_21_renewal_rules(backend: Backend) {
    let clock = Arc::new(ManualClock::new(domain::SystemClock.now()));
    let s = TestServer::start_with(backend, |c| {
        c.clock = clock.clone() as Arc<dyn domain::Clock>;
        c.access_token_ttl = Duration::from_secs(3600);
        c.jwt_bearer_max_age = Duration::from_secs(86_400);
    })
    .await;
    let (id, secret) = demo_app(&s);
    let tokens = password_tokens(&s, Some("shops.read,sellers.read")).await;
    let subject = tokens["access_token"].as_str().unwrap().to_owned();
    // The subject expires; an hour later the client renews it.
    clock.advance_secs(2 * 3600);
    assert_eq!(root_status(&s, &subject).await, StatusCode::UNAUTHORIZED);
    let exp = clock.now().as_secs() + 300;
    // JB-21: the legacy form, with its empty client fields, and `prn` for the subject.
    let assertion = sign(
        &secret,
        &json!({"iss": id, "aud": "commerce", "exp": exp, "prn": subject}),
    );
    let (status, body) = token(
        &s,
        &[
            ("grant_type", "assertion"),
            (
                "assertion_type",
                "urn:ietf:params:oauth:grant-type:jwt-bearer",
            ),
            ("assertion", &assertion),
            ("client_id", ""),
            ("client_secret", ""),
            ("scope", ""),
        ],
    )
    .await;
    // JB-17: the same scopes, no refresh token.
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["scope"], "shops.read,sellers.read");
    assert!(body.get("refresh_token").is_none());
    let renewed = body["access_token"].as_str().unwrap().to_owned();
    assert_eq!(root_status(&s, &renewed).await, StatusCode::OK);
    // JB-20: each subject is renewed once.
    let again = sign(
        &secret,
        &json!({"iss": id, "aud": ["commerce"], "exp": exp, "sub": subject}),
    );
    let (status, body) = jwt_bearer(&s, &again).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
    // JB-15: a token that has not expired yet may be renewed too.
    let fresh = password_tokens(&s, None).await["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, body) = jwt_bearer(
        &s,
        &sign(
            &secret,
            &json!({"iss": id, "aud": "x", "exp": exp, "sub": fresh}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // Beyond the renewal age, no renewal.
    let old = password_tokens(&s, None).await["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    clock.advance_secs(3600 + 86_400 + 60);
    let exp = clock.now().as_secs() + 300;
    let (status, body) = jwt_bearer(
        &s,
        &sign(
            &secret,
            &json!({"iss": id, "aud": "x", "exp": exp, "sub": old}),
        ),
    )
    .await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
    // Compatibility: a client authenticating with its credentials may present its own
    // access token as the assertion.
    let own = password_tokens(&s, None).await["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let response = s
        .client
        .post(s.url("/oauth/token"))
        .basic_auth(&id, Some(&secret))
        .form(&[
            ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
            ("assertion", own.as_str()),
        ])
        .send()
        .await
        .unwrap();
    let (status, body) = json(response).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

/// A server on a manual clock: hour-long tokens, renewable for three hours after expiry.
async fn renewing_server(backend: Backend) -> (TestServer, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(domain::SystemClock.now()));
    let manual = clock.clone() as Arc<dyn domain::Clock>;
    let s = TestServer::start_with(backend, move |c| {
        c.clock = manual;
        c.access_token_ttl = Duration::from_secs(3600);
        c.jwt_bearer_max_age = Duration::from_secs(3 * 3600);
    })
    .await;
    (s, clock)
}

/// Renews `subject` as the Bootic Ruby client does: the legacy form, `prn`, an assertion
/// living a few seconds.
async fn renew(s: &TestServer, clock: &ManualClock, subject: &str) -> (StatusCode, Value) {
    let (id, secret) = demo_app(s);
    let claims =
        json!({"iss": id, "aud": "commerce", "exp": clock.now().as_secs() + 30, "prn": subject});
    token(
        s,
        &[
            ("grant_type", "assertion"),
            (
                "assertion_type",
                "urn:ietf:params:oauth:grant-type:jwt-bearer",
            ),
            ("assertion", &sign(&secret, &claims)),
        ],
    )
    .await
}

/// The access token of a successful renewal.
fn renewed(answer: (StatusCode, Value)) -> String {
    let (status, body) = answer;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["access_token"].as_str().unwrap().to_owned()
}

fn jti_of(token: &str) -> String {
    use base64::Engine;
    let payload = token.split('.').nth(1).unwrap();
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .unwrap();
    let claims: Value = serde_json::from_slice(&bytes).unwrap();
    claims["jti"].as_str().unwrap().to_owned()
}

/// The live tokens of a test's one renewal chain, which began with `first`: that token
/// and every token the JWT bearer grant issued.
async fn live_in_chain(s: &TestServer, clock: &ManualClock, first: &str) -> i64 {
    s.db.scalar(&format!(
        "SELECT COUNT(*) FROM access_tokens WHERE (jti = '{}' OR grant_type = '{}') \
         AND revoked_on IS NULL AND expires_on > {}",
        jti_of(first),
        "urn:ietf:params:oauth:grant-type:jwt-bearer",
        clock.now().as_micros()
    ))
    .await
}

/// A long-running client keeps presenting the token it was first given: each time the
/// token its last renewal issued has expired, that one is renewed, past the renewal age
/// of the first; while it lives, the older tokens renew nothing. Renewing a live token
/// supersedes it: a chain has one live token.
async fn jb_22_renewal_follows_a_chain_to_its_newest_token(backend: Backend) {
    let (s, clock) = renewing_server(backend).await;
    let first = password_tokens(&s, Some("shops.read,sellers.read")).await["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut latest = first.clone();
    // Four expiries, two hours apart: by the last, the first token expired seven hours
    // ago, beyond the three-hour renewal age, but the newest only an hour ago.
    for expiry in 1..=4 {
        clock.advance_secs(2 * 3600);
        assert_eq!(root_status(&s, &latest).await, StatusCode::UNAUTHORIZED);
        let answer = renew(&s, &clock, &first).await;
        assert_eq!(
            answer.1["scope"], "shops.read,sellers.read",
            "expiry {expiry}"
        );
        latest = renewed(answer);
        assert_eq!(
            root_status(&s, &latest).await,
            StatusCode::OK,
            "expiry {expiry}"
        );
        assert_eq!(
            live_in_chain(&s, &clock, &first).await,
            1,
            "expiry {expiry}"
        );
        // While the renewal lives, neither the first token nor the renewed ones renew.
        let (status, body) = renew(&s, &clock, &first).await;
        expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
    }
    // The newest renewed while it still lives: it gives way.
    let superseded = latest.clone();
    latest = renewed(renew(&s, &clock, &superseded).await);
    assert_eq!(root_status(&s, &superseded).await, StatusCode::UNAUTHORIZED);
    assert_eq!(root_status(&s, &latest).await, StatusCode::OK);
    assert_eq!(live_in_chain(&s, &clock, &first).await, 1);
    // Past the renewal age of the newest, the chain ends.
    clock.advance_secs(3600 + 3 * 3600 + 60);
    let (status, body) = renew(&s, &clock, &first).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
    // A revoked newest token ends its chain too.
    let (id, secret) = demo_app(&s);
    let other = password_tokens(&s, None).await["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    clock.advance_secs(2 * 3600);
    let next = renewed(renew(&s, &clock, &other).await);
    let response = s
        .client
        .post(s.url("/oauth/revoke"))
        .basic_auth(&id, Some(&secret))
        .form(&[("token", next.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    clock.advance_secs(2 * 3600);
    let (status, body) = renew(&s, &clock, &other).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
}

/// Renewals of one chain at once, round after round, presenting its first token (as
/// several processes of a long-running client would), then that and its newest as well
/// (both expired): one wins, the others are refused, and the chain keeps one live token.
async fn jb_23_concurrent_renewals_of_a_chain_leave_one_live_token(backend: Backend) {
    let (s, clock) = renewing_server(backend).await;
    let first = password_tokens(&s, None).await["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    clock.advance_secs(2 * 3600);
    let mut newest = renewed(renew(&s, &clock, &first).await);
    for round in 0..4 {
        clock.advance_secs(2 * 3600);
        let other = if round % 2 == 0 { &first } else { &newest };
        let (a, b, c, d) = tokio::join!(
            renew(&s, &clock, &first),
            renew(&s, &clock, other),
            renew(&s, &clock, &first),
            renew(&s, &clock, other),
        );
        let answers = [a, b, c, d];
        let mut winners = answers
            .iter()
            .filter(|(status, _)| *status == StatusCode::OK);
        let winner = winners.next().expect("one renewal wins");
        assert!(winners.next().is_none(), "round {round}: {answers:?}");
        for (status, body) in answers
            .iter()
            .filter(|(status, _)| *status != StatusCode::OK)
        {
            expect_error(*status, body, StatusCode::BAD_REQUEST, "invalid_grant");
        }
        newest = winner.1["access_token"].as_str().unwrap().to_owned();
        assert_eq!(root_status(&s, &newest).await, StatusCode::OK);
        assert_eq!(live_in_chain(&s, &clock, &first).await, 1, "round {round}");
    }
}
