//! Products: a seller's catalog entries, the shops they are available in, their tags and
//! search document, and the per-seller counts that answer an unfiltered list's total
//! without counting rows.

mod embedded;
mod filter;

use std::collections::HashMap;

use domain::Timestamp;
use domain::catalog::collection::SortOrder;
use domain::catalog::product::{ProductStatus, tag_key};
use serde_json::{Map, Value};

pub use embedded::Embedded;
pub use filter::{CatalogScope, ProductFilter, ShopRef};

use filter::{Search, Total};

use crate::Tenant;
use crate::db::{Backend, Database, Exec, Tx};
use crate::error::{Error, Result};
use crate::json::{JsonText, to_text};
use crate::sql::{
    Arg, Direction, Filter, ListTotal, PagePlan, Params, Sort, Source, Window, capped_count_sql,
    deferred_page_sql,
};
use crate::tenant_rows::{self, TenantTable};
use crate::write::{Columns, insert_rows};

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Product {
    pub id: i64,
    pub account_id: i64,
    pub seller_id: i64,
    pub title: String,
    pub slug: String,
    pub description: String,
    #[sqlx(try_from = "String")]
    pub status: ProductStatus,
    pub vendor: Option<String>,
    #[sqlx(try_from = "String")]
    pub tags: JsonText<Vec<String>>,
    pub price: i64,
    pub price_comparison: Option<i64>,
    pub currency_code: String,
    pub product_type_id: Option<i64>,
    pub product_type_name: Option<String>,
    #[sqlx(try_from = "String")]
    pub custom_attributes: JsonText<Map<String, Value>>,
    pub all_shops: bool,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
}

macro_rules! columns {
    () => {
        "id, account_id, seller_id, title, slug, description, status, vendor, tags, price, price_comparison, \
         currency_code, product_type_id, \
         (SELECT t.name FROM product_types t WHERE t.id = products.product_type_id) AS product_type_name, \
         custom_attributes, all_shops, created_on, updated_on"
    };
}

/// Fields a product list may be sorted by; each is indexed with the account.
pub const SORT_FIELDS: &[&str] = &["id", "title", "price", "created_on", "updated_on"];

/// How many matches a product list counts before it answers "more than this many"
/// (a total that must count rows: a search, a price range, the public catalog). Counting
/// reads a row per match, so an exact total of a broad search over a large catalog
/// would cost more than the page itself; 1,000 is 50 pages of the default 20, past which
/// people refine a search rather than page through it (GitHub's search stops there too),
/// and it reads in about a millisecond. It also decides how a page is found: matches
/// known to be this few are read first and sorted.
pub const EXACT_TOTAL_CAP: u64 = 1_000;

/// What a product is written with. `price`, `price_comparison` and `search_text` are
/// derived from the variants by the caller.
#[derive(Clone, Debug, PartialEq)]
pub struct ProductData {
    pub title: String,
    pub slug: String,
    pub description: String,
    pub status: ProductStatus,
    pub vendor: Option<String>,
    pub tags: Vec<String>,
    pub price: i64,
    pub price_comparison: Option<i64>,
    pub currency_code: String,
    pub product_type_id: Option<i64>,
    pub custom_attributes: Map<String, Value>,
    pub all_shops: bool,
    /// The shops a product not in all shops is available in.
    pub shop_ids: Vec<i64>,
    pub search_text: String,
}

impl Product {
    /// The product's data, with its shops and search text as the caller knows them.
    pub fn data(&self, shop_ids: Vec<i64>, search_text: String) -> ProductData {
        ProductData {
            title: self.title.clone(),
            slug: self.slug.clone(),
            description: self.description.clone(),
            status: self.status,
            vendor: self.vendor.clone(),
            tags: self.tags.0.clone(),
            price: self.price,
            price_comparison: self.price_comparison,
            currency_code: self.currency_code.clone(),
            product_type_id: self.product_type_id,
            custom_attributes: self.custom_attributes.0.clone(),
            all_shops: self.all_shops,
            shop_ids,
            search_text,
        }
    }
}

