//! The authorization service's shared state and settings.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use domain::{Clock, Timestamp};
use storage::Database;

use crate::keys::KeyRing;
use crate::revocation::RevocationList;
use crate::secret_box::{SecretBox, SecretBoxError};
use crate::verified_tokens::VerifiedTokens;

/// How many failed sign-ins, within which window, lock a user name or an address.
#[derive(Clone, Debug)]
pub struct SignInThrottle {
    pub failures_per_user: i64,
    pub failures_per_address: i64,
    pub window: Duration,
    /// The first lock; each further failure doubles it, up to an hour.
    pub lock: Duration,
}

impl Default for SignInThrottle {
    fn default() -> Self {
        Self {
            failures_per_user: 5,
            failures_per_address: 20,
            window: Duration::from_secs(15 * 60),
            lock: Duration::from_secs(30),
        }
    }
}

#[derive(Clone, Debug)]
pub struct AuthConfig {
    /// `iss` of every token: the public URL of the service.
    pub issuer: String,
    pub access_token_ttl: Duration,
    pub refresh_token_ttl: Duration,
    pub authorization_code_ttl: Duration,
    /// How long after its expiry an access token may still be renewed by the JWT bearer grant.
    pub jwt_bearer_max_age: Duration,
    pub sign_in_throttle: SignInThrottle,
}

impl AuthConfig {
    /// The documented defaults for everything but the issuer and access-token lifetime.
    pub fn new(issuer: String, access_token_ttl: Duration) -> Self {
        Self {
            issuer,
            access_token_ttl,
            refresh_token_ttl: Duration::from_secs(30 * 86_400),
            authorization_code_ttl: Duration::from_secs(5 * 60),
            jwt_bearer_max_age: Duration::from_secs(7 * 86_400),
            sign_in_throttle: SignInThrottle::default(),
        }
    }
}

pub struct AuthService {
    pub(crate) db: Database,
    pub(crate) keys: KeyRing,
    pub(crate) secret_box: SecretBox,
    pub(crate) revocations: RevocationList,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) config: AuthConfig,
    /// Personal-token uses not yet written out: token id → last use.
    pub(crate) token_use: Mutex<HashMap<String, Timestamp>>,
    pub(crate) verified: VerifiedTokens,
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Storage(#[from] storage::Error),
    #[error(transparent)]
    SecretBox(#[from] SecretBoxError),
}

impl AuthService {
    /// Loads the signing keys (creating the first one in an empty database) with the box
    /// that seals them, and the list of revoked tokens.
    pub async fn new(
        db: Database,
        config: AuthConfig,
        signing_secret: Option<Vec<u8>>,
        secret_box: SecretBox,
        clock: Arc<dyn Clock>,
    ) -> Result<Self, StartError> {
        let keys = KeyRing::load(
            db.clone(),
            secret_box.clone(),
            signing_secret,
            clock.as_ref(),
        )
        .await?;
        let revocations = RevocationList::load(&db, clock.now()).await?;
        Ok(Self {
            db,
            keys,
            secret_box,
            revocations,
            clock,
            config,
            token_use: Mutex::new(HashMap::new()),
            verified: VerifiedTokens::default(),
        })
    }

    pub fn config(&self) -> &AuthConfig {
        &self.config
    }

    pub fn database(&self) -> &Database {
        &self.db
    }

    pub fn secret_box(&self) -> &SecretBox {
        &self.secret_box
    }

    /// Picks up rotated and retired signing keys.
    pub async fn refresh_keys(&self) -> Result<(), SecretBoxError> {
        self.keys.refresh(self.clock.as_ref()).await?;
        self.verified.clear();
        Ok(())
    }

    /// Picks up tokens revoked on other nodes.
    pub async fn refresh_revocations(&self) -> storage::Result<()> {
        self.revocations.refresh(&self.db, self.clock.now()).await
    }
}
