//! Standard Webhooks signatures (v1, HMAC-SHA256), so that subscribers can check a
//! delivery came from us: the `whsec_` secrets they are given, and the
//! `webhook-signature` header that every attempt carries.

use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

const PREFIX: &str = "whsec_";
/// Random bytes in a generated secret, as svix and the Standard Webhooks libraries use.
const GENERATED_BYTES: usize = 24;
/// Key lengths the Standard Webhooks specification allows.
const KEY_BYTES: RangeInclusive<usize> = 24..=64;

/// A subscription's symmetric signing secret: `whsec_` followed by the standard base64 of
/// the HMAC key.
#[derive(Clone)]
pub struct WebhookSecret {
    text: String,
    key: Vec<u8>,
}

/// Why a string is not a webhook secret. The messages never repeat the input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidSecret {
    #[error("a webhook secret starts with `whsec_`")]
    Prefix,
    #[error("a webhook secret's key is in standard base64, padded")]
    Encoding,
    #[error("a webhook secret's key has 24 to 64 bytes, not {0}")]
    Length(usize),
}

impl WebhookSecret {
    /// A fresh secret of 24 random bytes.
    pub fn generate() -> Self {
        Self::from_key(storage::secrets::random_bytes(GENERATED_BYTES))
    }

    fn from_key(key: Vec<u8>) -> Self {
        Self {
            text: format!("{PREFIX}{}", STANDARD.encode(&key)),
            key,
        }
    }

    /// The `whsec_…` form: sealed at rest, and shown to the subscriber when issued.
    pub fn expose_secret(&self) -> &str {
        &self.text
    }
}

impl FromStr for WebhookSecret {
    type Err = InvalidSecret;

    /// Reads the `whsec_…` form; bare base64 and other prefixes (`whsk_`, `whpk_`) are
    /// refused, so an asymmetric key is never mistaken for an HMAC key.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let encoded = text.strip_prefix(PREFIX).ok_or(InvalidSecret::Prefix)?;
        let key = STANDARD
            .decode(encoded)
            .map_err(|_| InvalidSecret::Encoding)?;
        if !KEY_BYTES.contains(&key.len()) {
            return Err(InvalidSecret::Length(key.len()));
        }
        Ok(Self::from_key(key))
    }
}

impl fmt::Debug for WebhookSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WebhookSecret(..)")
    }
}

