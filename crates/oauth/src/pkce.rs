//! PKCE (RFC 7636) with the S256 method only.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::secrets;

fn unreserved(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~')
}

/// A verifier is 43 to 128 unreserved characters.
pub fn valid_verifier(verifier: &str) -> bool {
    (43..=128).contains(&verifier.len()) && verifier.chars().all(unreserved)
}

/// An S256 challenge is the base64url (no padding) of a SHA-256 digest: 43 characters.
pub fn valid_challenge(challenge: &str) -> bool {
    challenge.len() == 43
        && challenge
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

pub fn s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(secrets::sha256(verifier.as_bytes()))
}

/// Whether `verifier` answers `challenge`, compared in constant time.
pub fn verifies(verifier: &str, challenge: &str) -> bool {
    valid_verifier(verifier)
        && secrets::constant_time_eq(s256(verifier).as_bytes(), challenge.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_7636_appendix_b() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert_eq!(s256(verifier), challenge);
        assert!(valid_challenge(challenge));
        assert!(verifies(verifier, challenge));
        assert!(!verifies(
            "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXx",
            challenge
        ));
        assert!(!valid_verifier("short"));
        assert!(!valid_verifier(&"a".repeat(129)));
        assert!(!valid_verifier(&format!("{}!", "a".repeat(43))));
    }
}
