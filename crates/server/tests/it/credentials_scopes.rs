//! The credentials scopes: `credentials.read` and `credentials.write` guard the personal
//! access token and app endpoints; `admin` does not imply them, so third-party apps cannot
//! obtain them through any grant, and a personal token never carries more than the token
//! that made it. The credentials page keeps working through its signed-in session.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::authorize::{
    authorize_url, consent, cookie_jar_browser, decide, hidden, location, param, query_of,
};
use crate::credentials::{code_with_id, signed_in};
use crate::on_both_backends;
use crate::support::{TestServer, access_token, error_fields, expect_error, json};

on_both_backends!(
    tokens_without_the_credentials_scopes_are_refused,
    third_party_apps_never_obtain_the_credentials_scopes,
    a_personal_token_is_no_wider_than_its_maker,
    only_operators_register_apps_with_credentials_scopes,
);

const REDIRECT: &str = "https://app.example/callback";

/// Every area scope, named one by one as an operator might for a broad third-party app.
const EVERY_AREA_SCOPE: &str = "products.read,products.write,orders.read,orders.write,\
    customers.read,customers.write,shops.read,shops.write,hub.read,hub.write,store.read,\
    store.write,sellers.read,batches.read,batches.write";

/// The description the consent page gives of a credentials scope.
const CREDENTIALS_WORDS: &str = "personal access tokens";

/// A personal token and an app of the demo account, for the endpoints that name one.
struct Existing {
    pat_id: i64,
    pat: String,
    app_id: i64,
}

