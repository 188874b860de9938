//! Developer credentials: personal access tokens and app registration, on the page (with
//! a cookie jar) and as JSON for scripts.

use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};

use crate::authorize::{cookie_jar_browser, hidden};
use crate::on_both_backends;
use crate::support::{TestServer, error_fields, json};

on_both_backends!(
    pat_01_02_03_05_10_personal_tokens_on_the_page,
    apps_registered_on_the_page,
    personal_tokens_and_apps_as_json,
);

/// A browser signed in as `email` on the credentials page; returns the page's HTML.
pub async fn signed_in(s: &TestServer, email: &str, password: &str) -> (Client, String) {
    let browser = cookie_jar_browser();
    let first = browser
        .get(s.url("/oauth/credentials"))
        .send()
        .await
        .unwrap();
    assert_eq!(first.status(), StatusCode::SEE_OTHER);
    let login = first.headers()["location"].to_str().unwrap().to_owned();
    let html = browser
        .get(s.url(&login))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let form = [
        ("email", email),
        ("password", password),
        ("csrf", &hidden(&html, "csrf")),
        ("continue", &hidden(&html, "continue")),
    ];
    let response = browser
        .post(s.url("/oauth/login"))
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["location"], "/oauth/credentials");
    let page = browser
        .get(s.url("/oauth/credentials"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    (browser, page)
}

pub fn code_with_id<'a>(html: &'a str, id: &str) -> &'a str {
    let marker = format!("<code id=\"{id}\">");
    let start = html
        .find(&marker)
        .unwrap_or_else(|| panic!("no {id} in {html}"))
        + marker.len();
    &html[start..start + html[start..].find('<').unwrap()]
}

