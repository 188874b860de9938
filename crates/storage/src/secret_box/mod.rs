//! Encryption at rest for the secrets the service must read back — token signing keys,
//! client secrets (they verify JWT bearer assertions), webhook secrets and passwords,
//! kept answers that may hold a secret shown once, and the bodies of mail not yet sent
//! (they may hold one-time tokens) — with AES-256-GCM under keys that live outside the
//! database, so that a copy of the database reveals none of them.
//!
//! A sealed value is `version (1 byte) || key id (8) || nonce (12) || ciphertext`. A box
//! holds one or more keys: the first seals, every one opens, so that keys rotate without
//! stopping the service (`commerce keys`). The key id, a digest of the key, names the key
//! that opens a value without revealing anything of it.

mod key_source;

use std::fmt;
use std::sync::{Arc, RwLock};

use aes_gcm::aead::{Aead, KeyInit};
use aes_gcm::{Aes256Gcm, Key, Nonce};
use sha2::{Digest, Sha256};

pub use key_source::{KEY_BYTES, KeySource, encode_key, generate_key, parse_keys, write_key_file};

use crate::{Database, sealed_secrets, secrets};

const VERSION: u8 = 1;
const ID_BYTES: usize = 8;
const NONCE_BYTES: usize = 12;
const HEADER_BYTES: usize = 1 + ID_BYTES;

/// Names a key: the first bytes of a digest of it (a digest of 256 random bits reveals
/// nothing of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KeyId([u8; ID_BYTES]);

impl KeyId {
    pub fn of(key: &[u8; KEY_BYTES]) -> Self {
        let digest = Sha256::new()
            .chain_update(b"commerce secret box key id\n")
            .chain_update(key)
            .finalize();
        let mut id = [0u8; ID_BYTES];
        id.copy_from_slice(&digest[..ID_BYTES]);
        Self(id)
    }

    /// The id of the key that sealed `sealed`, if it is a sealed value at all.
    pub fn of_sealed(sealed: &[u8]) -> Option<Self> {
        match sealed {
            [VERSION, rest @ ..] if rest.len() >= ID_BYTES + NONCE_BYTES => {
                let mut id = [0u8; ID_BYTES];
                id.copy_from_slice(&rest[..ID_BYTES]);
                Some(Self(id))
            }
            _ => None,
        }
    }
}

impl fmt::Display for KeyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

#[derive(Clone)]
struct SealingKey {
    id: KeyId,
    cipher: Aes256Gcm,
}

impl SealingKey {
    fn new(key: &[u8; KEY_BYTES]) -> Self {
        Self {
            id: KeyId::of(key),
            cipher: cipher(key),
        }
    }
}

/// The keys in use, the sealing one first.
struct Keyring(Vec<SealingKey>);

/// Seals and opens secrets. Cheap to clone; clones share their keys, so a reload of a key
/// file reaches every part of the service at once.
#[derive(Clone)]
pub struct SecretBox {
    ring: Arc<RwLock<Arc<Keyring>>>,
    source: Arc<KeySource>,
}

impl fmt::Debug for SecretBox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecretBox")
            .field("keys", &self.key_ids())
            .finish_non_exhaustive()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SecretBoxError {
    #[error("{0}")]
    BadKey(String),
    #[error("a sealed secret does not open with the encryption keys in use")]
    Unreadable,
    #[error(
        "{count} secret(s) in the database are sealed with encryption keys this process does \
         not have (key ids {ids}): give it the keys they were sealed with ({keys})"
    )]
    UnknownKeys {
        count: u64,
        ids: String,
        keys: String,
    },
    #[error(
        "the key file {0} is missing, but the database holds secrets sealed with the key it \
         held: restore the file (a new key would not open them)"
    )]
    MissingKeyFile(String),
    #[error("{0}")]
    KeyFile(String),
    #[error(transparent)]
    Storage(#[from] crate::Error),
}

impl SecretBox {
    /// A box of these keys, the first sealing, with nowhere to reload them from.
    pub fn new(keys: &[[u8; KEY_BYTES]]) -> Result<Self, SecretBoxError> {
        Self::with_source(keys, KeySource::Ephemeral)
    }

    fn with_source(keys: &[[u8; KEY_BYTES]], source: KeySource) -> Result<Self, SecretBoxError> {
        Ok(Self {
            ring: Arc::new(RwLock::new(Arc::new(keyring(keys)?))),
            source: Arc::new(source),
        })
    }

