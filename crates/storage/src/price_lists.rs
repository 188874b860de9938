//! Price lists and their items (per-variant prices from a minimum quantity up). Every write
//! of items keeps the list's `items_count` exact, and `forget_variants` corrects it before
//! variants go (their foreign-key cascade then removes the items). `pricing_lists` loads
//! what price resolution needs for a purchase in a constant number of queries.

use std::collections::HashMap;

use domain::Timestamp;
use domain::catalog::pricing::{Candidate, PriceListKind, PriceListStatus, Purchase, Terms, Tier};

use crate::Tenant;
use crate::db::{Backend, Database, Exec, Tx};
use crate::error::Result;
use crate::json::{JsonText, to_text};
use crate::sql::{Arg, Filter, Params, Sort, Window, list_sql};
use crate::tenant_rows::{self, TenantTable};
use crate::write::{Columns, execute_bound};

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct PriceList {
    pub id: i64,
    pub account_id: i64,
    pub seller_id: i64,
    pub name: String,
    pub description: String,
    #[sqlx(try_from = "String")]
    pub status: PriceListStatus,
    #[sqlx(try_from = "String")]
    pub kind: PriceListKind,
    pub currency_code: String,
    /// Microseconds, as `Timestamp`; `None` is an open bound.
    pub starts_on: Option<Timestamp>,
    pub ends_on: Option<Timestamp>,
    pub priority: i64,
    #[sqlx(try_from = "String")]
    pub contact_ids: JsonText<Vec<i64>>,
    pub items_count: i64,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
}

macro_rules! columns {
    () => {
        "id, account_id, seller_id, name, description, status, kind, currency_code, starts_on, ends_on, \
         priority, contact_ids, items_count, created_on, updated_on"
    };
}

macro_rules! item_columns {
    () => {
        "id, price_list_id, variant_id, product_id, min_quantity, price, price_comparison, created_on, \
         updated_on"
    };
}

/// Fields a price list list may be sorted by; each is indexed with the account.
pub const SORT_FIELDS: &[&str] = &["id", "name", "priority", "created_on", "updated_on"];

/// Fields a list's items may be sorted by; each is indexed with the list.
pub const ITEM_SORT_FIELDS: &[&str] = &["id", "product_id"];

/// What a price list is written with.
#[derive(Clone, Debug, PartialEq)]
pub struct PriceListData {
    pub name: String,
    pub description: String,
    pub status: PriceListStatus,
    pub kind: PriceListKind,
    pub currency_code: String,
    pub starts_on: Option<Timestamp>,
    pub ends_on: Option<Timestamp>,
    pub priority: i64,
    pub contact_ids: Vec<i64>,
}

impl PriceList {
    pub fn data(&self) -> PriceListData {
        PriceListData {
            name: self.name.clone(),
            description: self.description.clone(),
            status: self.status,
            kind: self.kind,
            currency_code: self.currency_code.clone(),
            starts_on: self.starts_on,
            ends_on: self.ends_on,
            priority: self.priority,
            contact_ids: self.contact_ids.0.clone(),
        }
    }

