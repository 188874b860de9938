//! Batch jobs: one row each, with its items' ids and its progress, saved by the worker
//! after each chunk under a check of the progress it started from, so that two runs of a
//! job (a node that lost its lease and the one that took over) never both save a chunk.

use domain::Timestamp;
use domain::batch::{BatchKind, BatchState, InvalidItem};
use domain::order::OrderStatus;

use crate::Tenant;
use crate::db::{Database, Exec, Tx};
use crate::error::Result;
use crate::json::{JsonText, to_text};
use crate::sql::{Arg, Filter, Sort, Window, list_sql};
use crate::tenant_rows;
use crate::write::Columns;

/// A job as lists show it: its progress, without its items.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct BatchSummary {
    pub id: i64,
    pub account_id: i64,
    pub seller_id: i64,
    pub shop_id: i64,
    #[sqlx(try_from = "String")]
    pub kind: BatchKind,
    #[sqlx(try_from = "String")]
    pub target_status: OrderStatus,
    #[sqlx(try_from = "String")]
    pub state: BatchState,
    pub total: i64,
    pub processed: i64,
    pub succeeded: i64,
    pub failed: i64,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
    pub finished_on: Option<Timestamp>,
}

/// A job whole: its progress, the ids it moves and the items it left as they were (up to
/// `domain::batch::ITEMS_MAX` each, which is why lists read only the summary).
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Batch {
    #[sqlx(flatten)]
    pub summary: BatchSummary,
    #[sqlx(try_from = "String")]
    pub item_ids: JsonText<Vec<i64>>,
    #[sqlx(try_from = "String")]
    pub invalid_items: JsonText<Vec<InvalidItem>>,
}

macro_rules! summary_columns {
    () => {
        "id, account_id, seller_id, shop_id, kind, target_status, state, total, processed, \
         succeeded, failed, created_on, updated_on, finished_on"
    };
}

macro_rules! columns {
    () => {
        concat!(summary_columns!(), ", item_ids, invalid_items")
    };
}

/// Fields a list of batches may be sorted by (indexed with the account).
pub const SORT_FIELDS: &[&str] = &["id"];

#[derive(Clone, Debug, Default)]
pub struct BatchFilter {
    pub state: Option<BatchState>,
    pub shop_ids: Option<Vec<i64>>,
}

/// A new job over a shop's orders, pending.
pub struct NewBatch<'a> {
    pub account_id: i64,
    pub seller_id: i64,
    pub shop_id: i64,
    pub kind: BatchKind,
    pub target_status: OrderStatus,
    pub item_ids: &'a [i64],
}

/// A chunk done: the progress to save.
pub struct Progress<'a> {
    pub processed: i64,
    pub succeeded: i64,
    pub failed: i64,
    pub invalid_items: &'a [InvalidItem],
}

/// Writes a pending job; its id.
pub async fn insert(tx: &mut Tx, new: &NewBatch<'_>, now: Timestamp) -> Result<i64> {
    let total = i64::try_from(new.item_ids.len()).unwrap_or(i64::MAX);
    Columns::new()
        .set("account_id", new.account_id)
        .set("seller_id", new.seller_id)
        .set("shop_id", new.shop_id)
        .set("kind", new.kind.as_str())
        .set("target_status", new.target_status.as_str())
        .set("state", BatchState::Pending.as_str())
        .set("item_ids", to_text(new.item_ids))
        .set("total", total)
        .set("created_on", now)
        .set("updated_on", now)
        .insert_into("batches")
        .fetch_id(tx)
        .await
}

/// The tenant's job with this id.
pub async fn find<'a>(exec: impl Into<Exec<'a>>, tenant: Tenant, id: i64) -> Result<Option<Batch>> {
    tenant_rows::find(exec, "batches", columns!(), tenant, id).await
}

/// A page of the tenant's jobs, without their items, and their total.
pub async fn list(
    db: &Database,
    tenant: Tenant,
    filter: &BatchFilter,
    sort: Sort,
    window: Window,
) -> Result<(Vec<BatchSummary>, u64)> {
    let mut f = Filter::new();
    f.eq("account_id", Arg::Int(tenant.account_id))
        .eq_opt("seller_id", tenant.seller_id.map(Arg::Int))
        .eq_opt("state", filter.state.map(|s| Arg::Text(s.as_str().into())));
    if let Some(ids) = &filter.shop_ids {
        f.any_of("shop_id", ids.iter().copied().map(Arg::Int));
    }
    let sql = list_sql(summary_columns!(), "batches", &f, sort, window);
    fetch_list!(Exec::Db(db), BatchSummary, sql, f)
}

/// The oldest unfinished job, if any.
pub async fn next_unfinished(db: &Database) -> Result<Option<Batch>> {
    with_conn!(Exec::Db(db), |c| {
        sqlx::query_as::<_, Batch>(concat!(
            "SELECT ",
            columns!(),
            " FROM batches WHERE state <> 'finished' ORDER BY id LIMIT 1"
        ))
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}

/// Saves a chunk's progress, finishing the job when every item is done; false (and
/// nothing written) when the job's progress is no longer the one `batch` was read with.
pub async fn save_progress(
    tx: &mut Tx,
    batch: &Batch,
    progress: &Progress<'_>,
    now: Timestamp,
) -> Result<bool> {
    let finished = progress.processed >= batch.summary.total;
    let state = if finished {
        BatchState::Finished
    } else {
        BatchState::Running
    };
    let updated = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query(
            "UPDATE batches SET state = $1, processed = $2, succeeded = $3, failed = $4, \
             invalid_items = $5, updated_on = $6, finished_on = $7 \
             WHERE id = $8 AND processed = $9 AND state <> 'finished'",
        )
        .bind(state.as_str())
        .bind(progress.processed)
        .bind(progress.succeeded)
        .bind(progress.failed)
        .bind(to_text(progress.invalid_items))
        .bind(now.as_micros())
        .bind(finished.then_some(now.as_micros()))
        .bind(batch.summary.id)
        .bind(batch.summary.processed)
        .execute(c)
        .await
        .map(|done| done.rows_affected())
    })?;
    Ok(updated == 1)
}