    /// The box for `db`: its keys from `source` (a key file is made, owner-only, when it
    /// does not exist and nothing in the database is sealed yet); secrets an earlier
    /// version kept raw or under a key stored in the database sealed anew; and a check
    /// that every sealed secret has its key here, so that a wrong key stops the start
    /// rather than the first request that needs a secret.
    pub async fn open_for(db: &Database, source: KeySource) -> Result<Self, SecretBoxError> {
        let keys = match source.read().await? {
            Some(keys) => keys,
            None => {
                if sealed_secrets::is_current(db).await?
                    && !sealed_secrets::key_ids_in_use(db).await?.is_empty()
                {
                    return Err(SecretBoxError::MissingKeyFile(source.to_string()));
                }
                source.create().await?
            }
        };
        let secret_box = Self::with_source(&keys, source)?;
        sealed_secrets::upgrade(db, &secret_box, &keys).await?;
        secret_box.check_opens_everything(db).await?;
        Ok(secret_box)
    }

    /// Refuses to go on when some sealed secret names a key this box lacks.
    pub async fn check_opens_everything(&self, db: &Database) -> Result<(), SecretBoxError> {
        let known = self.key_ids();
        let unknown: Vec<(Option<KeyId>, u64)> = sealed_secrets::key_ids_in_use(db)
            .await?
            .into_iter()
            .filter(|(id, _)| !id.is_some_and(|id| known.contains(&id)))
            .collect();
        if unknown.is_empty() {
            return Ok(());
        }
        Err(SecretBoxError::UnknownKeys {
            count: unknown.iter().map(|(_, n)| n).sum(),
            ids: unknown
                .iter()
                .map(|(id, _)| id.map_or_else(|| "none".to_owned(), |id| id.to_string()))
                .collect::<Vec<_>>()
                .join(", "),
            keys: self.source.to_string(),
        })
    }

    /// Where the keys come from, for messages.
    pub fn source(&self) -> &KeySource {
        &self.source
    }

    /// Re-reads a key file, so that a rotation reaches a running server: whether the keys
    /// changed. Configured keys never change while the process runs.
    pub async fn reload(&self) -> Result<bool, SecretBoxError> {
        let Some(keys) = self.source.read().await? else {
            return Ok(false);
        };
        let fresh = keyring(&keys)?;
        let ids: Vec<KeyId> = fresh.0.iter().map(|k| k.id).collect();
        if ids == self.key_ids() {
            return Ok(false);
        }
        *self
            .ring
            .write()
            .expect("the key ring lock is never poisoned") = Arc::new(fresh);
        Ok(true)
    }

    fn ring(&self) -> Arc<Keyring> {
        self.ring
            .read()
            .expect("the key ring lock is never poisoned")
            .clone()
    }

    /// The ids of the keys, the sealing one first.
    pub fn key_ids(&self) -> Vec<KeyId> {
        self.ring().0.iter().map(|k| k.id).collect()
    }

    /// The id of the key that seals.
    pub fn sealing_key_id(&self) -> KeyId {
        self.ring().0[0].id
    }

    pub fn seal(&self, plaintext: &[u8]) -> Vec<u8> {
        let ring = self.ring();
        let key = &ring.0[0];
        let nonce = secrets::random_bytes(NONCE_BYTES);
        let ciphertext = key
            .cipher
            .encrypt(&nonce_of(&nonce).expect("twelve bytes"), plaintext)
            .expect("AES-GCM encrypts any plaintext of sane size");
        let mut sealed = Vec::with_capacity(HEADER_BYTES + NONCE_BYTES + ciphertext.len());
        sealed.push(VERSION);
        sealed.extend_from_slice(&key.id.0);
        sealed.extend_from_slice(&nonce);
        sealed.extend_from_slice(&ciphertext);
        sealed
    }

    pub fn open(&self, sealed: &[u8]) -> Result<Vec<u8>, SecretBoxError> {
        let id = KeyId::of_sealed(sealed).ok_or(SecretBoxError::Unreadable)?;
        let ring = self.ring();
        let key = ring
            .0
            .iter()
            .find(|k| k.id == id)
            .ok_or(SecretBoxError::Unreadable)?;
        let (nonce, ciphertext) = sealed[HEADER_BYTES..].split_at(NONCE_BYTES);
        let nonce = nonce_of(nonce).ok_or(SecretBoxError::Unreadable)?;
        key.cipher
            .decrypt(&nonce, ciphertext)
            .map_err(|_| SecretBoxError::Unreadable)
    }
}

fn cipher(key: &[u8; KEY_BYTES]) -> Aes256Gcm {
    Aes256Gcm::new(&Key::<Aes256Gcm>::from(*key))
}

