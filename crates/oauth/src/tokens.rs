//! Access tokens: signed JWTs whose claims carry the principal, each recorded by `jti`.

use domain::{Role, ScopeSet, Timestamp};
use jsonwebtoken::{Algorithm, Header, Validation};
use serde::{Deserialize, Serialize};

use crate::principal::{Principal, Subject};
use crate::secrets;
use crate::service::AuthService;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct AccessClaims {
    pub iss: String,
    /// `user:{id}` or `app:{id}`.
    pub sub: String,
    pub iat: i64,
    pub exp: i64,
    pub jti: String,
    /// The client id of the app the token was issued to.
    pub cid: String,
    /// The app's numeric id.
    pub app: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acc: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sel: Option<i64>,
    /// Granted scopes, comma-separated.
    pub scope: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The user's display name, for attributing changes without a lookup.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// Why a bearer token was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    #[error("the access token expired")]
    Expired,
    #[error("the access token is malformed or its signature does not verify")]
    Invalid,
}

/// What a new token is for.
pub struct TokenGrant {
    pub subject: Subject,
    pub user_name: Option<String>,
    pub app_id: i64,
    pub client_id: String,
    pub account_id: Option<i64>,
    pub seller_id: Option<i64>,
    pub scopes: ScopeSet,
}

/// A signed token and the claims it carries.
pub struct IssuedToken {
    pub token: String,
    pub claims: AccessClaims,
}

impl AuthService {
    /// Signs an access token for `grant`, valid for the configured lifetime.
    pub fn sign_access_token(&self, grant: &TokenGrant, now: Timestamp) -> IssuedToken {
        let (sub, role) = match grant.subject {
            Subject::User { id, role } => (format!("user:{id}"), Some(role.as_str().to_owned())),
            Subject::App => (format!("app:{}", grant.app_id), None),
        };
        let ttl = i64::try_from(self.config.access_token_ttl.as_secs()).unwrap_or(i64::MAX);
        let claims = AccessClaims {
            iss: self.config.issuer.clone(),
            sub,
            iat: now.as_secs(),
            exp: now.as_secs().saturating_add(ttl),
            jti: secrets::random_token(16),
            cid: grant.client_id.clone(),
            app: grant.app_id,
            acc: grant.account_id,
            sel: grant.seller_id,
            scope: grant.scopes.to_string(),
            role,
            name: grant.user_name.clone(),
        };
        let token = self.keys.with_signing_key(|kid, key| {
            let mut header = Header::new(Algorithm::HS256);
            header.kid = Some(kid.to_owned());
            jsonwebtoken::encode(&header, &claims, key)
                .expect("HS256 signing of serialisable claims succeeds")
        });
        IssuedToken { token, claims }
    }

    /// Verifies signature, algorithm, issuer and expiry, and builds the principal.
    pub async fn verify_access_token(&self, token: &str) -> Result<Principal, VerifyError> {
        let header = jsonwebtoken::decode_header(token).map_err(|_| VerifyError::Invalid)?;
        if header.alg != Algorithm::HS256 {
            return Err(VerifyError::Invalid);
        }
        let kid = header.kid.ok_or(VerifyError::Invalid)?;
        let key = self
            .keys
            .verifying_key(&kid, self.clock.as_ref())
            .await
            .ok_or(VerifyError::Invalid)?;
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 0;
        validation.validate_aud = false;
        validation.set_issuer(&[&self.config.issuer]);
        validation.set_required_spec_claims(&["exp", "iss", "sub"]);
        // Expiry is checked against our clock below, so tests can move time.
        validation.validate_exp = false;
        let claims = jsonwebtoken::decode::<AccessClaims>(token, &key, &validation)
            .map_err(|_| VerifyError::Invalid)?
            .claims;
        if claims.exp <= self.clock.now().as_secs() {
            return Err(VerifyError::Expired);
        }
        principal_from(claims)
    }
}

fn principal_from(claims: AccessClaims) -> Result<Principal, VerifyError> {
    let granted = ScopeSet::parse(&claims.scope).map_err(|_| VerifyError::Invalid)?;
    let (subject, ceiling) = match claims.sub.split_once(':') {
        Some(("user", id)) => {
            let id = id.parse().map_err(|_| VerifyError::Invalid)?;
            let role: Role = claims
                .role
                .as_deref()
                .ok_or(VerifyError::Invalid)?
                .parse()
                .map_err(|_| VerifyError::Invalid)?;
            (Subject::User { id, role }, role.ceiling())
        }
        Some(("app", _)) => (Subject::App, ScopeSet::all()),
        _ => return Err(VerifyError::Invalid),
    };
    Ok(Principal {
        subject,
        user_name: claims.name,
        app_id: claims.app,
        client_id: claims.cid,
        account_id: claims.acc,
        seller_id: claims.sel,
        granted,
        scopes: granted.effective(ceiling),
        token_id: claims.jti,
        expires_at: Timestamp::from_secs(claims.exp),
    })
}
