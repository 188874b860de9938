//! Order documents (invoices, packing slips): one row each, numbered per shop and kind
//! from a counter bumped in the writing transaction, and their rendered bytes in a table
//! beside it, so that listing never reads them. Rows are never deleted: numbers have no
//! gaps.

use domain::Timestamp;
use domain::document::{DocumentKind, DocumentStatus, FIRST_NUMBER};

use crate::Tenant;
use crate::db::{Database, Exec, Tx};
use crate::error::Result;
use crate::sql::{Arg, Filter, Sort, Window, list_sql};
use crate::write::Columns;

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Document {
    pub id: i64,
    pub account_id: i64,
    pub seller_id: i64,
    pub shop_id: i64,
    pub order_id: i64,
    #[sqlx(try_from = "String")]
    pub kind: DocumentKind,
    pub number: i64,
    #[sqlx(try_from = "String")]
    pub status: DocumentStatus,
    pub attempts: i64,
    pub failure_reason: Option<String>,
    pub byte_size: Option<i64>,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
    pub generated_on: Option<Timestamp>,
}

macro_rules! columns {
    () => {
        "id, account_id, seller_id, shop_id, order_id, kind, number, status, attempts, failure_reason, \
         byte_size, created_on, updated_on, generated_on"
    };
}

/// Fields a list of an order's documents may be sorted by (indexed with the order).
pub const SORT_FIELDS: &[&str] = &["id"];

/// A new document of an order, pending.
pub struct NewDocument {
    pub account_id: i64,
    pub seller_id: i64,
    pub shop_id: i64,
    pub order_id: i64,
    pub kind: DocumentKind,
    pub number: i64,
}

/// The next number of the shop's documents of `kind` (1001 first), reserved in the
/// caller's transaction: the counter's row stays locked until it ends, so concurrent
/// writers take numbers one after another, and a rolled-back one gives its number back.
pub async fn next_number(tx: &mut Tx, shop_id: i64, kind: DocumentKind) -> Result<i64> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_scalar(
            "INSERT INTO order_document_numbers (shop_id, kind, last_number) VALUES ($1, $2, $3) \
             ON CONFLICT (shop_id, kind) DO UPDATE \
             SET last_number = order_document_numbers.last_number + 1 RETURNING last_number",
        )
        .bind(shop_id)
        .bind(kind.as_str())
        .bind(FIRST_NUMBER)
        .fetch_one(c)
        .await
    })
    .map_err(Into::into)
}

/// Writes a pending document, due at once; its id.
pub async fn insert(tx: &mut Tx, new: &NewDocument, now: Timestamp) -> Result<i64> {
    Columns::new()
        .set("account_id", new.account_id)
        .set("seller_id", new.seller_id)
        .set("shop_id", new.shop_id)
        .set("order_id", new.order_id)
        .set("kind", new.kind.as_str())
        .set("number", new.number)
        .set("status", DocumentStatus::Pending.as_str())
        .set("attempts", 0_i64)
        .set("next_attempt_on", now)
        .set("created_on", now)
        .set("updated_on", now)
        .insert_into("order_documents")
        .fetch_id(tx)
        .await
}

/// The tenant's document of this order with this id.
pub async fn find<'a>(
    exec: impl Into<Exec<'a>>,
    tenant: Tenant,
    order_id: i64,
    id: i64,
) -> Result<Option<Document>> {
    with_conn!(exec.into(), |c| {
        sqlx::query_as::<_, Document>(concat!(
            "SELECT ",
            columns!(),
            " FROM order_documents WHERE id = $1 AND order_id = $2 AND account_id = $3 \
             AND ($4 IS NULL OR seller_id = $4)"
        ))
        .bind(id)
        .bind(order_id)
        .bind(tenant.account_id)
        .bind(tenant.seller_id)
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}

/// A page of an order's documents (the caller has found the order in its tenant) and
/// their total.
pub async fn list(
    db: &Database,
    order_id: i64,
    sort: Sort,
    window: Window,
) -> Result<(Vec<Document>, u64)> {
    let mut f = Filter::new();
    f.eq("order_id", Arg::Int(order_id));
    let sql = list_sql(columns!(), "order_documents", &f, sort, window);
    fetch_list!(Exec::Db(db), Document, sql, f)
}

/// Pending documents due by `now`, in due order, up to `limit`.
pub async fn due(db: &Database, now: Timestamp, limit: i64) -> Result<Vec<Document>> {
    with_conn!(Exec::Db(db), |c| {
        sqlx::query_as::<_, Document>(concat!(
            "SELECT ",
            columns!(),
            " FROM order_documents WHERE status = 'pending' AND next_attempt_on <= $1 \
             ORDER BY next_attempt_on, id LIMIT $2"
        ))
        .bind(now.as_micros())
        .bind(limit)
        .fetch_all(c)
        .await
    })
    .map_err(Into::into)
}

/// Stores a pending document's file and marks it ready; false (and nothing written) when
/// it is no longer pending (another node rendered it first).
pub async fn store_file(
    tx: &mut Tx,
    document: &Document,
    data: &[u8],
    now: Timestamp,
) -> Result<bool> {
    let size = i64::try_from(data.len()).unwrap_or(i64::MAX);
    let updated = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query(
            "UPDATE order_documents SET status = 'ready', byte_size = $1, generated_on = $2, updated_on = $2, \
             attempts = attempts + 1, failure_reason = NULL WHERE id = $3 AND status = 'pending'",
        )
        .bind(size)
        .bind(now.as_micros())
        .bind(document.id)
        .execute(c)
        .await
        .map(|done| done.rows_affected())
    })?;
    if updated == 0 {
        return Ok(false);
    }
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query(
            "INSERT INTO order_document_files (document_id, account_id, data) VALUES ($1, $2, $3)",
        )
        .bind(document.id)
        .bind(document.account_id)
        .bind(data)
        .execute(c)
        .await
        .map(|_| ())
    })?;
    Ok(true)
}

/// Records a failed rendering of a pending document: tried again at `retry_on`, or, with
/// none, marked failed for good with `reason`.
pub async fn record_failure(
    tx: &mut Tx,
    document: &Document,
    reason: &str,
    retry_on: Option<Timestamp>,
    now: Timestamp,
) -> Result<()> {
    let status = match retry_on {
        Some(_) => DocumentStatus::Pending,
        None => DocumentStatus::Failed,
    };
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query(
            "UPDATE order_documents SET status = $1, attempts = attempts + 1, failure_reason = $2, \
             next_attempt_on = $3, updated_on = $4 WHERE id = $5 AND status = 'pending'",
        )
        .bind(status.as_str())
        .bind(reason)
        .bind(retry_on.unwrap_or(now).as_micros())
        .bind(now.as_micros())
        .bind(document.id)
        .execute(c)
        .await
        .map(|_| ())
    })
    .map_err(Into::into)
}

/// The bytes of a ready document (the caller has found it in its tenant).
pub async fn file<'a>(exec: impl Into<Exec<'a>>, document_id: i64) -> Result<Option<Vec<u8>>> {
    with_conn!(exec.into(), |c| {
        sqlx::query_scalar("SELECT data FROM order_document_files WHERE document_id = $1")
            .bind(document_id)
            .fetch_optional(c)
            .await
    })
    .map_err(Into::into)
}
