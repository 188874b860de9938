//! Accounts: the businesses that own users and sellers.

use domain::Timestamp;

use crate::db::{Database, Exec, Tx};
use crate::error::Result;

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Account {
    pub id: i64,
    pub name: String,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
}

pub async fn insert(tx: &mut Tx, name: &str, now: Timestamp) -> Result<Account> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, Account>(
            "INSERT INTO accounts (name, created_on, updated_on) VALUES ($1, $2, $2) \
             RETURNING id, name, created_on, updated_on",
        )
        .bind(name)
        .bind(now.as_micros())
        .fetch_one(c)
        .await
    })
    .map_err(Into::into)
}

pub async fn find(db: &Database, id: i64) -> Result<Option<Account>> {
    with_conn!(Exec::Db(db), |c| {
        sqlx::query_as::<_, Account>(
            "SELECT id, name, created_on, updated_on FROM accounts WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}

/// Whether the database holds any account (an empty database gets demo data on request).
pub async fn exists_any(db: &Database) -> Result<bool> {
    let found: Option<i64> = with_conn!(Exec::Db(db), |c| {
        sqlx::query_scalar("SELECT id FROM accounts LIMIT 1")
            .fetch_optional(c)
            .await
    })?;
    Ok(found.is_some())
}
