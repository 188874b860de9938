//! `POST /oauth/token` with the client-credentials and password grants.

use reqwest::StatusCode;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE};
use serde_json::Value;

use crate::on_both_backends;
use crate::support::{TestServer, expect_error, json};

on_both_backends!(
    client_credentials_by_body_and_by_basic,
    client_authentication_failures,
    password_grant_rules,
    malformed_token_requests,
);

async fn post_form(
    s: &TestServer,
    body: &str,
    basic: Option<(&str, &str)>,
) -> (StatusCode, reqwest::header::HeaderMap, Value) {
    let mut request = s
        .client
        .post(s.url("/oauth/token"))
        .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(body.to_owned());
    if let Some((id, secret)) = basic {
        request = request.basic_auth(id, Some(secret));
    }
    let response = request.send().await.unwrap();
    let headers = response.headers().clone();
    let (status, body) = json(response).await;
    (status, headers, body)
}

fn assert_no_store(headers: &reqwest::header::HeaderMap) {
    assert_eq!(headers["cache-control"], "no-store");
    assert_eq!(headers["pragma"], "no-cache");
}

/// TOK-09, TOK-10, TOK-16, TOK-17, TOK-19, TOK-20, CC-01, CC-02, CC-03, CC-05.
async fn client_credentials_by_body_and_by_basic(s: TestServer) {
    let (id, secret) = s
        .register_app(
            Some(s.demo.account_id),
            "shops.read,products.write",
            "client_credentials",
            false,
        )
        .await;
    let (status, headers, body) = post_form(
        &s,
        &format!("grant_type=client_credentials&client_id={id}&client_secret={secret}"),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_no_store(&headers);
    assert_eq!(body["token_type"], "bearer");
    assert_eq!(body["expires_in"], 7200);
    assert_eq!(body["scope"], "products.write,shops.read");
    assert!(
        body.get("refresh_token").is_none(),
        "no refresh token for client credentials"
    );

    let (status, _, body) = post_form(
        &s,
        "grant_type=client_credentials&scope=shops.read",
        Some((&id, &secret)),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["scope"], "shops.read");
    // Write implies read: products.read may be asked of an app allowed products.write.
    let (status, _, body) = post_form(
        &s,
        "grant_type=client_credentials&scope=products.read",
        Some((&id, &secret)),
    )
    .await;
    assert_eq!(
        (status, body["scope"].as_str()),
        (StatusCode::OK, Some("products.read"))
    );
    // The token is bound to the app's account: it sees the account's shops.
    let token = body["access_token"].as_str().unwrap();
    let (_, bh, shop_token) = post_form(
        &s,
        "grant_type=client_credentials&scope=shops.read",
        Some((&id, &secret)),
    )
    .await;
    assert_no_store(&bh);
    let shops = s
        .get("/v2/shops", shop_token["access_token"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    let (_, shops) = json(shops).await;
    assert_eq!(shops["total_items"], 2);
    assert_eq!(
        s.get("/v2/shops", token).send().await.unwrap().status(),
        StatusCode::FORBIDDEN
    );

    let (status, _, body) = post_form(
        &s,
        "grant_type=client_credentials&scope=orders.read",
        Some((&id, &secret)),
    )
    .await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_scope");
    let (status, _, body) = post_form(
        &s,
        "grant_type=client_credentials&scope=galaxy.read",
        Some((&id, &secret)),
    )
    .await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_scope");
}

/// TOK-08, TOK-11, TOK-12, TOK-13, TOK-14, TOK-15, TOK-22 (NUL in Basic).
async fn client_authentication_failures(s: TestServer) {
    let id = s.demo.app.client_id.clone();
    let secret = s.demo.app.client_secret.clone();
    // Wrong secret over Basic: 401 with a Basic challenge.
    let (status, headers, body) =
        post_form(&s, "grant_type=client_credentials", Some((&id, "wrong"))).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(
        headers["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with("Basic realm=")
    );
    assert_eq!(body["error"], "invalid_client");
    assert_no_store(&headers);
    // Unknown client over Basic: the same.
    let (status, _, body) =
        post_form(&s, "grant_type=client_credentials", Some(("nobody", "x"))).await;
    expect_error(status, &body, StatusCode::UNAUTHORIZED, "invalid_client");
    // Wrong secret in the body: 400 without a challenge.
    let (status, headers, body) = post_form(
        &s,
        &format!("grant_type=client_credentials&client_id={id}&client_secret=wrong"),
        None,
    )
    .await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_client");
    assert!(headers.get("www-authenticate").is_none());
    // No client authentication at all.
    let (status, _, body) = post_form(&s, "grant_type=client_credentials", None).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_client");
    // Two methods at once.
    let (status, _, body) = post_form(
        &s,
        &format!("grant_type=client_credentials&client_secret={secret}"),
        Some((&id, &secret)),
    )
    .await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_request");
    // Credentials in the query string never get a token.
    let response = s
        .client
        .post(s.url(&format!(
            "/oauth/token?client_id={id}&client_secret={secret}"
        )))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .await
        .unwrap();
    let (status, body) = json(response).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_request");
    // A client not allowed the grant.
    let (pw_id, pw_secret) = s
        .register_app(Some(s.demo.account_id), "shops.read", "password", true)
        .await;
    let (status, _, body) = post_form(
        &s,
        "grant_type=client_credentials",
        Some((&pw_id, &pw_secret)),
    )
    .await;
    expect_error(
        status,
        &body,
        StatusCode::BAD_REQUEST,
        "unauthorized_client",
    );
}

/// PW-01, PW-02, PW-03, PW-04 (the same answer for a wrong password and an unknown user).
async fn password_grant_rules(s: TestServer) {
    let app = (
        s.demo.app.client_id.clone(),
        s.demo.app.client_secret.clone(),
    );
    let user = (s.demo.user.email.clone(), s.demo.user.password.clone());
    let form = |username: &str, password: &str| {
        form_urlencoded::Serializer::new(String::new())
            .append_pair("grant_type", "password")
            .append_pair("username", username)
            .append_pair("password", password)
            .finish()
    };
    let (status, headers, body) =
        post_form(&s, &form(&user.0, &user.1), Some((&app.0, &app.1))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_no_store(&headers);
    assert_eq!(
        body["scope"],
        "admin,public,credentials.read,credentials.write"
    );
    // E-mail addresses match whatever their case.
    let (status, _, _) = post_form(
        &s,
        &form(&user.0.to_uppercase(), &user.1),
        Some((&app.0, &app.1)),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    // A wrong password and an unknown user look the same.
    let (status, _, wrong) = post_form(
        &s,
        &form(&user.0, "not-the-password"),
        Some((&app.0, &app.1)),
    )
    .await;
    let (status2, _, unknown) = post_form(
        &s,
        &form("nobody@demo.example", "x"),
        Some((&app.0, &app.1)),
    )
    .await;
    assert_eq!(
        (status, status2),
        (StatusCode::BAD_REQUEST, StatusCode::BAD_REQUEST)
    );
    assert_eq!(wrong, unknown);
    assert_eq!(wrong["error"], "invalid_grant");
    // Missing password.
    let (status, _, body) = post_form(
        &s,
        &format!("grant_type=password&username={}", user.0),
        Some((&app.0, &app.1)),
    )
    .await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_request");
    // Untrusted apps may not use it.
    let (id, secret) = s
        .register_app(Some(s.demo.account_id), "admin", "password", false)
        .await;
    let (status, _, body) = post_form(&s, &form(&user.0, &user.1), Some((&id, &secret))).await;
    expect_error(
        status,
        &body,
        StatusCode::BAD_REQUEST,
        "unauthorized_client",
    );
    // An app of another account cannot sign in this account's users.
    let other = s.seed_another_account().await;
    let (status, _, body) = post_form(
        &s,
        &form(&user.0, &user.1),
        Some((&other.app.client_id, &other.app.client_secret)),
    )
    .await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_grant");
}

/// TOK-01, TOK-02, TOK-03, TOK-04, TOK-05, TOK-06, TOK-07, TOK-17, TOK-18, TOK-22.
async fn malformed_token_requests(s: TestServer) {
    let basic = (
        s.demo.app.client_id.clone(),
        s.demo.app.client_secret.clone(),
    );
    let cases: [(&str, &str); 6] = [
        (
            "grant_type=password&username=%00&password=x",
            "invalid_request",
        ),
        ("", "invalid_request"),
        (
            "grant_type=client_credentials&grant_type=password",
            "invalid_request",
        ),
        ("grant_type=implicit", "unsupported_grant_type"),
        ("grant_type=magic", "unsupported_grant_type"),
        ("grant_type=", "invalid_request"),
    ];
    for (body, error) in cases {
        let (status, headers, answer) = post_form(&s, body, Some((&basic.0, &basic.1))).await;
        assert_eq!(
            (status, answer["error"].as_str()),
            (StatusCode::BAD_REQUEST, Some(error)),
            "{body}"
        );
        assert_no_store(&headers);
        let description = answer["error_description"].as_str().unwrap();
        assert!(
            description
                .chars()
                .all(|c| c.is_ascii() && c != '"' && c != '\\'),
            "{description}"
        );
    }
    // TOK-04: unknown parameters are ignored.
    let (status, _, answer) = post_form(
        &s,
        "grant_type=client_credentials&flavour=vanilla",
        Some((&basic.0, &basic.1)),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    // TOK-03: an empty scope is as if absent.
    let (status, _, answer) = post_form(
        &s,
        "grant_type=client_credentials&scope=",
        Some((&basic.0, &basic.1)),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    // JSON is not a token request.
    let response = s
        .client
        .post(s.url("/oauth/token"))
        .header(AUTHORIZATION, "Bearer x")
        .json(&serde_json::json!({"grant_type": "client_credentials"}))
        .send()
        .await
        .unwrap();
    let (status, body) = json(response).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_request");
    // A NUL in Basic credentials is a failed client authentication, not a server error.
    let (status, _, answer) =
        post_form(&s, "grant_type=client_credentials", Some(("a\0b", "c"))).await;
    expect_error(status, &answer, StatusCode::UNAUTHORIZED, "invalid_client");
    // Only POST.
    let response = s.client.get(s.url("/oauth/token")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
}
