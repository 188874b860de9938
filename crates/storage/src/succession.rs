//! Taking over what stopped nodes held: their claims on webhook deliveries, verification
//! pings and mails, and their leases on singleton jobs. A node that is known to be
//! gone (a node restarted on the same host can tell) would otherwise hold its work until
//! each claim ran out. What is taken over is treated as a claim that ran out: a delivery
//! that may have been sent is noted as interrupted when it is next claimed.

use domain::Timestamp;

use crate::db::{Database, Exec};
use crate::error::Result;
use crate::sql::{Arg, Params};
use crate::write::execute_bound;

/// The nodes whose names begin with `prefix` and that hold a claim or lease that runs
/// beyond `now`.
pub async fn holders(db: &Database, prefix: &str, now: Timestamp) -> Result<Vec<String>> {
    let mut p = Params::new();
    let prefix_arg = p.bind(Arg::Text(prefix.to_owned()));
    // PostgreSQL's `substr` takes an `integer` length.
    let length = format!(
        "CAST({} AS INTEGER)",
        p.bind(Arg::Int(
            i64::try_from(prefix.chars().count()).unwrap_or(i64::MAX)
        ))
    );
    let at = p.bind(Arg::Int(now.as_micros()));
    let sql = format!(
        "SELECT lease_owner FROM webhook_deliveries WHERE lease_owner IS NOT NULL \
         AND substr(lease_owner, 1, {length}) = {prefix_arg} AND lease_expires_on > {at} \
         UNION SELECT lease_owner FROM webhooks WHERE lease_owner IS NOT NULL \
         AND substr(lease_owner, 1, {length}) = {prefix_arg} AND lease_expires_on > {at} \
         UNION SELECT lease_owner FROM mail_outbox WHERE lease_owner IS NOT NULL \
         AND substr(lease_owner, 1, {length}) = {prefix_arg} AND lease_expires_on > {at} \
         UNION SELECT holder FROM leases \
         WHERE substr(holder, 1, {length}) = {prefix_arg} AND expires_on > {at}"
    );
    let found: Vec<(String,)> = with_conn!(Exec::Db(db), |c| {
        crate::sql::bind_as(sqlx::query_as(sqlx::AssertSqlSafe(sql)), p.args())
            .fetch_all(c)
            .await
    })?;
    Ok(found
        .into_iter()
        .map(|(holder,)| holder)
        .filter(|holder| holder.starts_with(prefix))
        .collect())
}

/// Makes every claim and lease of `nodes` run out at `now`, in one transaction.
pub async fn end_claims_of(db: &Database, nodes: &[String], now: Timestamp) -> Result<()> {
    if nodes.is_empty() {
        return Ok(());
    }
    let mut tx = db.begin().await?;
    for (table, holder, until) in [
        ("webhook_deliveries", "lease_owner", "lease_expires_on"),
        ("webhooks", "lease_owner", "lease_expires_on"),
        ("mail_outbox", "lease_owner", "lease_expires_on"),
        ("leases", "holder", "expires_on"),
    ] {
        let mut p = Params::new();
        let at = p.bind(Arg::Int(now.as_micros()));
        let sql = format!(
            "UPDATE {table} SET {until} = {at} WHERE {holder} IN ({}) AND {until} > {at}",
            p.bind_all(nodes.iter().cloned().map(Arg::Text))
        );
        execute_bound(&mut tx, sql, p.args()).await?;
    }
    tx.commit().await
}
