//! The SMTP server mail is handed to (`--smtp-url`) and the address it is sent from
//! (`--mail-from`), checked when the settings are read. The URL carries a password: it is
//! shown, in errors and logs alike, with the password hidden.

use std::fmt;
use std::net::IpAddr;

use lettre::message::Mailbox;
use percent_encoding::percent_decode_str;
use url::{Host, Url};

/// How the connection to the SMTP server is protected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SmtpSecurity {
    /// `smtp://`: STARTTLS when the server offers it, plain text otherwise (credentials
    /// included: an attacker on the path can strip the offer).
    StartTlsWhenOffered,
    /// `smtp://…?tls=required`: STARTTLS, or no mail at all.
    StartTlsRequired,
    /// `smtps://`: TLS from the first byte.
    ImplicitTls,
}

/// Where mail goes: an SMTP server, how to reach it, and whom to sign in as.
#[derive(Clone, PartialEq, Eq)]
pub struct SmtpUrl {
    pub security: SmtpSecurity,
    /// A name, or an IP address (without brackets).
    pub host: String,
    pub port: u16,
    pub credentials: Option<SmtpCredentials>,
}

#[derive(Clone, PartialEq, Eq)]
pub struct SmtpCredentials {
    pub user: String,
    pub password: String,
}

/// The submission port, for `smtp://` (STARTTLS), and the implicit-TLS one, for `smtps://`.
const SUBMISSION_PORT: u16 = 587;
const SUBMISSIONS_PORT: u16 = 465;

impl SmtpUrl {
    /// `smtp://[user:password@]host[:port][?tls=required]` or `smtps://…` (the user and
    /// password percent-encoded).
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let refused = |why: &str| {
            format!(
                "`{}` is not an SMTP URL ({why}; e.g. smtp://user:password@smtp.example.com:587 \
                 or smtps://…)",
                storage::redact_url(text)
            )
        };
        let url = Url::parse(text).map_err(|e| refused(&e.to_string()))?;
        let security = match (url.scheme(), url.query()) {
            ("smtp", None) => SmtpSecurity::StartTlsWhenOffered,
            ("smtp", Some("tls=required")) => SmtpSecurity::StartTlsRequired,
            ("smtps", None) => SmtpSecurity::ImplicitTls,
            ("smtp" | "smtps", Some(_)) => {
                return Err(refused(
                    "the only query it takes is ?tls=required, on smtp://",
                ));
            }
            _ => return Err(refused("the scheme must be smtp or smtps")),
        };
        let host = match url.host() {
            Some(Host::Domain(name)) if !name.is_empty() => name.to_owned(),
            Some(Host::Ipv4(ip)) => IpAddr::V4(ip).to_string(),
            Some(Host::Ipv6(ip)) => IpAddr::V6(ip).to_string(),
            _ => return Err(refused("it names no host")),
        };
        if !matches!(url.path(), "" | "/") || url.fragment().is_some() {
            return Err(refused("it has a path or a fragment"));
        }
        let decode = |part: &str| {
            percent_decode_str(part)
                .decode_utf8()
                .map(|s| s.into_owned())
                .map_err(|_| refused("its user or password is not UTF-8 once decoded"))
        };
        let credentials = match (url.username(), url.password()) {
            ("", None) => None,
            (_, None) => return Err(refused("it has a user but no password")),
            (user, Some(password)) => Some(SmtpCredentials {
                user: decode(user)?,
                password: decode(password)?,
            }),
        };
        let port = url.port().unwrap_or(match security {
            SmtpSecurity::ImplicitTls => SUBMISSIONS_PORT,
            _ => SUBMISSION_PORT,
        });
        Ok(Self {
            security,
            host,
            port,
            credentials,
        })
    }
}

