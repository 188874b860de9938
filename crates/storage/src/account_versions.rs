//! Each account's commit count (PostgreSQL): statement triggers add to it with every
//! commit that changes the account's data (migration 0012, `changes::TABLES`).

use crate::db::Database;
use crate::error::Result;

/// The sum of the accounts' commit counts (0 on SQLite, which keeps none): it grows with
/// every commit that changes any of their data.
pub async fn sum_of(db: &Database, accounts: &[i64]) -> Result<i64> {
    let Some(pool) = db.postgres_pool() else {
        return Ok(0);
    };
    crate::query_count::note(1);
    Ok(sqlx::query_scalar(
        "SELECT CAST(COALESCE(SUM(version), 0) AS BIGINT) FROM account_versions \
         WHERE account_id = ANY($1)",
    )
    .bind(accounts)
    .fetch_one(pool)
    .await?)
}
