//! Collections and their members. A manual collection holds what was put in it, in the
//! order given; a smart collection holds what its rules select, recomputed in the same
//! transaction as every change to a product or to the rules. `products_count` is kept
//! with every change of membership.

mod rules;

use std::collections::HashMap;

use domain::Timestamp;
use domain::catalog::collection::{CollectionKind, Rule, RuleMatch, SortOrder};

use crate::Tenant;
use crate::db::{Backend, Database, Exec, Tx};
use crate::error::Result;
use crate::json::{JsonText, to_text};
use crate::locks::{self, Catalog};
use crate::sql::{Arg, Filter, Params, Sort, Window, list_sql};
use crate::tenant_rows::{self, TenantTable};
use crate::write::{Columns, execute_bound};

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Collection {
    pub id: i64,
    pub account_id: i64,
    pub seller_id: i64,
    pub title: String,
    pub slug: String,
    pub description: String,
    #[sqlx(try_from = "String")]
    pub kind: CollectionKind,
    #[sqlx(try_from = "String")]
    pub rules: JsonText<Vec<Rule>>,
    #[sqlx(try_from = "String")]
    pub rule_match: RuleMatch,
    #[sqlx(try_from = "String")]
    pub sort_order: SortOrder,
    pub products_count: i64,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
}

macro_rules! columns {
    () => {
        "id, account_id, seller_id, title, slug, description, kind, rules, rule_match, sort_order, \
         products_count, created_on, updated_on"
    };
}

/// Fields a collection list may be sorted by; each is indexed with the account.
pub const SORT_FIELDS: &[&str] = &["id", "title", "created_on", "updated_on"];

/// What a collection is written with.
#[derive(Clone, Debug, PartialEq)]
pub struct CollectionData {
    pub title: String,
    pub slug: String,
    pub description: String,
    pub kind: CollectionKind,
    pub rules: Vec<Rule>,
    pub rule_match: RuleMatch,
    pub sort_order: SortOrder,
}

impl Collection {
    pub fn data(&self) -> CollectionData {
        CollectionData {
            title: self.title.clone(),
            slug: self.slug.clone(),
            description: self.description.clone(),
            kind: self.kind,
            rules: self.rules.0.clone(),
            rule_match: self.rule_match,
            sort_order: self.sort_order,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct CollectionFilter {
    pub seller_ids: Option<Vec<i64>>,
    pub kind: Option<CollectionKind>,
    /// Collections holding any of these products.
    pub product_ids: Option<Vec<i64>>,
    pub q: Option<String>,
    pub created_on: crate::sql::TimeRange,
    pub updated_on: crate::sql::TimeRange,
}

/// The columns `data` writes, on insert and update alike (the kind is set once, on insert).
fn written(data: &CollectionData) -> Columns {
    Columns::new()
        .set("title", &data.title)
        .set("slug", &data.slug)
        .set("description", &data.description)
        .set("rules", to_text(&data.rules))
        .set("rule_match", data.rule_match.as_str())
        .set("sort_order", data.sort_order.as_str())
}

pub async fn insert(
    tx: &mut Tx,
    account_id: i64,
    seller_id: i64,
    data: &CollectionData,
    now: Timestamp,
) -> Result<Collection> {
    let id = written(data)
        .set("account_id", account_id)
        .set("seller_id", seller_id)
        .set("kind", data.kind.as_str())
        .set("created_on", now)
        .set("updated_on", now)
        .insert_into("collections")
        .fetch_id(tx)
        .await?;
    if data.kind == CollectionKind::Smart {
        recompute(tx, id, seller_id, &data.rules, data.rule_match).await?;
    }
    reread(tx, id).await
}

/// Writes `data` over a collection the caller has locked; a smart collection whose rules
/// changed gets its members recomputed.
pub async fn update(
    tx: &mut Tx,
    before: &Collection,
    data: &CollectionData,
    now: Timestamp,
) -> Result<Collection> {
    written(data)
        .set("updated_on", now)
        .update("collections", before.id)
        .execute(tx)
        .await?;
    if data.kind == CollectionKind::Smart
        && (data.rules != before.rules.0 || data.rule_match != before.rule_match)
    {
        recompute(
            tx,
            before.id,
            before.seller_id,
            &data.rules,
            data.rule_match,
        )
        .await?;
    }
    reread(tx, before.id).await
}

/// Where its rows are deleted, with `tenant_rows::delete`.
pub const TABLE: TenantTable = TenantTable::new("collections");

async fn reread(tx: &mut Tx, id: i64) -> Result<Collection> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, Collection>(concat!(
            "SELECT ",
            columns!(),
            " FROM collections WHERE id = $1"
        ))
        .bind(id)
        .fetch_one(c)
        .await
    })
    .map_err(Into::into)
}

