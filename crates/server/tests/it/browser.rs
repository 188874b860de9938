//! The authorization-code flow in a real headless browser: sign in, consent, the redirect
//! back with a code, the token exchange, and an API call with the token.

use axum::Router;
use axum::routing::get;
use reqwest::StatusCode;

use crate::authorize::{VERIFIER, authorize_url};
use crate::on_both_backends;
use crate::support::{TestServer, json};
use crate::webdriver::Browser;

on_both_backends!(authorization_code_flow_in_chromium);

/// A client's callback page on loopback, so the browser has somewhere real to land.
async fn callback_receiver() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let app = Router::new().route(
        "/callback",
        get(|| async { "Signed in; you may close this window." }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{address}/callback")
}

async fn authorization_code_flow_in_chromium(s: TestServer) {
    let Some(browser) = Browser::start().await else {
        return;
    };
    let callback = callback_receiver().await;
    let (client_id, secret) = s
        .register_with_redirects(
            Some(s.demo.account_id),
            "admin",
            "authorization_code,refresh_token",
            false,
            &[&callback],
        )
        .await;
    let secret = secret.unwrap();
    let challenge = oauth::pkce::s256(VERIFIER);
    let url = authorize_url(
        &s,
        &client_id,
        &[
            ("response_type", "code"),
            ("redirect_uri", &callback),
            ("scope", "shops.read,sellers.read"),
            ("state", "xyz"),
            ("code_challenge", &challenge),
        ],
    );
    browser.goto(&url).await;
    browser.type_into("#email", &s.demo.user.email).await;
    browser.type_into("#password", &s.demo.user.password).await;
    browser.click("#sign-in").await;
    browser.click("#approve").await;
    let landed = browser.wait_for_url(&callback).await;
    browser.quit().await;
    let query = landed.split_once('?').map_or("", |(_, q)| q);
    let pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect();
    let get = |name: &str| {
        pairs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(get("state").as_deref(), Some("xyz"));
    let code = get("code").expect("a code");
    let response = s
        .token_request(&[
            ("grant_type", "authorization_code"),
            ("client_id", &client_id),
            ("client_secret", &secret),
            ("code", &code),
            ("redirect_uri", &callback),
            ("code_verifier", VERIFIER),
        ])
        .await;
    let (status, tokens) = json(response).await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    let (status, root) = json(
        s.get("/v2", tokens["access_token"].as_str().unwrap())
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(root["_embedded"]["shops"].as_array().unwrap().len(), 2);
}
