//! Variants: adding one to a product, changing it, deleting it (never the last one), and
//! atomic stock adjustments — each one transaction with its event, after which the product
//! derives its price, search document and smart collections anew.

pub mod input;
pub mod stock;

use domain::{FieldErrors, ScopeSet, topic};
use serde_json::Value;
use storage::products::Product;
use storage::variants::{self as stored, Owner, Variant, VariantData};
use storage::{ScopedExt, Tenant, Tx, price_lists, product_assets, tenant_rows};

use self::input::{Defaults, NewVariant, VariantChanges};
use crate::catalog::{self, VARIANTS_MAX, check_skus_free, locked_product, refresh_derived};
use crate::events::Change;
use crate::{Actor, Op, Precondition, ServiceError, ServiceResult, Services, Shown};

/// How a variant looks to a reader of `tenant`'s catalog with `viewer`'s scopes (its GET).
pub trait Present {
    fn variant(&self, viewer: ScopeSet, tenant: Tenant, variant: &Variant) -> Value;
}

/// Adds a variant to the product, after its existing ones unless a position is given.
pub async fn create(
    services: &Services,
    actor: &Actor,
    product_id: i64,
    input: NewVariant,
) -> ServiceResult<Shown<Variant>> {
    let op = Op::new(services, actor);
    let input = &input;
    services
        .write(|tx| {
            async move {
                let product = locked_product(tx, actor.tenant, product_id).await?;
                let existing = stored::of_products(&mut *tx, &[product_id]).await?;
                let mut errors = FieldErrors::new();
                let defaults = Defaults {
                    price: None,
                    price_comparison: None,
                    position: existing.iter().map(|v| v.position).max().unwrap_or(0) + 1,
                };
                let data = input.clone().validate("", defaults, &mut errors);
                if existing.len() >= VARIANTS_MAX {
                    errors.add(
                        "product_id",
                        format!("the product has the most variants allowed ({VARIANTS_MAX})"),
                    );
                }
                check_images(tx, product_id, &data, &mut errors).await?;
                let new = std::slice::from_ref(&data);
                check_skus_free(tx, product.seller_id, new, None, "", &mut errors).await?;
                errors.into_result()?;
                let owner = Owner {
                    account_id: product.account_id,
                    seller_id: product.seller_id,
                    product_id,
                };
                let variant = stored::insert(tx, owner, &data, op.now).await?;
                refresh_derived(tx, &product, op.now).await?;
                let shown = record(tx, op, topic::VARIANTS_CREATED, &product, &variant).await?;
                Ok(Shown::new(variant, shown))
            }
            .scoped()
        })
        .await
}

/// Changes a variant.
pub async fn update(
    services: &Services,
    actor: &Actor,
    product_id: i64,
    id: i64,
    expect: &dyn Precondition,
    changes: VariantChanges,
) -> ServiceResult<Shown<Variant>> {
    let op = Op::new(services, actor);
    let changes = &changes;
    services
        .write(|tx| {
            async move {
                let (product, current) = locked(tx, op, product_id, id, expect).await?;
                let data = changes.clone().apply(current.data())?;
                if data == current.data() {
                    let shown = show(op, &current);
                    return Ok(Shown::new(current, shown));
                }
                let mut errors = FieldErrors::new();
                check_images(tx, product_id, &data, &mut errors).await?;
                if data.sku != current.sku {
                    let new = std::slice::from_ref(&data);
                    check_skus_free(tx, product.seller_id, new, Some(id), "", &mut errors).await?;
                }
                errors.into_result()?;
                let variant = stored::update(tx, id, &data, op.now).await?;
                refresh_derived(tx, &product, op.now).await?;
                let shown = record(tx, op, topic::VARIANTS_UPDATED, &product, &variant).await?;
                Ok(Shown::new(variant, shown))
            }
            .scoped()
        })
        .await
}

/// Deletes a variant, unless it is its product's last; answers it as it was.
pub async fn delete(
    services: &Services,
    actor: &Actor,
    product_id: i64,
    id: i64,
    expect: &dyn Precondition,
) -> ServiceResult<Shown<Variant>> {
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                let (product, current) = locked(tx, op, product_id, id, expect).await?;
                let siblings = stored::of_products(&mut *tx, &[product_id]).await?;
                if siblings.len() <= 1 {
                    return Err(ServiceError::invalid_field(
                        "id",
                        "is the product's last variant: a product keeps at least one (delete the product instead)",
                    ));
                }
                price_lists::forget_variants(tx, &[id], op.now).await?;
                tenant_rows::delete(tx, stored::TABLE, op.actor.tenant, id).await?;
                refresh_derived(tx, &product, op.now).await?;
                let shown = record(tx, op, topic::VARIANTS_DELETED, &product, &current).await?;
                Ok(Shown::new(current, shown))
            }
            .scoped()
        })
        .await
}

/// Adds `delta` (not 0, within the stock's range) to the variant's stock, with the
/// concurrent adjustments of the variant on this node (see `stock`).
pub async fn adjust_stock(
    services: &Services,
    actor: &Actor,
    product_id: i64,
    id: i64,
    delta: i64,
) -> ServiceResult<Shown<Variant>> {
    stock::adjust(services, actor, product_id, id, delta).await
}

/// The product and its variant, locked, once the caller's expectation of it holds.
async fn locked(
    tx: &mut Tx,
    op: Op<'_>,
    product_id: i64,
    id: i64,
    expect: &dyn Precondition,
) -> ServiceResult<(Product, Variant)> {
    let product = locked_product(tx, op.actor.tenant, product_id).await?;
    let current = stored::find_for_update(tx, product_id, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    expect.check(&|| show(op, &current), current.updated_on)?;
    Ok((product, current))
}

/// A variant's images must be images of its product.
async fn check_images(
    tx: &mut Tx,
    product_id: i64,
    data: &VariantData,
    errors: &mut FieldErrors,
) -> ServiceResult<()> {
    if data.image_ids.is_empty() {
        return Ok(());
    }
    let assets = product_assets::of_products(&mut *tx, &[product_id]).await?;
    for id in &data.image_ids {
        if !assets.iter().any(|a| a.id == *id) {
            errors.add("image_ids", format!("{id} is not an image of the product"));
        }
    }
    Ok(())
}

/// The variant as a GET by the actor shows it.
fn show(op: Op<'_>, variant: &Variant) -> Value {
    op.present()
        .variant(op.actor.scopes, op.actor.tenant, variant)
}

/// Records a variant's change, heard in its product's shops, with the variant as a GET by
/// the actor shows it; returns that document.
pub(crate) async fn record(
    tx: &mut Tx,
    op: Op<'_>,
    topic: &'static str,
    product: &Product,
    variant: &Variant,
) -> ServiceResult<Value> {
    let doc = show(op, variant);
    let shops = catalog::shops_of(tx, product).await?;
    let change = Change::of_catalog(
        topic,
        (product.account_id, product.seller_id),
        "variant",
        variant.id,
        variant.sku.as_deref(),
        &doc,
    )
    .heard_in(&shops);
    op.record(tx, change).await?;
    Ok(doc)
}
