//! Product assets (images): metadata in one table, bytes in another, so that listing
//! never reads the bytes. Files are addressed by id and content digest, which makes their
//! public address unguessable and their content immutable.

use domain::Timestamp;

use crate::db::{Exec, Tx};
use crate::error::Result;
use crate::sql::{Arg, Filter, Sort, Window, list_sql};
use crate::tenant_rows::TenantTable;
use crate::variants::Owner;

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Asset {
    pub id: i64,
    pub account_id: i64,
    pub seller_id: i64,
    pub product_id: i64,
    pub file_name: String,
    pub content_type: String,
    pub byte_size: i64,
    pub width: Option<i64>,
    pub height: Option<i64>,
    pub digest: String,
    pub position: i64,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
}

macro_rules! columns {
    () => {
        "id, account_id, seller_id, product_id, file_name, content_type, byte_size, width, height, digest, \
         position, created_on, updated_on"
    };
}

/// Fields an asset list may be sorted by; each is indexed with the product.
pub const SORT_FIELDS: &[&str] = &["position", "id"];

pub struct NewAsset<'a> {
    pub file_name: &'a str,
    pub content_type: &'a str,
    pub width: Option<i64>,
    pub height: Option<i64>,
    pub digest: &'a str,
    pub data: &'a [u8],
}

/// The bytes of an asset, as served.
#[derive(Debug, sqlx::FromRow)]
pub struct AssetFile {
    pub content_type: String,
    pub digest: String,
    pub data: Vec<u8>,
    pub created_on: Timestamp,
}

/// Stores an asset after the product's others.
pub async fn insert(
    tx: &mut Tx,
    owner: Owner,
    asset: &NewAsset<'_>,
    now: Timestamp,
) -> Result<Asset> {
    let size = i64::try_from(asset.data.len()).unwrap_or(i64::MAX);
    let stored = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, Asset>(concat!(
            "INSERT INTO product_assets (account_id, seller_id, product_id, file_name, content_type, byte_size, \
             width, height, digest, position, created_on, updated_on) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, \
             (SELECT COALESCE(MAX(position), 0) + 1 FROM product_assets WHERE product_id = $3), $10, $10) \
             RETURNING ",
            columns!()
        ))
        .bind(owner.account_id)
        .bind(owner.seller_id)
        .bind(owner.product_id)
        .bind(asset.file_name)
        .bind(asset.content_type)
        .bind(size)
        .bind(asset.width)
        .bind(asset.height)
        .bind(asset.digest)
        .bind(now.as_micros())
        .fetch_one(c)
        .await
    })?;
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query("INSERT INTO product_asset_data (asset_id, data) VALUES ($1, $2)")
            .bind(stored.id)
            .bind(asset.data)
            .execute(c)
            .await
            .map(|_| ())
    })?;
    Ok(stored)
}

/// Where its rows are deleted, with `tenant_rows::delete`.
pub const TABLE: TenantTable = TenantTable::new("product_assets");

/// An asset of a product (the caller has checked the product's scope).
pub async fn find<'a>(
    exec: impl Into<Exec<'a>>,
    product_id: i64,
    id: i64,
) -> Result<Option<Asset>> {
    with_conn!(exec.into(), |c| {
        sqlx::query_as::<_, Asset>(concat!(
            "SELECT ",
            columns!(),
            " FROM product_assets WHERE id = $1 AND product_id = $2"
        ))
        .bind(id)
        .bind(product_id)
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}

/// Every asset of these products in one query, by product, position and id.
pub async fn of_products<'a>(exec: impl Into<Exec<'a>>, product_ids: &[i64]) -> Result<Vec<Asset>> {
    if product_ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut f = Filter::new();
    f.any_of("product_id", product_ids.iter().copied().map(Arg::Int));
    let sql = format!(
        "SELECT {} FROM product_assets{} ORDER BY product_id, position, id",
        columns!(),
        f.where_sql()
    );
    Ok(fetch_all_bound!(exec.into(), Asset, sql, f.args())?)
}

/// A page of a product's assets and their total.
pub async fn list<'a>(
    exec: impl Into<Exec<'a>>,
    product_id: i64,
    sort: Sort,
    window: Window,
) -> Result<(Vec<Asset>, u64)> {
    let mut f = Filter::new();
    f.eq("product_id", Arg::Int(product_id));
    let sql = list_sql(columns!(), "product_assets", &f, sort, window);
    fetch_list!(exec.into(), Asset, sql, f)
}

/// The file of an asset, when `digest` is its digest.
pub async fn file<'a>(
    exec: impl Into<Exec<'a>>,
    id: i64,
    digest: &str,
) -> Result<Option<AssetFile>> {
    with_conn!(exec.into(), |c| {
        sqlx::query_as::<_, AssetFile>(
            "SELECT a.content_type, a.digest, d.data, a.created_on FROM product_assets a \
             JOIN product_asset_data d ON d.asset_id = a.id WHERE a.id = $1 AND a.digest = $2",
        )
        .bind(id)
        .bind(digest)
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}