/// The columns `data` writes, on insert and update alike.
fn written(data: &ProductData) -> Columns {
    Columns::new()
        .set("title", &data.title)
        .set("slug", &data.slug)
        .set("description", &data.description)
        .set("status", data.status.as_str())
        .set("vendor", &data.vendor)
        .set("tags", to_text(&data.tags))
        .set("price", data.price)
        .set("price_comparison", data.price_comparison)
        .set("currency_code", &data.currency_code)
        .set("product_type_id", data.product_type_id)
        .set("custom_attributes", to_text(&data.custom_attributes))
        .set("all_shops", data.all_shops)
        .set("search_text", &data.search_text)
}

pub async fn insert(
    tx: &mut Tx,
    account_id: i64,
    seller_id: i64,
    data: &ProductData,
    now: Timestamp,
) -> Result<i64> {
    let id = written(data)
        .set("account_id", account_id)
        .set("seller_id", seller_id)
        .set("created_on", now)
        .set("updated_on", now)
        .insert_into("products")
        .fetch_id(tx)
        .await?;
    write_tags(tx, (account_id, seller_id), id, &data.tags).await?;
    if !data.all_shops {
        write_shops(tx, id, &data.shop_ids).await?;
    }
    adjust_counts(tx, account_id, seller_id, data.status, 1).await?;
    Ok(id)
}

/// Writes `data` over the product `before` (locked by the caller).
pub async fn update(
    tx: &mut Tx,
    before: &Product,
    before_shop_ids: &[i64],
    data: &ProductData,
    now: Timestamp,
) -> Result<()> {
    written(data)
        .set("updated_on", now)
        .update("products", before.id)
        .execute(tx)
        .await?;
    if data.tags != before.tags.0 {
        with_conn!(Exec::Tx(tx), |c| {
            sqlx::query("DELETE FROM product_tags WHERE product_id = $1")
                .bind(before.id)
                .execute(c)
                .await
                .map(|_| ())
        })?;
        write_tags(
            tx,
            (before.account_id, before.seller_id),
            before.id,
            &data.tags,
        )
        .await?;
    }
    let shops_before: &[i64] = if before.all_shops {
        &[]
    } else {
        before_shop_ids
    };
    let shops_after: &[i64] = if data.all_shops { &[] } else { &data.shop_ids };
    if shops_before != shops_after {
        with_conn!(Exec::Tx(tx), |c| {
            sqlx::query("DELETE FROM product_shops WHERE product_id = $1")
                .bind(before.id)
                .execute(c)
                .await
                .map(|_| ())
        })?;
        write_shops(tx, before.id, shops_after).await?;
    }
    if data.status != before.status {
        adjust_counts(tx, before.account_id, before.seller_id, before.status, -1).await?;
        adjust_counts(tx, before.account_id, before.seller_id, data.status, 1).await?;
    }
    Ok(())
}

/// Writes the fields a product derives from its variants.
pub async fn set_derived(
    tx: &mut Tx,
    id: i64,
    price: i64,
    price_comparison: Option<i64>,
    search_text: &str,
    now: Timestamp,
) -> Result<()> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query(
            "UPDATE products SET price = $2, price_comparison = $3, search_text = $4, updated_on = $5 WHERE id = $1",
        )
        .bind(id)
        .bind(price)
        .bind(price_comparison)
        .bind(search_text)
        .bind(now.as_micros())
        .execute(c)
        .await
        .map(|_| ())
    })?;
    Ok(())
}

/// Marks the product changed (its variants or assets changed).
pub async fn touch(tx: &mut Tx, id: i64, now: Timestamp) -> Result<()> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query("UPDATE products SET updated_on = $2 WHERE id = $1")
            .bind(id)
            .bind(now.as_micros())
            .execute(c)
            .await
            .map(|_| ())
    })?;
    Ok(())
}

const TABLE: TenantTable = TenantTable::new("products");

/// Deletes the product with its variants, assets, tags and memberships.
pub async fn delete(tx: &mut Tx, product: &Product) -> Result<()> {
    let owner = Tenant {
        account_id: product.account_id,
        seller_id: Some(product.seller_id),
    };
    tenant_rows::delete(tx, TABLE, owner, product.id).await?;
    adjust_counts(
        tx,
        product.account_id,
        product.seller_id,
        product.status,
        -1,
    )
    .await
}

