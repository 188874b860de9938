//! The JWT bearer grant (RFC 7523, and its legacy `grant_type=assertion` form): an
//! assertion signed with the client secret names, in `sub` or `prn`, an access token this
//! service issued to the same client, which is renewed (`renewal`).

use domain::text::TextKind;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use serde_json::Value;
use storage::apps::{self, App};

use super::renewal::renew;
use crate::description::Description;
use crate::endpoints::client_auth::Presented;
use crate::endpoints::form::Form;
use crate::error::OAuthError;
use crate::issue::TokenAnswer;
use crate::service::AuthService;

/// Assertions may not live longer than this (JB-07).
const MAX_ASSERTION_LIFETIME_SECS: i64 = 3600;
/// Clock skew tolerated on the assertion's `exp`.
const LEEWAY_SECS: u64 = 30;

#[derive(Deserialize)]
struct AssertionClaims {
    exp: i64,
    #[serde(default)]
    aud: Option<Value>,
    #[serde(default)]
    sub: Option<String>,
    #[serde(default)]
    prn: Option<String>,
}

pub async fn exchange(
    auth: &AuthService,
    presented: &Presented,
    form: &Form,
) -> Result<TokenAnswer, OAuthError> {
    let assertion = form.require("assertion")?;
    let client = match presented {
        Presented::Nothing => None,
        Presented::IdOnly(_) | Presented::Secret { .. } => {
            Some(presented.authenticate(auth, false).await?)
        }
    };
    match verify_assertion(auth, assertion).await {
        Ok((app, subject)) => {
            if client.as_ref().is_some_and(|c| c.id != app.id) {
                return Err(OAuthError::invalid_client(
                    "the assertion was issued by another client",
                    false,
                ));
            }
            renew(auth, &app, &subject).await
        }
        Err(refusal) => match client {
            // Compatibility: an authenticated client presenting its own access token.
            Some(client)
                if auth
                    .decode_token(assertion)
                    .await
                    .is_ok_and(|c| c.app == client.id) =>
            {
                renew(auth, &client, assertion).await
            }
            _ => Err(refusal),
        },
    }
}

/// The client that signed the assertion and the subject token it names.
async fn verify_assertion(
    auth: &AuthService,
    assertion: &str,
) -> Result<(App, String), OAuthError> {
    let refuse = |why: &'static str| {
        OAuthError::invalid_grant(Description::of(&["the assertion is not acceptable: ", why]))
    };
    let header = jsonwebtoken::decode_header(assertion).map_err(|_| refuse("it is not a JWT"))?;
    if header.alg != Algorithm::HS256 {
        return Err(refuse("it must be signed with HS256"));
    }
    let unverified: Value = jsonwebtoken::dangerous::insecure_decode_claims(assertion)
        .map_err(|_| refuse("its claims do not parse"))?;
    let issuer = unverified["iss"]
        .as_str()
        .ok_or_else(|| refuse("iss is missing"))?;
    // Unverified text about to reach a lookup: no client id holds control characters.
    if TextKind::Single.refuses(issuer) {
        return Err(refuse("iss names no client"));
    }
    let app = apps::find_by_client_id(&auth.db, issuer)
        .await?
        .ok_or_else(|| refuse("iss names no client"))?;
    let sealed = app
        .client_secret_ciphertext
        .as_deref()
        .ok_or_else(|| refuse("this client cannot sign assertions"))?;
    let secret = auth.secret_box.open(sealed).map_err(|err| {
        tracing::error!(error = %err, "a client secret does not decrypt");
        OAuthError::server_error()
    })?;
    let mut validation = Validation::new(Algorithm::HS256);
    validation.leeway = LEEWAY_SECS;
    validation.validate_aud = false;
    validation.set_required_spec_claims(&["exp"]);
    let claims = jsonwebtoken::decode::<AssertionClaims>(
        assertion,
        &DecodingKey::from_secret(&secret),
        &validation,
    )
    .map_err(|e| refuse(assertion_failure(&e)))?
    .claims;
    let now = auth.clock.now().as_secs();
    if claims.exp > now + MAX_ASSERTION_LIFETIME_SECS {
        return Err(refuse("exp is too far in the future"));
    }
    let audience_named = match &claims.aud {
        Some(Value::String(aud)) => !aud.is_empty(),
        Some(Value::Array(list)) => list
            .iter()
            .any(|a| a.as_str().is_some_and(|s| !s.is_empty())),
        _ => false,
    };
    if !audience_named {
        return Err(refuse("aud is missing"));
    }
    let subject = claims
        .sub
        .or(claims.prn)
        .ok_or_else(|| refuse("sub (or prn) is missing"))?;
    Ok((app, subject))
}

/// Why a signed assertion was refused, in words of our own: the library's messages may
/// quote the claims.
fn assertion_failure(err: &jsonwebtoken::errors::Error) -> &'static str {
    match err.kind() {
        ErrorKind::InvalidSignature => "its signature does not verify",
        ErrorKind::ExpiredSignature => "it expired",
        ErrorKind::ImmatureSignature => "it is not valid yet",
        ErrorKind::MissingRequiredClaim(_) => "exp is missing",
        _ => "its claims are malformed",
    }
}
