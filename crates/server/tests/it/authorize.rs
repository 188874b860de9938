//! The authorization endpoint and its pages, driven with a cookie jar as a browser would
//! (the same flow runs in a real headless browser in `browser.rs`).

use crate::on_both_backends;
use crate::support::{TestServer, json};
use reqwest::{Client, Response, StatusCode};

on_both_backends!(
    az_code_flow_with_login_consent_and_pkce,
    az_02_03_04_07_requests_that_never_redirect,
    az_06_08_09_10_11_errors_go_back_to_the_client,
    az_12_13_15_16_17_page_protections,
    im_01_02_04_05_implicit_grant,
    md_01_to_09_metadata_lists_what_is_served,
    az_code_flow_with_an_unencoded_redirect_uri,
);

pub const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";

pub fn cookie_jar_browser() -> Client {
    Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// The value of a hidden field of an HTML form.
pub fn hidden(html: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let start = html
        .find(&marker)
        .unwrap_or_else(|| panic!("no field {name} in {html}"))
        + marker.len();
    let end = start + html[start..].find('"').unwrap();
    html[start..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#x27;", "'")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

/// Every hidden field of the first form of a page.
fn hidden_fields(html: &str) -> Vec<(String, String)> {
    let form_end = html.find("</form>").unwrap_or(html.len());
    html[..form_end]
        .match_indices("<input type=\"hidden\" name=\"")
        .map(|(i, m)| {
            let rest = &html[i + m.len()..];
            let name = &rest[..rest.find('"').unwrap()];
            (name.to_owned(), hidden(&html[i..], name))
        })
        .collect()
}

pub fn location(response: &Response) -> String {
    response.headers()["location"].to_str().unwrap().to_owned()
}

pub fn authorize_url(s: &TestServer, client_id: &str, extra: &[(&str, &str)]) -> String {
    let mut query = form_urlencoded::Serializer::new(String::new());
    query.append_pair("client_id", client_id);
    for (name, value) in extra {
        query.append_pair(name, value);
    }
    s.url(&format!("/oauth/authorize?{}", query.finish()))
}

/// Signs the demo owner in on the login page the browser was sent to.
async fn sign_in(s: &TestServer, browser: &Client, login_location: &str) -> Response {
    let page = browser.get(s.url(login_location)).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let html = page.text().await.unwrap();
    let form = [
        ("email", s.demo.user.email.as_str()),
        ("password", s.demo.user.password.as_str()),
        ("csrf", &hidden(&html, "csrf")),
        ("continue", &hidden(&html, "continue")),
    ];
    browser
        .post(s.url("/oauth/login"))
        .form(&form)
        .send()
        .await
        .unwrap()
}

/// Signs in and returns the consent page's HTML for `url`.
pub async fn consent(s: &TestServer, browser: &Client, url: &str) -> String {
    let first = browser.get(url).send().await.unwrap();
    assert_eq!(first.status(), StatusCode::SEE_OTHER);
    let login = location(&first);
    assert!(login.starts_with("/oauth/login?continue="), "{login}");
    let signed_in = sign_in(s, browser, &login).await;
    assert_eq!(signed_in.status(), StatusCode::SEE_OTHER);
    let back = location(&signed_in);
    assert!(back.starts_with("/oauth/authorize?"), "{back}");
    let page = browser.get(s.url(&back)).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    page.text().await.unwrap()
}

/// Submits the consent form with `decision`; returns where the browser is sent.
pub async fn decide(s: &TestServer, browser: &Client, html: &str, decision: &str) -> String {
    let mut form = hidden_fields(html);
    form.push(("decision".into(), decision.into()));
    let response = browser
        .post(s.url("/oauth/authorize"))
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    location(&response)
}

pub fn query_of(url: &str) -> Vec<(String, String)> {
    let query = url.split_once('?').map_or("", |(_, q)| q);
    let query = query.split('#').next().unwrap_or("");
    form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect()
}

pub fn param(pairs: &[(String, String)], name: &str) -> Option<String> {
    pairs
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.clone())
}

async fn az_code_flow_with_login_consent_and_pkce(s: TestServer) {
    let browser = cookie_jar_browser();
    let redirect = "http://127.0.0.1:8000/callback";
    let challenge = oauth::pkce::s256(VERIFIER);
    let url = authorize_url(
        &s,
        &s.demo.app.client_id,
        &[
            ("response_type", "code"),
            ("redirect_uri", redirect),
            ("scope", "shops.read sellers.read"),
            ("state", "a b&c"),
            ("code_challenge", &challenge),
            ("code_challenge_method", "S256"),
        ],
    );
    let html = consent(&s, &browser, &url).await;
    assert!(html.contains("Demo App"));
    assert!(
        html.contains("See shop settings"),
        "each scope in words: {html}"
    );
    assert!(
        html.contains("See the account&#x27;s sellers")
            || html.contains("See the account's sellers")
    );
    let back = decide(&s, &browser, &html, "approve").await;
    assert!(back.starts_with(&format!("{redirect}?code=")), "{back}");
    let pairs = query_of(&back);
    assert_eq!(
        param(&pairs, "state").as_deref(),
        Some("a b&c"),
        "state comes back byte for byte"
    );
    let code = param(&pairs, "code").unwrap();
    let response = s
        .token_request(&[
            ("grant_type", "authorization_code"),
            ("client_id", &s.demo.app.client_id),
            ("client_secret", &s.demo.app.client_secret),
            ("code", &code),
            ("redirect_uri", redirect),
            ("code_verifier", VERIFIER),
        ])
        .await;
    let (status, tokens) = json(response).await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    assert_eq!(tokens["scope"], "shops.read,sellers.read");
    let (status, root) = json(
        s.get("/v2", tokens["access_token"].as_str().unwrap())
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(root["email"], s.demo.user.email);
    // Signed in already: the next authorization goes straight to consent.
    let again = browser.get(&url).send().await.unwrap();
    assert_eq!(again.status(), StatusCode::OK);
}

/// An OmniAuth-style flow whose authorization URL carries its redirect URI unencoded (and
/// parameters the service does not know): sign-in keeps the request whole, and the code
/// it yields is exchanged for a token.
async fn az_code_flow_with_an_unencoded_redirect_uri(s: TestServer) {
    let callback = "http://localhost:3000/auth/commerce/callback";
    let (id, secret) = s
        .register_with_redirects(
            Some(s.demo.account_id),
            "shops.read,sellers.read",
            "authorization_code",
            false,
            &["https://app.example/callback", callback],
        )
        .await;
    let secret = secret.unwrap();
    let query = format!(
        "client_id={id}&redirect_uri={callback}&response_type=code&scope=shops.read\
         &state=0c1e2f&next=//other.example/x&origin=http://localhost:3000/"
    );
    let url = s.url(&format!("/oauth/authorize?{query}"));
    assert!(url.contains("redirect_uri=http://localhost"), "{url}");
    let browser = cookie_jar_browser();
    let html = consent(&s, &browser, &url).await;
    assert!(html.contains("Test App"), "{html}");
    let back = decide(&s, &browser, &html, "approve").await;
    assert!(back.starts_with(&format!("{callback}?code=")), "{back}");
    let pairs = query_of(&back);
    assert_eq!(param(&pairs, "state").as_deref(), Some("0c1e2f"));
    let code = param(&pairs, "code").unwrap();
    let response = s
        .client
        .post(s.url("/oauth/token"))
        .basic_auth(&id, Some(&secret))
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", callback),
        ])
        .send()
        .await
        .unwrap();
    let (status, tokens) = json(response).await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    assert_eq!(tokens["scope"], "shops.read");
    let token = tokens["access_token"].as_str().unwrap();
    let (status, root) = json(s.get("/v2", token).send().await.unwrap()).await;
    assert_eq!(status, StatusCode::OK, "{root}");
    assert_eq!(root["email"], s.demo.user.email);
    // Signed in, the login page sends the browser straight on: to the request as it
    // came, but never away from the service.
    let login = |target: &str| {
        let query = form_urlencoded::Serializer::new(String::new())
            .append_pair("continue", target)
            .finish();
        browser.get(s.url(&format!("/oauth/login?{query}"))).send()
    };
    let request = format!("/oauth/authorize?{query}");
    assert_eq!(location(&login(&request).await.unwrap()), request);
    for target in [
        "//evil.example/oauth/authorize",
        "/\\evil.example/oauth/authorize",
        "https://evil.example/oauth/authorize?x=1",
        "/%2F%2Fevil.example",
        "/oauth/authorize/..//evil.example",
        "\t//evil.example",
        "/oauth/authorize@evil.example",
    ] {
        let response = login(target).await.unwrap();
        // Sent to our own page, or refused outright (a control character).
        let to = response.headers().get("location");
        assert!(
            to.is_none_or(|to| to == "/oauth/credentials"),
            "{target:?}: {to:?}"
        );
    }
}

async fn az_02_03_04_07_requests_that_never_redirect(s: TestServer) {
    let browser = cookie_jar_browser();
    let id = s.demo.app.client_id.clone();
    let never_redirect = |response: &Response| {
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        assert!(response.headers().get("location").is_none());
        assert!(
            response.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/html")
        );
    };
    // AZ-02: no client, an unknown client.
    for url in [
        s.url("/oauth/authorize?response_type=code"),
        authorize_url(&s, "unknown-client", &[("response_type", "code")]),
    ] {
        never_redirect(&browser.get(&url).send().await.unwrap());
    }
    // AZ-03: an unregistered or slightly different redirect URI.
    for uri in [
        "https://evil.example/callback",
        "http://127.0.0.1:8000/callback/",
        "http://127.0.0.1:8000/callback/../x",
    ] {
        let url = authorize_url(&s, &id, &[("response_type", "code"), ("redirect_uri", uri)]);
        never_redirect(&browser.get(&url).send().await.unwrap());
    }
    // AZ-07: a repeated client_id or redirect_uri.
    let url = format!(
        "{}&redirect_uri=http%3A%2F%2F127.0.0.1%3A8000%2Fcallback&redirect_uri=https%3A%2F%2Fevil.example%2F",
        authorize_url(&s, &id, &[("response_type", "code")])
    );
    never_redirect(&browser.get(&url).send().await.unwrap());
    // AZ-04: with one registered URI it may be left out (then it is the one used).
    let response = browser
        .get(authorize_url(&s, &id, &[("response_type", "code")]))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SEE_OTHER, "on to sign-in");
}

