//! The one order in which writes take row locks, and the helpers that take them.
//!
//! Two transactions deadlock when each waits for a row the other holds. They cannot when
//! every write takes its locks in one order, so this is that order, for every write path
//! of the API (and the helpers below take the locks it names). PostgreSQL runs each
//! transaction at READ COMMITTED: a row lock is taken by `SELECT … FOR …`, by UPDATE and
//! DELETE (on every row changed, also through `ON DELETE CASCADE`), and by a foreign-key
//! check, which holds the parent row `FOR KEY SHARE` (it only conflicts with deleting the
//! parent or changing its key). SQLite needs none of this: every write transaction begins
//! `IMMEDIATE` on the one writer connection, so writes run one at a time, and the helpers
//! do nothing there.
//!
//! Levels, taken first to last (rows of one level in id order):
//!
//! 1. **orders**: the order an edit or a move changes (`FOR UPDATE`).
//! 2. **sellers**, as the lock of the seller's catalog: shared (`FOR SHARE`) by every write
//!    to one of its products (create, update, delete, variants, images, stock, order moves
//!    that take or give back stock), exclusive (`FOR NO KEY UPDATE`) by every write to one
//!    of its smart collections. Smart memberships depend on the rules and on every product; this
//!    one row makes the two kinds of writes take turns, while writes to different products
//!    go on side by side (shared locks do not conflict, and foreign-key checks on the
//!    seller conflict with neither).
//! 3. **shops**: a shop's settings, its order-code and document-number counters (a
//!    document is asked for with its order held at level 1), its roster of admins (every
//!    roster write holds the shop `FOR NO KEY UPDATE` before it reads the roster, so two
//!    writes cannot both count the other owner; an invitation's codes are taken before
//!    the rows they accept, by accepting and withdrawing alike).
//! 4. **manual collections**: `FOR UPDATE` by writes to the collection (its members and
//!    their order, the collection itself); `FOR NO KEY UPDATE` by product writes that change
//!    its members (deleting a member, changing a product's `collection_ids`). Smart
//!    collections are guarded by level 2 instead.
//! 5. **products**: `FOR UPDATE` by writes to the product (its fields, variants, images,
//!    stock), `FOR KEY SHARE` by writes that only need it to stay (a collection gaining or
//!    losing it).
//! 6. **variants** of the product (and its images), `FOR UPDATE` or, for price-list items
//!    naming them, `FOR SHARE`.
//! 7. **price lists**: a list's row, before its items and its `items_count`.
//! 8. **what a product write keeps up to date after the product**: the product types it
//!    names (`FOR KEY SHARE`, then `products_count`), the memberships and
//!    `products_count` of smart collections (rows in id order), the seller's product
//!    counts. Their other writers hold the seller exclusively (smart collections) or lock
//!    nothing else (product types), so none of them ever waits for a product.
//! 9. **customers**: a customer's row, `FOR NO KEY UPDATE` by writes to the customer (its
//!    fields, addresses, tags) and by order moves that change its figures, after everything
//!    else the move locks. Deleting a customer unlinks its orders through the foreign key, so
//!    it first locks those orders (level 1), then the customer.
//! 10. **webhooks**: a subscription's row; the deliveries an event fans out to hold it
//!     `FOR KEY SHARE` through their foreign key.
//! 11. **the outbox**: events and their deliveries, written last.
//!
//! A row whose other writers wait for nothing after taking it (a product type, a shop, a
//! webhook, a new row) cannot close a cycle, so a write may take it earlier than its
//! level says: a product write checks the type it names while still validating, and a
//! foreign-key check holds its parent whenever the child is written. The order binds
//! every lock a writer may hold while it waits for another.
//!
//! A row that is changed but never deleted or re-keyed by the write is locked `FOR NO KEY
//! UPDATE` where rows that name it are written in the same transaction. Writing a child
//! holds its parent `FOR KEY SHARE` (its foreign-key check, made again whenever a row the
//! transaction wrote already is updated: an order saved twice holds its customer so), and
//! `FOR UPDATE` conflicts with that: two transactions that each hold a customer through
//! one of its orders, then lock it `FOR UPDATE` to count the order, wait for each other.
//! `FOR NO KEY UPDATE` does not conflict with `FOR KEY SHARE`, so they take turns instead.
//!
//! Where a write must read before it knows which rows to lock (a product's manual
//! collections), it reads, locks, then checks under the lock that nothing it read has
//! changed; if something has, it fails with `Error::LockOrderChanged`, and the transaction
//! runner runs it again. Whatever deadlock remains (a path that strays from the order) is
//! the runner's to retry as well.

use crate::Tenant;
use crate::db::{Backend, Exec, Tx};
use crate::error::{Error, Result};
use crate::sql::{Arg, Params};

/// How a write holds its seller's catalog (level 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Catalog {
    /// A write to one of the seller's products.
    Shared,
    /// A write to one of the seller's smart collections.
    Exclusive,
}

/// Takes the seller's catalog lock (level 2).
pub async fn seller_catalog(tx: &mut Tx, seller_id: i64, mode: Catalog) -> Result<()> {
    if tx.backend() == Backend::Sqlite {
        return Ok(());
    }
    let sql = format!(
        "SELECT id FROM sellers WHERE id = $1 {}",
        catalog_clause(mode)
    );
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(seller_id)
            .execute(c)
            .await
            .map(|_| ())
    })?;
    Ok(())
}