/// Replaces a smart collection's members with the seller's products its rules select.
async fn recompute(
    tx: &mut Tx,
    id: i64,
    seller_id: i64,
    rules: &[Rule],
    mode: RuleMatch,
) -> Result<()> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query("DELETE FROM collection_products WHERE collection_id = $1")
            .bind(id)
            .execute(c)
            .await
            .map(|_| ())
    })?;
    let mut p = Params::new();
    let sql = format!(
        "INSERT INTO collection_products (collection_id, product_id, position) \
         SELECT {}, id, 0 FROM products WHERE seller_id = {} AND {}",
        p.bind(Arg::Int(id)),
        p.bind(Arg::Int(seller_id)),
        rules::condition(tx.backend(), rules, mode, &mut p)
    );
    execute_bound(tx, sql, p.args()).await?;
    recount(tx, &[id]).await
}

/// Sets `products_count` of these collections from their members, locking them in id
/// order.
async fn recount(tx: &mut Tx, ids: &[i64]) -> Result<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let mut p = Params::new();
    let ids = p.bind_all(ids.iter().copied().map(Arg::Int));
    let sql = format!(
        "UPDATE collections SET products_count = \
         (SELECT COUNT(*) FROM collection_products cp WHERE cp.collection_id = collections.id) \
         WHERE {}",
        locks::ids_in_order(tx.backend(), "collections", &ids)
    );
    execute_bound(tx, sql, p.args()).await
}

/// Brings the product's membership of the seller's smart collections up to date after the
/// product, its variants or its tags changed.
pub async fn refresh_product(tx: &mut Tx, seller_id: i64, product_id: i64) -> Result<()> {
    let smart = of_seller(tx, seller_id, CollectionKind::Smart).await?;
    if smart.is_empty() {
        return Ok(());
    }
    let backend = tx.backend();
    let mut p = Params::new();
    let product = p.bind(Arg::Int(product_id));
    let selects: Vec<String> = smart
        .iter()
        .map(|c| {
            format!(
                "SELECT {} AS collection_id FROM products WHERE id = {product} AND {}",
                p.bind(Arg::Int(c.id)),
                rules::condition(backend, &c.rules.0, c.rule_match, &mut p)
            )
        })
        .collect();
    let matching: Vec<(i64,)> =
        fetch_all_bound!(Exec::Tx(tx), (i64,), selects.join(" UNION ALL "), p.args())?;
    let matching: Vec<i64> = matching.into_iter().map(|(id,)| id).collect();
    let smart_ids: Vec<i64> = smart.iter().map(|c| c.id).collect();
    let current = memberships(tx, product_id, &smart_ids).await?;
    let added: Vec<i64> = matching
        .iter()
        .copied()
        .filter(|id| !current.contains(id))
        .collect();
    let removed: Vec<i64> = current
        .iter()
        .copied()
        .filter(|id| !matching.contains(id))
        .collect();
    crate::write::insert_rows(
        tx,
        "collection_products (collection_id, product_id, position)",
        added
            .iter()
            .map(|&c| [Arg::Int(c), Arg::Int(product_id), Arg::Int(0)]),
    )
    .await?;
    if !removed.is_empty() {
        let mut p = Params::new();
        let sql = format!(
            "DELETE FROM collection_products WHERE product_id = {} AND collection_id IN ({})",
            p.bind(Arg::Int(product_id)),
            p.bind_all(removed.iter().copied().map(Arg::Int))
        );
        execute_bound(tx, sql, p.args()).await?;
    }
    let changed: Vec<i64> = added.into_iter().chain(removed).collect();
    recount(tx, &changed).await
}

/// The collections among `ids` that hold the product.
async fn memberships(tx: &mut Tx, product_id: i64, ids: &[i64]) -> Result<Vec<i64>> {
    let mut f = Filter::new();
    f.eq("product_id", Arg::Int(product_id))
        .any_of("collection_id", ids.iter().copied().map(Arg::Int));
    let sql = format!(
        "SELECT collection_id FROM collection_products{}",
        f.where_sql()
    );
    let rows: Vec<(i64,)> = fetch_all_bound!(Exec::Tx(tx), (i64,), sql, f.args())?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
}

