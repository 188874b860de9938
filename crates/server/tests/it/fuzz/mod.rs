//! A bounded, derandomised fuzz test over every route: ids no resource can have in each
//! path, numbers past every range and control characters in each query parameter, JSON
//! field, JSON key and form field, malformed and deeply nested bodies, and crafted
//! credentials. Whatever the bytes, no answer is a 5xx, every error has the documented
//! shape, the inputs the rules refuse are refused naming their field, and a refused
//! write changes nothing. The picks come from a fixed seed (a stream per route), so a
//! failure replays exactly.

mod hostile;
mod routes;

use std::time::Instant;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use self::hostile::{
    CONTROLS, MARK, PATH_IDS, QUERY_VALUES, Rng, json_values, raw_bodies, with_control,
};
use self::routes::{Fixture, Input, Kind, Route};
use crate::on_both_backends;
use crate::support::{Backend, TestDb, TestServer};

on_both_backends!(hostile_input_never_causes_a_server_error);

/// The run's seed: fixed, so that CI sends the same requests each time; another one
/// (`COMMERCE_FUZZ_SEED`, decimal or 0x-hex) sends other picks of the same classes.
fn seed() -> u64 {
    const SEED: u64 = 0x5EED_0011_0004;
    std::env::var("COMMERCE_FUZZ_SEED")
        .ok()
        .and_then(|v| match v.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(&hex.replace('_', ""), 16).ok(),
            None => v.parse().ok(),
        })
        .unwrap_or(SEED)
}
/// Hostile path ids tried per placeholder.
const PER_PLACEHOLDER: usize = 6;
/// Hostile values tried per query parameter and per JSON field, besides the numbers
/// past i64 and the control characters every one of them gets.
const PER_PARAMETER: usize = 2;
/// Malformed bodies tried per JSON route.
const RAW_BODIES_PER_ROUTE: usize = 6;

