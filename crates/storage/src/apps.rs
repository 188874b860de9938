//! OAuth apps (clients). The secret is kept as a SHA-256 digest: it is a 256-bit random
//! value, so a slow hash adds nothing.

use domain::Timestamp;

use crate::db::{Database, Exec, Tx};
use crate::error::Result;
use crate::write::Columns;

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct App {
    pub id: i64,
    pub account_id: Option<i64>,
    pub name: String,
    pub client_id: String,
    pub client_secret_digest: Vec<u8>,
    /// Registered redirect URIs, one per line.
    pub redirect_uris: String,
    /// Allowed grant types, comma-separated.
    pub grants: String,
    /// Allowed scopes, comma-separated.
    pub scopes: String,
    pub trusted: bool,
    /// A public client (a browser or native app) has no secret and must use PKCE.
    pub public: bool,
    /// The client secret, encrypted (it verifies JWT bearer assertions).
    pub client_secret_ciphertext: Option<Vec<u8>>,
    /// Set on the apps the service keeps for itself (e.g. personal access tokens).
    pub system_role: Option<String>,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
}

impl App {
    pub fn redirect_uri_list(&self) -> impl Iterator<Item = &str> {
        self.redirect_uris.lines().filter(|l| !l.is_empty())
    }

    pub fn allows_grant(&self, grant: &str) -> bool {
        self.grants.split(',').any(|g| g == grant)
    }
}

macro_rules! columns {
    () => {
        "id, account_id, name, client_id, client_secret_digest, redirect_uris, grants, scopes, trusted, public, \
         client_secret_ciphertext, system_role, created_on, updated_on"
    };
}

pub struct NewApp<'a> {
    pub account_id: Option<i64>,
    pub name: &'a str,
    pub client_id: &'a str,
    pub client_secret_digest: &'a [u8],
    pub redirect_uris: &'a [String],
    pub grants: &'a [&'a str],
    pub scopes: &'a str,
    pub trusted: bool,
    pub public: bool,
    pub client_secret_ciphertext: Option<&'a [u8]>,
    pub system_role: Option<&'a str>,
}

pub async fn insert(tx: &mut Tx, app: &NewApp<'_>, now: Timestamp) -> Result<App> {
    Columns::new()
        .set("account_id", app.account_id)
        .set("name", app.name)
        .set("client_id", app.client_id)
        .set("client_secret_digest", app.client_secret_digest)
        .set("redirect_uris", app.redirect_uris.join("\n"))
        .set("grants", app.grants.join(","))
        .set("scopes", app.scopes)
        .set("trusted", app.trusted)
        .set("public", app.public)
        .set("client_secret_ciphertext", app.client_secret_ciphertext)
        .set("system_role", app.system_role)
        .set("created_on", now)
        .set("updated_on", now)
        .insert_into("oauth_apps")
        .fetch_row(tx, columns!())
        .await
}

pub async fn find_by_client_id(db: &Database, client_id: &str) -> Result<Option<App>> {
    with_conn!(Exec::Db(db), |c| {
        sqlx::query_as::<_, App>(concat!(
            "SELECT ",
            columns!(),
            " FROM oauth_apps WHERE client_id = $1"
        ))
        .bind(client_id)
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}

pub async fn find(db: &Database, id: i64) -> Result<Option<App>> {
    with_conn!(Exec::Db(db), |c| {
        sqlx::query_as::<_, App>(concat!(
            "SELECT ",
            columns!(),
            " FROM oauth_apps WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}

/// The app the service keeps for one of its own roles, if made yet.
pub async fn find_system(db: &Database, role: &str) -> Result<Option<App>> {
    with_conn!(Exec::Db(db), |c| {
        sqlx::query_as::<_, App>(concat!(
            "SELECT ",
            columns!(),
            " FROM oauth_apps WHERE system_role = $1"
        ))
        .bind(role)
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}

/// The apps registered by one account, newest first.
pub async fn of_account(db: &Database, account_id: i64) -> Result<Vec<App>> {
    with_conn!(Exec::Db(db), |c| {
        sqlx::query_as::<_, App>(concat!(
            "SELECT ",
            columns!(),
            " FROM oauth_apps WHERE account_id = $1 AND system_role IS NULL ORDER BY id DESC"
        ))
        .bind(account_id)
        .fetch_all(c)
        .await
    })
    .map_err(Into::into)
}