fn nonce_of(bytes: &[u8]) -> Option<Nonce<aes_gcm::aead::consts::U12>> {
    Nonce::try_from(bytes).ok()
}

fn keyring(keys: &[[u8; KEY_BYTES]]) -> Result<Keyring, SecretBoxError> {
    if keys.is_empty() {
        return Err(SecretBoxError::BadKey(
            "at least one encryption key is needed".into(),
        ));
    }
    let ring: Vec<SealingKey> = keys.iter().map(SealingKey::new).collect();
    for (i, key) in ring.iter().enumerate() {
        if ring[..i].iter().any(|k| k.id == key.id) {
            return Err(SecretBoxError::BadKey(format!(
                "the encryption key {} is given twice",
                key.id
            )));
        }
    }
    Ok(Keyring(ring))
}

/// How an earlier version sealed secrets: `nonce || ciphertext` under one key, with no
/// header. Only the upgrade to the current format reads it.
pub(crate) fn open_legacy(key: &[u8], sealed: &[u8]) -> Option<Vec<u8>> {
    let key: &[u8; KEY_BYTES] = key.try_into().ok()?;
    if sealed.len() < NONCE_BYTES {
        return None;
    }
    let (nonce, ciphertext) = sealed.split_at(NONCE_BYTES);
    cipher(key).decrypt(&nonce_of(nonce)?, ciphertext).ok()
}

#[cfg(test)]
pub(crate) fn seal_legacy(key: &[u8; KEY_BYTES], plaintext: &[u8]) -> Vec<u8> {
    let nonce = secrets::random_bytes(NONCE_BYTES);
    let ciphertext = cipher(key)
        .encrypt(&nonce_of(&nonce).unwrap(), plaintext)
        .unwrap();
    [nonce, ciphertext].concat()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seals_and_opens_and_detects_tampering() {
        let sealed_box = SecretBox::new(&[[7u8; 32]]).unwrap();
        let sealed = sealed_box.seal(b"client secret");
        assert!(
            !sealed
                .windows(b"client secret".len())
                .any(|w| w == b"client secret")
        );
        assert_ne!(
            sealed,
            sealed_box.seal(b"client secret"),
            "a fresh nonce each time"
        );
        assert_eq!(sealed_box.open(&sealed).unwrap(), b"client secret");
        let mut tampered = sealed.clone();
        *tampered.last_mut().unwrap() ^= 1;
        assert!(sealed_box.open(&tampered).is_err());
        assert!(sealed_box.open(&sealed[..HEADER_BYTES + 3]).is_err());
        assert!(sealed_box.open(b"").is_err());
        assert!(SecretBox::new(&[[7u8; 32]]).unwrap().open(&sealed).is_ok());
        assert!(SecretBox::new(&[[8u8; 32]]).unwrap().open(&sealed).is_err());
        assert!(SecretBox::new(&[]).is_err());
        assert!(SecretBox::new(&[[1u8; 32], [1u8; 32]]).is_err());
    }

    #[test]
    fn the_first_key_seals_and_every_key_opens() {
        let (old, new) = ([1u8; 32], [2u8; 32]);
        let before = SecretBox::new(&[old]).unwrap().seal(b"s");
        let rotated = SecretBox::new(&[new, old]).unwrap();
        assert_eq!(rotated.open(&before).unwrap(), b"s");
        let after = rotated.seal(b"s");
        assert_eq!(KeyId::of_sealed(&after), Some(KeyId::of(&new)));
        assert_eq!(KeyId::of_sealed(&before), Some(KeyId::of(&old)));
        assert!(SecretBox::new(&[old]).unwrap().open(&after).is_err());
        assert_eq!(rotated.key_ids(), vec![KeyId::of(&new), KeyId::of(&old)]);
        assert_eq!(rotated.sealing_key_id(), KeyId::of(&new));
    }

    #[test]
    fn key_ids_reveal_nothing_of_the_key_and_are_stable() {
        let key = [9u8; 32];
        let id = KeyId::of(&key).to_string();
        assert_eq!(id.len(), 16);
        assert_eq!(id, KeyId::of(&key).to_string());
        assert!(!id.contains(&hex_of(&key[..4])));
    }

    #[test]
    fn opens_the_earlier_format_only_through_the_upgrade() {
        let key = [3u8; 32];
        let legacy = seal_legacy(&key, b"old secret");
        assert_eq!(open_legacy(&key, &legacy).unwrap(), b"old secret");
        assert!(open_legacy(&[4u8; 32], &legacy).is_none());
        assert!(SecretBox::new(&[key]).unwrap().open(&legacy).is_err());
    }

    fn hex_of(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }
}
