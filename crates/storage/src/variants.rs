//! Variants: the sellable versions of a product, each with its SKU, price and stock. Stock
//! changes are single conditional updates, never a read followed by a write, so that
//! concurrent changes neither get lost nor take stock below zero without backorders.

use std::collections::HashMap;

use domain::{Timestamp, limits};
use serde_json::{Map, Value};

use crate::Tenant;
use crate::db::{Backend, Exec, Tx};
use crate::error::Result;
use crate::json::{JsonText, to_text};
use crate::sql::{Arg, Filter, Sort, Window, list_sql};
use crate::tenant_rows::{self, TenantTable};
use crate::write::Columns;

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Variant {
    pub id: i64,
    pub account_id: i64,
    pub seller_id: i64,
    pub product_id: i64,
    pub sku: Option<String>,
    pub title: String,
    #[sqlx(try_from = "String")]
    pub options: JsonText<Map<String, Value>>,
    pub price: i64,
    pub price_comparison: Option<i64>,
    pub stock: i64,
    pub available_if_no_stock: bool,
    pub weight_in_grams: Option<i64>,
    pub barcode: Option<String>,
    pub position: i64,
    #[sqlx(try_from = "String")]
    pub image_ids: JsonText<Vec<i64>>,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
}

macro_rules! columns {
    () => {
        "id, account_id, seller_id, product_id, sku, title, options, price, price_comparison, stock, \
         available_if_no_stock, weight_in_grams, barcode, position, image_ids, created_on, updated_on"
    };
}

/// Fields a variant list may be sorted by; each is indexed with the product.
pub const SORT_FIELDS: &[&str] = &["position", "id"];

/// What a variant is written with.
#[derive(Clone, Debug, PartialEq)]
pub struct VariantData {
    pub sku: Option<String>,
    pub title: String,
    pub options: Map<String, Value>,
    pub price: i64,
    pub price_comparison: Option<i64>,
    pub stock: i64,
    pub available_if_no_stock: bool,
    pub weight_in_grams: Option<i64>,
    pub barcode: Option<String>,
    pub position: i64,
    pub image_ids: Vec<i64>,
}

impl Variant {
    pub fn data(&self) -> VariantData {
        VariantData {
            sku: self.sku.clone(),
            title: self.title.clone(),
            options: self.options.0.clone(),
            price: self.price,
            price_comparison: self.price_comparison,
            stock: self.stock,
            available_if_no_stock: self.available_if_no_stock,
            weight_in_grams: self.weight_in_grams,
            barcode: self.barcode.clone(),
            position: self.position,
            image_ids: self.image_ids.0.clone(),
        }
    }
}

/// The product a variant belongs to, with its owners.
#[derive(Clone, Copy, Debug)]
pub struct Owner {
    pub account_id: i64,
    pub seller_id: i64,
    pub product_id: i64,
}

pub async fn insert(
    tx: &mut Tx,
    owner: Owner,
    data: &VariantData,
    now: Timestamp,
) -> Result<Variant> {
    written(data)
        .set("account_id", owner.account_id)
        .set("seller_id", owner.seller_id)
        .set("product_id", owner.product_id)
        .set("created_on", now)
        .set("updated_on", now)
        .insert_into("variants")
        .fetch_row(tx, columns!())
        .await
}

/// Writes `data` over a variant the caller has locked.
pub async fn update(tx: &mut Tx, id: i64, data: &VariantData, now: Timestamp) -> Result<Variant> {
    written(data)
        .set("updated_on", now)
        .update("variants", id)
        .fetch_row(tx, columns!())
        .await
}

/// The columns `data` writes, on insert and update alike.
fn written(data: &VariantData) -> Columns {
    Columns::new()
        .set("sku", &data.sku)
        .set("title", &data.title)
        .set("options", to_text(&data.options))
        .set("price", data.price)
        .set("price_comparison", data.price_comparison)
        .set("stock", data.stock)
        .set("available_if_no_stock", data.available_if_no_stock)
        .set("weight_in_grams", data.weight_in_grams)
        .set("barcode", &data.barcode)
        .set("position", data.position)
        .set("image_ids", to_text(&data.image_ids))
}

/// Where its rows are deleted, with `tenant_rows::delete`.
pub const TABLE: TenantTable = TenantTable::new("variants");

