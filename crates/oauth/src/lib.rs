//! The authorization service: who a bearer token speaks for (verification and the
//! principal), how tokens are issued (the token endpoint and its grants), revoked and
//! inspected, and the secrets behind them (signing keys, sealed client secrets, password
//! hashes, token digests).

pub mod apps;
mod control;
pub mod customer_sessions;
mod description;
mod endpoints;
mod error;
pub mod forms;
pub mod grant;
mod issue;
pub mod issuer;
pub mod keys;
mod pages;
pub mod password;
pub mod paths;
pub mod personal_tokens;
pub mod pkce;
mod principal;
mod revocation;
pub mod scope_policy;
mod service;
mod sign_in;
pub mod tokens;
mod verified_tokens;

pub use description::Description;
pub use endpoints::{Introspection, Metadata, routes};
pub use error::{OAuthCode, OAuthError};
pub use issue::{TokenAnswer, new_family_id};
pub use pages::SESSION_COOKIE;
pub use pages::invitations::{InvitationError, InvitationLookup, Invitations, Pending};
pub use principal::{Principal, SignedInCustomer, Subject};
pub use service::{AuthConfig, AuthService, SignInThrottle, StartError};
pub use sign_in::SignInError;
/// Random secrets and sealing, shared with the rest of the service.
pub use storage::{secret_box, secrets};
pub use tokens::VerifyError;