/// Takes a product out of every collection (before it is deleted), keeping the counts.
pub async fn forget_product(tx: &mut Tx, product_id: i64) -> Result<()> {
    let held: Vec<(i64,)> = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as("SELECT collection_id FROM collection_products WHERE product_id = $1")
            .bind(product_id)
            .fetch_all(c)
            .await
    })?;
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query("DELETE FROM collection_products WHERE product_id = $1")
            .bind(product_id)
            .execute(c)
            .await
            .map(|_| ())
    })?;
    let ids: Vec<i64> = held.into_iter().map(|(id,)| id).collect();
    recount(tx, &ids).await
}

/// Puts a product in a manual collection at `position` (1 is first; the end when `None`).
/// Answers whether it was not there already.
pub async fn add_product(
    tx: &mut Tx,
    collection_id: i64,
    product_id: i64,
    position: Option<i64>,
) -> Result<bool> {
    let (last, present): (Option<i64>, i64) = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as(
            "SELECT MAX(position), COUNT(CASE WHEN product_id = $2 THEN 1 END) FROM collection_products \
             WHERE collection_id = $1",
        )
        .bind(collection_id)
        .bind(product_id)
        .fetch_one(c)
        .await
    })?;
    if present > 0 {
        return Ok(false);
    }
    // Positions grow by one per member added, so they stay far from overflowing.
    let end = last.unwrap_or(0).saturating_add(1);
    let position = match position {
        Some(p) if p < end => {
            with_conn!(Exec::Tx(tx), |c| {
                sqlx::query(
                    "UPDATE collection_products SET position = position + 1 \
                     WHERE collection_id = $1 AND position >= $2",
                )
                .bind(collection_id)
                .bind(p)
                .execute(c)
                .await
                .map(|_| ())
            })?;
            p
        }
        _ => end,
    };
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query(
            "INSERT INTO collection_products (collection_id, product_id, position) VALUES ($1, $2, $3)",
        )
        .bind(collection_id)
        .bind(product_id)
        .bind(position)
        .execute(c)
        .await
        .map(|_| ())
    })?;
    recount(tx, &[collection_id]).await?;
    Ok(true)
}

/// Takes a product out of a manual collection; answers whether it was there.
pub async fn remove_product(tx: &mut Tx, collection_id: i64, product_id: i64) -> Result<bool> {
    let removed = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query("DELETE FROM collection_products WHERE collection_id = $1 AND product_id = $2")
            .bind(collection_id)
            .bind(product_id)
            .execute(c)
            .await
            .map(|done| done.rows_affected())
    })?;
    if removed > 0 {
        recount(tx, &[collection_id]).await?;
    }
    Ok(removed > 0)
}

/// Moves `product_ids` (members, in this order) before every other member, whose order
/// stays as it was.
pub async fn move_to_front(tx: &mut Tx, collection_id: i64, product_ids: &[i64]) -> Result<()> {
    let first: Option<i64> = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_scalar("SELECT MIN(position) FROM collection_products WHERE collection_id = $1")
            .bind(collection_id)
            .fetch_one(c)
            .await
    })?;
    let count = i64::try_from(product_ids.len()).unwrap_or(i64::MAX);
    let start = first.unwrap_or(1).saturating_sub(count);
    let mut p = Params::new();
    let cases: Vec<String> = product_ids
        .iter()
        .zip(start..)
        .map(|(&id, position)| {
            format!(
                "WHEN {} THEN {}",
                p.bind(Arg::Int(id)),
                p.bind(Arg::Int(position))
            )
        })
        .collect();
    let sql = format!(
        "UPDATE collection_products SET position = CASE product_id {} END \
         WHERE collection_id = {} AND product_id IN ({})",
        cases.join(" "),
        p.bind(Arg::Int(collection_id)),
        p.bind_all(product_ids.iter().copied().map(Arg::Int))
    );
    execute_bound(tx, sql, p.args()).await
}

/// Which of `product_ids` are members of the collection.
pub async fn members_among(
    tx: &mut Tx,
    collection_id: i64,
    product_ids: &[i64],
) -> Result<Vec<i64>> {
    let mut f = Filter::new();
    f.eq("collection_id", Arg::Int(collection_id))
        .any_of("product_id", product_ids.iter().copied().map(Arg::Int));
    let sql = format!(
        "SELECT product_id FROM collection_products{}",
        f.where_sql()
    );
    let rows: Vec<(i64,)> = fetch_all_bound!(Exec::Tx(tx), (i64,), sql, f.args())?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
}

/// The collections of a seller of one kind.
pub async fn of_seller(
    tx: &mut Tx,
    seller_id: i64,
    kind: CollectionKind,
) -> Result<Vec<Collection>> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, Collection>(concat!(
            "SELECT ",
            columns!(),
            " FROM collections WHERE seller_id = $1 AND kind = $2 ORDER BY id"
        ))
        .bind(seller_id)
        .bind(kind.as_str())
        .fetch_all(c)
        .await
    })
    .map_err(Into::into)
}

