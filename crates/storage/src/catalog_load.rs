//! Bulk loading of generated catalogs (seeds and benchmarks): many products with their
//! variants and tags in multi-row statements, with ids reserved up front, so that a
//! million products load in minutes rather than hours. Not for requests: it records no
//! events and expects no concurrent catalog writers (it takes the tables' write locks).

use domain::Timestamp;
use domain::catalog::product::{ProductStatus, tag_key};

use crate::bulk::{self, insert_all, next_id};
use crate::db::{Backend, Database, Exec, Tx};
use crate::error::Result;
use crate::json::to_text;
use crate::sql::Arg;

pub struct LoadProduct {
    pub title: String,
    pub slug: String,
    pub description: String,
    pub status: ProductStatus,
    pub vendor: Option<String>,
    pub tags: Vec<String>,
    pub currency_code: String,
    pub product_type_id: Option<i64>,
    pub search_text: String,
    pub created_on: Timestamp,
    /// At least one.
    pub variants: Vec<LoadVariant>,
}

pub struct LoadVariant {
    pub sku: String,
    pub title: String,
    pub price: i64,
    pub price_comparison: Option<i64>,
    pub stock: i64,
}

/// Inserts `products` for the seller; answers the first id given.
pub async fn load(
    tx: &mut Tx,
    account_id: i64,
    seller_id: i64,
    products: &[LoadProduct],
) -> Result<i64> {
    bulk::lock(tx, "products, variants").await?;
    let first_product = next_id(tx, "products").await?;
    let mut next_variant = next_id(tx, "variants").await?;
    let mut product_rows = Vec::with_capacity(products.len());
    let mut variant_rows = Vec::new();
    let mut tag_rows = Vec::new();
    for (id, product) in (first_product..).zip(products) {
        let cheapest = product
            .variants
            .iter()
            .min_by_key(|v| v.price)
            .expect("a loaded product has a variant");
        let created = Arg::Int(product.created_on.as_micros());
        product_rows.push([
            Arg::Int(id),
            Arg::Int(account_id),
            Arg::Int(seller_id),
            Arg::Text(product.title.clone()),
            Arg::Text(product.slug.clone()),
            Arg::Text(product.description.clone()),
            Arg::Text(product.status.as_str().into()),
            Arg::MaybeText(product.vendor.clone()),
            Arg::Text(to_text(&product.tags)),
            Arg::Int(cheapest.price),
            Arg::MaybeInt(cheapest.price_comparison),
            Arg::Text(product.currency_code.clone()),
            Arg::MaybeInt(product.product_type_id),
            Arg::Text(product.search_text.clone()),
            created.clone(),
            created.clone(),
        ]);
        for (position, variant) in (1..).zip(&product.variants) {
            variant_rows.push([
                Arg::Int(next_variant),
                Arg::Int(account_id),
                Arg::Int(seller_id),
                Arg::Int(id),
                Arg::Text(variant.sku.clone()),
                Arg::Text(variant.title.clone()),
                Arg::Int(variant.price),
                Arg::MaybeInt(variant.price_comparison),
                Arg::Int(variant.stock),
                Arg::Int(position),
                created.clone(),
                created.clone(),
            ]);
            next_variant += 1;
        }
        for tag in &product.tags {
            tag_rows.push([
                Arg::Int(id),
                Arg::Text(tag_key(tag)),
                Arg::Int(account_id),
                Arg::Int(seller_id),
            ]);
        }
    }
    insert_all(
        tx,
        "products (id, account_id, seller_id, title, slug, description, status, vendor, tags, price, \
         price_comparison, currency_code, product_type_id, search_text, created_on, updated_on, all_shops)",
        &product_rows,
        ", TRUE",
    )
    .await?;
    insert_all(
        tx,
        "variants (id, account_id, seller_id, product_id, sku, title, price, price_comparison, stock, position, \
         created_on, updated_on, available_if_no_stock)",
        &variant_rows,
        ", FALSE",
    )
    .await?;
    insert_all(
        tx,
        "product_tags (product_id, tag_key, account_id, seller_id)",
        &tag_rows,
        "",
    )
    .await?;
    let visible = products
        .iter()
        .filter(|p| p.status == ProductStatus::Visible)
        .count();
    let visible = i64::try_from(visible).unwrap_or(i64::MAX);
    let hidden = i64::try_from(products.len()).unwrap_or(i64::MAX) - visible;
    crate::products::count_products(tx, account_id, seller_id, visible, hidden).await?;
    bulk::advance_sequences(tx, &["products", "variants"]).await?;
    Ok(first_product)
}

/// Sets each of the seller's product types' `products_count` from its products.
pub async fn recount_types(tx: &mut Tx, seller_id: i64) -> Result<()> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query(
            "UPDATE product_types SET products_count = \
             (SELECT COUNT(*) FROM products WHERE products.product_type_id = product_types.id) \
             WHERE seller_id = $1",
        )
        .bind(seller_id)
        .execute(c)
        .await
        .map(|_| ())
    })?;
    Ok(())
}

/// Refreshes the planner's statistics after a bulk load of products.
pub async fn refresh_statistics(db: &Database) -> Result<()> {
    // PostgreSQL's search words are a table of their own (its 0011), SQLite's its FTS index.
    let tables: &[&str] = match db.backend() {
        Backend::Sqlite => &["products", "variants", "product_tags"],
        Backend::Postgres => &["products", "variants", "product_tags", "product_words"],
    };
    bulk::refresh_statistics(db, tables).await
}
