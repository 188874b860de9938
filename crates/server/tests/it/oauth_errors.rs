//! Every `error_description` the service answers — token, revocation and introspection
//! endpoints, the authorization endpoint's error redirects, and the API's bearer challenge
//! — keeps to the characters RFC 6749 section 5.2 (and RFC 6750 section 3) allows, and
//! repeats nothing the client sent, whatever the client sent.

use std::collections::BTreeMap;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderValue, WWW_AUTHENTICATE};
use reqwest::{RequestBuilder, Response};
use serde_json::{Value, json};

use crate::on_both_backends;
use crate::support::TestServer;

on_both_backends!(oauth_error_descriptions_never_echo_and_keep_to_the_rfc_characters);

/// In every hostile value, so that an echo of any of them is found.
const MARK: &str = "qzvxk";
const FORM: &str = "application/x-www-form-urlencoded";
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// Quotes, backslashes, non-ASCII, control characters, markup and a very long value.
fn hostile_values() -> Vec<String> {
    vec![
        format!("{MARK}\"quoted\" 'too'"),
        format!("{MARK}\\back\\slash\\"),
        format!("{MARK} caf\u{e9} \u{6f22}\u{5b57} \u{202e}rtl \u{1f600}"),
        format!("{MARK}\u{1}\u{1b}[31m\u{7f}\u{85}"),
        format!("{MARK}{}", "long".repeat(4_000)),
        format!("{MARK}<script>alert(1)</script>&x=y%00"),
        format!("{MARK}:{MARK}"),
    ]
}

/// RFC 6749 section 5.2: `%x20-21 / %x23-5B / %x5D-7E`.
fn rfc_character(c: char) -> bool {
    matches!(c, ' '..='!' | '#'..='[' | ']'..='~')
}

/// Checks the descriptions found, counting them by where they were found.
#[derive(Default)]
struct Checked {
    found: BTreeMap<&'static str, usize>,
    problems: Vec<String>,
}

impl Checked {
    fn description(&mut self, place: &'static str, case: &str, description: &str) {
        *self.found.entry(place).or_default() += 1;
        if !description.chars().all(rfc_character) {
            self.problems.push(format!(
                "{case}: characters the RFC forbids in {description:?}"
            ));
        }
        if description.to_ascii_lowercase().contains(MARK) {
            self.problems
                .push(format!("{case}: the input is echoed in {description:?}"));
        }
    }

    /// A JSON error body's description (every OAuth error must have one here).
    async fn json(&mut self, case: &str, response: Response) {
        let status = response.status();
        let text = response.text().await.unwrap();
        let body: Value = serde_json::from_str(&text)
            .unwrap_or_else(|_| panic!("{case}: not JSON ({status}): {text}"));
        assert!(status.is_client_error(), "{case}: {status} {body}");
        match body["error_description"].as_str() {
            Some(description) => self.description("body", case, description),
            None => self
                .problems
                .push(format!("{case}: no description: {body}")),
        }
    }

    /// The description an authorization error redirect carries, if it is one.
    fn redirect(&mut self, case: &str, response: &Response) {
        let Some(location) = response.headers().get("location") else {
            return;
        };
        let location = location.to_str().unwrap();
        let params = location.split_once(['?', '#']).map_or("", |(_, p)| p);
        for (name, value) in form_urlencoded::parse(params.as_bytes()) {
            if name == "error_description" {
                self.description("redirect", case, &value);
            }
        }
    }

    /// The description in a bearer challenge, if any.
    fn challenge(&mut self, case: &str, response: &Response) {
        for value in response.headers().get_all(WWW_AUTHENTICATE) {
            let value = value.to_str().unwrap();
            if let Some((_, rest)) = value.split_once("error_description=\"") {
                let description = rest.split('"').next().unwrap();
                self.description("challenge", case, description);
            }
        }
    }
}

fn form(pairs: &[(&str, &str)]) -> String {
    let mut form = form_urlencoded::Serializer::new(String::new());
    for (name, value) in pairs {
        form.append_pair(name, value);
    }
    form.finish()
}

fn post(s: &TestServer, path: &str, body: impl Into<reqwest::Body>) -> RequestBuilder {
    s.client
        .post(s.url(path))
        .header(CONTENT_TYPE, FORM)
        .body(body)
}

fn unsigned_jwt(claims: &Value) -> String {
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"HS256","typ":"JWT"}"#);
    let claims = URL_SAFE_NO_PAD.encode(claims.to_string());
    format!("{header}.{claims}.c2lnbmF0dXJl")
}