async fn pat_01_02_03_05_10_personal_tokens_on_the_page(s: TestServer) {
    let (browser, page) = signed_in(&s, &s.demo.user.email, &s.demo.user.password).await;
    let csrf = hidden(&page, "csrf");
    // PAT-01: created with a name, an expiry and scopes; the value shown once.
    let form = [
        ("csrf", csrf.as_str()),
        ("name", "Nightly export"),
        ("expires", "90d"),
        ("scope", "shops.read"),
        ("scope", "sellers.read"),
    ];
    let response = browser
        .post(s.url("/oauth/credentials/tokens"))
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    let html = response.text().await.unwrap();
    let token = code_with_id(&html, "new-token").to_owned();
    assert_eq!(
        s.get("/v2/shops", &token).send().await.unwrap().status(),
        StatusCode::OK
    );
    // PAT-03: listed with its name, scopes and last use, never its value.
    let page = browser
        .get(s.url("/oauth/credentials"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("Nightly export") && page.contains("shops.read,sellers.read"));
    assert!(!page.contains(&token), "the value is shown only once");
    assert!(!page.contains("never used"), "its use is recorded: {page}");
    // PAT-02: a bad expiry, no scopes, no name.
    let form = [("csrf", csrf.as_str()), ("name", ""), ("expires", "45d")];
    let response = browser
        .post(s.url("/oauth/credentials/tokens"))
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let html = response.text().await.unwrap();
    assert!(
        html.contains("expires") && html.contains("scopes"),
        "{html}"
    );
    // PAT-10: without the CSRF token nothing is made.
    let response = browser
        .post(s.url("/oauth/credentials/tokens"))
        .form(&[("name", "x"), ("expires", "30d"), ("scope", "shops.read")])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    // PAT-05: revoked on the page, refused at once.
    let id = page
        .split("id=\"revoke-")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_owned();
    let form = [("csrf", csrf.as_str()), ("id", id.as_str())];
    let response = browser
        .post(s.url("/oauth/credentials/tokens/revoke"))
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(
        s.get("/v2/shops", &token).send().await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    let page = browser
        .get(s.url("/oauth/credentials"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("revoked"));
    // A read-only user may not give a token more than the role allows, and sees no apps.
    s.add_user("reader@demo.example", "reader-password-1", "readonly")
        .await;
    let (reader, page) = signed_in(&s, "reader@demo.example", "reader-password-1").await;
    assert!(
        !page.contains("shops.write"),
        "only the role's scopes are offered"
    );
    assert!(!page.contains("Register an app"));
    let form = [
        ("csrf", hidden(&page, "csrf")),
        ("name", "x".into()),
        ("expires", "30d".into()),
        ("scope", "shops.write".into()),
    ];
    let response = reader
        .post(s.url("/oauth/credentials/tokens"))
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
}

async fn apps_registered_on_the_page(s: TestServer) {
    let (browser, page) = signed_in(&s, &s.demo.user.email, &s.demo.user.password).await;
    let csrf = hidden(&page, "csrf");
    let form = [
        ("csrf", csrf.as_str()),
        ("name", "Reports"),
        ("redirect_uris", "https://reports.example/cb\r\n"),
        ("scope", "shops.read"),
        ("grant", "client_credentials"),
        ("grant", "authorization_code"),
    ];
    let response = browser
        .post(s.url("/oauth/credentials/apps"))
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    let html = response.text().await.unwrap();
    let (id, secret) = (
        code_with_id(&html, "client-id").to_owned(),
        code_with_id(&html, "client-secret").to_owned(),
    );
    let token = s.client_credentials_token(&id, &secret, None).await;
    assert_eq!(
        s.get("/v2/shops", &token).send().await.unwrap().status(),
        StatusCode::OK
    );
    let page = browser
        .get(s.url("/oauth/credentials"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("Reports") && page.contains(&id) && !page.contains(&secret));
    let form = [
        ("csrf", csrf.as_str()),
        ("name", "Bad"),
        ("redirect_uris", "not a uri"),
        ("scope", "shops.read"),
        ("grant", "authorization_code"),
    ];
    let response = browser
        .post(s.url("/oauth/credentials/apps"))
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
}

async fn personal_tokens_and_apps_as_json(s: TestServer) {
    let owner = s.owner_token().await;
    let post = |path: &'static str, token: String, body: Value| {
        let request = s.request(Method::POST, path, &token).json(&body);
        async move { json(request.send().await.unwrap()).await }
    };
    let (status, created) = post(
        "/v2/personal_access_tokens",
        owner.clone(),
        json!({"name": "ci", "expires": "never", "scopes": "shops.read orders.read"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let raw = created["token"].as_str().unwrap().to_owned();
    assert_eq!(created["expires_on"], Value::Null);
    assert_eq!(created["state"], "active");
    assert_eq!(
        s.get("/v2/shops", &raw).send().await.unwrap().status(),
        StatusCode::OK
    );
    let (_, list) = json(
        s.get("/v2/personal_access_tokens", &owner)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(list["total_items"], 1);
    let item = &list["_embedded"]["items"][0];
    assert!(item.get("token").is_none(), "never listed with its value");
    let revoke = item["_links"]["root:revoke"]["href"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, revoked) = json(
        s.client
            .delete(&revoke)
            .bearer_auth(&owner)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (status, revoked["state"].as_str()),
        (StatusCode::OK, Some("revoked"))
    );
    assert_eq!(
        s.get("/v2/shops", &raw).send().await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    // Validation, and no token stronger than the one asking.
    let (status, body) = post(
        "/v2/personal_access_tokens",
        owner.clone(),
        json!({"name": " ", "expires": "2y", "scopes": "nope"}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let mut fields = error_fields(&body);
    fields.sort();
    assert_eq!(fields, ["expires", "name", "scopes"]);
    let narrow = s
        .password_token(
            &s.demo.user.email,
            &s.demo.user.password,
            Some("shops.read credentials.write"),
        )
        .await;
    let (status, body) = post(
        "/v2/personal_access_tokens",
        narrow,
        json!({"name": "x", "expires": "30d", "scopes": "shops.write"}),
    )
    .await;
    assert_eq!(
        (status, error_fields(&body)),
        (StatusCode::UNPROCESSABLE_ENTITY, vec!["scopes".to_owned()])
    );
    // Apps: registered by owners, the secret shown once.
    let (status, app) = post(
        "/v2/apps",
        owner.clone(),
        json!({"name": "Sync", "redirect_uris": ["https://sync.example/cb"], "scopes": "shops.read", "grants": ["client_credentials"]}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{app}");
    let token = s
        .client_credentials_token(
            app["client_id"].as_str().unwrap(),
            app["client_secret"].as_str().unwrap(),
            None,
        )
        .await;
    assert_eq!(
        s.get("/v2/shops", &token).send().await.unwrap().status(),
        StatusCode::OK
    );
    let (_, apps) = json(s.get("/v2/apps", &owner).send().await.unwrap()).await;
    assert!(
        apps["_embedded"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a.get("client_secret").is_none())
    );
    // Staff may not register apps; apps acting for themselves have no credentials here.
    s.add_user("staff@demo.example", "staff-password-1", "staff")
        .await;
    let staff = s
        .password_token("staff@demo.example", "staff-password-1", None)
        .await;
    let (status, _) = post(
        "/v2/apps",
        staff,
        json!({"name": "x", "scopes": "shops.read", "grants": ["client_credentials"]}),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, body) = json(
        s.get("/v2/personal_access_tokens", &token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::FORBIDDEN, Some("user_token_required"))
    );
}