async fn write_tags(
    tx: &mut Tx,
    (account_id, seller_id): (i64, i64),
    product_id: i64,
    tags: &[String],
) -> Result<()> {
    let rows = tags.iter().map(|tag| {
        [
            Arg::Int(product_id),
            Arg::Text(tag_key(tag)),
            Arg::Int(account_id),
            Arg::Int(seller_id),
        ]
    });
    insert_rows(
        tx,
        "product_tags (product_id, tag_key, account_id, seller_id)",
        rows,
    )
    .await
}

async fn write_shops(tx: &mut Tx, product_id: i64, shop_ids: &[i64]) -> Result<()> {
    let rows = shop_ids
        .iter()
        .map(|&shop_id| [Arg::Int(product_id), Arg::Int(shop_id)]);
    insert_rows(tx, "product_shops (product_id, shop_id)", rows).await
}

async fn adjust_counts(
    tx: &mut Tx,
    account_id: i64,
    seller_id: i64,
    status: ProductStatus,
    delta: i64,
) -> Result<()> {
    match status {
        ProductStatus::Visible => count_products(tx, account_id, seller_id, delta, 0).await,
        ProductStatus::Hidden => count_products(tx, account_id, seller_id, 0, delta).await,
    }
}

/// Adds to the seller's counts of visible and hidden products.
pub(crate) async fn count_products(
    tx: &mut Tx,
    account_id: i64,
    seller_id: i64,
    visible: i64,
    hidden: i64,
) -> Result<()> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query(
            "INSERT INTO seller_product_counts (seller_id, account_id, visible, hidden) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (seller_id) DO UPDATE SET visible = seller_product_counts.visible + $3, \
             hidden = seller_product_counts.hidden + $4",
        )
        .bind(seller_id)
        .bind(account_id)
        .bind(visible)
        .bind(hidden)
        .execute(c)
        .await
        .map(|_| ())
    })?;
    Ok(())
}

/// A product the scope may see.
pub async fn find<'a>(
    exec: impl Into<Exec<'a>>,
    scope: &CatalogScope,
    id: i64,
) -> Result<Option<Product>> {
    let exec = exec.into();
    let mut f = filter::conditions(scope, &ProductFilter::default());
    f.eq("id", Arg::Int(id));
    let sql = format!("SELECT {} FROM products{}", columns!(), f.where_sql());
    let mut rows = fetch_all_bound!(exec, Product, sql, f.args())?;
    Ok(rows.pop())
}

/// A product the scope may see, with what its representation embeds (one statement).
pub async fn find_full<'a>(
    exec: impl Into<Exec<'a>>,
    scope: &CatalogScope,
    id: i64,
) -> Result<Option<(Product, Embedded)>> {
    let exec = exec.into();
    let mut f = filter::conditions(scope, &ProductFilter::default());
    f.eq("id", Arg::Int(id));
    let sql = format!(
        "SELECT {} FROM products{}",
        full_columns(exec.backend()),
        f.where_sql()
    );
    let rows = fetch_all_bound!(exec, embedded::Row, sql, f.args())?;
    rows.into_iter()
        .next()
        .map(embedded::Row::decode)
        .transpose()
}

/// What a product's representation embeds, for a product the caller already holds.
pub async fn embedded_of(tx: &mut Tx, product_id: i64) -> Result<Embedded> {
    let sql = format!(
        "SELECT {} FROM products WHERE id = $1",
        full_columns(tx.backend())
    );
    let row = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, embedded::Row>(sqlx::AssertSqlSafe(sql))
            .bind(product_id)
            .fetch_optional(c)
            .await
    })?;
    let row = row.ok_or_else(|| Error::Corrupt(format!("product {product_id} is gone")))?;
    Ok(row.decode()?.1)
}

/// A product row's columns followed by its embedded relations' (see `embedded`).
fn full_columns(backend: Backend) -> String {
    format!("{}, {}", columns!(), embedded::columns(backend))
}

/// Reads a product of the tenant and holds it against concurrent writers until the
/// transaction ends (level 5 of `locks`).
pub async fn find_for_update(tx: &mut Tx, tenant: Tenant, id: i64) -> Result<Option<Product>> {
    tenant_rows::find_for_update(tx, "products", columns!(), tenant, id).await
}