/// Token-endpoint bodies built around one hostile value.
fn token_bodies(s: &TestServer, v: &str) -> Vec<(&'static str, String, bool)> {
    let (id, secret) = (
        s.demo.app.client_id.as_str(),
        s.demo.app.client_secret.as_str(),
    );
    let client = [("client_id", id), ("client_secret", secret)];
    let with_client = |pairs: &[(&str, &str)]| {
        let mut all = pairs.to_vec();
        all.extend(client);
        form(&all)
    };
    let signed_exp = jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &json!({"iss": id, "aud": v, "exp": v, "sub": v}),
        &EncodingKey::from_secret(secret.as_bytes()),
    )
    .unwrap();
    let signed_sub = jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &json!({"iss": id, "aud": "x", "exp": 1, "sub": v}),
        &EncodingKey::from_secret(secret.as_bytes()),
    )
    .unwrap();
    // (case, body, whether the body carries client credentials)
    vec![
        ("unknown grant type", form(&[("grant_type", v)]), false),
        (
            "scope",
            with_client(&[("grant_type", "client_credentials"), ("scope", v)]),
            true,
        ),
        (
            "seller_id",
            with_client(&[("grant_type", "client_credentials"), ("seller_id", v)]),
            true,
        ),
        (
            "password",
            with_client(&[("grant_type", "password"), ("username", v), ("password", v)]),
            true,
        ),
        (
            "code",
            with_client(&[
                ("grant_type", "authorization_code"),
                ("code", v),
                ("redirect_uri", v),
            ]),
            true,
        ),
        (
            "refresh token",
            with_client(&[
                ("grant_type", "refresh_token"),
                ("refresh_token", v),
                ("scope", v),
            ]),
            true,
        ),
        (
            "client",
            form(&[
                ("grant_type", "client_credentials"),
                ("client_id", v),
                ("client_secret", v),
            ]),
            true,
        ),
        (
            "assertion",
            form(&[("grant_type", JWT_BEARER), ("assertion", v)]),
            false,
        ),
        (
            "assertion issuer",
            form(&[
                ("grant_type", JWT_BEARER),
                (
                    "assertion",
                    &unsigned_jwt(&json!({"iss": v, "exp": v, "sub": v})),
                ),
            ]),
            false,
        ),
        (
            "signed assertion with a text exp",
            form(&[("grant_type", JWT_BEARER), ("assertion", &signed_exp)]),
            false,
        ),
        (
            "signed assertion, expired, with a foreign subject",
            form(&[("grant_type", JWT_BEARER), ("assertion", &signed_sub)]),
            false,
        ),
        (
            "legacy assertion form",
            form(&[
                ("grant_type", "assertion"),
                ("assertion_type", v),
                ("assertion", v),
            ]),
            false,
        ),
        (
            "repeated unknown name",
            format!("{}&{}", form(&[(v, "1")]), form(&[(v, "2")])),
            false,
        ),
        (
            "repeated grant type",
            form(&[("grant_type", "client_credentials"), ("grant_type", v)]),
            false,
        ),
    ]
}

/// Bodies no form parser reads as intended.
fn malformed_bodies() -> Vec<Vec<u8>> {
    vec![
        format!("%zz%{MARK}%%=&&==&grant_type=%").into_bytes(),
        [b"grant_type=".as_slice(), MARK.as_bytes(), b"\xff\xfe\xc0"].concat(),
        format!("{{\"grant_type\": \"{MARK}\"}}").into_bytes(),
        format!("grant_type={MARK}%C0%AF%ED%A0%80").into_bytes(),
        MARK.as_bytes().to_vec(),
        format!("==={MARK}===").into_bytes(),
    ]
}

