//! Personal access tokens: long-lived bearer JWTs a user makes for scripts, with a name,
//! an expiry of 30 days, 90 days, a year or never, and scopes the user's role allows. The
//! raw token is shown once; the database keeps its digest. They belong to a system app
//! the service makes for itself.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use domain::{FieldErrors, ScopeSet, Timestamp};
use storage::UniqueIndex;
use storage::apps::{self, App, NewApp};
use storage::tokens::{self, AccessToken, NewAccessToken, TokenKind};
use storage::users::User;

use crate::principal::Subject;
use crate::secrets;
use crate::service::AuthService;
use crate::tokens::TokenGrant;

const SYSTEM_ROLE: &str = "personal_access_tokens";
const NAME_MAX: usize = 100;

/// How long a personal token lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expiry {
    Days30,
    Days90,
    Year,
    Never,
}

impl Expiry {
    pub const ALL: [Expiry; 4] = [Expiry::Days30, Expiry::Days90, Expiry::Year, Expiry::Never];

    pub fn as_str(self) -> &'static str {
        match self {
            Expiry::Days30 => "30d",
            Expiry::Days90 => "90d",
            Expiry::Year => "1y",
            Expiry::Never => "never",
        }
    }

    fn days(self) -> Option<i64> {
        match self {
            Expiry::Days30 => Some(30),
            Expiry::Days90 => Some(90),
            Expiry::Year => Some(365),
            Expiry::Never => None,
        }
    }
}

impl fmt::Display for Expiry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Expiry {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Expiry::ALL
            .into_iter()
            .find(|e| e.as_str() == s)
            .ok_or_else(|| "must be one of 30d, 90d, 1y, never".to_owned())
    }
}

/// What a user asks for.
pub struct PersonalTokenRequest<'a> {
    pub name: &'a str,
    /// `30d`, `90d`, `1y` or `never`.
    pub expiry: &'a str,
    /// Comma- or space-separated.
    pub scopes: &'a str,
    /// The most the new token may hold besides the role's limit (the scopes of the token
    /// making the request, when a script makes it).
    pub ceiling: Option<ScopeSet>,
}

/// A new personal token: the raw value (shown this once) and its record.
pub struct CreatedToken {
    pub token: String,
    pub record: AccessToken,
}

impl AuthService {
    /// The system app personal tokens belong to, made on first use.
    async fn personal_tokens_app(&self) -> storage::Result<App> {
        if let Some(app) = apps::find_system(&self.db, SYSTEM_ROLE).await? {
            return Ok(app);
        }
        let mut tx = self.db.begin().await?;
        let inserted = apps::insert(
            &mut tx,
            &NewApp {
                account_id: None,
                name: "Personal access tokens",
                client_id: &secrets::random_token(18),
                // Nobody knows a secret with this digest: the app cannot authenticate.
                client_secret_digest: &secrets::sha256(&secrets::random_bytes(32)),
                redirect_uris: &[],
                grants: &[],
                scopes: "admin",
                trusted: false,
                public: false,
                client_secret_ciphertext: None,
                system_role: Some(SYSTEM_ROLE),
            },
            self.clock.now(),
        )
        .await;
        match inserted {
            Ok(app) => {
                tx.commit().await?;
                Ok(app)
            }
            // Another node made it first.
            Err(err) if err.violated_index() == Some(UniqueIndex::OauthAppsSystemRole) => {
                drop(tx);
                apps::find_system(&self.db, SYSTEM_ROLE)
                    .await?
                    .ok_or_else(|| {
                        storage::Error::Corrupt("the personal token app vanished".into())
                    })
            }
            Err(err) => Err(err),
        }
    }