/// Takes the catalog lock of the seller of a product of the tenant, found through the
/// product without locking it (level 2, before the product's own lock). Answers whether
/// the tenant has such a product (on SQLite, always `true`: the product's own read says).
pub async fn seller_catalog_of_product(
    tx: &mut Tx,
    tenant: Tenant,
    product_id: i64,
    mode: Catalog,
) -> Result<bool> {
    if tx.backend() == Backend::Sqlite {
        return Ok(true);
    }
    let sql = format!(
        "SELECT s.id FROM sellers s JOIN products p ON p.seller_id = s.id \
         WHERE p.id = $1 AND p.account_id = $2 AND ($3 IS NULL OR p.seller_id = $3) {} OF s",
        catalog_clause(mode)
    );
    let found: Option<(i64,)> = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(product_id)
            .bind(tenant.account_id)
            .bind(tenant.seller_id)
            .fetch_optional(c)
            .await
    })?;
    Ok(found.is_some())
}

fn catalog_clause(mode: Catalog) -> &'static str {
    match mode {
        Catalog::Shared => "FOR SHARE",
        Catalog::Exclusive => "FOR NO KEY UPDATE",
    }
}

/// Takes, before the product (level 4), the tenant's manual collections a write to it
/// changes: the ones holding it now (none for a new product) and `joining` (ids the
/// request names, checked later). Answers the ones locked, in id order (on SQLite, none:
/// nothing needs locking there).
pub async fn manual_collections(
    tx: &mut Tx,
    tenant: Tenant,
    product_id: Option<i64>,
    joining: &[i64],
) -> Result<Vec<i64>> {
    if tx.backend() == Backend::Sqlite || (product_id.is_none() && joining.is_empty()) {
        return Ok(Vec::new());
    }
    let mut p = Params::new();
    let owner = format!(
        "account_id = {} AND ({seller} IS NULL OR seller_id = {seller})",
        p.bind(Arg::Int(tenant.account_id)),
        seller = p.bind(Arg::MaybeInt(tenant.seller_id)),
    );
    let mut sources = Vec::with_capacity(2);
    if let Some(id) = product_id {
        sources.push(format!(
            "id IN (SELECT collection_id FROM collection_products WHERE product_id = {})",
            p.bind(Arg::Int(id))
        ));
    }
    if !joining.is_empty() {
        sources.push(format!(
            "id IN ({})",
            p.bind_all(joining.iter().copied().map(Arg::Int))
        ));
    }
    let sql = format!(
        "SELECT id FROM collections WHERE kind = 'manual' AND {owner} AND ({}) \
         ORDER BY id FOR NO KEY UPDATE",
        sources.join(" OR ")
    );
    let rows: Vec<(i64,)> = fetch_all_bound!(Exec::Tx(tx), (i64,), sql, p.args())?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
}

/// Checks, once the product is locked, that every manual collection holding it is among
/// `locked` (one joined it between `manual_collections` and the product's lock: the work
/// is run again, taking it in order).
pub async fn confirm_manual_collections(
    tx: &mut Tx,
    product_id: i64,
    locked: &[i64],
) -> Result<()> {
    if tx.backend() == Backend::Sqlite {
        return Ok(());
    }
    let rows: Vec<(i64,)> = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as(
            "SELECT cp.collection_id FROM collection_products cp \
             JOIN collections c ON c.id = cp.collection_id \
             WHERE cp.product_id = $1 AND c.kind = 'manual'",
        )
        .bind(product_id)
        .fetch_all(c)
        .await
    })?;
    if rows.iter().all(|(id,)| locked.contains(id)) {
        Ok(())
    } else {
        Err(Error::LockOrderChanged)
    }
}

/// Takes subscriptions' rows (level 9) in id order, before any of their deliveries is
/// changed, as deleting a subscription does.
pub async fn webhooks(tx: &mut Tx, ids: &[i64]) -> Result<()> {
    if ids.is_empty() || tx.backend() == Backend::Sqlite {
        return Ok(());
    }
    let mut ids = ids.to_vec();
    ids.sort_unstable();
    ids.dedup();
    let mut p = Params::new();
    let sql = format!(
        "SELECT id FROM webhooks WHERE id IN ({}) ORDER BY id FOR NO KEY UPDATE",
        p.bind_all(ids.iter().copied().map(Arg::Int))
    );
    let _: Vec<(i64,)> = fetch_all_bound!(Exec::Tx(tx), (i64,), sql, p.args())?;
    Ok(())
}

/// `WHERE` condition for an UPDATE of several rows of `table` by id: on PostgreSQL the
/// rows are locked in id order first (an UPDATE alone locks them in whatever order its
/// plan visits them, and two such UPDATEs could each wait for the other).
pub(crate) fn ids_in_order(backend: Backend, table: &str, ids: &str) -> String {
    match backend {
        Backend::Sqlite => format!("id IN ({ids})"),
        Backend::Postgres => format!(
            "id IN (SELECT id FROM {table} WHERE id IN ({ids}) ORDER BY id FOR NO KEY UPDATE)"
        ),
    }
}

/// ` FOR …` to append to a SELECT of rows to hold on PostgreSQL (nothing on SQLite).
pub(crate) fn clause(backend: Backend, lock: &'static str) -> &'static str {
    match backend {
        Backend::Sqlite => "",
        Backend::Postgres => lock,
    }
}