async fn oauth_error_descriptions_never_echo_and_keep_to_the_rfc_characters(s: TestServer) {
    let mut checked = Checked::default();
    let app = (
        s.demo.app.client_id.clone(),
        s.demo.app.client_secret.clone(),
    );
    for v in hostile_values() {
        // The token endpoint, one request per place the value can go.
        for (case, body, has_client) in token_bodies(&s, &v) {
            let mut request = post(&s, "/oauth/token", body.clone());
            if !has_client {
                request = request.basic_auth(&app.0, Some(&app.1));
            }
            checked.json(case, request.send().await.unwrap()).await;
            if !has_client {
                // And without client authentication.
                let response = post(&s, "/oauth/token", body).send().await.unwrap();
                if !response.status().is_success() {
                    checked.json(case, response).await;
                }
            }
        }
        // Credentials in the query string, and hostile Basic credentials.
        let query = form(&[("client_secret", &v), (&v, &v)]);
        let response = post(&s, &format!("/oauth/token?{query}"), "grant_type=password")
            .send()
            .await
            .unwrap();
        checked.json("query", response).await;
        for basic in [
            format!("Basic {}", STANDARD.encode(format!("{v}:{v}"))),
            format!("Basic {v}"),
            format!("{v} {v}"),
        ] {
            let Ok(header) = HeaderValue::from_bytes(basic.as_bytes()) else {
                continue;
            };
            for path in ["/oauth/token", "/oauth/revoke", "/oauth/introspect"] {
                let response = post(&s, path, "grant_type=client_credentials&token=x")
                    .header(AUTHORIZATION, header.clone())
                    .send()
                    .await
                    .unwrap();
                checked.json("basic credentials", response).await;
            }
        }
        // Revocation and introspection.
        for path in ["/oauth/revoke", "/oauth/introspect"] {
            for (case, body, basic) in [
                ("token of another client", form(&[("token", &v)]), true),
                (
                    "client",
                    form(&[("token", &v), ("client_id", &v), ("client_secret", &v)]),
                    false,
                ),
                (
                    "public client",
                    form(&[("token", &v), ("client_id", &v)]),
                    false,
                ),
                (
                    "repeated",
                    format!("{}&{}", form(&[(&v, "1")]), form(&[(&v, "2")])),
                    true,
                ),
                ("no token", form(&[("token_type_hint", &v)]), true),
            ] {
                let mut request = post(&s, path, body);
                if basic {
                    request = request.basic_auth(&app.0, Some(&app.1));
                }
                let response = request.send().await.unwrap();
                if !response.status().is_success() {
                    checked.json(case, response).await;
                }
            }
        }
        // The authorization endpoint's error redirects.
        let base = [
            ("client_id", app.0.as_str()),
            ("redirect_uri", "http://127.0.0.1:8000/callback"),
        ];
        for (case, extra) in [
            ("response type", vec![("response_type", v.as_str())]),
            (
                "scope",
                vec![("response_type", "code"), ("scope", &v), ("state", &v)],
            ),
            (
                "challenge",
                vec![("response_type", "code"), ("code_challenge", &v)],
            ),
            (
                "challenge method",
                vec![
                    ("response_type", "code"),
                    (
                        "code_challenge",
                        "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
                    ),
                    ("code_challenge_method", &v),
                ],
            ),
            (
                "repeated",
                vec![("response_type", "code"), (&v, "1"), (&v, "2")],
            ),
            (
                "repeated state",
                vec![("response_type", "code"), ("state", "1"), ("state", &v)],
            ),
        ] {
            let mut pairs = base.to_vec();
            pairs.extend(extra);
            let url = s.url(&format!("/oauth/authorize?{}", form(&pairs)));
            let response = s.client.get(url).send().await.unwrap();
            checked.redirect(case, &response);
        }
        // The API's bearer challenge.
        for token in [
            v.clone(),
            unsigned_jwt(&json!({"iss": v, "sub": v, "exp": 1})),
        ] {
            let Ok(header) = HeaderValue::from_bytes(format!("Bearer {token}").as_bytes()) else {
                continue;
            };
            let response = s
                .client
                .get(s.url("/v2"))
                .header(AUTHORIZATION, header)
                .send()
                .await
                .unwrap();
            checked.challenge("bearer token", &response);
        }
    }
    for body in malformed_bodies() {
        for path in ["/oauth/token", "/oauth/revoke", "/oauth/introspect"] {
            let response = post(&s, path, body.clone())
                .basic_auth(&app.0, Some(&app.1))
                .send()
                .await
                .unwrap();
            checked.json("malformed body", response).await;
        }
        let response = s
            .client
            .post(s.url("/oauth/token"))
            .header(CONTENT_TYPE, "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        checked.json("JSON body", response).await;
    }
    assert!(
        checked.problems.is_empty(),
        "{} problems in {:?} descriptions:\n{}",
        checked.problems.len(),
        checked.found,
        checked.problems.join("\n")
    );
    // Each kind of answer was seen, often (a test that checks nothing passes too).
    let seen = |place| checked.found.get(place).copied().unwrap_or(0);
    assert!(
        seen("body") > 250 && seen("redirect") > 30 && seen("challenge") > 10,
        "{:?}",
        checked.found
    );
}