    /// Makes a personal token for `user`, or says what is wrong with the request.
    pub async fn create_personal_token(
        &self,
        user: &User,
        request: &PersonalTokenRequest<'_>,
    ) -> Result<Result<CreatedToken, FieldErrors>, storage::Error> {
        let mut errors = FieldErrors::new();
        errors.check("name", domain::validation::text(request.name, NAME_MAX));
        let expiry = request
            .expiry
            .parse::<Expiry>()
            .map_err(|m| errors.add("expires", m))
            .ok();
        let scopes = ScopeSet::parse(request.scopes).unwrap_or_else(|e| {
            errors.add("scopes", e.to_string());
            ScopeSet::EMPTY
        });
        if scopes.is_empty() {
            if !errors.has("scopes") {
                errors.add("scopes", "must name at least one scope");
            }
        } else if !scopes.is_subset_of(user.role.ceiling()) {
            errors.add(
                "scopes",
                format!("must be within what the {} role allows", user.role),
            );
        } else if request
            .ceiling
            .is_some_and(|ceiling| !scopes.within(ceiling))
        {
            errors.add(
                "scopes",
                "must be within the scopes of the token making the request",
            );
        }
        let Some(expiry) = expiry.filter(|_| errors.is_empty()) else {
            return Ok(Err(errors));
        };
        let app = self.personal_tokens_app().await?;
        let now = self.clock.now();
        let expires = expiry.days().map(|d| now.plus_secs(d * 86_400));
        let grant = TokenGrant {
            subject: Subject::User {
                id: user.id,
                role: user.role,
            },
            user_name: Some(user.name.clone()),
            app_id: app.id,
            client_id: app.client_id.clone(),
            account_id: Some(user.account_id),
            seller_id: None,
            scopes,
            family_id: None,
        };
        let signed = self.sign_personal_token(&grant, now, expires);
        let mut tx = self.db.begin().await?;
        tokens::insert(
            &mut tx,
            &NewAccessToken {
                jti: &signed.claims.jti,
                kind: TokenKind::Personal,
                app_id: app.id,
                user_id: Some(user.id),
                customer_id: None,
                account_id: Some(user.account_id),
                seller_id: None,
                grant_type: "personal_access_token",
                scopes: &signed.claims.scope,
                expires_on: expires.map(|t| t.truncated_to_secs()),
                family_id: None,
                chain_id: None,
                name: Some(request.name.trim()),
                token_digest: Some(&secrets::sha256(signed.token.as_bytes())),
            },
            now,
        )
        .await?;
        tx.commit().await?;
        let record = tokens::find_by_jti(&self.db, &signed.claims.jti)
            .await?
            .ok_or_else(|| storage::Error::Corrupt("a new personal token vanished".into()))?;
        Ok(Ok(CreatedToken {
            token: signed.token,
            record,
        }))
    }

    /// A user's personal tokens, newest first, with when each was last used.
    pub async fn personal_tokens(&self, user_id: i64) -> storage::Result<Vec<AccessToken>> {
        self.flush_token_use().await?;
        tokens::personal_of_user(&self.db, user_id).await
    }

    /// Revokes one of a user's personal tokens, effective at once here; false when the
    /// user has no live token with that id.
    pub async fn revoke_personal_token(&self, user_id: i64, id: i64) -> storage::Result<bool> {
        let Some(token) = tokens::personal_of_user(&self.db, user_id)
            .await?
            .into_iter()
            .find(|t| t.id == id && t.revoked_on.is_none())
        else {
            return Ok(false);
        };
        let mut tx = self.db.begin().await?;
        let revoked = tokens::revoke(&mut tx, &token.jti, self.clock.now()).await?;
        tx.commit().await?;
        let found = revoked.is_some();
        self.revoked(revoked.into_iter().collect());
        Ok(found)
    }

    /// Notes that a personal token was used now (written out in batches).
    pub(crate) fn note_use(&self, jti: &str) {
        let now = self.clock.now();
        self.token_use
            .lock()
            .expect("token use lock is never poisoned")
            .insert(jti.to_owned(), now);
    }

    /// Writes out the uses noted since the last flush.
    pub async fn flush_token_use(&self) -> storage::Result<()> {
        let pending: HashMap<String, Timestamp> = std::mem::take(
            &mut *self
                .token_use
                .lock()
                .expect("token use lock is never poisoned"),
        );
        let uses: Vec<(String, Timestamp)> = pending.into_iter().collect();
        tokens::record_use(&self.db, &uses).await
    }
}
