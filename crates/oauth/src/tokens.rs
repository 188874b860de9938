//! Access tokens and personal access tokens: signed JWTs whose claims carry the principal,
//! each recorded by `jti` so that it can be revoked, renewed and listed.

use std::sync::Arc;

use domain::{Role, ScopeSet, Timestamp};
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Header, Validation};
use serde::{Deserialize, Serialize};

use crate::principal::{Principal, Subject};
use crate::secrets;
use crate::service::AuthService;

/// `typ` of personal access tokens.
pub const PERSONAL: &str = "pat";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct AccessClaims {
    pub iss: String,
    /// `user:{id}`, `app:{id}` or `customer:{id}`.
    pub sub: String,
    pub iat: i64,
    /// Absent only on personal tokens that never expire.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exp: Option<i64>,
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
    /// The refresh-token family or authorization code the token came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fam: Option<String>,
    /// `pat` on personal access tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub typ: Option<String>,
}

impl AccessClaims {
    pub fn is_personal(&self) -> bool {
        self.typ.as_deref() == Some(PERSONAL)
    }
}

/// Why a bearer token was refused: told to the client (RFC 6750's `error_description`),
/// so that an operator can see what is wrong without learning anything secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerifyError {
    Expired,
    Revoked,
    /// Signed by this service's key, but for another public URL.
    ForeignIssuer,
    /// Its key id names no key this service has (another service's, or retired).
    UnknownKey,
    BadSignature,
    Malformed,
}

impl VerifyError {
    /// The reason, in the service's own words.
    pub fn description(self) -> &'static str {
        match self {
            VerifyError::Expired => "the access token expired",
            VerifyError::Revoked => "the access token was revoked",
            VerifyError::ForeignIssuer => "the access token's issuer is not this server",
            VerifyError::UnknownKey => {
                "the access token was signed with a key this server does not have"
            }
            VerifyError::BadSignature => "the access token's signature does not verify",
            VerifyError::Malformed => "the access token is malformed",
        }
    }
}

impl std::fmt::Display for VerifyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.description())
    }
}

impl std::error::Error for VerifyError {}

/// Whom a new token is for and what it may do.
#[derive(Clone, Debug)]
pub struct TokenGrant {
    pub subject: Subject,
    pub user_name: Option<String>,
    pub app_id: i64,
    pub client_id: String,
    pub account_id: Option<i64>,
    pub seller_id: Option<i64>,
    pub scopes: ScopeSet,
    /// The refresh family or authorization code behind the token, if any.
    pub family_id: Option<String>,
}

/// A signed token and the claims it carries.
pub struct SignedToken {
    pub token: String,
    pub claims: AccessClaims,
}

impl AuthService {
    /// Signs an access token for `grant`, valid for the configured lifetime.
    pub fn sign_access_token(&self, grant: &TokenGrant, now: Timestamp) -> SignedToken {
        let ttl = i64::try_from(self.config.access_token_ttl.as_secs()).unwrap_or(i64::MAX);
        self.sign(grant, now, Some(now.as_secs().saturating_add(ttl)), None)
    }

    /// Signs a personal access token, expiring at `expires` or never.
    pub fn sign_personal_token(
        &self,
        grant: &TokenGrant,
        now: Timestamp,
        expires: Option<Timestamp>,
    ) -> SignedToken {
        self.sign(grant, now, expires.map(Timestamp::as_secs), Some(PERSONAL))
    }