/// The URL with the password hidden, for logs and messages.
impl fmt::Display for SmtpUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scheme = match self.security {
            SmtpSecurity::ImplicitTls => "smtps",
            _ => "smtp",
        };
        write!(f, "{scheme}://")?;
        if let Some(credentials) = &self.credentials {
            write!(f, "{}:***@", credentials.user)?;
        }
        match self.host.parse::<IpAddr>() {
            Ok(IpAddr::V6(ip)) => write!(f, "[{ip}]:{}", self.port)?,
            _ => write!(f, "{}:{}", self.host, self.port)?,
        }
        if self.security == SmtpSecurity::StartTlsRequired {
            f.write_str("?tls=required")?;
        }
        Ok(())
    }
}

impl fmt::Debug for SmtpUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SmtpUrl({self})")
    }
}

/// The sender of every mail: `shop@example.com` or `Example Shop <shop@example.com>`.
pub fn mail_from(text: &str) -> Result<Mailbox, String> {
    let text = text.trim();
    let refused = || {
        format!(
            "`{text}` is not an e-mail address (e.g. shop@example.com or Example Shop <shop@example.com>)"
        )
    };
    let mailbox: Mailbox = text.parse().map_err(|_| refused())?;
    domain::validation::email(mailbox.email.as_ref()).map_err(|_| refused())?;
    Ok(mailbox)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_say_how_to_reach_the_server() {
        let url = SmtpUrl::parse("smtp://mailer:s%40cr%3Aet@smtp.example.com:2525").unwrap();
        assert_eq!(url.security, SmtpSecurity::StartTlsWhenOffered);
        assert_eq!((url.host.as_str(), url.port), ("smtp.example.com", 2525));
        let credentials = url.credentials.as_ref().unwrap();
        assert_eq!(
            (credentials.user.as_str(), credentials.password.as_str()),
            ("mailer", "s@cr:et")
        );
        let implicit = SmtpUrl::parse("smtps://smtp.example.com").unwrap();
        assert_eq!(
            (implicit.security, implicit.port),
            (SmtpSecurity::ImplicitTls, 465)
        );
        assert!(implicit.credentials.is_none());
        let required = SmtpUrl::parse("smtp://u:p@[::1]?tls=required").unwrap();
        assert_eq!(required.security, SmtpSecurity::StartTlsRequired);
        assert_eq!((required.host.as_str(), required.port), ("::1", 587));
        assert_eq!(required.to_string(), "smtp://u:***@[::1]:587?tls=required");
        let local = SmtpUrl::parse(" smtp://127.0.0.1:25/ ").unwrap();
        assert_eq!(local.to_string(), "smtp://127.0.0.1:25");
    }

    #[test]
    fn a_password_is_never_shown() {
        let url = SmtpUrl::parse("smtp://mailer:hunter2@smtp.example.com:587").unwrap();
        for shown in [url.to_string(), format!("{url:?}")] {
            assert!(!shown.contains("hunter2"), "{shown}");
            assert!(shown.contains("mailer:***@smtp.example.com:587"), "{shown}");
        }
        for refused in [
            "http://mailer:hunter2@smtp.example.com",
            "smtp://mailer:hunter2@smtp.example.com/path",
            "smtps://mailer:hunter2@smtp.example.com?tls=required",
            "smtp://mailer:hunter2@smtp.example.com?tls=maybe",
            "smtp://mailer:hunter2@:25",
        ] {
            let error = SmtpUrl::parse(refused).unwrap_err();
            assert!(!error.contains("hunter2"), "{error}");
            assert!(error.contains("mailer:***@"), "{error}");
        }
        for refused in [
            "smtp://",
            "smtp.example.com:25",
            "smtp://user@smtp.example.com",
        ] {
            assert!(SmtpUrl::parse(refused).is_err(), "{refused}");
        }
    }

    #[test]
    fn the_sender_must_be_an_address() {
        let plain = mail_from("shop@example.com").unwrap();
        assert_eq!(
            (plain.name, plain.email.to_string()),
            (None, "shop@example.com".into())
        );
        let named = mail_from("Example Shop <shop@example.com>").unwrap();
        assert_eq!(named.name.as_deref(), Some("Example Shop"));
        for refused in [
            "shop",
            "shop@",
            "Shop <shop@localhost>",
            "a@b@example.com",
            "",
        ] {
            assert!(mail_from(refused).is_err(), "{refused}");
        }
    }
}