    /// The conditions under which the list prices a purchase.
    pub fn terms(&self) -> Terms<'_> {
        Terms {
            status: self.status,
            currency_code: &self.currency_code,
            starts_on: self.starts_on,
            ends_on: self.ends_on,
            contact_ids: &self.contact_ids.0,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct PriceListFilter {
    pub seller_ids: Option<Vec<i64>>,
    /// Part of the name, in any case.
    pub q: Option<String>,
    pub status: Option<PriceListStatus>,
    pub kind: Option<PriceListKind>,
    pub created_on: crate::sql::TimeRange,
    pub updated_on: crate::sql::TimeRange,
}

/// One price of a list: for `variant_id`, from `min_quantity` units up.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct PriceListItem {
    pub id: i64,
    pub price_list_id: i64,
    pub variant_id: i64,
    pub product_id: i64,
    pub min_quantity: i64,
    pub price: i64,
    pub price_comparison: Option<i64>,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
}

impl PriceListItem {
    pub fn tier(&self) -> Tier {
        Tier {
            item_id: self.id,
            min_quantity: self.min_quantity,
            price: self.price,
            price_comparison: self.price_comparison,
        }
    }
}

/// An item to write; one per (variant, min_quantity) in a batch.
#[derive(Clone, Debug, PartialEq)]
pub struct NewItem {
    pub variant_id: i64,
    pub product_id: i64,
    pub min_quantity: i64,
    pub price: i64,
    pub price_comparison: Option<i64>,
}

#[derive(Clone, Debug, Default)]
pub struct ItemFilter {
    pub variant_ids: Option<Vec<i64>>,
    pub product_ids: Option<Vec<i64>>,
}

pub async fn insert(
    tx: &mut Tx,
    account_id: i64,
    seller_id: i64,
    data: &PriceListData,
    now: Timestamp,
) -> Result<PriceList> {
    written(data)
        .set("account_id", account_id)
        .set("seller_id", seller_id)
        .set("created_on", now)
        .set("updated_on", now)
        .insert_into("price_lists")
        .fetch_row(tx, columns!())
        .await
}

/// Writes `data` over a list the caller has locked.
pub async fn update(
    tx: &mut Tx,
    id: i64,
    data: &PriceListData,
    now: Timestamp,
) -> Result<PriceList> {
    written(data)
        .set("updated_on", now)
        .update("price_lists", id)
        .fetch_row(tx, columns!())
        .await
}

/// The columns `data` writes, on insert and update alike.
fn written(data: &PriceListData) -> Columns {
    Columns::new()
        .set("name", &data.name)
        .set("description", &data.description)
        .set("status", data.status.as_str())
        .set("kind", data.kind.as_str())
        .set("currency_code", &data.currency_code)
        .set("starts_on", data.starts_on)
        .set("ends_on", data.ends_on)
        .set("priority", data.priority)
        .set("contact_ids", to_text(&data.contact_ids))
}

/// Where its rows are deleted, with `tenant_rows::delete`.
pub const TABLE: TenantTable = TenantTable::new("price_lists");

pub async fn find<'a>(
    exec: impl Into<Exec<'a>>,
    tenant: Tenant,
    id: i64,
) -> Result<Option<PriceList>> {
    tenant_rows::find(exec, "price_lists", columns!(), tenant, id).await
}

/// Reads a list and holds it against concurrent writers until the transaction ends.
pub async fn find_for_update(tx: &mut Tx, tenant: Tenant, id: i64) -> Result<Option<PriceList>> {
    tenant_rows::find_for_update(tx, "price_lists", columns!(), tenant, id).await
}

pub async fn list(
    db: &Database,
    tenant: Tenant,
    filter: &PriceListFilter,
    sort: Sort,
    window: Window,
) -> Result<(Vec<PriceList>, u64)> {
    let mut f = Filter::new();
    f.eq("account_id", Arg::Int(tenant.account_id))
        .eq_opt("seller_id", tenant.seller_id.map(Arg::Int));
    if let Some(ids) = &filter.seller_ids {
        f.any_of("seller_id", ids.iter().copied().map(Arg::Int));
    }
    f.eq_opt(
        "status",
        filter.status.map(|s| Arg::Text(s.as_str().into())),
    )
    .eq_opt("kind", filter.kind.map(|k| Arg::Text(k.as_str().into())));
    if let Some(q) = &filter.q {
        f.contains_text(&["name"], q);
    }
    f.range("created_on", filter.created_on.0, filter.created_on.1)
        .range("updated_on", filter.updated_on.0, filter.updated_on.1);
    let sql = list_sql(columns!(), "price_lists", &f, sort, window);
    fetch_list!(Exec::Db(db), PriceList, sql, f)
}

/// Inserts the items, or sets the price of the tiers the list already has, in one
/// statement; then brings `items_count` and `updated_on` up to date. Answers the items
/// that were inserted or whose prices changed (none: nothing was written).
pub async fn upsert_items(
    tx: &mut Tx,
    price_list_id: i64,
    items: &[NewItem],
    now: Timestamp,
) -> Result<Vec<PriceListItem>> {
    if items.is_empty() {
        return Ok(Vec::new());
    }
    let mut p = Params::new();
    let rows: Vec<String> = items
        .iter()
        .map(|item| {
            let values = p.bind_all([
                Arg::Int(price_list_id),
                Arg::Int(item.variant_id),
                Arg::Int(item.product_id),
                Arg::Int(item.min_quantity),
                Arg::Int(item.price),
                Arg::MaybeInt(item.price_comparison),
                Arg::Int(now.as_micros()),
                Arg::Int(now.as_micros()),
            ]);
            format!("({values})")
        })
        .collect();
    let sql = format!(
        "INSERT INTO price_list_items (price_list_id, variant_id, product_id, min_quantity, price, \
         price_comparison, created_on, updated_on) VALUES {} \
         ON CONFLICT (price_list_id, variant_id, min_quantity) DO UPDATE SET price = excluded.price, \
         price_comparison = excluded.price_comparison, updated_on = excluded.updated_on \
         WHERE price_list_items.price <> excluded.price \
         OR price_list_items.price_comparison IS DISTINCT FROM excluded.price_comparison \
         RETURNING {}",
        rows.join(", "),
        item_columns!()
    );
    let mut written: Vec<PriceListItem> =
        fetch_all_bound!(Exec::Tx(tx), PriceListItem, sql, p.args())?;
    if !written.is_empty() {
        refresh(tx, price_list_id, now).await?;
    }
    written.sort_by_key(|i| (i.variant_id, i.min_quantity));
    Ok(written)
}