    fn sign(
        &self,
        grant: &TokenGrant,
        now: Timestamp,
        exp: Option<i64>,
        typ: Option<&str>,
    ) -> SignedToken {
        let (sub, role) = match grant.subject {
            Subject::User { id, role } => (format!("user:{id}"), Some(role.as_str().to_owned())),
            Subject::App => (format!("app:{}", grant.app_id), None),
            Subject::Customer { id } => (format!("customer:{id}"), None),
        };
        let claims = AccessClaims {
            iss: self.config.issuer.clone(),
            sub,
            iat: now.as_secs(),
            exp,
            jti: secrets::random_token(16),
            cid: grant.client_id.clone(),
            app: grant.app_id,
            acc: grant.account_id,
            sel: grant.seller_id,
            scope: grant.scopes.to_string(),
            role,
            name: grant.user_name.clone(),
            fam: grant.family_id.clone(),
            typ: typ.map(str::to_owned),
        };
        let token = self.keys.with_signing_key(|kid, key| {
            let mut header = Header::new(Algorithm::HS256);
            header.kid = Some(kid.to_owned());
            jsonwebtoken::encode(&header, &claims, key)
                .expect("HS256 signing of serialisable claims succeeds")
        });
        SignedToken { token, claims }
    }

    /// Checks a token's signature, algorithm and issuer, but not its expiry or revocation.
    pub async fn decode_token(&self, token: &str) -> Result<AccessClaims, VerifyError> {
        let header = jsonwebtoken::decode_header(token).map_err(|_| VerifyError::Malformed)?;
        if header.alg != Algorithm::HS256 {
            return Err(VerifyError::BadSignature);
        }
        let kid = header.kid.ok_or(VerifyError::Malformed)?;
        let key = self
            .keys
            .verifying_key(&kid, self.clock.as_ref())
            .await
            .ok_or(VerifyError::UnknownKey)?;
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 0;
        validation.validate_aud = false;
        // Expiry is checked against our clock by the caller; personal tokens may lack one.
        validation.validate_exp = false;
        validation.set_issuer(&[&self.config.issuer]);
        validation.set_required_spec_claims(&["iss", "sub"]);
        let claims = jsonwebtoken::decode::<AccessClaims>(token, &key, &validation)
            .map_err(|err| match err.kind() {
                ErrorKind::InvalidSignature => VerifyError::BadSignature,
                ErrorKind::InvalidIssuer => VerifyError::ForeignIssuer,
                _ => VerifyError::Malformed,
            })?
            .claims;
        if claims.exp.is_none() && !claims.is_personal() {
            return Err(VerifyError::Malformed);
        }
        Ok(claims)
    }

    /// Verifies a bearer token completely and builds the principal. A token whose
    /// signature was checked before is not checked again; its expiry and revocation are,
    /// every time.
    pub async fn verify_access_token(&self, token: &str) -> Result<Arc<Principal>, VerifyError> {
        let principal = match self.verified.get(token) {
            Some(principal) => principal,
            None => {
                let principal = Arc::new(principal_from(self.decode_token(token).await?)?);
                self.verified.insert(token, principal.clone());
                principal
            }
        };
        if principal
            .expires_at
            .is_some_and(|exp| exp.as_secs() <= self.clock.now().as_secs())
        {
            return Err(VerifyError::Expired);
        }
        if self.revocations.contains(&principal.token_id) {
            return Err(VerifyError::Revoked);
        }
        if principal.personal {
            self.note_use(&principal.token_id);
        }
        Ok(principal)
    }
}

fn principal_from(claims: AccessClaims) -> Result<Principal, VerifyError> {
    let granted = ScopeSet::parse(&claims.scope).map_err(|_| VerifyError::Malformed)?;
    let subject = match claims.sub.split_once(':') {
        Some(("user", id)) => {
            let id = id.parse().map_err(|_| VerifyError::Malformed)?;
            let role: Role = claims
                .role
                .as_deref()
                .ok_or(VerifyError::Malformed)?
                .parse()
                .map_err(|_| VerifyError::Malformed)?;
            Subject::User { id, role }
        }
        Some(("app", _)) => Subject::App,
        // A customer belongs to one seller's data, which the token must name.
        Some(("customer", id)) if claims.acc.is_some() && claims.sel.is_some() => {
            Subject::Customer {
                id: id.parse().map_err(|_| VerifyError::Malformed)?,
            }
        }
        _ => return Err(VerifyError::Malformed),
    };
    let ceiling = subject.ceiling();
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
        expires_at: claims.exp.map(Timestamp::from_secs),
        personal: claims.typ.as_deref() == Some(PERSONAL),
    })
}
