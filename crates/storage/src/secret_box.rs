//! Encryption at rest for secrets the service must read back (client secrets sign JWT
//! bearer assertions; webhook secrets sign deliveries): AES-256-GCM with a deployment
//! key, a fresh nonce per value.

use crate::secrets;
use crate::{Database, settings};
use aes_gcm::aead::{Aead, KeyInit};
use aes_gcm::{Aes256Gcm, Key, Nonce};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;

const NONCE_BYTES: usize = 12;
const KEY_BYTES: usize = 32;
const SETTING: &str = "secret_box_key";

/// Seals and opens secrets with one key.
#[derive(Clone)]
pub struct SecretBox {
    cipher: Aes256Gcm,
}

impl std::fmt::Debug for SecretBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretBox(..)")
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SecretBoxError {
    #[error("the encryption key must be 32 bytes, base64-encoded")]
    BadKey,
    #[error("a sealed secret does not open with this key (was the encryption key changed?)")]
    Unreadable,
    #[error(transparent)]
    Storage(#[from] crate::Error),
}

impl SecretBox {
    pub fn new(key: &[u8]) -> Result<Self, SecretBoxError> {
        if key.len() != KEY_BYTES {
            return Err(SecretBoxError::BadKey);
        }
        Ok(Self {
            cipher: Aes256Gcm::new(
                &Key::<Aes256Gcm>::try_from(key).map_err(|_| SecretBoxError::BadKey)?,
            ),
        })
    }

    /// The configured key (base64), or else the one kept in the database, made on first
    /// use. The database key keeps every node able to read every secret without set-up,
    /// but a configured key keeps database dumps from revealing client secrets.
    pub async fn load(db: &Database, configured: Option<&str>) -> Result<Self, SecretBoxError> {
        let key = match configured {
            Some(encoded) => STANDARD
                .decode(encoded.trim())
                .map_err(|_| SecretBoxError::BadKey)?,
            None => settings::get_or_insert(db, SETTING, &secrets::random_bytes(KEY_BYTES)).await?,
        };
        Self::new(&key)
    }

    /// `nonce || ciphertext`.
    pub fn seal(&self, plaintext: &[u8]) -> Vec<u8> {
        let nonce_bytes = secrets::random_bytes(NONCE_BYTES);
        let nonce = Nonce::try_from(nonce_bytes.as_slice()).expect("twelve bytes make a nonce");
        let sealed = self
            .cipher
            .encrypt(&nonce, plaintext)
            .expect("AES-GCM encrypts any plaintext of sane size");
        [nonce_bytes, sealed].concat()
    }

    pub fn open(&self, sealed: &[u8]) -> Result<Vec<u8>, SecretBoxError> {
        if sealed.len() < NONCE_BYTES {
            return Err(SecretBoxError::Unreadable);
        }
        let (nonce, ciphertext) = sealed.split_at(NONCE_BYTES);
        let nonce = Nonce::try_from(nonce).map_err(|_| SecretBoxError::Unreadable)?;
        self.cipher
            .decrypt(&nonce, ciphertext)
            .map_err(|_| SecretBoxError::Unreadable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seals_and_opens_and_detects_tampering() {
        let sealed_box = SecretBox::new(&[7u8; 32]).unwrap();
        let sealed = sealed_box.seal(b"client secret");
        assert_ne!(&sealed[NONCE_BYTES..], b"client secret");
        assert_ne!(
            sealed,
            sealed_box.seal(b"client secret"),
            "a fresh nonce each time"
        );
        assert_eq!(sealed_box.open(&sealed).unwrap(), b"client secret");
        let mut tampered = sealed.clone();
        *tampered.last_mut().unwrap() ^= 1;
        assert!(sealed_box.open(&tampered).is_err());
        assert!(SecretBox::new(&[7u8; 32]).unwrap().open(&sealed).is_ok());
        assert!(SecretBox::new(&[8u8; 32]).unwrap().open(&sealed).is_err());
        assert!(SecretBox::new(&[0u8; 16]).is_err());
    }
}