/// What a relative stock change did.
#[derive(Debug)]
pub enum StockChange {
    Applied(Box<Variant>),
    /// The variant does not sell on backorder and has too little stock (this much).
    Insufficient(i64),
    /// The stock (this much) would leave `limits::STOCK`.
    OutOfRange(i64),
    NotFound,
}

/// Adds `delta` (negative to take) to the stock in one conditional update: it applies
/// only while the result stays at or above zero, or the variant sells on backorder, and
/// within `limits::STOCK`. Stock and delta are both within that range, so the sum the
/// database computes cannot overflow.
pub async fn adjust_stock(
    tx: &mut Tx,
    product_id: i64,
    id: i64,
    delta: i64,
    now: Timestamp,
) -> Result<StockChange> {
    if !limits::STOCK.contains(delta) {
        return Ok(match find(&mut *tx, product_id, id).await? {
            Some(variant) => StockChange::OutOfRange(variant.stock),
            None => StockChange::NotFound,
        });
    }
    let changed = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, Variant>(concat!(
            "UPDATE variants SET stock = stock + $3, updated_on = $4 \
             WHERE id = $1 AND product_id = $2 AND (available_if_no_stock = TRUE OR stock + $3 >= 0) \
             AND stock + $3 BETWEEN $5 AND $6 RETURNING ",
            columns!()
        ))
        .bind(id)
        .bind(product_id)
        .bind(delta)
        .bind(now.as_micros())
        .bind(limits::STOCK.min)
        .bind(limits::STOCK.max)
        .fetch_optional(c)
        .await
    })?;
    Ok(match changed {
        Some(variant) => StockChange::Applied(Box::new(variant)),
        None => match find(&mut *tx, product_id, id).await? {
            Some(variant)
                if variant
                    .stock
                    .checked_add(delta)
                    .is_some_and(|stock| limits::STOCK.contains(stock)) =>
            {
                StockChange::Insufficient(variant.stock)
            }
            Some(variant) => StockChange::OutOfRange(variant.stock),
            None => StockChange::NotFound,
        },
    })
}

/// What a batch of stock changes needs of the variant's product, besides its id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StockOwner {
    pub account_id: i64,
    pub seller_id: i64,
    /// The product is in every shop of its seller.
    pub all_shops: bool,
    /// The seller has smart collections, whose members a stock change may change.
    pub has_smart_collections: bool,
}

#[derive(sqlx::FromRow)]
struct LockedForStock {
    #[sqlx(flatten)]
    variant: Variant,
    owner_account_id: i64,
    owner_seller_id: i64,
    owner_all_shops: bool,
    owner_has_smart: bool,
}

/// Takes the locks a stock change holds, in one statement, in the order of `locks`: the
/// seller's catalog, shared (level 2; its smart collections stay as they are while it is
/// held), the product (level 5) and the variant (level 6), both `FOR UPDATE`; answers the
/// variant as it is under the lock, with its owners, or `None` when the tenant has no such
/// product or variant. On SQLite, whose writers run one at a time, it only reads.
pub async fn lock_for_stock(
    tx: &mut Tx,
    tenant: crate::Tenant,
    product_id: i64,
    id: i64,
) -> Result<Option<(Variant, StockOwner)>> {
    let product = "SELECT id, account_id AS owner_account_id, seller_id AS owner_seller_id, \
                   all_shops AS owner_all_shops, EXISTS (SELECT 1 FROM collections c \
                   WHERE c.seller_id = products.seller_id AND c.kind = 'smart') AS owner_has_smart \
                   FROM products WHERE id = $2 AND account_id = $3 AND ($4 IS NULL OR seller_id = $4)";
    let (product, lock) = match tx.backend() {
        // Each MATERIALIZED query runs on its own, when the next one first reads it: the
        // seller is locked, then the product (which names it), then the variant.
        Backend::Postgres => (
            format!(
                "WITH s AS MATERIALIZED (SELECT s.id FROM sellers s JOIN products sp ON sp.seller_id = s.id \
                 WHERE sp.id = $2 AND sp.account_id = $3 AND ($4 IS NULL OR sp.seller_id = $4) \
                 FOR SHARE OF s), \
                 p AS MATERIALIZED ({product} AND seller_id = (SELECT id FROM s) FOR UPDATE)"
            ),
            " FOR UPDATE OF v",
        ),
        // One writer at a time: nothing to lock.
        Backend::Sqlite => (format!("WITH p AS ({product})"), ""),
    };
    let sql = format!(
        "{product} SELECT {}, p.owner_account_id, p.owner_seller_id, p.owner_all_shops, \
         p.owner_has_smart \
         FROM p JOIN variants v ON v.product_id = p.id WHERE v.id = $1{lock}",
        qualified_columns("v")
    );
    let locked: Option<LockedForStock> = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(product_id)
            .bind(tenant.account_id)
            .bind(tenant.seller_id)
            .fetch_optional(c)
            .await
    })?;
    Ok(locked.map(|l| {
        let owner = StockOwner {
            account_id: l.owner_account_id,
            seller_id: l.owner_seller_id,
            all_shops: l.owner_all_shops,
            has_smart_collections: l.owner_has_smart,
        };
        (l.variant, owner)
    }))
}

