//! Issuing tokens: one path, shared by every grant, that signs the access token, records
//! it, and adds a refresh token of the same family where the grant calls for one.

use domain::{ScopeSet, Timestamp};
use schemars::JsonSchema;
use serde::Serialize;
use storage::refresh_tokens::{self, NewRefreshToken};
use storage::tokens::{self, NewAccessToken, TokenKind};
use storage::{Tx, users};

use crate::grant::GrantType;
use crate::principal::Subject;
use crate::secrets;
use crate::service::AuthService;
use crate::tokens::TokenGrant;

/// The token response of RFC 6749 section 5.1.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TokenAnswer {
    pub access_token: String,
    #[schemars(extend("const" = "bearer"))]
    pub token_type: &'static str,
    /// Seconds the access token lives.
    pub expires_in: u64,
    /// The granted scopes, comma-separated.
    pub scope: String,
    /// On grants to a user that may be refreshed.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub refresh_token: Option<String>,
}

/// A new refresh-token family (or authorization-code id) for the tokens of one grant.
pub fn new_family_id() -> String {
    secrets::random_token(16)
}

impl AuthService {
    /// Signs and records an access token for `grant`; with `refresh_scopes`, also a
    /// refresh token of the grant's family carrying those scopes (user grants only).
    pub(crate) async fn issue(
        &self,
        tx: &mut Tx,
        grant: &TokenGrant,
        grant_type: GrantType,
        refresh_scopes: Option<ScopeSet>,
        now: Timestamp,
    ) -> storage::Result<TokenAnswer> {
        self.issue_in_chain(tx, grant, grant_type, refresh_scopes, None, now)
            .await
    }

    /// Signs and records the access token that renews the newest one of the renewal
    /// chain `chain` (the JWT bearer grant), continuing the chain.
    pub(crate) async fn issue_renewal(
        &self,
        tx: &mut Tx,
        grant: &TokenGrant,
        chain: &str,
        now: Timestamp,
    ) -> storage::Result<TokenAnswer> {
        self.issue_in_chain(tx, grant, GrantType::JwtBearer, None, Some(chain), now)
            .await
    }

    async fn issue_in_chain(
        &self,
        tx: &mut Tx,
        grant: &TokenGrant,
        grant_type: GrantType,
        refresh_scopes: Option<ScopeSet>,
        chain: Option<&str>,
        now: Timestamp,
    ) -> storage::Result<TokenAnswer> {
        let signed = self.sign_access_token(grant, now);
        let user_id = match grant.subject {
            Subject::User { id, .. } => Some(id),
            Subject::App | Subject::Customer { .. } => None,
        };
        tokens::insert(
            tx,
            &NewAccessToken {
                jti: &signed.claims.jti,
                kind: TokenKind::Access,
                app_id: grant.app_id,
                user_id,
                customer_id: None,
                account_id: grant.account_id,
                seller_id: grant.seller_id,
                grant_type: grant_type.as_str(),
                scopes: &signed.claims.scope,
                expires_on: signed.claims.exp.map(Timestamp::from_secs),
                family_id: grant.family_id.as_deref(),
                chain_id: chain,
                name: None,
                token_digest: None,
            },
            now,
        )
        .await?;
        let refresh_token = match (refresh_scopes, user_id, grant.account_id, &grant.family_id) {
            (Some(refresh_scopes), Some(user_id), Some(account_id), Some(family_id)) => {
                let raw = secrets::random_token(32);
                let ttl =
                    i64::try_from(self.config.refresh_token_ttl.as_secs()).unwrap_or(i64::MAX);
                refresh_tokens::insert(
                    tx,
                    &NewRefreshToken {
                        digest: &secrets::sha256(raw.as_bytes()),
                        family_id,
                        app_id: grant.app_id,
                        user_id,
                        account_id,
                        seller_id: grant.seller_id,
                        scopes: &refresh_scopes.to_string(),
                        expires_on: now.plus_secs(ttl),
                    },
                    now,
                )
                .await?;
                Some(raw)
            }
            _ => None,
        };
        if let Some(user_id) = user_id {
            users::record_login(tx, user_id, now).await?;
        }
        Ok(TokenAnswer {
            access_token: signed.token,
            token_type: "bearer",
            expires_in: self.config.access_token_ttl.as_secs(),
            scope: signed.claims.scope,
            refresh_token,
        })
    }

    /// Revokes every token of a refresh family or authorization code. The caller commits,
    /// then hands the result to [`AuthService::revoked`].
    pub(crate) async fn revoke_family(
        &self,
        tx: &mut Tx,
        family_id: &str,
        now: Timestamp,
    ) -> storage::Result<Vec<tokens::Revoked>> {
        refresh_tokens::revoke_family(tx, family_id, now).await?;
        tokens::revoke_family(tx, family_id, now).await
    }

    /// Makes committed revocations effective on this node at once (others follow within
    /// their refresh interval).
    pub fn revoked(&self, revoked: Vec<tokens::Revoked>) {
        self.revocations.insert(revoked);
    }
}
