//! The authorization service: who a bearer token speaks for (verification and the
//! principal), how tokens are issued (the token endpoint and its grants), and the secrets
//! behind both (signing keys, client secrets, password hashes).

pub mod apps;
mod error;
pub mod grant;
pub mod keys;
pub mod password;
mod principal;
pub mod secrets;
mod service;
mod token_endpoint;
pub mod tokens;

pub use error::OAuthError;
pub use principal::{Principal, Subject};
pub use service::{AuthConfig, AuthService};
pub use token_endpoint::routes;
pub use tokens::VerifyError;