async fn az_06_08_09_10_11_errors_go_back_to_the_client(s: TestServer) {
    let browser = cookie_jar_browser();
    let id = s.demo.app.client_id.clone();
    let redirect = "http://127.0.0.1:8000/callback";
    let cases: [(&[(&str, &str)], &str); 5] = [
        (&[("state", "s1")], "invalid_request"),
        (
            &[("response_type", "id_token"), ("state", "s1")],
            "unsupported_response_type",
        ),
        (
            &[
                ("response_type", "code"),
                ("scope", "galaxy.write"),
                ("state", "s1"),
            ],
            "invalid_scope",
        ),
        (
            &[
                ("response_type", "code"),
                ("code_challenge", "abc"),
                ("code_challenge_method", "plain"),
                ("state", "s1"),
            ],
            "invalid_request",
        ),
        (
            &[
                ("response_type", "code"),
                ("scope", "shops.read"),
                ("scope", "shops.write"),
                ("state", "s1"),
            ],
            "invalid_request",
        ),
    ];
    for (params, error) in cases {
        let mut params = params.to_vec();
        params.push(("redirect_uri", redirect));
        let response = browser
            .get(authorize_url(&s, &id, &params))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::SEE_OTHER, "{params:?}");
        let back = location(&response);
        assert!(back.starts_with(redirect), "{back}");
        let pairs = query_of(&back);
        assert_eq!(param(&pairs, "error").as_deref(), Some(error), "{params:?}");
        assert_eq!(param(&pairs, "state").as_deref(), Some("s1"));
    }
    // AZ-09: the user denies.
    let url = authorize_url(
        &s,
        &id,
        &[
            ("response_type", "code"),
            ("redirect_uri", redirect),
            ("state", "s2"),
        ],
    );
    let html = consent(&s, &browser, &url).await;
    let back = decide(&s, &browser, &html, "deny").await;
    let pairs = query_of(&back);
    assert_eq!(param(&pairs, "error").as_deref(), Some("access_denied"));
    assert_eq!(param(&pairs, "state").as_deref(), Some("s2"));
    // AZ-11: a query in the registered redirect URI is kept.
    let with_query = "https://app.example/callback?tenant=7";
    let (client_id, _) = s
        .register_with_redirects(
            Some(s.demo.account_id),
            "admin",
            "authorization_code",
            false,
            &[with_query],
        )
        .await;
    let url = authorize_url(
        &s,
        &client_id,
        &[("response_type", "code"), ("redirect_uri", with_query)],
    );
    let html = browser
        .get(&url)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let back = decide(&s, &browser, &html, "approve").await;
    assert!(
        back.starts_with("https://app.example/callback?tenant=7&code="),
        "{back}"
    );
    // PK-08: a public client without a code challenge.
    let (public_id, _) = s
        .register(
            Some(s.demo.account_id),
            "admin",
            "authorization_code",
            false,
            true,
        )
        .await;
    let url = authorize_url(&s, &public_id, &[("response_type", "code")]);
    let back = location(&browser.get(&url).send().await.unwrap());
    assert_eq!(
        param(&query_of(&back), "error").as_deref(),
        Some("invalid_request")
    );
    // An app of another account is refused for this user.
    let other = s.seed_another_account().await;
    let url = authorize_url(
        &s,
        &other.app.client_id,
        &[("response_type", "code"), ("redirect_uri", redirect)],
    );
    let back = location(&browser.get(&url).send().await.unwrap());
    assert_eq!(
        param(&query_of(&back), "error").as_deref(),
        Some("access_denied")
    );
}

