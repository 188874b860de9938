//! The key ring that signs and verifies access tokens (HS256). Keys live in the database,
//! sealed with the encryption keys kept outside it, created at first start, so every node
//! shares them; or one key is configured, in which case the database is not consulted.
//! Tokens name their key with `kid`, so keys rotate without invalidating tokens signed by
//! an older, unretired key.

use std::collections::HashMap;
use std::sync::{Mutex, RwLock};
use std::time::{Duration, Instant};

use domain::Clock;
use jsonwebtoken::{DecodingKey, EncodingKey};
use storage::secret_box::{SecretBox, SecretBoxError};
use storage::{Database, signing_keys};

use crate::secrets;

struct Keys {
    signing_kid: String,
    signing: EncodingKey,
    verifying: HashMap<String, DecodingKey>,
}

pub struct KeyRing {
    keys: RwLock<Keys>,
    db: Database,
    secret_box: SecretBox,
    configured: bool,
    last_reload: Mutex<Option<Instant>>,
}

/// How often an unknown `kid` may trigger a reload (another node may have made a key).
const RELOAD_INTERVAL: Duration = Duration::from_secs(1);
const KEY_BYTES: usize = 64;

impl KeyRing {
    /// Loads the ring. With `configured`, that secret alone signs and verifies.
    pub async fn load(
        db: Database,
        secret_box: SecretBox,
        configured: Option<Vec<u8>>,
        clock: &dyn Clock,
    ) -> Result<Self, SecretBoxError> {
        let keys = match &configured {
            Some(secret) => {
                let kid = format!("cfg-{}", &hex::encode(secrets::sha256(secret))[..16]);
                Keys {
                    signing_kid: kid.clone(),
                    signing: EncodingKey::from_secret(secret),
                    verifying: HashMap::from([(kid, DecodingKey::from_secret(secret))]),
                }
            }
            None => Self::from_database(&db, &secret_box, clock).await?,
        };
        Ok(Self {
            keys: RwLock::new(keys),
            db,
            secret_box,
            configured: configured.is_some(),
            last_reload: Mutex::new(None),
        })
    }

    async fn from_database(
        db: &Database,
        secret_box: &SecretBox,
        clock: &dyn Clock,
    ) -> Result<Keys, SecretBoxError> {
        let mut stored = signing_keys::active(db).await?;
        if stored.is_empty() {
            create_key(db, secret_box, clock).await?;
            stored = signing_keys::active(db).await?;
        }
        let opened = stored
            .iter()
            .map(|k| Ok((k.kid.clone(), secret_box.open(&k.sealed_secret)?)))
            .collect::<Result<Vec<(String, Vec<u8>)>, SecretBoxError>>()?;
        let (signing_kid, newest) = opened
            .first()
            .ok_or_else(|| storage::Error::Corrupt("no signing key after creating one".into()))?;
        Ok(Keys {
            signing_kid: signing_kid.clone(),
            signing: EncodingKey::from_secret(newest),
            verifying: opened
                .iter()
                .map(|(kid, secret)| (kid.clone(), DecodingKey::from_secret(secret)))
                .collect(),
        })
    }

    /// Re-reads the keys from the database, so that a key made by `commerce keys rotate`
    /// starts signing and a retired one stops verifying. Configured keys never change.
    pub async fn refresh(&self, clock: &dyn Clock) -> Result<(), SecretBoxError> {
        if self.configured {
            return Ok(());
        }
        let fresh = Self::from_database(&self.db, &self.secret_box, clock).await?;
        *self.keys.write().expect("key ring lock is never poisoned") = fresh;
        Ok(())
    }

    /// The id and key that sign new tokens.
    pub(crate) fn with_signing_key<T>(&self, f: impl FnOnce(&str, &EncodingKey) -> T) -> T {
        let keys = self.keys.read().expect("key ring lock is never poisoned");
        f(&keys.signing_kid, &keys.signing)
    }

    /// The key named `kid`, reloading once per interval when it is unknown here.
    pub(crate) async fn verifying_key(&self, kid: &str, clock: &dyn Clock) -> Option<DecodingKey> {
        if let Some(key) = self.lookup(kid) {
            return Some(key);
        }
        if self.configured || !self.reload_due() {
            return None;
        }
        if let Err(err) = self.refresh(clock).await {
            tracing::warn!(error = %err, "could not reload signing keys");
        }
        self.lookup(kid)
    }

    fn lookup(&self, kid: &str) -> Option<DecodingKey> {
        self.keys
            .read()
            .expect("key ring lock is never poisoned")
            .verifying
            .get(kid)
            .cloned()
    }

    fn reload_due(&self) -> bool {
        let mut last = self
            .last_reload
            .lock()
            .expect("reload lock is never poisoned");
        if last.is_some_and(|at| at.elapsed() < RELOAD_INTERVAL) {
            return false;
        }
        *last = Some(Instant::now());
        true
    }
}

/// Makes a new signing key, sealed; being the newest, it signs from the next refresh on.
/// Returns its id (hex, so that it never reads as a command-line flag).
pub async fn create_key(
    db: &Database,
    secret_box: &SecretBox,
    clock: &dyn Clock,
) -> storage::Result<String> {
    let kid = hex::encode(secrets::random_bytes(12));
    let mut tx = db.begin().await?;
    signing_keys::insert(
        &mut tx,
        &kid,
        &secret_box.seal(&secrets::random_bytes(KEY_BYTES)),
        clock.now(),
    )
    .await?;
    tx.commit().await?;
    Ok(kid)
}

#[derive(Debug, thiserror::Error)]
pub enum RetireError {
    #[error("no active signing key has the id {0}")]
    Unknown(String),
    #[error("{0} is the only active signing key; rotate first")]
    LastKey(String),
    #[error(transparent)]
    Storage(#[from] storage::Error),
}

/// Retires a key: tokens it signed stop verifying once nodes refresh. The last active
/// key cannot be retired (nothing would sign).
pub async fn retire_key(db: &Database, kid: &str, clock: &dyn Clock) -> Result<(), RetireError> {
    let active = signing_keys::active(db).await?;
    if !active.iter().any(|k| k.kid == kid) {
        return Err(RetireError::Unknown(kid.to_owned()));
    }
    if active.len() == 1 {
        return Err(RetireError::LastKey(kid.to_owned()));
    }
    let mut tx = db.begin().await?;
    signing_keys::retire(&mut tx, kid, clock.now()).await?;
    tx.commit().await?;
    Ok(())
}
