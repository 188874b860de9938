//! What the catalog's areas (products, variants, images, collections) share: locking the
//! product a write changes, the rules across a seller's variants, and what a product
//! derives from its variants.

use domain::catalog::search;
use domain::{FieldErrors, Timestamp};
use storage::locks::{self, Catalog};
use storage::products::{self, Product};
use storage::variants::{self, VariantData};
use storage::{Tenant, Tx, collections};

use crate::{ServiceError, ServiceResult};

/// The most variants a product may have.
pub const VARIANTS_MAX: usize = 250;

/// The ids of the shops `product` is available in: the subscriptions that hear of it.
pub async fn shops_of(tx: &mut Tx, product: &Product) -> ServiceResult<Vec<i64>> {
    let mut by_product = products::shop_ids_of(&mut *tx, &[product]).await?;
    Ok(by_product.remove(&product.id).unwrap_or_default())
}

/// The product a write changes (its fields, variants, images or stock), locked for the
/// rest of the transaction after its seller's catalog (`storage::locks`: its smart
/// collections may change), or not found.
pub async fn locked_product(tx: &mut Tx, tenant: Tenant, id: i64) -> ServiceResult<Product> {
    lock_product(tx, tenant, id, None).await
}

/// As `locked_product`, for a write that also changes the product's manual collections
/// (deleting it, or setting its `collection_ids`): those holding it and those it joins
/// are locked before it.
pub async fn locked_product_and_collections(
    tx: &mut Tx,
    tenant: Tenant,
    id: i64,
    joining: &[i64],
) -> ServiceResult<Product> {
    lock_product(tx, tenant, id, Some(joining)).await
}

async fn lock_product(
    tx: &mut Tx,
    tenant: Tenant,
    id: i64,
    joining: Option<&[i64]>,
) -> ServiceResult<Product> {
    if !locks::seller_catalog_of_product(tx, tenant, id, Catalog::Shared).await? {
        return Err(ServiceError::NotFound);
    }
    let collections = match joining {
        Some(joining) => Some(locks::manual_collections(tx, tenant, Some(id), joining).await?),
        None => None,
    };
    let product = products::find_for_update(tx, tenant, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    if let Some(collections) = collections {
        locks::confirm_manual_collections(tx, id, &collections).await?;
    }
    Ok(product)
}

/// SKUs must be free across the seller's variants (other than the variant `except`);
/// a taken one is reported as `sku`, or `{field}[i].sku` for a list of variants.
pub async fn check_skus_free(
    tx: &mut Tx,
    seller_id: i64,
    new: &[VariantData],
    except: Option<i64>,
    field: &str,
    errors: &mut FieldErrors,
) -> ServiceResult<()> {
    let skus: Vec<String> = new.iter().filter_map(|v| v.sku.clone()).collect();
    if skus.is_empty() {
        return Ok(());
    }
    let taken = variants::skus_taken(tx, seller_id, &skus, except).await?;
    for (i, variant) in new.iter().enumerate() {
        if variant.sku.as_ref().is_some_and(|s| taken.contains(s)) {
            let name = if field.is_empty() {
                "sku".to_owned()
            } else {
                format!("{field}[{i}].sku")
            };
            errors.add(name, "has already been taken");
        }
    }
    Ok(())
}

/// After a product's variants changed: its derived price and search document, its smart
/// collections and its `updated_on`.
pub async fn refresh_derived(
    tx: &mut Tx,
    product: &Product,
    now: Timestamp,
) -> storage::Result<()> {
    let all = variants::of_products(&mut *tx, &[product.id]).await?;
    let data: Vec<VariantData> = all.iter().map(|v| v.data()).collect();
    let (price, comparison) = lowest_price(&data);
    let text = search_text(&product.title, &product.description, &product.tags.0, &data);
    products::set_derived(tx, product.id, price, comparison, &text, now).await?;
    collections::refresh_product(tx, product.seller_id, product.id).await
}

/// The price of the lowest-priced variant (the first of equals) and its comparison price.
pub fn lowest_price(variants: &[VariantData]) -> (i64, Option<i64>) {
    variants
        .iter()
        .min_by_key(|v| (v.price, v.position))
        .map_or((0, None), |v| (v.price, v.price_comparison))
}

/// The words `q` finds a product by: its title, description, tags and SKUs.
pub fn search_text(
    title: &str,
    description: &str,
    tags: &[String],
    variants: &[VariantData],
) -> String {
    let words = [title, description]
        .into_iter()
        .chain(tags.iter().map(String::as_str))
        .chain(variants.iter().filter_map(|v| v.sku.as_deref()));
    search::document(words)
}
