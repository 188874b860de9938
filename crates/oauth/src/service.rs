//! The authorization service's shared state.

use std::sync::Arc;
use std::time::Duration;

use domain::Clock;
use storage::Database;

use crate::keys::KeyRing;

#[derive(Clone, Debug)]
pub struct AuthConfig {
    /// `iss` of every token: the public URL of the service.
    pub issuer: String,
    pub access_token_ttl: Duration,
}

pub struct AuthService {
    pub(crate) db: Database,
    pub(crate) keys: KeyRing,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) config: AuthConfig,
}

impl AuthService {
    /// Loads the signing keys (creating the first one in an empty database).
    pub async fn new(
        db: Database,
        config: AuthConfig,
        signing_secret: Option<Vec<u8>>,
        clock: Arc<dyn Clock>,
    ) -> storage::Result<Self> {
        let keys = KeyRing::load(db.clone(), signing_secret, clock.as_ref()).await?;
        Ok(Self {
            db,
            keys,
            clock,
            config,
        })
    }

    pub fn config(&self) -> &AuthConfig {
        &self.config
    }

    /// Picks up rotated and retired signing keys.
    pub async fn refresh_keys(&self) -> storage::Result<()> {
        self.keys.refresh(self.clock.as_ref()).await
    }
}