async fn az_12_13_15_16_17_page_protections(s: TestServer) {
    let browser = cookie_jar_browser();
    let url = authorize_url(&s, &s.demo.app.client_id, &[("response_type", "code")]);
    let html = consent(&s, &browser, &url).await;
    // AZ-12: a consent without the CSRF token (or with another) is refused.
    let mut form = hidden_fields(&html);
    form.retain(|(name, _)| name != "csrf");
    form.push(("csrf".into(), "x".repeat(43)));
    form.push(("decision".into(), "approve".into()));
    let response = browser
        .post(s.url("/oauth/authorize"))
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    assert!(response.headers().get("location").is_none());
    // A stranger's browser (no cookies) cannot use a captured form either.
    let mut form = hidden_fields(&html);
    form.push(("decision".into(), "approve".into()));
    let response = s
        .client
        .post(s.url("/oauth/authorize"))
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    // AZ-13, AZ-16: no framing, no referrer, no caching, no CORS.
    let page = browser.get(s.url("/oauth/login")).send().await.unwrap();
    let headers = page.headers();
    assert_eq!(headers["x-frame-options"], "DENY");
    assert!(
        headers["content-security-policy"]
            .to_str()
            .unwrap()
            .contains("frame-ancestors 'none'")
    );
    assert_eq!(headers["referrer-policy"], "no-referrer");
    assert_eq!(headers["cache-control"], "no-store");
    assert!(headers.get("access-control-allow-origin").is_none());
    // The session cookie is HttpOnly and same-site.
    let fresh = cookie_jar_browser();
    let first = fresh.get(&url).send().await.unwrap();
    let signed_in = sign_in(&s, &fresh, &location(&first)).await;
    // AZ-15: after posting credentials, a 303.
    assert_eq!(signed_in.status(), StatusCode::SEE_OTHER);
    let cookie = signed_in
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .find(|c| c.starts_with("commerce_session="))
        .expect("a session cookie");
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );
    // AZ-17: the login form sends nowhere but our own pages.
    let page = fresh
        .get(s.url("/oauth/login?continue=https://evil.example/"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        location(&page),
        "/oauth/credentials",
        "already signed in: straight on, but not away"
    );
    // Wrong passwords re-show the form with a 401.
    let anonymous = cookie_jar_browser();
    let html = anonymous
        .get(s.url("/oauth/login"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let form = [
        ("email", s.demo.user.email.as_str()),
        ("password", "wrong-password"),
        ("csrf", &hidden(&html, "csrf")),
    ];
    let response = anonymous
        .post(s.url("/oauth/login"))
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    assert!(response.text().await.unwrap().contains("wrong"));
}

async fn im_01_02_04_05_implicit_grant(s: TestServer) {
    let browser = cookie_jar_browser();
    let (implicit_id, _) = s
        .register(
            Some(s.demo.account_id),
            "shops.read",
            "implicit",
            false,
            true,
        )
        .await;
    let url = authorize_url(
        &s,
        &implicit_id,
        &[("response_type", "token"), ("state", "st")],
    );
    let html = consent(&s, &browser, &url).await;
    let back = decide(&s, &browser, &html, "approve").await;
    // IM-01 and IM-02: the token in the fragment, never a refresh token.
    let (base, fragment) = back.split_once('#').expect("a fragment");
    assert_eq!(base, "https://app.example/callback");
    let pairs: Vec<(String, String)> = form_urlencoded::parse(fragment.as_bytes())
        .into_owned()
        .collect();
    assert_eq!(param(&pairs, "token_type").as_deref(), Some("bearer"));
    assert_eq!(param(&pairs, "state").as_deref(), Some("st"));
    assert_eq!(param(&pairs, "scope").as_deref(), Some("shops.read"));
    assert!(param(&pairs, "refresh_token").is_none());
    let token = param(&pairs, "access_token").unwrap();
    assert_eq!(
        s.get("/v2/shops", &token).send().await.unwrap().status(),
        StatusCode::OK
    );
    // IM-04 and IM-05: a client not allowed the implicit grant hears so in the fragment.
    let url = authorize_url(
        &s,
        &s.demo.app.client_id,
        &[("response_type", "token"), ("state", "st")],
    );
    // The demo app may use every grant; a code-only app may not use this one.
    let (code_only, _) = s
        .register(
            Some(s.demo.account_id),
            "admin",
            "authorization_code",
            false,
            false,
        )
        .await;
    let refused = authorize_url(
        &s,
        &code_only,
        &[("response_type", "token"), ("state", "st")],
    );
    let back = location(&browser.get(&refused).send().await.unwrap());
    let (_, fragment) = back
        .split_once('#')
        .expect("errors of the implicit flow go in the fragment");
    let pairs: Vec<(String, String)> = form_urlencoded::parse(fragment.as_bytes())
        .into_owned()
        .collect();
    assert_eq!(
        param(&pairs, "error").as_deref(),
        Some("unauthorized_client")
    );
    assert_eq!(
        browser.get(&url).send().await.unwrap().status(),
        StatusCode::OK
    );
}

async fn md_01_to_09_metadata_lists_what_is_served(s: TestServer) {
    let response = s
        .client
        .get(s.url("/.well-known/oauth-authorization-server"))
        .send()
        .await
        .unwrap();
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    let (status, meta) = json(response).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(meta["issuer"], s.url(""), "the issuer is the tokens' `iss`");
    assert_eq!(
        meta["response_types_supported"],
        serde_json::json!(["code", "token"])
    );
    assert_eq!(
        meta["code_challenge_methods_supported"],
        serde_json::json!(["S256"])
    );
    let grants: Vec<&str> = meta["grant_types_supported"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g.as_str().unwrap())
        .collect();
    for grant in [
        "authorization_code",
        "implicit",
        "password",
        "client_credentials",
        "refresh_token",
        "urn:ietf:params:oauth:grant-type:jwt-bearer",
    ] {
        assert!(grants.contains(&grant), "{grant}");
    }
    assert!(
        meta["scopes_supported"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s == "products.read")
    );
    for value in meta.as_object().unwrap().values() {
        assert!(
            value.as_array().is_none_or(|a| !a.is_empty()),
            "empty arrays are left out"
        );
    }
    // Every endpoint named is served (none answers 404 or 405).
    for (name, method) in [
        ("authorization_endpoint", reqwest::Method::GET),
        ("token_endpoint", reqwest::Method::POST),
        ("revocation_endpoint", reqwest::Method::POST),
        ("introspection_endpoint", reqwest::Method::POST),
    ] {
        let url = meta[name].as_str().unwrap();
        let status = s.client.request(method, url).send().await.unwrap().status();
        assert!(
            status != StatusCode::NOT_FOUND && status != StatusCode::METHOD_NOT_ALLOWED,
            "{name}: {status}"
        );
    }
}