/// The collections holding each of these products, in one query.
pub async fn ids_of_products<'a>(
    exec: impl Into<Exec<'a>>,
    product_ids: &[i64],
) -> Result<HashMap<i64, Vec<i64>>> {
    let mut by_product: HashMap<i64, Vec<i64>> =
        product_ids.iter().map(|&id| (id, Vec::new())).collect();
    if product_ids.is_empty() {
        return Ok(by_product);
    }
    let mut f = Filter::new();
    f.any_of("product_id", product_ids.iter().copied().map(Arg::Int));
    let sql = format!(
        "SELECT product_id, collection_id FROM collection_products{} ORDER BY product_id, collection_id",
        f.where_sql()
    );
    let rows: Vec<(i64, i64)> = fetch_all_bound!(exec.into(), (i64, i64), sql, f.args())?;
    for (product, collection) in rows {
        by_product.entry(product).or_default().push(collection);
    }
    Ok(by_product)
}

/// The tenant's collections among `ids` (to check the ones a request names).
pub async fn of_tenant_among(tx: &mut Tx, tenant: Tenant, ids: &[i64]) -> Result<Vec<Collection>> {
    let mut f = Filter::new();
    f.eq("account_id", Arg::Int(tenant.account_id))
        .eq_opt("seller_id", tenant.seller_id.map(Arg::Int))
        .any_of("id", ids.iter().copied().map(Arg::Int));
    let sql = format!("SELECT {} FROM collections{}", columns!(), f.where_sql());
    Ok(fetch_all_bound!(Exec::Tx(tx), Collection, sql, f.args())?)
}

pub async fn find<'a>(
    exec: impl Into<Exec<'a>>,
    tenant: Tenant,
    id: i64,
) -> Result<Option<Collection>> {
    tenant_rows::find(exec, "collections", columns!(), tenant, id).await
}

/// Reads a collection and holds it against concurrent writers until the transaction ends.
pub async fn find_for_update(tx: &mut Tx, tenant: Tenant, id: i64) -> Result<Option<Collection>> {
    tenant_rows::find_for_update(tx, "collections", columns!(), tenant, id).await
}

/// As `find_for_update`, for a change to the collection itself (its fields, rules, or its
/// deletion), in the order of `locks`: a smart collection's members depend on every
/// product of its seller, so the seller's catalog is taken exclusively first. A
/// collection's kind never changes, so reading it first tells which locks to take.
pub async fn find_for_change(tx: &mut Tx, tenant: Tenant, id: i64) -> Result<Option<Collection>> {
    if tx.backend() == Backend::Postgres {
        let Some(found) = find(&mut *tx, tenant, id).await? else {
            return Ok(None);
        };
        if found.kind == CollectionKind::Smart {
            locks::seller_catalog(tx, found.seller_id, Catalog::Exclusive).await?;
        }
    }
    find_for_update(tx, tenant, id).await
}

pub async fn list(
    db: &Database,
    tenant: Tenant,
    filter: &CollectionFilter,
    sort: Sort,
    window: Window,
) -> Result<(Vec<Collection>, u64)> {
    let mut f = Filter::new();
    f.eq("account_id", Arg::Int(tenant.account_id))
        .eq_opt("seller_id", tenant.seller_id.map(Arg::Int));
    if let Some(ids) = &filter.seller_ids {
        f.any_of("seller_id", ids.iter().copied().map(Arg::Int));
    }
    f.eq_opt("kind", filter.kind.map(|k| Arg::Text(k.as_str().into())));
    if let Some(ids) = &filter.product_ids {
        f.condition(|p| {
            format!(
                "id IN (SELECT collection_id FROM collection_products WHERE product_id IN ({}))",
                p.bind_all(ids.iter().copied().map(Arg::Int))
            )
        });
    }
    if let Some(q) = &filter.q {
        f.contains_text(&["title", "slug"], q);
    }
    f.range("created_on", filter.created_on.0, filter.created_on.1)
        .range("updated_on", filter.updated_on.0, filter.updated_on.1);
    let sql = list_sql(columns!(), "collections", &f, sort, window);
    fetch_list!(Exec::Db(db), Collection, sql, f)
}

/// Marks the collection changed (its members or their order changed).
pub async fn touch(tx: &mut Tx, id: i64, now: Timestamp) -> Result<Collection> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query("UPDATE collections SET updated_on = $2 WHERE id = $1")
            .bind(id)
            .bind(now.as_micros())
            .execute(c)
            .await
            .map(|_| ())
    })?;
    reread(tx, id).await
}
