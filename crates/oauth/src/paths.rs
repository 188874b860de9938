//! Where the authorization service answers: each path written once, for its router, its
//! pages' links and forms, its metadata and the API's OpenAPI document.

/// The token endpoint (RFC 6749 section 3.2).
pub const TOKEN: &str = "/oauth/token";
/// Token revocation (RFC 7009).
pub const REVOKE: &str = "/oauth/revoke";
/// Token introspection (RFC 7662).
pub const INTROSPECT: &str = "/oauth/introspect";
/// The authorization server's metadata (RFC 8414).
pub const METADATA: &str = "/.well-known/oauth-authorization-server";
/// The authorization endpoint: consent page and decision (RFC 6749 section 3.1).
pub const AUTHORIZE: &str = "/oauth/authorize";
/// The sign-in page.
pub const LOGIN: &str = "/oauth/login";
/// Signing out.
pub const LOGOUT: &str = "/oauth/logout";
/// The developer credentials page.
pub const CREDENTIALS: &str = "/oauth/credentials";
/// Creates a personal access token from the credentials page.
pub const CREDENTIALS_TOKENS: &str = "/oauth/credentials/tokens";
/// Revokes a personal access token from the credentials page.
pub const CREDENTIALS_REVOKE_TOKEN: &str = "/oauth/credentials/tokens/revoke";
/// Registers an app from the credentials page.
pub const CREDENTIALS_APPS: &str = "/oauth/credentials/apps";
/// The page where a user invited to manage shops accepts (`?code=` from the mail).
pub const INVITATIONS: &str = "/oauth/invitations";
