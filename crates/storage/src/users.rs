//! Account users: the people who sign in. E-mail addresses are stored lower-cased and are
//! unique across the service, so a sign-in names exactly one user.

use domain::{Role, Timestamp};

use crate::db::{Database, Exec, Tx};
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

pub async fn find(db: &Database, id: i64) -> Result<Option<User>> {
    with_conn!(Exec::Db(db), |c| {
        sqlx::query_as::<_, User>(concat!("SELECT ", columns!(), " FROM users WHERE id = $1"))
            .bind(id)
            .fetch_optional(c)
            .await
    })
    .map_err(Into::into)
}

pub async fn find_by_email(db: &Database, email: &str) -> Result<Option<User>> {
    with_conn!(Exec::Db(db), |c| {
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
