//! Account users: the people who sign in. E-mail addresses are stored lower-cased and are
//! unique across the service, so a sign-in names exactly one user.

use domain::{Role, Timestamp};

use crate::db::{Exec, Tx};
use crate::error::Result;

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct User {
    pub id: i64,
    pub account_id: i64,
    pub email: String,
    pub name: String,
    pub password_hash: String,
    #[sqlx(try_from = "String")]
    pub role: Role,
    pub last_logged_on: Option<Timestamp>,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
}

/// The password hash of a user who has none yet (invited to a shop, not yet accepted):
/// no password verifies against it, and sign-ins treat it as an unknown user's.
pub const NO_PASSWORD: &str = "";

impl User {
    /// Whether the user has set a password (an invited user has not).
    pub fn has_password(&self) -> bool {
        self.password_hash != NO_PASSWORD
    }
}

macro_rules! columns {
    () => {
        "id, account_id, email, name, password_hash, role, last_logged_on, created_on, updated_on"
    };
}

pub struct NewUser<'a> {
    pub account_id: i64,
    pub email: &'a str,
    pub name: &'a str,
    pub password_hash: &'a str,
    pub role: Role,
}

/// Canonical form of an e-mail address for storage and lookup.
pub fn normalize_email(email: &str) -> String {
    email.trim().to_lowercase()
}

pub async fn insert(tx: &mut Tx, user: &NewUser<'_>, now: Timestamp) -> Result<User> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, User>(concat!(
            "INSERT INTO users (account_id, email, name, password_hash, role, created_on, updated_on) \
             VALUES ($1, $2, $3, $4, $5, $6, $6) \
             RETURNING ",
            columns!()
        ),
        )
        .bind(user.account_id)
        .bind(normalize_email(user.email))
        .bind(user.name)
        .bind(user.password_hash)
        .bind(user.role.as_str())
        .bind(now.as_micros())
        .fetch_one(c)
        .await
    })
    .map_err(Into::into)
}

pub async fn find<'a>(exec: impl Into<Exec<'a>>, id: i64) -> Result<Option<User>> {
    with_conn!(exec.into(), |c| {
        sqlx::query_as::<_, User>(concat!("SELECT ", columns!(), " FROM users WHERE id = $1"))
            .bind(id)
            .fetch_optional(c)
            .await
    })
    .map_err(Into::into)
}

pub async fn find_by_email<'a>(exec: impl Into<Exec<'a>>, email: &str) -> Result<Option<User>> {
    with_conn!(exec.into(), |c| {
        sqlx::query_as::<_, User>(concat!(
            "SELECT ",
            columns!(),
            " FROM users WHERE email = $1"
        ))
        .bind(normalize_email(email))
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}

pub async fn record_login(tx: &mut Tx, user_id: i64, now: Timestamp) -> Result<()> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query("UPDATE users SET last_logged_on = $2 WHERE id = $1")
            .bind(user_id)
            .bind(now.as_micros())
            .execute(c)
            .await
            .map(|done| done.rows_affected())
    })?;
    Ok(())
}

/// Sets the password of a user who had none (an invitation accepted), and their name when
/// one is given; answers the user.
pub async fn set_password(
    tx: &mut Tx,
    id: i64,
    password_hash: &str,
    name: Option<&str>,
    now: Timestamp,
) -> Result<User> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, User>(concat!(
            "UPDATE users SET password_hash = $2, name = COALESCE($3, name), updated_on = $4 \
             WHERE id = $1 RETURNING ",
            columns!()
        ))
        .bind(id)
        .bind(password_hash)
        .bind(name)
        .bind(now.as_micros())
        .fetch_one(c)
        .await
    })
    .map_err(Into::into)
}