/// Reads a product of the tenant and keeps it from being deleted until the transaction
/// ends, letting writes to it go on (level 5 of `locks`: a write that names it).
pub async fn find_held(tx: &mut Tx, tenant: Tenant, id: i64) -> Result<Option<Product>> {
    tenant_rows::find_locked(tx, "products", columns!(), tenant, id, " FOR KEY SHARE").await
}

/// A page of the products the scope sees under `filter`, with what they embed, and their
/// total: exact, or when it must be counted in rows, exact up to `cap` (normally
/// [`EXACT_TOTAL_CAP`]) and past it a bound.
pub async fn list(
    db: &Database,
    scope: &CatalogScope,
    filter: &ProductFilter,
    sort: Sort,
    window: Window,
    cap: u64,
) -> Result<(Vec<(Product, Embedded)>, ListTotal)> {
    let (rows, total) = list_rows(db, scope, filter, sort, window, cap).await?;
    let rows = rows
        .into_iter()
        .map(embedded::Row::decode)
        .collect::<Result<_>>()?;
    Ok((rows, total))
}

async fn list_rows(
    db: &Database,
    scope: &CatalogScope,
    filter: &ProductFilter,
    sort: Sort,
    window: Window,
    cap: u64,
) -> Result<(Vec<embedded::Row>, ListTotal)> {
    let base = filter::conditions(scope, filter);
    let total_by = match scope {
        CatalogScope::Tenant(_) => filter.total(),
        CatalogScope::Public(_) => Total::Rows,
    };
    if total_by == Total::Rows {
        return counted_page(db, scope, &base, filter, sort, window, cap).await;
    }
    // Only the status or tags narrow the list: no search.
    let page = deferred_page_sql(
        &full_columns(db.backend()),
        "products",
        Source::table("products"),
        &base,
        sort,
        window,
        PagePlan::Planned,
    );
    let total = async {
        match (scope, &filter.tags) {
            (CatalogScope::Tenant(tenant), None) => counted_total(db, *tenant, filter.status).await,
            (_, tags) => tagged_total(db, scope, tags.as_deref().unwrap_or_default()).await,
        }
    };
    let (rows, total) = tokio::try_join!(
        async {
            Ok(fetch_all_bound!(
                Exec::Db(db),
                embedded::Row,
                page,
                base.args()
            )?)
        },
        total,
    )?;
    Ok((rows, ListTotal::Exact(total)))
}

/// A page whose total is counted in rows, up to `cap` (two statements on one connection).
/// The count comes first because it tells how to find the page: matches known to be few
/// are read first and sorted, for a walk in the sort's order would pass over every row
/// to find them; many are found by that walk, which soon fills the page.
async fn counted_page(
    db: &Database,
    scope: &CatalogScope,
    base: &Filter,
    filter: &ProductFilter,
    sort: Sort,
    window: Window,
    cap: u64,
) -> Result<(Vec<embedded::Row>, ListTotal)> {
    let backend = db.backend();
    let up_to = ListTotal::count_up_to(cap, window);
    let from_index = |first, direction| Search::FromIndex { first, direction };
    let (source, f) = filter::searching(
        backend,
        scope,
        base,
        filter,
        from_index(up_to.saturating_add(1), Direction::Asc),
    );
    let count = capped_count_sql(source.from, &f, up_to);
    let columns = full_columns(backend);
    with_conn!(Exec::Db(db), |c| {
        let counted: i64 =
            crate::sql::bind_scalar(sqlx::query_scalar(sqlx::AssertSqlSafe(count)), f.args())
                .fetch_one(&mut *c)
                .await?;
        let total = ListTotal::from_capped(counted, up_to);
        // The search index yields ids in order: a page by id ends where the page does.
        let in_index_order = sort.column == "id" && filter.words.is_some();
        let (source, f, plan) = match total {
            _ if in_index_order => {
                let end = window.offset.saturating_add(window.limit);
                let how = from_index(end, sort.direction);
                let (source, f) = filter::searching(backend, scope, base, filter, how);
                (source, f, PagePlan::Planned)
            }
            ListTotal::Exact(_) => (source, f.clone(), PagePlan::MatchesFirst),
            ListTotal::MoreThan(_) => {
                let how = Search::InSortOrder;
                let (source, f) = filter::searching(backend, scope, base, filter, how);
                (source, f, PagePlan::Planned)
            }
        };
        let page = deferred_page_sql(&columns, "products", source, &f, sort, window, plan);
        let rows = crate::sql::bind_as(
            sqlx::query_as::<_, embedded::Row>(sqlx::AssertSqlSafe(page)),
            f.args(),
        )
        .fetch_all(&mut *c)
        .await?;
        crate::query_count::note(1);
        Ok::<_, Error>((rows, total))
    })
}