async fn hostile_input_never_causes_a_server_error(backend: Backend) {
    let s = TestServer::start_with(backend, |c| {
        c.rate_limit_quota = 1_000_000;
        c.webhook_allowed_networks = vec![("127.0.0.0".parse().unwrap(), 8)];
    })
    .await;
    let token = s.owner_token().await;
    let fixture = Fixture::create(&s, &token).await;
    let table = routes::table(&fixture);
    let declared = routes::declared_routes(&s).await;
    let tabled = routes::tabled_routes(&table);
    assert_eq!(
        declared.difference(&tabled).collect::<Vec<_>>(),
        Vec::<&(String, String)>::new(),
        "routes the document describes that the fuzz table lacks"
    );
    assert_eq!(
        tabled.difference(&declared).collect::<Vec<_>>(),
        Vec::<&(String, String)>::new(),
        "routes in the fuzz table that the document does not describe"
    );

    let mut run = Runner {
        s: &s,
        token,
        fixture: &fixture,
        counts: Counts::open(&s.db).await,
        last_fingerprint: None,
        rng: Rng::new(seed()),
        failures: Vec::new(),
        sent: 0,
        label: String::new(),
    };
    let started = Instant::now();
    // Destructive routes last, so that the others still find the fixture.
    let (destructive, others): (Vec<&Route>, Vec<&Route>) =
        table.iter().partition(|r| r.is_destructive());
    for route in others.into_iter().chain(destructive) {
        run.rng = Rng::for_route(seed(), route.method.as_str(), route.path);
        run.path_ids(route).await;
        run.query(route).await;
        match &route.input {
            Input::None => {}
            Input::Json(body) => run.json(route, body).await,
            Input::Form(fields) => run.form(route, fields).await,
        }
    }
    run.rng = Rng::for_route(seed(), "", "credentials");
    run.credentials().await;
    eprintln!(
        "fuzz ({backend:?}): {} requests over {} routes in {:.1?} (seed {:#x})",
        run.sent,
        table.len(),
        started.elapsed(),
        seed()
    );
    // Server errors first: they are the worst.
    let mut failures = std::mem::take(&mut run.failures);
    failures.sort_by_key(|f| !f.contains("server error"));
    let server_errors = failures
        .iter()
        .filter(|f| f.contains("server error"))
        .count();
    assert!(
        failures.is_empty(),
        "{} of {} hostile requests were mishandled, {server_errors} with a server error:\n{}",
        failures.len(),
        run.sent,
        failures
            .iter()
            .take(80)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    s.stop().await;
}

/// What an answer must be, beyond "no 5xx, errors in the documented shape".
#[derive(Clone, Debug, PartialEq)]
enum Expect {
    Anything,
    /// 404: a path id that no resource can have.
    NotFound,
    /// 422 naming this field (`None`: some field).
    Invalid(Option<String>),
    /// 400 `invalid_request` from an OAuth endpoint.
    InvalidRequest,
    /// A 400 error page.
    BadPage,
}

enum Body {
    None,
    Json(Vec<u8>),
    Raw(&'static str, Vec<u8>),
    Form(String),
}

impl Body {
    fn summary(&self) -> String {
        let text = match self {
            Body::None => return String::new(),
            Body::Json(bytes) | Body::Raw(_, bytes) => String::from_utf8_lossy(bytes).into_owned(),
            Body::Form(form) => form.clone(),
        };
        format!(" {}", short(&text))
    }
}

struct Request {
    method: Method,
    /// Path and query, already encoded.
    target: String,
    kind: Kind,
    body: Body,
    headers: Vec<(&'static str, String)>,
    expect: Expect,
}

struct Runner<'a> {
    s: &'a TestServer,
    token: String,
    fixture: &'a Fixture,
    counts: Counts,
    /// The data's fingerprint as the last refused write left it.
    last_fingerprint: Option<Vec<(String, i64)>>,
    rng: Rng,
    failures: Vec<String>,
    sent: usize,
    /// What the next request changed, for its failure report.
    label: String,
}

impl Runner<'_> {
    /// Each placeholder of the path replaced by ids that cannot exist.
    async fn path_ids(&mut self, route: &Route) {
        let placeholders: Vec<&str> = route
            .path
            .split('{')
            .skip(1)
            .filter_map(|p| p.split('}').next())
            .collect();
        for name in placeholders {
            let mut values = self.rng.sample(&PATH_IDS, PER_PLACEHOLDER);
            // The two classes the probe found: past i64, and NUL.
            values.extend([&"9223372036854775808", &"%00"]);
            for value in values {
                let target = self.fixture.fill(route.path, Some((name, value)));
                let body = match &route.input {
                    Input::Json(body) => Body::Json(body.to_string().into_bytes()),
                    _ => Body::None,
                };
                // A file's name is decoration: any name serves it, but not one with
                // control characters.
                let expect = if name != "name" || value.contains("%0") {
                    Expect::NotFound
                } else {
                    Expect::Anything
                };
                self.send(route, target, body, Vec::new(), expect).await;
            }
        }
    }

    /// Each parameter the route reads set to hostile values, control characters included
    /// (refused in any parameter, read or not); routes that write only get values that
    /// must be refused.
    async fn query(&mut self, route: &Route) {
        let path = self.fixture.fill(route.path, None);
        let body = match &route.input {
            Input::Json(body) => Body::Json(body.to_string().into_bytes()),
            Input::Form(fields) => Body::Form(form_of(fields)),
            Input::None => Body::None,
        };
        if route.method != Method::GET {
            let control = encode(&self.control(false));
            let target = format!("{path}?page={control}");
            self.send(route, target, body, Vec::new(), refused(route.kind, "page"))
                .await;
            return;
        }
        let mut params = route.query.clone();
        if !params.contains(&"page") {
            params.push("page");
        }
        for name in params {
            // Always the two classes the probe found (past i64, NUL), then others.
            let mut values: Vec<(String, Expect)> = ["9223372036854775807"]
                .into_iter()
                .chain(
                    self.rng
                        .sample(&QUERY_VALUES, PER_PARAMETER)
                        .into_iter()
                        .copied(),
                )
                .map(|v| (v.to_owned(), Expect::Anything))
                .collect();
            for control in [with_control('\0'), self.control(false)] {
                values.push((encode(&control), refused(route.kind, name)));
            }
            for (value, expect) in values {
                self.label = format!("{name} = {value}");
                let query = self.query_string(route, name, &value);
                // Some requests go through the deprecated alias.
                let alias = route.path.starts_with("/v2") && self.rng.below(8) == 0;
                let target = if alias {
                    format!("/v1{}?{query}", &path["/v2".len()..])
                } else {
                    format!("{path}?{query}")
                };
                self.send(route, target, Body::None, Vec::new(), expect)
                    .await;
            }
        }
        // A control character in a parameter's name.
        let name = encode(&with_control('\0'));
        let expect = match refused(route.kind, "") {
            Expect::Invalid(_) => Expect::Invalid(None),
            other => other,
        };
        self.send(
            route,
            format!("{path}?{name}=1"),
            Body::None,
            Vec::new(),
            expect,
        )
        .await;
    }

    /// The route's usual query (an authorization request's parameters) with `name` set to
    /// `value`.
    fn query_string(&self, route: &Route, name: &str, value: &str) -> String {
        if route.path != "/oauth/authorize" {
            return format!("{name}={value}");
        }
        let mut pairs: Vec<String> = route
            .query
            .iter()
            .filter(|p| **p != name)
            .map(|p| format!("{p}={}", encode(&self.authorize_value(p))))
            .collect();
        pairs.push(format!("{name}={value}"));
        pairs.join("&")
    }

    fn authorize_value(&self, name: &str) -> String {
        match name {
            "response_type" => "code".into(),
            "client_id" => self.fixture.client_id.clone(),
            "redirect_uri" => "http://127.0.0.1:8000/callback".into(),
            "scope" => "products.read".into(),
            "code_challenge" => "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM".into(),
            "code_challenge_method" => "S256".into(),
            _ => "s".into(),
        }
    }

    /// Every field and sub-value of the body replaced in turn, keys with control
    /// characters added to every object, and bodies that are not JSON objects at all.
    async fn json(&mut self, route: &Route, body: &Value) {
        let target = self.fixture.fill(route.path, None);
        let pool = json_values();
        for path in value_paths(body) {
            let field = field_name(&path);
            let mut values: Vec<(Value, Expect)> = [json!(i64::MAX), json!(i64::MIN)]
                .into_iter()
                .chain(self.rng.sample(&pool, PER_PARAMETER).into_iter().cloned())
                .map(|v| (v, Expect::Anything))
                .collect();
            for control in [with_control('\0'), self.control(true)] {
                values.push((json!(control), Expect::Invalid(Some(field.clone()))));
            }
            for (value, expect) in values {
                self.label = format!("{field} = {}", short(&value.to_string()));
                let mutated = replaced(body, &path, value);
                let bytes = mutated.to_string().into_bytes();
                self.send(route, target.clone(), Body::Json(bytes), Vec::new(), expect)
                    .await;
            }
        }
        for path in std::iter::once(Vec::new()).chain(value_paths(body)) {
            if let Some(object) = at(body, &path).and_then(Value::as_object) {
                let mut object = object.clone();
                object.insert(with_control(self.control_char(true)), json!(1));
                let mutated = replaced(body, &path, Value::Object(object));
                let bytes = mutated.to_string().into_bytes();
                self.send(
                    route,
                    target.clone(),
                    Body::Json(bytes),
                    Vec::new(),
                    Expect::Invalid(None),
                )
                .await;
            }
        }
        let raw = raw_bodies();
        for bytes in self.rng.sample(&raw, RAW_BODIES_PER_ROUTE) {
            self.send(
                route,
                target.clone(),
                Body::Json(bytes.clone()),
                Vec::new(),
                Expect::Anything,
            )
            .await;
        }
        let text = Body::Raw("text/plain", body.to_string().into_bytes());
        self.send(route, target, text, Vec::new(), Expect::Anything)
            .await;
    }

    /// Each form field set to control characters and other hostile text.
    async fn form(&mut self, route: &Route, fields: &[(&'static str, String)]) {
        let target = self.fixture.fill(route.path, None);
        let mut names: Vec<String> = fields.iter().map(|(n, _)| (*n).to_owned()).collect();
        // A field with a control character in its name.
        names.push(with_control('\0'));
        for name in names {
            let mut values: Vec<(String, Expect)> = Vec::new();
            // Page forms take multi-line text: only the other controls are refused.
            for c in ['\0', self.control_char(route.kind == Kind::Page)] {
                let expect = match route.kind {
                    Kind::OAuth => Expect::InvalidRequest,
                    _ => Expect::BadPage,
                };
                values.push((with_control(c), expect));
            }
            let line_break = if route.kind == Kind::OAuth {
                Expect::InvalidRequest
            } else {
                Expect::Anything
            };
            values.push((with_control('\n'), line_break));
            for hostile in ["9223372036854775808", "-1", "\u{FFFD}", "\u{202E}"] {
                values.push((hostile.to_owned(), Expect::Anything));
            }
            // Long, but within the forms' limits: a server that answers before reading
            // a body it refuses may close the connection under the client.
            values.push(("x".repeat(12_000), Expect::Anything));
            if name == "assertion" {
                values.extend(assertions().into_iter().map(|a| (a, Expect::Anything)));
            }
            for (value, expect) in values {
                self.label = format!("{} = {}", name.escape_debug(), short(&value));
                let mut form = form_urlencoded::Serializer::new(String::new());
                let mut replaced_one = false;
                for (n, v) in fields {
                    if *n == name {
                        form.append_pair(n, &value);
                        replaced_one = true;
                    } else {
                        form.append_pair(n, v);
                    }
                }
                if !replaced_one {
                    form.append_pair(&name, &value);
                }
                self.send(
                    route,
                    target.clone(),
                    Body::Form(form.finish()),
                    Vec::new(),
                    expect,
                )
                .await;
            }
        }
        if route.path == "/oauth/token" {
            self.basic_credentials(route, &target, fields).await;
        }
        let raw = [
            b"%".to_vec(),
            b"a=%ZZ&&=&b".to_vec(),
            b"\xff\xfe=\x00".to_vec(),
        ];
        for bytes in raw {
            self.send(
                route,
                target.clone(),
                Body::Raw("application/x-www-form-urlencoded", bytes),
                Vec::new(),
                Expect::Anything,
            )
            .await;
        }
    }

    /// Basic credentials whose decoded id or secret holds control characters.
    async fn basic_credentials(
        &mut self,
        route: &Route,
        target: &str,
        fields: &[(&'static str, String)],
    ) {
        let form: String = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(
                fields
                    .iter()
                    .filter(|(n, _)| !n.starts_with("client_"))
                    .map(|(n, v)| (*n, v.as_str())),
            )
            .finish();
        for pair in [
            format!("{MARK}\u{0}:secret"),
            format!("{MARK}%00{MARK}:secret"),
            format!("{}:{MARK}%1B", self.fixture.client_id),
            format!("{}:\u{7f}", self.fixture.client_id),
            "\u{85}:x".to_owned(),
        ] {
            let header = format!("Basic {}", STANDARD.encode(pair));
            self.send(
                route,
                target.to_owned(),
                Body::Form(form.clone()),
                vec![("authorization", header)],
                Expect::Anything,
            )
            .await;
        }
    }

    /// Credentials inside a JWT assertion and a bearer token: the text a token carries
    /// reaches lookups too.
    async fn credentials(&mut self) {
        let bearer = Route {
            method: Method::GET,
            path: "/v2",
            query: Vec::new(),
            input: Input::None,
            kind: Kind::Api,
        };
        for token in assertions().into_iter().chain([
            "\u{1}".to_owned(),
            "a\tb".to_owned(),
            format!("{MARK}\u{7f}"),
        ]) {
            let Ok(value) = reqwest::header::HeaderValue::from_str(&format!("Bearer {token}"))
            else {
                continue;
            };
            let value = value.to_str().unwrap_or_default().to_owned();
            self.send(
                &bearer,
                "/v2".into(),
                Body::None,
                vec![("authorization", value)],
                Expect::Anything,
            )
            .await;
        }
    }

    /// A control character other than NUL (which is always tried); `free` text allows
    /// line breaks, so it only gets the others.
    fn control_char(&mut self, free: bool) -> char {
        let refused: Vec<char> = CONTROLS
            .iter()
            .filter(|(c, allowed)| *c != '\0' && !(free && *allowed))
            .map(|(c, _)| *c)
            .collect();
        *self.rng.pick(&refused)
    }

    fn control(&mut self, free: bool) -> String {
        let c = self.control_char(free);
        with_control(c)
    }

    async fn send(
        &mut self,
        route: &Route,
        target: String,
        body: Body,
        headers: Vec<(&'static str, String)>,
        expect: Expect,
    ) {
        let request = Request {
            method: route.method.clone(),
            target,
            kind: route.kind,
            body,
            headers,
            expect,
        };
        // Only writes change data: the fingerprint after the last one still holds.
        let write = request.method != Method::GET;
        let before = match (&self.last_fingerprint, write) {
            (_, false) => None,
            (Some(known), true) => Some(known.clone()),
            (None, true) => Some(self.counts.fingerprint().await),
        };
        if write {
            self.last_fingerprint = None;
        }
        self.sent += 1;
        let mut builder = self
            .s
            .client
            .request(request.method.clone(), self.s.url(&request.target));
        builder = match request.kind {
            Kind::Api => builder.bearer_auth(&self.token),
            Kind::Customer => builder.bearer_auth(&self.fixture.customer_token),
            Kind::Page => builder.header("cookie", &self.fixture.cookies),
            Kind::OAuth => builder,
        };
        for (name, value) in &request.headers {
            builder = builder.header(*name, value);
        }
        builder = match &request.body {
            Body::None => builder,
            Body::Json(bytes) => builder
                .header("content-type", "application/json")
                .body(bytes.clone()),
            Body::Raw(content_type, bytes) => builder
                .header("content-type", *content_type)
                .body(bytes.clone()),
            Body::Form(form) => builder
                .header("content-type", "application/x-www-form-urlencoded")
                .body(form.clone()),
        };
        let response = builder.send().await.expect("the server answers");
        let status = response.status();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let bytes = response.bytes().await.expect("a body");
        let mut problems = check(&request, status, &content_type, &bytes);
        if let Some(before) = before
            && status.is_client_error()
        {
            let after = self.counts.fingerprint().await;
            if after != before {
                problems.push("a refused write changed the data".to_owned());
            }
            self.last_fingerprint = Some(after);
        }
        let label = std::mem::take(&mut self.label);
        for problem in problems {
            self.failures.push(format!(
                "{} {} [{label}]{} → {status}: {problem}",
                request.method,
                short(&request.target),
                request.body.summary()
            ));
        }
    }
}

/// What a control character in a query parameter gets.
fn refused(kind: Kind, name: &str) -> Expect {
    match kind {
        Kind::Api | Kind::Customer => Expect::Invalid(Some(name.to_owned())),
        Kind::OAuth => Expect::InvalidRequest,
        Kind::Page => Expect::BadPage,
    }
}

fn form_of(fields: &[(&'static str, String)]) -> String {
    form_urlencoded::Serializer::new(String::new())
        .extend_pairs(fields.iter().map(|(n, v)| (*n, v.as_str())))
        .finish()
}

/// Problems with an answer: a 5xx, an error body out of shape, or not what was expected.
fn check(request: &Request, status: StatusCode, content_type: &str, bytes: &[u8]) -> Vec<String> {
    let mut problems = Vec::new();
    if status.is_server_error() {
        problems.push(format!(
            "server error: {}",
            String::from_utf8_lossy(&bytes[..bytes.len().min(200)])
        ));
        return problems;
    }
    if status.as_u16() >= 400 {
        let shape = match request.kind {
            Kind::Api | Kind::Customer => api_error_shape(status, bytes),
            Kind::OAuth => oauth_error_shape(bytes),
            Kind::Page if content_type.starts_with("text/html") => Ok(()),
            Kind::Page => Err(format!("an error page of type {content_type:?}")),
        };
        if let Err(problem) = shape {
            problems.push(problem);
        }
    }
    let body: Value = serde_json::from_slice(bytes).unwrap_or(Value::Null);
    let met = match &request.expect {
        Expect::Anything => true,
        Expect::NotFound => status == StatusCode::NOT_FOUND,
        Expect::Invalid(field) => {
            status == StatusCode::UNPROCESSABLE_ENTITY
                && field.as_ref().is_none_or(|field| {
                    body["_embedded"]["errors"]
                        .as_array()
                        .is_some_and(|errors| errors.iter().any(|e| e["field"] == *field.as_str()))
                })
        }
        Expect::InvalidRequest => {
            status == StatusCode::BAD_REQUEST && body["error"] == "invalid_request"
        }
        Expect::BadPage => status == StatusCode::BAD_REQUEST,
    };
    if !met {
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(300)]).into_owned();
        problems.push(format!("expected {:?}, got {text}", request.expect));
    }
    problems
}

/// 422: `_class` ["errors"], `message`, `_embedded.errors[]` with `field` and
/// `messages[]`; every other error `_class` ["error"], `status`, `error`, `message`.
fn api_error_shape(status: StatusCode, bytes: &[u8]) -> Result<(), String> {
    let body: Value = serde_json::from_slice(bytes)
        .map_err(|_| format!("a non-JSON error: {}", String::from_utf8_lossy(bytes)))?;
    let ok = if status == StatusCode::UNPROCESSABLE_ENTITY {
        body["_class"] == json!(["errors"])
            && body["message"].is_string()
            && body["_embedded"]["errors"]
                .as_array()
                .is_some_and(|errors| {
                    !errors.is_empty()
                        && errors.iter().all(|e| {
                            e["field"].is_string()
                                && e["messages"].as_array().is_some_and(|m| {
                                    !m.is_empty() && m.iter().all(Value::is_string)
                                })
                        })
                })
    } else {
        body["_class"] == json!(["error"])
            && body["status"] == status.as_u16()
            && body["error"].as_str().is_some_and(|e| !e.is_empty())
            && body["message"].is_string()
    };
    if ok {
        Ok(())
    } else {
        Err(format!("an error body out of shape: {body}"))
    }
}

/// RFC 6749 section 5.2: an `error` code, and an `error_description` that does not echo
/// what the client sent.
fn oauth_error_shape(bytes: &[u8]) -> Result<(), String> {
    let body: Value = serde_json::from_slice(bytes)
        .map_err(|_| format!("a non-JSON error: {}", String::from_utf8_lossy(bytes)))?;
    if body["error"].as_str().is_none_or(str::is_empty) {
        return Err(format!("an OAuth error without a code: {body}"));
    }
    if let Some(description) = body["error_description"].as_str()
        && (description.contains(MARK) || !description.chars().all(rfc_6749_character))
    {
        return Err(format!(
            "an error_description echoing the input or holding characters RFC 6749 forbids: {body}"
        ));
    }
    Ok(())
}

/// `%x20-21 / %x23-5B / %x5D-7E`: what an `error_description` may hold.
fn rfc_6749_character(c: char) -> bool {
    matches!(c, ' '..='!' | '#'..='[' | ']'..='~')
}

/// JWTs that parse but carry control characters and numbers past every range in their
/// claims.
fn assertions() -> Vec<String> {
    let jwt = |claims: Value| {
        let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"HS256","typ":"JWT"}"#);
        let claims = URL_SAFE_NO_PAD.encode(claims.to_string());
        format!("{header}.{claims}.c2lnbmF0dXJl")
    };
    vec![
        jwt(json!({"iss": format!("{MARK}\u{0}{MARK}"), "exp": 1, "sub": "x"})),
        jwt(json!({"iss": format!("{MARK}\u{1b}"), "exp": i64::MAX, "sub": "\u{0}"})),
        jwt(json!({"iss": "x", "exp": u64::MAX, "prn": "\u{7f}"})),
        jwt(json!({"iss": ["\u{0}"], "exp": -1e300})),
    ]
}

/// The start of a long text, escaped for a report.
fn short(text: &str) -> String {
    let start: String = text.chars().take(120).collect();
    start.escape_debug().to_string()
}

/// Percent-encodes every byte that is not a letter or digit.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[derive(Clone, Debug)]
enum Segment {
    Key(String),
    Index(usize),
}

/// The path to every value inside `root` (not `root` itself), parents first.
fn value_paths(root: &Value) -> Vec<Vec<Segment>> {
    let mut paths = Vec::new();
    let mut stack = vec![(Vec::new(), root)];
    while let Some((path, value)) = stack.pop() {
        let children: Vec<(Segment, &Value)> = match value {
            Value::Object(map) => map
                .iter()
                .map(|(k, v)| (Segment::Key(k.clone()), v))
                .collect(),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| (Segment::Index(i), v))
                .collect(),
            _ => Vec::new(),
        };
        for (segment, child) in children.into_iter().rev() {
            let mut child_path = path.clone();
            child_path.push(segment);
            paths.push(child_path.clone());
            stack.push((child_path, child));
        }
    }
    paths
}

/// The field a 422 names for a path: `variants[0].sku`.
fn field_name(path: &[Segment]) -> String {
    let mut name = String::new();
    for segment in path {
        match segment {
            Segment::Key(key) => {
                if !name.is_empty() {
                    name.push('.');
                }
                name.push_str(key);
            }
            Segment::Index(i) => name.push_str(&format!("[{i}]")),
        }
    }
    name
}

fn at<'v>(root: &'v Value, path: &[Segment]) -> Option<&'v Value> {
    path.iter().try_fold(root, |value, segment| match segment {
        Segment::Key(key) => value.get(key),
        Segment::Index(i) => value.get(i),
    })
}

fn replaced(root: &Value, path: &[Segment], new: Value) -> Value {
    let mut copy = root.clone();
    let mut slot = &mut copy;
    for segment in path {
        slot = match segment {
            Segment::Key(key) => &mut slot[key.as_str()],
            Segment::Index(i) => &mut slot[*i],
        };
    }
    *slot = new;
    copy
}

/// What the data looks like, in numbers that every committed write changes: row counts,
/// the latest change of each resource, and the total stock.
struct Counts(Pool);

enum Pool {
    Sqlite(sqlx::SqlitePool),
    Postgres(sqlx::PgPool),
}

const FINGERPRINT: &str = "\
    SELECT 'events', COUNT(*) FROM events \
    UNION ALL SELECT 'shops', COUNT(*) + COALESCE(MAX(updated_on), 0) FROM shops \
    UNION ALL SELECT 'products', COUNT(*) + COALESCE(MAX(updated_on), 0) FROM products \
    UNION ALL SELECT 'variants', COUNT(*) + COALESCE(MAX(updated_on), 0) FROM variants \
    UNION ALL SELECT 'stock', CAST(COALESCE(SUM(stock), 0) AS BIGINT) FROM variants \
    UNION ALL SELECT 'assets', COUNT(*) FROM product_assets \
    UNION ALL SELECT 'types', COUNT(*) + COALESCE(MAX(updated_on), 0) FROM product_types \
    UNION ALL SELECT 'collections', COUNT(*) + COALESCE(MAX(updated_on), 0) FROM collections \
    UNION ALL SELECT 'members', COUNT(*) FROM collection_products \
    UNION ALL SELECT 'lists', COUNT(*) + COALESCE(MAX(updated_on), 0) FROM price_lists \
    UNION ALL SELECT 'items', COUNT(*) + COALESCE(MAX(updated_on), 0) FROM price_list_items \
    UNION ALL SELECT 'orders', COUNT(*) + COALESCE(MAX(updated_on), 0) FROM orders \
    UNION ALL SELECT 'lines', COUNT(*) FROM order_lines \
    UNION ALL SELECT 'payment_methods', COUNT(*) + COALESCE(MAX(updated_on), 0) FROM payment_methods \
    UNION ALL SELECT 'payments', COUNT(*) + COALESCE(MAX(updated_on), 0) FROM payments \
    UNION ALL SELECT 'customers', COUNT(*) + COALESCE(MAX(updated_on), 0) FROM customers \
    UNION ALL SELECT 'addresses', COUNT(*) + COALESCE(MAX(updated_on), 0) FROM customer_addresses \
    UNION ALL SELECT 'shipping', COUNT(*) + COALESCE(MAX(updated_on), 0) FROM shipping_tables \
    UNION ALL SELECT 'rates', COUNT(*) + COALESCE(MAX(updated_on), 0) FROM exchange_rates \
    UNION ALL SELECT 'admins', COUNT(*) + COALESCE(MAX(updated_on), 0) FROM shop_admins \
    UNION ALL SELECT 'users', COUNT(*) + COALESCE(MAX(updated_on), 0) FROM users \
    UNION ALL SELECT 'invitations', COUNT(*) FROM shop_admin_invitations \
    UNION ALL SELECT 'webhooks', COUNT(*) FROM webhooks \
    UNION ALL SELECT 'replays', COUNT(*) FROM webhook_replays \
    UNION ALL SELECT 'apps', COUNT(*) FROM oauth_apps \
    UNION ALL SELECT 'tokens', COUNT(*) FROM access_tokens";

impl Counts {
    async fn open(db: &TestDb) -> Self {
        Self(match db.backend {
            Backend::Sqlite => Pool::Sqlite(sqlx::SqlitePool::connect(&db.url).await.unwrap()),
            Backend::Postgres => Pool::Postgres(sqlx::PgPool::connect(&db.url).await.unwrap()),
        })
    }

    async fn fingerprint(&self) -> Vec<(String, i64)> {
        let mut rows: Vec<(String, i64)> = match &self.0 {
            Pool::Sqlite(pool) => sqlx::query_as(FINGERPRINT).fetch_all(pool).await,
            Pool::Postgres(pool) => sqlx::query_as(FINGERPRINT).fetch_all(pool).await,
        }
        .expect("the fingerprint query");
        rows.sort();
        rows
    }
}