/// Sets the stock of a variant the caller holds locked with its product (see
/// `lock_for_stock`), and both their `updated_on`: one statement on PostgreSQL.
pub async fn set_stock(
    tx: &mut Tx,
    product_id: i64,
    id: i64,
    stock: i64,
    now: Timestamp,
) -> Result<()> {
    let variant = "UPDATE variants SET stock = $3, updated_on = $4 WHERE id = $2";
    let product = "UPDATE products SET updated_on = $4 WHERE id = $1";
    let statements = match tx.backend() {
        Backend::Postgres => vec![format!("WITH touched AS ({product}) {variant}")],
        Backend::Sqlite => vec![product.to_owned(), variant.to_owned()],
    };
    for sql in statements {
        with_conn!(Exec::Tx(tx), |c| {
            sqlx::query(sqlx::AssertSqlSafe(sql))
                .bind(product_id)
                .bind(id)
                .bind(stock)
                .bind(now.as_micros())
                .execute(c)
                .await
                .map(|_| ())
        })?;
    }
    Ok(())
}

/// Sets the stock as `set_stock` does and records the events that report it, in one
/// statement on PostgreSQL (for a write that holds the variant's busy lock meanwhile).
pub async fn set_stock_and_record(
    tx: &mut Tx,
    product_id: i64,
    id: i64,
    stock: i64,
    now: Timestamp,
    events: &[crate::events::NewEvent<'_>],
) -> Result<()> {
    if tx.backend() == Backend::Sqlite {
        set_stock(tx, product_id, id, stock, now).await?;
        return crate::outbox::record_all(tx, events, now).await;
    }
    let mut p = crate::sql::Params::new();
    let at = p.bind(Arg::Int(now.as_micros()));
    let writes = [
        format!(
            "UPDATE products SET updated_on = {at} WHERE id = {}",
            p.bind(Arg::Int(product_id))
        ),
        format!(
            "UPDATE variants SET stock = {}, updated_on = {at} WHERE id = {}",
            p.bind(Arg::Int(stock)),
            p.bind(Arg::Int(id))
        ),
    ];
    crate::outbox::record_all_after(tx, p, &writes, events, now).await
}

/// The variant columns, each prefixed with the table's alias.
fn qualified_columns(alias: &str) -> String {
    columns!()
        .split(',')
        .map(|column| format!("{alias}.{}", column.trim()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A variant of a product (the caller has checked the product's scope).
pub async fn find<'a>(
    exec: impl Into<Exec<'a>>,
    product_id: i64,
    id: i64,
) -> Result<Option<Variant>> {
    with_conn!(exec.into(), |c| {
        sqlx::query_as::<_, Variant>(concat!(
            "SELECT ",
            columns!(),
            " FROM variants WHERE id = $1 AND product_id = $2"
        ))
        .bind(id)
        .bind(product_id)
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}

/// Reads a variant and holds it against concurrent writers until the transaction ends.
pub async fn find_for_update(tx: &mut Tx, product_id: i64, id: i64) -> Result<Option<Variant>> {
    let lock = match tx.backend() {
        Backend::Sqlite => "",
        Backend::Postgres => " FOR UPDATE",
    };
    let sql = format!(
        "SELECT {} FROM variants WHERE id = $1 AND product_id = $2{lock}",
        columns!()
    );
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, Variant>(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(product_id)
            .fetch_optional(c)
            .await
    })
    .map_err(Into::into)
}

/// The tenant's variant with this id, held against deletion until the transaction ends
/// (so that a row naming it can be written safely; level 6 of `locks`).
pub async fn find_held_of_tenant(tx: &mut Tx, tenant: Tenant, id: i64) -> Result<Option<Variant>> {
    tenant_rows::find_locked(tx, "variants", columns!(), tenant, id, " FOR KEY SHARE").await
}

/// The prices of these variants, by id, in one query.
pub async fn prices_of<'a>(exec: impl Into<Exec<'a>>, ids: &[i64]) -> Result<HashMap<i64, i64>> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let mut f = Filter::new();
    f.any_of("id", ids.iter().copied().map(Arg::Int));
    let sql = format!("SELECT id, price FROM variants{}", f.where_sql());
    let rows: Vec<(i64, i64)> = fetch_all_bound!(exec.into(), (i64, i64), sql, f.args())?;
    Ok(rows.into_iter().collect())
}

/// Every variant of these products in one query, by product, position and id.
pub async fn of_products<'a>(
    exec: impl Into<Exec<'a>>,
    product_ids: &[i64],
) -> Result<Vec<Variant>> {
    if product_ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut f = Filter::new();
    f.any_of("product_id", product_ids.iter().copied().map(Arg::Int));
    let sql = format!(
        "SELECT {} FROM variants{} ORDER BY product_id, position, id",
        columns!(),
        f.where_sql()
    );
    Ok(fetch_all_bound!(exec.into(), Variant, sql, f.args())?)
}

/// A page of a product's variants and their total.
pub async fn list<'a>(
    exec: impl Into<Exec<'a>>,
    product_id: i64,
    sort: Sort,
    window: Window,
) -> Result<(Vec<Variant>, u64)> {
    let mut f = Filter::new();
    f.eq("product_id", Arg::Int(product_id));
    let sql = list_sql(columns!(), "variants", &f, sort, window);
    fetch_list!(exec.into(), Variant, sql, f)
}

/// The position after the product's last variant.
pub async fn next_position(tx: &mut Tx, product_id: i64) -> Result<i64> {
    let last: Option<i64> = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_scalar("SELECT MAX(position) FROM variants WHERE product_id = $1")
            .bind(product_id)
            .fetch_one(c)
            .await
    })?;
    Ok(last.unwrap_or(0) + 1)
}