/// How many of the scope's products carry any of `tags`, from the tag index alone.
async fn tagged_total(db: &Database, scope: &CatalogScope, tags: &[String]) -> Result<u64> {
    let mut params = Params::new();
    let sql = format!(
        "SELECT COUNT(DISTINCT product_id) FROM ({}) tagged",
        filter::tagged(scope, tags, &mut params)
    );
    let total: i64 = with_conn!(Exec::Db(db), |c| {
        crate::sql::bind_scalar(sqlx::query_scalar(sqlx::AssertSqlSafe(sql)), params.args())
            .fetch_one(c)
            .await
    })?;
    Ok(u64::try_from(total).unwrap_or(0))
}

/// The tenant's product total from the per-seller counts.
async fn counted_total(
    db: &Database,
    tenant: Tenant,
    status: Option<ProductStatus>,
) -> Result<u64> {
    let column = match status {
        None => "visible + hidden",
        Some(ProductStatus::Visible) => "visible",
        Some(ProductStatus::Hidden) => "hidden",
    };
    let sql = format!(
        "SELECT CAST(COALESCE(SUM({column}), 0) AS BIGINT) FROM seller_product_counts \
         WHERE account_id = $1 AND ($2 IS NULL OR seller_id = $2)"
    );
    let total: i64 = with_conn!(Exec::Db(db), |c| {
        sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
            .bind(tenant.account_id)
            .bind(tenant.seller_id)
            .fetch_one(c)
            .await
    })?;
    Ok(u64::try_from(total).unwrap_or(0))
}

/// How many products the seller has (from its counts).
pub async fn count_of_seller(db: &Database, seller_id: i64) -> Result<i64> {
    let count: Option<i64> = with_conn!(Exec::Db(db), |c| {
        sqlx::query_scalar(
            "SELECT visible + hidden FROM seller_product_counts WHERE seller_id = $1",
        )
        .bind(seller_id)
        .fetch_optional(c)
        .await
    })?;
    Ok(count.unwrap_or(0))
}

/// The shops each product is available in, for a page of products, in one query.
pub async fn shop_ids_of<'a>(
    exec: impl Into<Exec<'a>>,
    products: &[&Product],
) -> Result<HashMap<i64, Vec<i64>>> {
    let mut by_product: HashMap<i64, Vec<i64>> =
        products.iter().map(|p| (p.id, Vec::new())).collect();
    if products.is_empty() {
        return Ok(by_product);
    }
    let selected: Vec<i64> = products
        .iter()
        .filter(|p| !p.all_shops)
        .map(|p| p.id)
        .collect();
    let mut sellers: Vec<i64> = products
        .iter()
        .filter(|p| p.all_shops)
        .map(|p| p.seller_id)
        .collect();
    sellers.sort_unstable();
    sellers.dedup();
    let mut params = Params::new();
    let sql = format!(
        "SELECT 'product' AS owner_kind, product_id AS owner_id, shop_id FROM product_shops \
         WHERE product_id IN ({}) \
         UNION ALL SELECT 'seller', seller_id, id FROM shops WHERE seller_id IN ({}) ORDER BY 3",
        params.bind_all(selected.into_iter().map(Arg::Int)),
        params.bind_all(sellers.into_iter().map(Arg::Int)),
    );
    let rows: Vec<(String, i64, i64)> =
        fetch_all_bound!(exec.into(), (String, i64, i64), sql, params.args())?;
    let mut seller_shops: HashMap<i64, Vec<i64>> = HashMap::new();
    for (kind, owner, shop) in rows {
        match kind.as_str() {
            "product" => by_product.entry(owner).or_default().push(shop),
            _ => seller_shops.entry(owner).or_default().push(shop),
        }
    }
    for product in products.iter().filter(|p| p.all_shops) {
        if let Some(shops) = seller_shops.get(&product.seller_id) {
            by_product.insert(product.id, shops.clone());
        }
    }
    Ok(by_product)
}

