//! The issuer every token names (`iss`: the servers' public URL), kept in the database the
//! servers share. A server serving the API records the one it verifies against when it
//! starts; a command that signs tokens outside a server (`commerce tokens create`) reads
//! it there, so that its tokens are accepted without repeating the servers' settings.

use storage::{Database, settings};

const SETTING: &str = "issuer";

/// Records `issuer` as the one the servers of `db` verify against.
pub async fn record(db: &Database, issuer: &str) -> storage::Result<()> {
    settings::put(db, SETTING, issuer.as_bytes()).await
}

/// The issuer the servers of `db` last recorded, if a server has run on it.
pub async fn recorded(db: &Database) -> storage::Result<Option<String>> {
    let value = settings::get(db, SETTING).await?;
    Ok(value.and_then(|bytes| String::from_utf8(bytes).ok()))
}