async fn existing_credentials(s: &TestServer) -> Existing {
    let owner = s.owner_token().await;
    let (status, pat) = s
        .call(
            Method::POST,
            "/v2/personal_access_tokens",
            &owner,
            Some(json!({"name": "kept", "expires": "30d", "scopes": "shops.read"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{pat}");
    let (status, app) = s
        .call(
            Method::POST,
            "/v2/apps",
            &owner,
            Some(json!({"name": "Kept", "scopes": "shops.read", "grants": ["client_credentials"]})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{app}");
    Existing {
        pat_id: pat["id"].as_i64().unwrap(),
        pat: pat["token"].as_str().unwrap().to_owned(),
        app_id: app["id"].as_i64().unwrap(),
    }
}

/// Each credentials endpoint: method, path, body and the scope it needs.
fn endpoints(existing: &Existing) -> Vec<(Method, String, Option<Value>, &'static str)> {
    let (pat, app) = (existing.pat_id, existing.app_id);
    vec![
        (
            Method::GET,
            "/v2/personal_access_tokens".into(),
            None,
            "credentials.read",
        ),
        (
            Method::GET,
            format!("/v2/personal_access_tokens/{pat}"),
            None,
            "credentials.read",
        ),
        (
            Method::POST,
            "/v2/personal_access_tokens".into(),
            Some(json!({"name": "stolen", "expires": "never", "scopes": "shops.read"})),
            "credentials.write",
        ),
        (
            Method::DELETE,
            format!("/v2/personal_access_tokens/{pat}"),
            None,
            "credentials.write",
        ),
        (Method::GET, "/v2/apps".into(), None, "credentials.read"),
        (
            Method::GET,
            format!("/v2/apps/{app}"),
            None,
            "credentials.read",
        ),
        (
            Method::POST,
            "/v2/apps".into(),
            Some(
                json!({"name": "Rogue", "redirect_uris": ["https://rogue.example/cb"],
                        "scopes": "shops.read", "grants": ["client_credentials"]}),
            ),
            "credentials.write",
        ),
    ]
}

/// How many personal tokens and apps the demo owner sees.
async fn credential_counts(s: &TestServer) -> (i64, i64) {
    let owner = s.owner_token().await;
    let (_, tokens) = s.get_json("/v2/personal_access_tokens", &owner).await;
    let (_, apps) = s.get_json("/v2/apps", &owner).await;
    (
        tokens["total_items"].as_i64().unwrap(),
        apps["total_items"].as_i64().unwrap(),
    )
}

/// Asserts that `token` is refused with 403 `error` on every credentials endpoint, and
/// that nothing changed. When `reads_allowed`, the reads answer instead (another user's
/// token, named by id, is not found).
async fn assert_refused(
    s: &TestServer,
    existing: &Existing,
    token: &str,
    error: &str,
    reads_allowed: bool,
) {
    let before = credential_counts(s).await;
    for (method, path, body, needed) in endpoints(existing) {
        let mut request = s.request(method.clone(), &path, token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        if reads_allowed && needed == "credentials.read" {
            let status = response.status();
            assert!(
                matches!(status, StatusCode::OK | StatusCode::NOT_FOUND),
                "{method} {path}: {status}"
            );
            continue;
        }
        let challenge = response
            .headers()
            .get("www-authenticate")
            .map(|v| v.to_str().unwrap().to_owned());
        let (status, body) = json(response).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{method} {path}: {body}");
        expect_error(status, &body, StatusCode::FORBIDDEN, error);
        if error == "insufficient_scope" {
            assert_eq!(
                challenge.as_deref(),
                Some(
                    format!(
                        "Bearer realm=\"commerce\", error=\"insufficient_scope\", scope=\"{needed}\""
                    )
                    .as_str()
                ),
                "{method} {path}"
            );
        }
    }
    assert_eq!(credential_counts(s).await, before, "nothing was made");
    assert_eq!(
        s.get("/v2/shops", &existing.pat)
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::OK,
        "the personal token still works"
    );
}

/// A password-grant token of the demo owner through the demo app with `scope`.
async fn owner_token_with(s: &TestServer, scope: &str) -> String {
    s.password_token(&s.demo.user.email, &s.demo.user.password, Some(scope))
        .await
}

async fn tokens_without_the_credentials_scopes_are_refused(s: TestServer) {
    let existing = existing_credentials(&s).await;
    // A read-only token, a public one, and `admin` alone: none names a credentials scope.
    for scope in ["products.read", "public", "admin", "admin,public"] {
        let token = owner_token_with(&s, scope).await;
        assert_refused(&s, &existing, &token, "insufficient_scope", false).await;
    }
    // `credentials.read` reads and changes nothing.
    let reader = owner_token_with(&s, "credentials.read").await;
    assert_refused(&s, &existing, &reader, "insufficient_scope", true).await;
    // A read-only user's default token reads its credentials at most.
    s.add_user("reader@demo.example", "reader-password-1", "readonly")
        .await;
    let readonly = s
        .password_token("reader@demo.example", "reader-password-1", None)
        .await;
    assert_refused(&s, &existing, &readonly, "insufficient_scope", true).await;
    let (status, body) = json(
        s.password_grant(
            (&s.demo.app.client_id, &s.demo.app.client_secret),
            "reader@demo.example",
            "reader-password-1",
            &[("scope", "credentials.write")],
        )
        .await,
    )
    .await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_scope");
    // An app acting for itself never holds them, even one registered with them.
    let (status, body) = json(
        s.token_request(&[
            ("grant_type", "client_credentials"),
            ("client_id", &s.demo.app.client_id),
            ("client_secret", &s.demo.app.client_secret),
        ])
        .await,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["scope"], "admin,public");
    let app_token = body["access_token"].as_str().unwrap();
    assert_refused(&s, &existing, app_token, "user_token_required", false).await;
    for scope in ["credentials.read", "admin,credentials.write"] {
        let (status, body) = json(
            s.token_request(&[
                ("grant_type", "client_credentials"),
                ("client_id", &s.demo.app.client_id),
                ("client_secret", &s.demo.app.client_secret),
                ("scope", scope),
            ])
            .await,
        )
        .await;
        expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_scope");
    }
}

/// The consent page an app's authorization request shows the demo owner (the scopes left
/// to the app's registration), and the tokens the app gets when the owner approves.
async fn code_flow(s: &TestServer, app: &(String, String)) -> (String, Value) {
    let browser = cookie_jar_browser();
    let params = [("response_type", "code"), ("redirect_uri", REDIRECT)];
    let html = consent(s, &browser, &authorize_url(s, &app.0, &params)).await;
    let back = decide(s, &browser, &html, "approve").await;
    let code = param(&query_of(&back), "code").unwrap_or_else(|| panic!("a code: {back}"));
    let (status, tokens) = json(
        s.token_request(&[
            ("grant_type", "authorization_code"),
            ("client_id", &app.0),
            ("client_secret", &app.1),
            ("code", &code),
            ("redirect_uri", REDIRECT),
        ])
        .await,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    (html, tokens)
}

/// Where the authorization endpoint sends the browser for `params`, before any sign-in.
async fn authorization_error(s: &TestServer, client_id: &str, params: &[(&str, &str)]) -> String {
    let response = cookie_jar_browser()
        .get(authorize_url(s, client_id, params))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let back = location(&response);
    let (_, answer) = back
        .split_once(['?', '#'])
        .unwrap_or_else(|| panic!("an answer: {back}"));
    let pairs: Vec<(String, String)> = form_urlencoded::parse(answer.as_bytes())
        .into_owned()
        .collect();
    param(&pairs, "error").unwrap_or_else(|| panic!("an error: {back}"))
}

async fn third_party_apps_never_obtain_the_credentials_scopes(s: TestServer) {
    let existing = existing_credentials(&s).await;
    let account = Some(s.demo.account_id);
    for registered in ["admin", EVERY_AREA_SCOPE] {
        // Registered as an operator would, with every scope but the credentials ones.
        let app = s
            .register_app(
                account,
                registered,
                "authorization_code,refresh_token,implicit",
                false,
            )
            .await;
        // The code flow with the app's default scopes: consented, exchanged, refused.
        let (html, tokens) = code_flow(&s, &app).await;
        assert!(!html.contains(CREDENTIALS_WORDS), "{html}");
        let granted = tokens["scope"].as_str().unwrap();
        assert!(!granted.contains("credentials"), "{registered}: {granted}");
        let token = tokens["access_token"].as_str().unwrap();
        assert_refused(&s, &existing, token, "insufficient_scope", false).await;
        // Refreshing cannot add them.
        let (status, body) = json(
            s.token_request(&[
                ("grant_type", "refresh_token"),
                ("client_id", &app.0),
                ("client_secret", &app.1),
                ("refresh_token", tokens["refresh_token"].as_str().unwrap()),
                ("scope", "credentials.read"),
            ])
            .await,
        )
        .await;
        expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_scope");
        // Asking for them by name, by code or implicitly, is an invalid scope.
        for (response_type, scope) in [
            ("code", "credentials.write"),
            ("code", "admin credentials.read"),
            ("token", "credentials.read"),
        ] {
            let error = authorization_error(
                &s,
                &app.0,
                &[
                    ("response_type", response_type),
                    ("redirect_uri", REDIRECT),
                    ("scope", scope),
                ],
            )
            .await;
            assert_eq!(
                error, "invalid_scope",
                "{registered}: {response_type} {scope}"
            );
        }
    }
    // Even a trusted app's password grant gets them only when registered with them.
    let trusted = s.register_app(account, "admin", "password", true).await;
    let grant = |scope: Option<&'static str>| {
        let extra: Vec<(&str, &str)> = scope.map(|sc| ("scope", sc)).into_iter().collect();
        let (id, secret) = (trusted.0.clone(), trusted.1.clone());
        let s = &s;
        async move {
            s.password_grant(
                (&id, &secret),
                &s.demo.user.email,
                &s.demo.user.password,
                &extra,
            )
            .await
        }
    };
    let token = access_token(grant(None).await).await;
    assert_refused(&s, &existing, &token, "insufficient_scope", false).await;
    let (status, body) = json(grant(Some("credentials.write")).await).await;
    expect_error(status, &body, StatusCode::BAD_REQUEST, "invalid_scope");
    // An app an operator registered with a credentials scope by name gets it, and the
    // consent page says so although `admin` is asked for too.
    let first_party = s
        .register_app(
            account,
            "admin,credentials.read",
            "authorization_code",
            false,
        )
        .await;
    let (html, tokens) = code_flow(&s, &first_party).await;
    assert!(html.contains(CREDENTIALS_WORDS), "{html}");
    assert_eq!(tokens["scope"], "admin,credentials.read");
    let token = tokens["access_token"].as_str().unwrap();
    assert_refused(&s, &existing, token, "insufficient_scope", true).await;
}

/// Asks, with `token`, for a never-expiring personal token with `scopes`.
async fn make_token(s: &TestServer, token: &str, scopes: &str) -> (StatusCode, Value) {
    s.call(
        Method::POST,
        "/v2/personal_access_tokens",
        token,
        Some(json!({"name": "made", "expires": "never", "scopes": scopes})),
    )
    .await
}

async fn a_personal_token_is_no_wider_than_its_maker(s: TestServer) {
    let maker = owner_token_with(&s, "credentials.write products.read").await;
    // Within the maker's scopes: made, and it works.
    let (status, made) = make_token(&s, &maker, "products.read").await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    assert_eq!(made["scopes"], "products.read");
    let pat = made["token"].as_str().unwrap().to_owned();
    assert_eq!(s.get_json("/v2/products", &pat).await.0, StatusCode::OK);
    // Beyond them, as today: a 422 on scopes; `admin` is beyond them too.
    for wider in [
        "products.write",
        "shops.read",
        "admin",
        "products.read,orders.read",
    ] {
        let (status, body) = make_token(&s, &maker, wider).await;
        assert_eq!(
            (status, error_fields(&body)),
            (StatusCode::UNPROCESSABLE_ENTITY, vec!["scopes".to_owned()]),
            "{wider}: {body}"
        );
    }
    // The new token has no credentials scope unless named: it makes nothing.
    let (status, body) = make_token(&s, &pat, "products.read").await;
    expect_error(status, &body, StatusCode::FORBIDDEN, "insufficient_scope");
    // Named within the maker's, it has them, and no more.
    let (status, made) = make_token(&s, &maker, "products.read,credentials.read").await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    let reader = made["token"].as_str().unwrap();
    let (status, list) = s.get_json("/v2/personal_access_tokens", reader).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        list["_embedded"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|item| item["_links"].get("root:revoke").is_none()),
        "no revoke link without credentials.write: {list}"
    );
    let (status, body) = make_token(&s, reader, "products.read").await;
    expect_error(status, &body, StatusCode::FORBIDDEN, "insufficient_scope");
    let (status, made) = make_token(&s, &maker, "credentials.write").await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    let writer = made["token"].as_str().unwrap();
    let (status, body) = make_token(&s, writer, "products.read").await;
    assert_eq!(
        (status, error_fields(&body)),
        (StatusCode::UNPROCESSABLE_ENTITY, vec!["scopes".to_owned()]),
        "made with credentials.write alone, it cannot give products.read: {body}"
    );
    let (_, list) = s.get_json("/v2/personal_access_tokens", &maker).await;
    assert!(
        list["_embedded"]["items"][0]["_links"]["root:revoke"]["href"].is_string(),
        "{list}"
    );
    // The owner's default token (`admin` and the credentials scopes, from the demo app)
    // makes an `admin` token, which manages no credentials.
    let owner = s.owner_token().await;
    let (status, made) = make_token(&s, &owner, "admin").await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    let admin_pat = made["token"].as_str().unwrap();
    assert_eq!(s.get_json("/v2/shops", admin_pat).await.0, StatusCode::OK);
    let (status, body) = make_token(&s, admin_pat, "shops.read").await;
    expect_error(status, &body, StatusCode::FORBIDDEN, "insufficient_scope");
}

async fn only_operators_register_apps_with_credentials_scopes(s: TestServer) {
    let owner = s.owner_token().await;
    for scopes in ["shops.read,credentials.read", "admin,credentials.write"] {
        let (status, body) = s
            .call(
                Method::POST,
                "/v2/apps",
                &owner,
                Some(json!({"name": "Greedy", "redirect_uris": [REDIRECT],
                            "scopes": scopes, "grants": ["authorization_code"]})),
            )
            .await;
        assert_eq!(
            (status, error_fields(&body)),
            (StatusCode::UNPROCESSABLE_ENTITY, vec!["scopes".to_owned()]),
            "{scopes}: {body}"
        );
        assert!(body.to_string().contains("operator"), "{body}");
    }
    // The page offers the credentials scopes for a token the role allows, never for an app.
    let (browser, page) = signed_in(&s, &s.demo.user.email, &s.demo.user.password).await;
    assert!(page.contains("id=\"token-credentials.read\""), "{page}");
    assert!(page.contains("id=\"token-credentials.write\""), "{page}");
    assert!(!page.contains("id=\"app-credentials."), "{page}");
    let csrf = hidden(&page, "csrf");
    let form = [
        ("csrf", csrf.as_str()),
        ("name", "Greedy"),
        ("redirect_uris", REDIRECT),
        ("scope", "shops.read"),
        ("scope", "credentials.write"),
        ("grant", "authorization_code"),
    ];
    let response = browser
        .post(s.url("/oauth/credentials/apps"))
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(response.text().await.unwrap().contains("operator"));
    // Through its session the page makes a token with them, which then works as a script's.
    let form = [
        ("csrf", csrf.as_str()),
        ("name", "Rotation"),
        ("expires", "30d"),
        ("scope", "credentials.write"),
        ("scope", "shops.read"),
    ];
    let response = browser
        .post(s.url("/oauth/credentials/tokens"))
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    let html = response.text().await.unwrap();
    let pat = code_with_id(&html, "new-token").to_owned();
    let (status, made) = s
        .call(
            Method::POST,
            "/v2/personal_access_tokens",
            &pat,
            Some(json!({"name": "next", "expires": "30d", "scopes": "shops.read"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    // A read-only user's page works without any token, offering only credentials.read.
    s.add_user("reader@demo.example", "reader-password-1", "readonly")
        .await;
    let (reader, page) = signed_in(&s, "reader@demo.example", "reader-password-1").await;
    assert!(page.contains("id=\"token-credentials.read\""), "{page}");
    assert!(!page.contains("id=\"token-credentials.write\""), "{page}");
    let csrf = hidden(&page, "csrf");
    for (scope, expected) in [
        ("credentials.write", StatusCode::UNPROCESSABLE_ENTITY),
        ("credentials.read", StatusCode::CREATED),
    ] {
        let form = [
            ("csrf", csrf.as_str()),
            ("name", "Reader"),
            ("expires", "30d"),
            ("scope", scope),
        ];
        let response = reader
            .post(s.url("/oauth/credentials/tokens"))
            .form(&form)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), expected, "{scope}");
    }
}