/// Deletes one item of the list; answers it, or `None` when the list has no such item.
pub async fn delete_item(
    tx: &mut Tx,
    price_list_id: i64,
    item_id: i64,
    now: Timestamp,
) -> Result<Option<PriceListItem>> {
    let deleted = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, PriceListItem>(concat!(
            "DELETE FROM price_list_items WHERE id = $1 AND price_list_id = $2 RETURNING ",
            item_columns!()
        ))
        .bind(item_id)
        .bind(price_list_id)
        .fetch_optional(c)
        .await
    })?;
    if deleted.is_some() {
        refresh(tx, price_list_id, now).await?;
    }
    Ok(deleted)
}

/// Sets `items_count` from the items and marks the list changed.
async fn refresh(tx: &mut Tx, price_list_id: i64, now: Timestamp) -> Result<()> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query(
            "UPDATE price_lists SET items_count = \
             (SELECT COUNT(*) FROM price_list_items WHERE price_list_id = $1), updated_on = $2 WHERE id = $1",
        )
        .bind(price_list_id)
        .bind(now.as_micros())
        .execute(c)
        .await
        .map(|_| ())
    })?;
    Ok(())
}

/// Rereads a list inside a write (after `upsert_items` or `delete_item`).
pub async fn reread(tx: &mut Tx, id: i64) -> Result<PriceList> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, PriceList>(concat!(
            "SELECT ",
            columns!(),
            " FROM price_lists WHERE id = $1"
        ))
        .bind(id)
        .fetch_one(c)
        .await
    })
    .map_err(Into::into)
}

pub async fn find_item<'a>(
    exec: impl Into<Exec<'a>>,
    price_list_id: i64,
    item_id: i64,
) -> Result<Option<PriceListItem>> {
    with_conn!(exec.into(), |c| {
        sqlx::query_as::<_, PriceListItem>(concat!(
            "SELECT ",
            item_columns!(),
            " FROM price_list_items WHERE id = $1 AND price_list_id = $2"
        ))
        .bind(item_id)
        .bind(price_list_id)
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}

/// The list's items for these variants, by variant and min_quantity.
pub async fn items_of_variants<'a>(
    exec: impl Into<Exec<'a>>,
    price_list_id: i64,
    variant_ids: &[i64],
) -> Result<Vec<PriceListItem>> {
    let mut f = Filter::new();
    f.eq("price_list_id", Arg::Int(price_list_id))
        .any_of("variant_id", variant_ids.iter().copied().map(Arg::Int));
    let sql = format!(
        "SELECT {} FROM price_list_items{} ORDER BY variant_id, min_quantity",
        item_columns!(),
        f.where_sql()
    );
    Ok(fetch_all_bound!(exec.into(), PriceListItem, sql, f.args())?)
}

/// A page of the list's items and their total.
pub async fn list_items<'a>(
    exec: impl Into<Exec<'a>>,
    price_list_id: i64,
    filter: &ItemFilter,
    sort: Sort,
    window: Window,
) -> Result<(Vec<PriceListItem>, u64)> {
    let mut f = Filter::new();
    f.eq("price_list_id", Arg::Int(price_list_id));
    if let Some(ids) = &filter.variant_ids {
        f.any_of("variant_id", ids.iter().copied().map(Arg::Int));
    }
    if let Some(ids) = &filter.product_ids {
        f.any_of("product_id", ids.iter().copied().map(Arg::Int));
    }
    let sql = list_sql(item_columns!(), "price_list_items", &f, sort, window);
    fetch_list!(exec.into(), PriceListItem, sql, f)
}