/// The `webhook-signature` value for one attempt: `v1,<base64 HMAC-SHA256>` over
/// `{id}.{timestamp}.{body}` for each secret, joined with spaces, so that during a
/// rotation's grace period a subscriber holding either secret can verify. Empty when
/// there are no secrets.
///
/// `id` is the stable message id and `timestamp` the attempt's Unix time in seconds; the
/// id must not contain `.`, or the signed content would be ambiguous.
pub fn signature_header(
    id: &str,
    timestamp: i64,
    body: &[u8],
    secrets: &[&WebhookSecret],
) -> String {
    let prefix = format!("{id}.{timestamp}.");
    secrets
        .iter()
        .map(|secret| {
            let mut mac =
                Hmac::<Sha256>::new_from_slice(&secret.key).expect("HMAC takes keys of any length");
            mac.update(prefix.as_bytes());
            mac.update(body);
            format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderMap, HeaderValue};
    use standardwebhooks::Webhook;
    use std::time::{SystemTime, UNIX_EPOCH};

    fn secret(text: &str) -> WebhookSecret {
        text.parse().expect("a valid secret")
    }

    fn now() -> i64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("the clock is past 1970")
            .as_secs()
            .try_into()
            .expect("the time fits in i64")
    }

    /// Headers as a subscriber receives them.
    fn headers(id: &str, timestamp: i64, signature: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("webhook-id", HeaderValue::from_str(id).unwrap());
        headers.insert("webhook-timestamp", HeaderValue::from(timestamp));
        headers.insert(
            "webhook-signature",
            HeaderValue::from_str(signature).unwrap(),
        );
        headers
    }

    #[test]
    fn reproduces_the_standard_webhooks_vector() {
        let key = secret("whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD");
        let header = signature_header(
            "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk",
            1649367553,
            br#"{"email":"test@example.com","username":"test_user"}"#,
            &[&key],
        );
        assert_eq!(header, "v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=");
    }

    #[test]
    fn reproduces_the_svix_vector() {
        let key = secret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
        let header = signature_header(
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1614265330,
            br#"{"test": 2432232314}"#,
            &[&key],
        );
        assert_eq!(header, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    #[test]
    fn joins_one_signature_per_secret_in_order() {
        let old = secret("whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD");
        let new = secret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
        let sign =
            |secrets: &[&WebhookSecret]| signature_header("msg_1", 1700000000, b"{}", secrets);
        assert_eq!(
            sign(&[&old, &new]),
            format!("{} {}", sign(&[&old]), sign(&[&new]))
        );
        assert_eq!(sign(&[]), "");
    }

    #[test]
    fn signs_every_part_of_the_content() {
        let key = WebhookSecret::generate();
        let base = signature_header("msg_1", 1700000000, b"{}", &[&key]);
        assert_ne!(base, signature_header("msg_2", 1700000000, b"{}", &[&key]));
        assert_ne!(base, signature_header("msg_1", 1700000001, b"{}", &[&key]));
        assert_ne!(base, signature_header("msg_1", 1700000000, b"[]", &[&key]));
        assert_ne!(
            base,
            signature_header("msg_1", 1700000000, b"{}", &[&WebhookSecret::generate()])
        );
    }

    #[test]
    fn generates_random_24_byte_secrets() {
        let a = WebhookSecret::generate();
        let b = WebhookSecret::generate();
        assert_ne!(a.expose_secret(), b.expose_secret());
        assert_eq!(a.key.len(), 24);
        let encoded = a.expose_secret().strip_prefix("whsec_").unwrap();
        assert_eq!(STANDARD.decode(encoded).unwrap(), a.key);
        assert_eq!(a.expose_secret().len(), "whsec_".len() + 32);
    }

    #[test]
    fn parses_its_own_string_form() {
        let original = WebhookSecret::generate();
        let parsed = secret(original.expose_secret());
        assert_eq!(parsed.expose_secret(), original.expose_secret());
        assert_eq!(
            signature_header("msg_1", 1, b"body", &[&parsed]),
            signature_header("msg_1", 1, b"body", &[&original])
        );
        let long = format!("whsec_{}", STANDARD.encode([7u8; 64]));
        assert_eq!(secret(&long).key, [7u8; 64]);
    }

    #[test]
    fn refuses_other_forms() {
        let valid = "C2FVsBQIhrscChlQIMV+b5sSYspob7oD";
        let cases = [
            (valid.to_owned(), InvalidSecret::Prefix),
            (format!("whsk_{valid}"), InvalidSecret::Prefix),
            (format!("whpk_{valid}"), InvalidSecret::Prefix),
            (format!("WHSEC_{valid}"), InvalidSecret::Prefix),
            (format!(" whsec_{valid}"), InvalidSecret::Prefix),
            (format!("whsec_{valid} "), InvalidSecret::Encoding),
            (
                format!("whsec_{}", valid.replace('+', "-")),
                InvalidSecret::Encoding,
            ),
            (format!("whsec_{}", &valid[..31]), InvalidSecret::Encoding),
            (
                format!("whsec_{}", STANDARD.encode([1u8; 25]).trim_end_matches('=')),
                InvalidSecret::Encoding,
            ),
            ("whsec_!!!!".to_owned(), InvalidSecret::Encoding),
            ("whsec_".to_owned(), InvalidSecret::Length(0)),
            (
                format!("whsec_{}", STANDARD.encode([1u8; 16])),
                InvalidSecret::Length(16),
            ),
            (
                format!("whsec_{}", STANDARD.encode([1u8; 65])),
                InvalidSecret::Length(65),
            ),
        ];
        for (text, expected) in cases {
            let error = text.parse::<WebhookSecret>().expect_err(&text);
            assert_eq!(error, expected, "{text}");
        }
    }

    #[test]
    fn debug_and_errors_reveal_nothing() {
        let key = WebhookSecret::generate();
        let shown = format!("{key:?}");
        assert_eq!(shown, "WebhookSecret(..)");
        let bad = "whsec_c2VjcmV0LXRoYXQtaXMtc2hvcnQ=";
        let error = bad.parse::<WebhookSecret>().unwrap_err().to_string();
        assert!(!error.contains("c2VjcmV0"), "{error}");
    }

    #[test]
    fn the_reference_library_verifies_single_signatures() {
        let key = WebhookSecret::generate();
        let body = br#"{"topic":"orders.created","data":{"id":"o_1"}}"#;
        let timestamp = now();
        let header = signature_header("msg_01J", timestamp, body, &[&key]);
        let verifier = Webhook::new(key.expose_secret()).unwrap();

        verifier
            .verify(body, &headers("msg_01J", timestamp, &header))
            .expect("our signature verifies");
        assert_eq!(
            verifier.sign("msg_01J", timestamp, body).unwrap(),
            header,
            "the reference library signs alike"
        );
    }

    #[test]
    fn the_reference_library_verifies_rotation_headers_with_either_secret() {
        let old = WebhookSecret::generate();
        let new = WebhookSecret::generate();
        let body = b"{\"sequence\":42}";
        let timestamp = now();
        let header = signature_header("msg_01K", timestamp, body, &[&old, &new]);
        let headers = headers("msg_01K", timestamp, &header);

        for key in [&old, &new] {
            Webhook::new(key.expose_secret())
                .unwrap()
                .verify(body, &headers)
                .expect("either secret verifies");
        }
        let stranger = Webhook::new(WebhookSecret::generate().expose_secret()).unwrap();
        assert!(stranger.verify(body, &headers).is_err());
    }

    #[test]
    fn the_reference_library_refuses_tampering() {
        let key = WebhookSecret::generate();
        let verifier = Webhook::new(key.expose_secret()).unwrap();
        let body = b"{\"amount\":100}";
        let timestamp = now();
        let header = signature_header("msg_01L", timestamp, body, &[&key]);

        let tampered = b"{\"amount\":900}";
        assert!(
            verifier
                .verify(tampered, &headers("msg_01L", timestamp, &header))
                .is_err()
        );
        assert!(
            verifier
                .verify(body, &headers("msg_01M", timestamp, &header))
                .is_err()
        );
        assert!(
            verifier
                .verify(body, &headers("msg_01L", timestamp + 1, &header))
                .is_err()
        );
    }
}
