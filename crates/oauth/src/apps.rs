//! Registering OAuth apps and authenticating them by client id and secret.

use domain::{ScopeSet, Timestamp};
use storage::apps::{self, App, NewApp};
use storage::{Database, Tx};

use crate::grant::GrantType;
use crate::secret_box::SecretBox;
use crate::secrets;

#[derive(Clone, Debug)]
pub struct AppRegistration {
    pub name: String,
    pub account_id: Option<i64>,
    pub scopes: ScopeSet,
    pub grants: Vec<GrantType>,
    pub redirect_uris: Vec<String>,
    pub trusted: bool,
    /// A browser or native app that cannot keep a secret: it gets none and must use PKCE.
    pub public: bool,
}

/// A new app and its secret, shown this once: it is stored as a digest (to authenticate
/// the client) and sealed (to verify the assertions it signs).
pub struct RegisteredApp {
    pub app: App,
    /// `None` for public clients.
    pub client_secret: Option<String>,
}

pub async fn register(
    tx: &mut Tx,
    secret_box: &SecretBox,
    registration: &AppRegistration,
    now: Timestamp,
) -> storage::Result<RegisteredApp> {
    let client_id = secrets::random_token(18);
    let client_secret = secrets::random_token(32);
    let sealed = (!registration.public).then(|| secret_box.seal(client_secret.as_bytes()));
    let grants: Vec<&str> = registration.grants.iter().map(|g| g.as_str()).collect();
    let scopes = registration.scopes.to_string();
    let app = apps::insert(
        tx,
        &NewApp {
            account_id: registration.account_id,
            name: &registration.name,
            client_id: &client_id,
            client_secret_digest: &secrets::sha256(client_secret.as_bytes()),
            redirect_uris: &registration.redirect_uris,
            grants: &grants,
            scopes: &scopes,
            trusted: registration.trusted,
            public: registration.public,
            client_secret_ciphertext: sealed.as_deref(),
            system_role: None,
        },
        now,
    )
    .await?;
    Ok(RegisteredApp {
        app,
        client_secret: (!registration.public).then_some(client_secret),
    })
}

/// The app whose id and secret these are, compared in constant time.
pub async fn authenticate(
    db: &Database,
    client_id: &str,
    client_secret: &str,
) -> storage::Result<Option<App>> {
    let presented = secrets::sha256(client_secret.as_bytes());
    let app = apps::find_by_client_id(db, client_id).await?;
    let stored = app
        .as_ref()
        .map_or(&[0u8; 32][..], |a| a.client_secret_digest.as_slice());
    let matches = secrets::constant_time_eq(&presented, stored);
    Ok(app.filter(|_| matches))
}

/// The problems of a registration, field by field.
pub fn check(registration: &AppRegistration) -> domain::FieldErrors {
    let mut errors = domain::FieldErrors::new();
    errors.check("name", domain::validation::text(&registration.name, 200));
    for uri in &registration.redirect_uris {
        if let Err(message) = validate_redirect_uri(uri) {
            errors.add("redirect_uris", format!("{uri} {message}"));
        }
    }
    if registration.scopes.is_empty() {
        errors.add("scopes", "must name at least one scope");
    }
    if registration.grants.is_empty() {
        errors.add("grants", "must name at least one grant type");
    }
    if registration.public
        && registration.grants.iter().any(|g| {
            matches!(
                g,
                GrantType::ClientCredentials | GrantType::Password | GrantType::JwtBearer
            )
        })
    {
        errors.add(
            "grants",
            "a public client may use only authorization_code, implicit and refresh_token",
        );
    }
    errors
}

/// The outcome of a user registering an app.
pub enum UserRegistration {
    Registered(Box<RegisteredApp>),
    Invalid(domain::FieldErrors),
    /// Only owners and admins register apps: an app of the account can see all of it.
    NotAllowed,
}

/// Registers an app for the account of a signed-in user: scopes within the user's role
/// but never a credentials scope, never trusted (the password grant and an app that may
/// manage its users' credentials are an operator's decision, `commerce apps create`).
pub async fn register_for_user(
    db: &storage::Database,
    secret_box: &SecretBox,
    user: &storage::users::User,
    mut registration: AppRegistration,
    now: Timestamp,
) -> storage::Result<UserRegistration> {
    if !matches!(user.role, domain::Role::Owner | domain::Role::Admin) {
        return Ok(UserRegistration::NotAllowed);
    }
    registration.account_id = Some(user.account_id);
    registration.trusted = false;
    let mut errors = check(&registration);
    if !registration.scopes.is_subset_of(user.role.ceiling()) {
        errors.add(
            "scopes",
            format!("must be within what the {} role allows", user.role),
        );
    }
    if registration.scopes.intersects(ScopeSet::CREDENTIALS) {
        errors.add(
            "scopes",
            "must not include credentials.read or credentials.write: only an operator \
             registers an app that may manage its users' tokens and apps",
        );
    }
    if registration.grants.contains(&GrantType::Password) {
        errors.add(
            "grants",
            "the password grant is given to trusted apps by an operator",
        );
    }
    if !errors.is_empty() {
        return Ok(UserRegistration::Invalid(errors));
    }
    let mut tx = db.begin().await?;
    let registered = register(&mut tx, secret_box, &registration, now).await?;
    tx.commit().await?;
    Ok(UserRegistration::Registered(Box::new(registered)))
}

/// A redirect URI an app may register: absolute, without a fragment or whitespace.
pub fn validate_redirect_uri(uri: &str) -> Result<(), String> {
    let Some((scheme, rest)) = uri.split_once(':') else {
        return Err("must be an absolute URI".into());
    };
    let scheme_ok = scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok || rest.is_empty() {
        return Err("must be an absolute URI".into());
    }
    if uri.contains('#') || uri.chars().any(char::is_whitespace) {
        return Err("must not contain a fragment or whitespace".into());
    }
    if matches!(scheme, "http" | "https") && !rest.starts_with("//") {
        return Err("must name a host".into());
    }
    // RFC 9700 section 2.6: plain http only for a native app's loopback listener.
    if scheme == "http" {
        let authority = rest[2..].split(['/', '?']).next().unwrap_or("");
        let host = match authority.strip_prefix('[') {
            Some(v6) => v6.split(']').next().unwrap_or(""),
            None => authority.split(':').next().unwrap_or(""),
        };
        if !matches!(host, "127.0.0.1" | "localhost" | "::1") {
            return Err("must use https (plain http only for loopback addresses)".into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirect_uris() {
        for good in [
            "https://app.example/cb",
            "http://127.0.0.1:9000/cb?x=1",
            "http://localhost/cb",
            "http://[::1]:8/cb",
            "com.example.app:/oauth",
        ] {
            assert!(validate_redirect_uri(good).is_ok(), "{good}");
        }
        for bad in [
            "/cb",
            "https://x/cb#frag",
            "https:/x",
            "https://x/a b",
            "http://app.example/cb",
            "1http://x",
        ] {
            assert!(validate_redirect_uri(bad).is_err(), "{bad}");
        }
    }
}