/// Before these variants are deleted (alone or with their product): holds them so that no
/// item can be added for them meanwhile, and takes their items out of the lists' counts.
/// The variants' foreign-key cascade then removes the items themselves.
pub async fn forget_variants(tx: &mut Tx, variant_ids: &[i64], now: Timestamp) -> Result<()> {
    if variant_ids.is_empty() {
        return Ok(());
    }
    let postgres = tx.backend() == Backend::Postgres;
    let variants = || variant_ids.iter().copied().map(Arg::Int);
    if postgres {
        let mut f = Filter::new();
        f.any_of("id", variants());
        let sql = format!(
            "SELECT id FROM variants{} ORDER BY id FOR UPDATE",
            f.where_sql()
        );
        fetch_all_bound!(Exec::Tx(tx), (i64,), sql, f.args())?;
    }
    let mut f = Filter::new();
    f.any_of("variant_id", variants());
    let sql = format!(
        "SELECT DISTINCT price_list_id FROM price_list_items{} ORDER BY price_list_id",
        f.where_sql()
    );
    let lists: Vec<(i64,)> = fetch_all_bound!(Exec::Tx(tx), (i64,), sql, f.args())?;
    if lists.is_empty() {
        return Ok(());
    }
    let lists = || lists.iter().map(|(id,)| Arg::Int(*id));
    if postgres {
        // Counted only once no other write to these lists is under way.
        let mut f = Filter::new();
        f.any_of("id", lists());
        let sql = format!(
            "SELECT id FROM price_lists{} ORDER BY id FOR UPDATE",
            f.where_sql()
        );
        fetch_all_bound!(Exec::Tx(tx), (i64,), sql, f.args())?;
    }
    let mut p = Params::new();
    let sql = format!(
        "UPDATE price_lists SET items_count = items_count - \
         (SELECT COUNT(*) FROM price_list_items i WHERE i.price_list_id = price_lists.id \
         AND i.variant_id IN ({})), updated_on = {} WHERE id IN ({})",
        p.bind_all(variants()),
        p.bind(Arg::Int(now.as_micros())),
        p.bind_all(lists())
    );
    execute_bound(tx, sql, p.args()).await
}

/// The lists that price a purchase from one seller, with their tiers for some variants.
#[derive(Clone, Debug, Default)]
pub struct PricingLists {
    /// Highest priority first, then lowest id.
    pub lists: Vec<PriceList>,
    tiers: HashMap<(i64, i64), Vec<Tier>>,
}

impl PricingLists {
    /// The candidates for one variant, in the order resolution tries them.
    pub fn candidates(&self, variant_id: i64) -> Vec<Candidate<'_>> {
        self.lists
            .iter()
            .filter_map(|list| {
                let tiers = self.tiers.get(&(list.id, variant_id))?;
                Some(Candidate {
                    price_list_id: list.id,
                    kind: list.kind,
                    priority: list.priority,
                    tiers,
                })
            })
            .collect()
    }
}

/// The seller's lists that apply to `purchase` (by `Terms::check`) and their tiers for
/// `variant_ids`: two queries whatever the number of lists and variants.
pub async fn pricing_lists<'a>(
    exec: impl Into<Exec<'a>>,
    seller_id: i64,
    purchase: &Purchase<'_>,
    variant_ids: &[i64],
) -> Result<PricingLists> {
    let mut exec = exec.into();
    let at = purchase.at.as_micros();
    // The index narrows by seller and status; dates and currency here, contacts below.
    let lists: Vec<PriceList> = with_conn!(exec.reborrow(), |c| {
        sqlx::query_as::<_, PriceList>(concat!(
            "SELECT ",
            columns!(),
            " FROM price_lists WHERE seller_id = $1 AND status = $2 AND currency_code = $3 \
             AND (starts_on IS NULL OR starts_on <= $4) AND (ends_on IS NULL OR ends_on > $4) \
             ORDER BY priority DESC, id"
        ))
        .bind(seller_id)
        .bind(PriceListStatus::Active.as_str())
        .bind(purchase.currency_code)
        .bind(at)
        .fetch_all(c)
        .await
    })?;
    let lists: Vec<PriceList> = lists
        .into_iter()
        .filter(|l| l.terms().check(purchase).is_ok())
        .collect();
    if lists.is_empty() || variant_ids.is_empty() {
        return Ok(PricingLists {
            lists,
            tiers: HashMap::new(),
        });
    }
    let mut f = Filter::new();
    f.any_of("price_list_id", lists.iter().map(|l| Arg::Int(l.id)))
        .any_of("variant_id", variant_ids.iter().copied().map(Arg::Int));
    let sql = format!(
        "SELECT {} FROM price_list_items{}",
        item_columns!(),
        f.where_sql()
    );
    let items: Vec<PriceListItem> = fetch_all_bound!(exec, PriceListItem, sql, f.args())?;
    let mut tiers: HashMap<(i64, i64), Vec<Tier>> = HashMap::new();
    for item in &items {
        tiers
            .entry((item.price_list_id, item.variant_id))
            .or_default()
            .push(item.tier());
    }
    Ok(PricingLists { lists, tiers })
}