/// The shops of the tenant among `ids`, with their sellers.
pub async fn tenant_shops<'a>(
    exec: impl Into<Exec<'a>>,
    tenant: Tenant,
    ids: &[i64],
) -> Result<Vec<ShopRef>> {
    let mut f = Filter::new();
    f.eq("account_id", Arg::Int(tenant.account_id))
        .eq_opt("seller_id", tenant.seller_id.map(Arg::Int))
        .any_of("id", ids.iter().copied().map(Arg::Int));
    let sql = format!(
        "SELECT id, seller_id, account_id FROM shops{}",
        f.where_sql()
    );
    Ok(fetch_all_bound!(exec.into(), ShopRef, sql, f.args())?)
}

/// Shops by subdomain, of any account, or only of the tenant's.
pub async fn shops_by_subdomain(
    db: &Database,
    tenant: Option<Tenant>,
    subdomains: &[String],
) -> Result<Vec<ShopRef>> {
    let mut f = Filter::new();
    if let Some(tenant) = tenant {
        f.eq("account_id", Arg::Int(tenant.account_id))
            .eq_opt("seller_id", tenant.seller_id.map(Arg::Int));
    }
    f.any_of("subdomain", subdomains.iter().cloned().map(Arg::Text));
    let sql = format!(
        "SELECT id, seller_id, account_id FROM shops{}",
        f.where_sql()
    );
    Ok(fetch_all_bound!(Exec::Db(db), ShopRef, sql, f.args())?)
}

/// A page of a collection's products in the collection's order (the caller has checked
/// the collection's scope; its `products_count` is the total).
pub async fn list_in_collection(
    db: &Database,
    collection_id: i64,
    order: SortOrder,
    window: Window,
) -> Result<Vec<(Product, Embedded)>> {
    let order_by = match order {
        SortOrder::Manual => "cp.position ASC, products.id ASC",
        SortOrder::TitleAsc => "products.title ASC, products.id ASC",
        SortOrder::TitleDesc => "products.title DESC, products.id DESC",
        SortOrder::PriceAsc => "products.price ASC, products.id ASC",
        SortOrder::PriceDesc => "products.price DESC, products.id DESC",
        SortOrder::CreatedAsc => "products.created_on ASC, products.id ASC",
        SortOrder::CreatedDesc => "products.created_on DESC, products.id DESC",
    };
    let sql = format!(
        "SELECT {} FROM products JOIN collection_products cp ON cp.product_id = products.id \
         WHERE cp.collection_id = $1 ORDER BY {order_by} LIMIT {} OFFSET {}",
        full_columns(db.backend()),
        window.limit,
        window.offset
    );
    let rows = with_conn!(Exec::Db(db), |c| {
        sqlx::query_as::<_, embedded::Row>(sqlx::AssertSqlSafe(sql))
            .bind(collection_id)
            .fetch_all(c)
            .await
    })?;
    rows.into_iter().map(embedded::Row::decode).collect()
}

#[cfg(test)]
mod tests {
    use domain::catalog::search;

    use super::*;
    use crate::catalog_load::{self, LoadProduct, LoadVariant};
    use crate::sellers::{self, NewSeller};
    use crate::test_databases::{self, TestDatabase};
    use crate::{Tenant, accounts};

    const MATCHES: usize = 2_000;
    const CAP: u64 = 10;

