//! User passwords: argon2id hashes, computed on the blocking pool so that hashing never
//! stalls the async workers.

use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use std::sync::LazyLock;

/// Compared against when the user does not exist, so both failures cost the same time.
static DUMMY_HASH: LazyLock<String> = LazyLock::new(|| hash_now("not a real password"));

fn hash_now(password: &str) -> String {
    Argon2::default()
        .hash_password(password.as_bytes())
        .expect("argon2 with default parameters hashes any input")
        .to_string()
}

/// Hashes a password (argon2id, default parameters, random salt) into a PHC string.
pub async fn hash(password: String) -> String {
    tokio::task::spawn_blocking(move || hash_now(&password))
        .await
        .expect("password hashing does not panic")
}

/// Whether `password` matches `stored`; a missing hash costs as much as a wrong password.
pub async fn verify(password: String, stored: Option<String>) -> bool {
    tokio::task::spawn_blocking(move || {
        let known = stored.is_some();
        let phc = stored.unwrap_or_else(|| DUMMY_HASH.clone());
        let matches = PasswordHash::new(&phc)
            .map(|parsed| {
                Argon2::default()
                    .verify_password(password.as_bytes(), &parsed)
                    .is_ok()
            })
            .unwrap_or(false);
        known && matches
    })
    .await
    .unwrap_or(false)
}

/// The rules for a new password.
pub fn validate(password: &str) -> Result<(), String> {
    let length = password.chars().count();
    if length < 10 {
        return Err("is too short (minimum is 10 characters)".into());
    }
    if length > 256 {
        return Err("is too long (maximum is 256 characters)".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hashes_verify_and_unknown_users_fail() {
        let stored = hash("correct horse battery".into()).await;
        assert!(stored.starts_with("$argon2id$"));
        assert!(verify("correct horse battery".into(), Some(stored.clone())).await);
        assert!(!verify("wrong".into(), Some(stored)).await);
        assert!(!verify("not a real password".into(), None).await);
    }

    #[test]
    fn password_rules() {
        assert!(validate("short").is_err());
        assert!(validate("long enough!").is_ok());
    }
}
