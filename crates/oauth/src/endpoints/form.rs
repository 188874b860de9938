//! Form-encoded requests to the token, revocation and introspection endpoints (RFC 6749
//! section 3.2): form media type only, no repeated parameters, empty values as absent,
//! no credentials in the query string.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, Request};
use axum::http::{HeaderMap, header};
use domain::text::TextKind;

use crate::control;
use crate::description::Description;
use crate::error::OAuthError;

/// A token-endpoint body never needs more.
const MAX_BODY_BYTES: usize = 64 * 1024;
/// The parameters the endpoints read: a repeated one is named in the refusal, any other
/// name is not (a description never repeats what the client sent).
const PARAMETERS: [&str; 15] = [
    "grant_type",
    "client_id",
    "client_secret",
    "scope",
    "seller_id",
    "code",
    "redirect_uri",
    "code_verifier",
    "refresh_token",
    "username",
    "password",
    "assertion",
    "assertion_type",
    "token",
    "token_type_hint",
];

pub struct FormRequest {
    pub form: Form,
    pub headers: HeaderMap,
    pub client_ip: Option<IpAddr>,
}

impl FormRequest {
    pub async fn read(request: Request) -> Result<Self, OAuthError> {
        let (parts, body) = request.into_parts();
        // `control::endpoint_guard` has refused control characters in the query.
        if let Some(query) = parts.uri.query() {
            let credentials_in_query = form_urlencoded::parse(query.as_bytes()).any(|(name, _)| {
                matches!(
                    &*name,
                    "client_secret"
                        | "password"
                        | "assertion"
                        | "refresh_token"
                        | "code"
                        | "code_verifier"
                        | "token"
                )
            });
            if credentials_in_query {
                return Err(OAuthError::invalid_request(
                    "credentials must not be sent in the query string",
                ));
            }
        }
        let content_type = parts
            .headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let media_type = content_type.split(';').next().unwrap_or("").trim();
        if !media_type.eq_ignore_ascii_case("application/x-www-form-urlencoded") {
            return Err(OAuthError::invalid_request(
                "the body must be application/x-www-form-urlencoded",
            ));
        }
        let body = axum::body::to_bytes(body, MAX_BODY_BYTES)
            .await
            .map_err(|_| OAuthError::invalid_request("the body is too large"))?;
        let client_ip = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip());
        Ok(Self {
            form: Form::parse(&body)?,
            headers: parts.headers,
            client_ip,
        })
    }
}

/// Form parameters; empty values count as absent. Each is a single value: one holding
/// a control character is refused (`control`).
pub struct Form(HashMap<String, String>);

impl Form {
    pub fn parse(body: &[u8]) -> Result<Self, OAuthError> {
        if control::refused(body, TextKind::Single) {
            return Err(OAuthError::invalid_request(control::DESCRIPTION));
        }
        let mut params = HashMap::new();
        for (name, value) in form_urlencoded::parse(body) {
            if value.is_empty() {
                continue;
            }
            if params
                .insert(name.to_string(), value.into_owned())
                .is_some()
            {
                return Err(OAuthError::invalid_request(repeated(&name)));
            }
        }
        Ok(Self(params))
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    pub fn require(&self, name: &'static str) -> Result<&str, OAuthError> {
        self.get(name).ok_or_else(|| {
            OAuthError::invalid_request(Description::of(&["parameter ", name, " is required"]))
        })
    }
}

/// Why a form with `name` twice is refused.
fn repeated(name: &str) -> Description {
    match PARAMETERS.iter().find(|known| **known == name) {
        Some(known) => Description::of(&["parameter ", known, " is repeated"]),
        None => Description::from("a parameter is repeated"),
    }
}