    /// `MATCHES` products whose titles carry one, two or three of the words beginning
    /// with "lamp", for a new account; answers its tenant.
    async fn lamps(db: &Database) -> Tenant {
        let now = Timestamp::from_micros(1_764_000_000_000_000);
        let mut tx = db.begin().await.unwrap();
        let account = accounts::insert(&mut tx, "Lamps", now).await.unwrap();
        let seller = NewSeller {
            account_id: account.id,
            name: "Lamps",
            slug: "lamps",
            default_currency_code: "USD",
            country_code: None,
        };
        let seller = sellers::insert(&mut tx, &seller, now).await.unwrap();
        let products: Vec<LoadProduct> = (0..MATCHES)
            .map(|n| {
                let title = ["Lamp", "Lamps Lamp", "Lampshade Lamps Lamp"][n % 3].to_owned();
                LoadProduct {
                    search_text: search::document([title.as_str()]),
                    slug: format!("lamp-{n}"),
                    title,
                    description: String::new(),
                    status: ProductStatus::Visible,
                    vendor: None,
                    tags: Vec::new(),
                    currency_code: "USD".into(),
                    product_type_id: None,
                    created_on: now,
                    variants: vec![LoadVariant {
                        sku: format!("L-{n}"),
                        title: "Default".into(),
                        price: 100,
                        price_comparison: None,
                        stock: 1,
                    }],
                }
            })
            .collect();
        catalog_load::load(&mut tx, account.id, seller.id, &products)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        Tenant {
            account_id: account.id,
            seller_id: None,
        }
    }

    /// The largest number of rows any step of the plan of `sql` produced (PostgreSQL).
    async fn most_rows_of_a_step(db: &Database, sql: &str, args: &[Arg]) -> u64 {
        let plan = async {
            let sql = format!("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) {sql}");
            Ok::<_, Error>(fetch_all_bound!(Exec::Db(db), (String,), sql, args)?)
        };
        let plan = plan.await.unwrap();
        plan.iter()
            .filter_map(|(line,)| line.split_once("actual rows=").map(|(_, rest)| rest))
            .map(|rest| rest.split(' ').next().unwrap().parse::<u64>().unwrap())
            .max()
            .unwrap()
    }

    /// However many products match a search, its count and its first page by id read a
    /// bounded number of rows: a few per cap, per indexed word the prefix begins.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_broad_search_reads_what_it_answers_not_every_match() {
        for TestDatabase { db, _dir, .. } in test_databases::both().await {
            let tenant = lamps(&db).await;
            let scope = CatalogScope::Tenant(tenant);
            let filter = ProductFilter {
                words: Some(vec!["lamp".into()]),
                ..ProductFilter::default()
            };
            let sort = Sort {
                column: "id",
                direction: crate::sql::Direction::Asc,
            };
            let window = Window {
                limit: 5,
                offset: 0,
            };
            let (rows, total) = list(&db, &scope, &filter, sort, window, CAP).await.unwrap();
            assert_eq!(total, ListTotal::MoreThan(CAP));
            let ids: Vec<i64> = rows.iter().map(|(p, _)| p.id).collect();
            let first = ids[0];
            assert_eq!(ids, (first..first + 5).collect::<Vec<_>>());
            let deep = Window {
                limit: 5,
                offset: 1_995,
            };
            let (rows, total) = list(&db, &scope, &filter, sort, deep, CAP).await.unwrap();
            assert_eq!(total, ListTotal::Exact(2_000));
            assert_eq!(rows.len(), 5);
            if db.backend() == Backend::Postgres {
                let base = filter::conditions(&scope, &filter);
                let how = Search::FromIndex {
                    first: CAP + 1,
                    direction: crate::sql::Direction::Asc,
                };
                let (source, f) = filter::searching(Backend::Postgres, &scope, &base, &filter, how);
                let count = capped_count_sql(source.from, &f, CAP);
                // Three words begin with "lamp", each walked up to the cap.
                let most = most_rows_of_a_step(&db, &count, f.args()).await;
                assert!(most <= 3 * (CAP + 1), "{most} rows in a step of {count}");
                let page = deferred_page_sql(
                    "id",
                    "products",
                    source,
                    &f,
                    sort,
                    window,
                    PagePlan::Planned,
                );
                let most = most_rows_of_a_step(&db, &page, f.args()).await;
                assert!(most <= 3 * (CAP + 1), "{most} rows in a step of {page}");
            }
            db.close().await;
        }
    }
}
