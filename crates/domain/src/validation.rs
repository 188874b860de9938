//! Field validation: rules that answer with a message, and the collector that turns them
//! into the API's 422 `_embedded.errors` list.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::data::timezones::TIMEZONES;
use crate::money;
use crate::text::TextKind;

/// Every message about one field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldError {
    pub field: String,
    pub messages: Vec<String>,
}

/// The errors of one request, field by field, in the order found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldErrors(Vec<FieldError>);

impl FieldErrors {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn single(field: impl Into<String>, message: impl Into<String>) -> Self {
        let mut errors = Self::new();
        errors.add(field, message);
        errors
    }

    pub fn add(&mut self, field: impl Into<String>, message: impl Into<String>) {
        let field = field.into();
        let message = message.into();
        match self.0.iter_mut().find(|e| e.field == field) {
            Some(existing) => existing.messages.push(message),
            None => self.0.push(FieldError {
                field,
                messages: vec![message],
            }),
        }
    }

    /// Records the outcome of a rule for `field`.
    pub fn check(&mut self, field: &str, outcome: Result<(), String>) {
        if let Err(message) = outcome {
            self.add(field, message);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn has(&self, field: &str) -> bool {
        self.0.iter().any(|e| e.field == field)
    }

    pub fn errors(&self) -> &[FieldError] {
        &self.0
    }

    pub fn into_result(self) -> Result<(), FieldErrors> {
        if self.is_empty() { Ok(()) } else { Err(self) }
    }

    /// Adds every message of `other` (found by another check of the same request).
    pub fn merge(&mut self, other: FieldErrors) {
        for error in other.0 {
            for message in error.messages {
                self.add(error.field.clone(), message);
            }
        }
    }
}

impl fmt::Display for FieldErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{} {}", e.field, e.messages.join(", "))?;
        }
        Ok(())
    }
}

impl std::error::Error for FieldErrors {}

/// The rules for a new password (a user's or a customer's).
pub fn password(password: &str) -> Result<(), String> {
    let length = password.chars().count();
    if length < 10 {
        return Err("is too short (minimum is 10 characters)".into());
    }
    if length > 256 {
        return Err("is too long (maximum is 256 characters)".into());
    }
    Ok(())
}

/// Non-blank text of at most `max` characters.
pub fn text(value: &str, max: usize) -> Result<(), String> {
    if value.trim().is_empty() {
        return Err("can't be blank".into());
    }
    length(value, max)
}

/// At most `max` characters (blank allowed).
pub fn length(value: &str, max: usize) -> Result<(), String> {
    if value.chars().count() > max {
        return Err(format!("is too long (maximum is {max} characters)"));
    }
    TextKind::Free.check(value)
}

/// A plausible e-mail address: one `@`, a local part, a dotted domain, no spaces.
pub fn email(value: &str) -> Result<(), String> {
    let invalid = || Err("is not a valid e-mail address".to_owned());
    if value.len() > 254 || value.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return invalid();
    }
    let Some((local, domain)) = value.split_once('@') else {
        return invalid();
    };
    let domain_ok = !domain.contains('@')
        && domain.contains('.')
        && domain.split('.').all(|label| {
            !label.is_empty() && label.chars().all(|c| c.is_alphanumeric() || c == '-')
        });
    if local.is_empty() || local.len() > 64 || !domain_ok {
        return invalid();
    }
    Ok(())
}

/// A language tag such as `es`, `en-US` or `es-419`.
pub fn locale(value: &str) -> Result<(), String> {
    let (language, region) = match value.split_once('-') {
        Some((l, r)) => (l, Some(r)),
        None => (value, None),
    };
    let language_ok =
        (2..=3).contains(&language.len()) && language.chars().all(|c| c.is_ascii_lowercase());
    let region_ok = region.is_none_or(|r| {
        (r.len() == 2 && r.chars().all(|c| c.is_ascii_uppercase()))
            || (r.len() == 3 && r.chars().all(|c| c.is_ascii_digit()))
    });
    if language_ok && region_ok {
        Ok(())
    } else {
        Err("is not a valid locale (e.g. en, es-CL)".into())
    }
}

/// An IANA time zone name such as `America/Santiago`.
pub fn timezone(value: &str) -> Result<(), String> {
    if TIMEZONES.binary_search(&value).is_ok() {
        Ok(())
    } else {
        Err("is not a known IANA time zone (e.g. America/Santiago)".into())
    }
}

/// An active ISO 4217 currency code in upper case.
pub fn currency_code(value: &str) -> Result<(), String> {
    if money::is_currency_code(value) {
        Ok(())
    } else {
        Err("is not an ISO 4217 currency code (e.g. USD, CLP)".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collects_messages_per_field_in_order() {
        let mut errors = FieldErrors::new();
        errors.check("name", text("  ", 10));
        errors.check("email", email("nope"));
        errors.add("name", "second");
        assert_eq!(errors.errors().len(), 2);
        assert_eq!(errors.errors()[0].messages, ["can't be blank", "second"]);
        assert!(errors.has("email"));
        assert!(FieldErrors::new().into_result().is_ok());
    }

    #[test]
    fn rules() {
        assert!(text("abc", 3).is_ok() && text("abcd", 3).is_err());
        assert!(length("a\u{0}b", 10).is_err());
        assert!(email("a@b.co").is_ok());
        for bad in ["a@b", "@b.co", "a b@c.co", "a@@b.co", "a@.co", "a@b..co"] {
            assert!(email(bad).is_err(), "{bad}");
        }
        for good in ["es", "en-US", "es-419", "fil"] {
            assert!(locale(good).is_ok(), "{good}");
        }
        for bad in ["EN", "en_US", "en-us", "e", "en-USA"] {
            assert!(locale(bad).is_err(), "{bad}");
        }
        assert!(timezone("America/Santiago").is_ok() && timezone("UTC").is_ok());
        assert!(timezone("Mars/Olympus").is_err());
        assert!(currency_code("CLP").is_ok() && currency_code("clp").is_err());
    }

    #[test]
    fn timezone_table_is_sorted_for_binary_search() {
        assert!(TIMEZONES.windows(2).all(|w| w[0] < w[1]));
    }
}
