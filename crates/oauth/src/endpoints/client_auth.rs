//! Client authentication at the form endpoints: HTTP Basic (id and secret form-encoded,
//! then base64, RFC 6749 section 2.3.1) or `client_id`/`client_secret` in the body, never
//! both; a public client names itself with `client_id` alone.

use axum::http::{HeaderMap, header};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use domain::text::TextKind;
use storage::apps::App;

use super::form::Form;
use crate::apps;
use crate::error::OAuthError;
use crate::service::AuthService;

/// What the request presented.
pub enum Presented {
    Secret {
        id: String,
        secret: String,
        basic: bool,
    },
    /// `client_id` without a secret: acceptable only for a public client.
    IdOnly(String),
    Nothing,
}

impl Presented {
    pub fn read(headers: &HeaderMap, form: &Form) -> Result<Self, OAuthError> {
        if let Some((id, secret)) = basic_credentials(headers)? {
            if form.get("client_secret").is_some()
                || form.get("client_id").is_some_and(|body_id| body_id != id)
            {
                return Err(OAuthError::invalid_request(
                    "use one client authentication method, not two",
                ));
            }
            return Ok(Presented::Secret {
                id,
                secret,
                basic: true,
            });
        }
        Ok(match (form.get("client_id"), form.get("client_secret")) {
            (Some(id), Some(secret)) => Presented::Secret {
                id: id.to_owned(),
                secret: secret.to_owned(),
                basic: false,
            },
            (Some(id), None) => Presented::IdOnly(id.to_owned()),
            (None, _) => Presented::Nothing,
        })
    }

    fn used_basic(&self) -> bool {
        matches!(self, Presented::Secret { basic: true, .. })
    }

    /// The authenticated app. `allow_public` admits a public client naming itself.
    pub async fn authenticate(
        &self,
        auth: &AuthService,
        allow_public: bool,
    ) -> Result<App, OAuthError> {
        let failed =
            || OAuthError::invalid_client("client authentication failed", self.used_basic());
        match self {
            Presented::Secret { id, secret, .. } => apps::authenticate(&auth.db, id, secret)
                .await?
                .filter(|app| !app.public)
                .ok_or_else(failed),
            Presented::IdOnly(id) if allow_public => storage::apps::find_by_client_id(&auth.db, id)
                .await?
                .filter(|app| app.public)
                .ok_or_else(failed),
            Presented::IdOnly(_) | Presented::Nothing => Err(OAuthError::invalid_client(
                "client authentication is required",
                false,
            )),
        }
    }
}

fn basic_credentials(headers: &HeaderMap) -> Result<Option<(String, String)>, OAuthError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let malformed = || OAuthError::invalid_client("malformed Basic credentials", true);
    let value = value.to_str().map_err(|_| malformed())?;
    let Some((scheme, encoded)) = value.split_once(' ') else {
        return Err(malformed());
    };
    if !scheme.eq_ignore_ascii_case("basic") {
        return Err(OAuthError::invalid_request(
            "client authentication uses the Basic scheme",
        ));
    }
    let decoded = STANDARD.decode(encoded.trim()).map_err(|_| malformed())?;
    let decoded = String::from_utf8(decoded).map_err(|_| malformed())?;
    let (id, secret) = decoded.split_once(':').ok_or_else(malformed)?;
    let (id, secret) = (form_unescape(id), form_unescape(secret));
    let rule = TextKind::Single;
    if id.is_empty() || rule.refuses(&id) || rule.refuses(&secret) {
        return Err(malformed());
    }
    Ok(Some((id, secret)))
}

/// Decodes one `application/x-www-form-urlencoded` value (`+` is a space, `%XX` a byte).
fn form_unescape(value: &str) -> String {
    let pair = format!("v={}", value.replace('&', "%26").replace('=', "%3D"));
    form_urlencoded::parse(pair.as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}