/// Which of `skus` other variants of the seller (than `except`) already use.
pub async fn skus_taken(
    tx: &mut Tx,
    seller_id: i64,
    skus: &[String],
    except: Option<i64>,
) -> Result<Vec<String>> {
    let mut f = Filter::new();
    f.eq("seller_id", Arg::Int(seller_id))
        .any_of("sku", skus.iter().cloned().map(Arg::Text));
    if let Some(id) = except {
        f.condition(|p| format!("id <> {}", p.bind(Arg::Int(id))));
    }
    let sql = format!("SELECT sku FROM variants{}", f.where_sql());
    let rows: Vec<(String,)> = fetch_all_bound!(Exec::Tx(tx), (String,), sql, f.args())?;
    Ok(rows.into_iter().map(|(sku,)| sku).collect())
}

/// The seller's variants among `ids`, by id.
pub async fn of_seller_among<'a>(
    exec: impl Into<Exec<'a>>,
    seller_id: i64,
    ids: &[i64],
) -> Result<Vec<Variant>> {
    let (sql, f) = of_seller_sql(seller_id, ids, "");
    Ok(fetch_all_bound!(exec.into(), Variant, sql, f.args())?)
}

/// The seller's variants among `ids`, held against deletion until the transaction ends
/// (so that rows referring to them can be written safely).
pub async fn hold_of_seller(tx: &mut Tx, seller_id: i64, ids: &[i64]) -> Result<Vec<Variant>> {
    let lock = match tx.backend() {
        Backend::Sqlite => "",
        Backend::Postgres => " FOR SHARE",
    };
    let (sql, f) = of_seller_sql(seller_id, ids, lock);
    Ok(fetch_all_bound!(Exec::Tx(tx), Variant, sql, f.args())?)
}

fn of_seller_sql(seller_id: i64, ids: &[i64], lock: &str) -> (String, Filter) {
    let mut f = Filter::new();
    f.eq("seller_id", Arg::Int(seller_id))
        .any_of("id", ids.iter().copied().map(Arg::Int));
    let sql = format!(
        "SELECT {} FROM variants{} ORDER BY id{lock}",
        columns!(),
        f.where_sql()
    );
    (sql, f)
}
