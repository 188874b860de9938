//! Random secrets, their digests and constant-time comparison.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// `bytes` random bytes from the operating system.
pub fn random_bytes(bytes: usize) -> Vec<u8> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).expect("the operating system's random source is available");
    buf
}

/// A URL-safe random string carrying `bytes` bytes of entropy.
pub fn random_token(bytes: usize) -> String {
    URL_SAFE_NO_PAD.encode(random_bytes(bytes))
}

pub fn sha256(data: &[u8]) -> [u8; 32] {
    Sha256::digest(data).into()
}

/// Equality whose duration does not depend on where the inputs differ.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.ct_eq(b).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_and_url_safe() {
        let a = random_token(32);
        assert_eq!(a.len(), 43);
        assert_ne!(a, random_token(32));
        assert!(
            a.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        );
    }

    #[test]
    fn compares_digests() {
        assert!(constant_time_eq(&sha256(b"x"), &sha256(b"x")));
        assert!(!constant_time_eq(&sha256(b"x"), &sha256(b"y")));
        assert!(!constant_time_eq(b"ab", b"abc"));
    }
}
