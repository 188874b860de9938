//! Shop rules: storefront kinds and subdomains.

use crate::text_enum;

text_enum! {
    /// How a shop's storefront is served: by us (themes) or by the merchant's own front end.
    pub enum Storefront {
        Hosted => "hosted",
        Headless => "headless",
    }
}

/// Names that would collide with the service's own host names.
const RESERVED_SUBDOMAINS: &[&str] = &[
    "about",
    "account",
    "accounts",
    "admin",
    "api",
    "app",
    "apps",
    "assets",
    "auth",
    "billing",
    "blog",
    "cdn",
    "checkout",
    "dashboard",
    "dev",
    "docs",
    "ftp",
    "help",
    "imap",
    "login",
    "mail",
    "oauth",
    "pop",
    "shop",
    "shops",
    "smtp",
    "static",
    "status",
    "store",
    "support",
    "test",
    "www",
];

/// A DNS label of 3–63 lower-case letters, digits and inner hyphens, not reserved.
pub fn validate_subdomain(value: &str) -> Result<(), String> {
    if !(3..=63).contains(&value.len()) {
        return Err("must be between 3 and 63 characters".into());
    }
    if !value
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err("may contain only lower-case letters, digits and hyphens".into());
    }
    if value.starts_with('-') || value.ends_with('-') || value.contains("--") {
        return Err("may not start or end with a hyphen, or contain two in a row".into());
    }
    if RESERVED_SUBDOMAINS.contains(&value) {
        return Err("is reserved".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subdomains() {
        for good in ["acme", "acme-store", "a1b", "abc-123"] {
            assert!(validate_subdomain(good).is_ok(), "{good}");
        }
        for bad in [
            "ab",
            "-acme",
            "acme-",
            "Acme",
            "ac_me",
            "ac me",
            "a--b",
            "www",
            &"a".repeat(64),
        ] {
            assert!(validate_subdomain(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn storefront_round_trips() {
        assert_eq!("hosted".parse::<Storefront>().unwrap(), Storefront::Hosted);
        assert_eq!(Storefront::Headless.to_string(), "headless");
        assert!("both".parse::<Storefront>().is_err());
    }
}
