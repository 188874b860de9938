//! Products: creating one with its variants, changing it, deleting it — each one
//! transaction with what it derives (price, search document, smart collections, type and
//! price list counts) and its event.

pub mod input;

use domain::catalog::attributes;
use domain::catalog::collection::CollectionKind;
use domain::{FieldErrors, ScopeSet, topic};
use serde_json::Value;
use storage::locks::{self, Catalog};
use storage::products::{self, Embedded, Product, ProductData};
use storage::sellers::Seller;
use storage::variants::{self, Owner, VariantData};
use storage::{ScopedExt, Tenant, Tx, UniqueIndex, collections, price_lists, product_types};

use self::input::{Draft, NewProduct, ProductChanges};
use crate::catalog::{
    self, check_skus_free, locked_product, locked_product_and_collections, lowest_price,
    search_text,
};
use crate::events::Change;
use crate::product_types::resolve_type;
use crate::sellers::owning_seller;
use crate::slugs::{slug_refused, unique_slug};
use crate::{Actor, Op, Precondition, ServiceError, ServiceResult, Services, Shown};

/// How a product with its variants, images, collections and shops looks to a reader of
/// `tenant`'s catalog with `viewer`'s scopes (its GET).
pub trait Present {
    fn product(
        &self,
        viewer: ScopeSet,
        tenant: Tenant,
        product: &Product,
        embedded: &Embedded,
    ) -> Value;
}

/// A product with what its representation embeds.
#[derive(Debug)]
pub struct FullProduct {
    pub product: Product,
    pub embedded: Embedded,
}

/// Creates a product with its variants; answers it as a GET would show it.
pub async fn create(
    services: &Services,
    actor: &Actor,
    input: NewProduct,
) -> ServiceResult<Shown<FullProduct>> {
    let tenant = actor.tenant;
    let seller = owning_seller(services.db(), tenant, input.seller_id).await?;
    let mut errors = FieldErrors::new();
    let draft = input.validate(&seller.default_currency_code, &mut errors);
    let op = Op::new(services, actor);
    let (seller, draft, errors) = (&seller, &draft, &errors);
    services
        .write(|tx| {
            async move { create_in(tx, op, tenant, seller, draft, errors.clone()).await }.scoped()
        })
        .await
}

/// One attempt of `create`, with the problems found before it in `errors`.
async fn create_in(
    tx: &mut Tx,
    op: Op<'_>,
    tenant: Tenant,
    seller: &Seller,
    draft: &Draft,
    mut errors: FieldErrors,
) -> ServiceResult<Shown<FullProduct>> {
    let now = op.now;
    locks::seller_catalog(tx, seller.id, Catalog::Shared).await?;
    let wanted = draft.collection_ids.as_deref();
    locks::manual_collections(tx, tenant, None, wanted.unwrap_or_default()).await?;
    let product_type = resolve_type(tx, op, seller, &draft.product_type, None, &mut errors).await?;
    let schema = product_type
        .as_ref()
        .map(|t| t.attributes.0.as_slice())
        .unwrap_or_default();
    attributes::check_values(schema, &draft.data.custom_attributes, &mut errors);
    check_shops(tx, tenant, seller, &draft.data, &mut errors).await?;
    let manual = check_collections(tx, tenant, seller, wanted, &mut errors).await?;
    check_skus_free(
        tx,
        seller.id,
        &draft.variants,
        None,
        "variants",
        &mut errors,
    )
    .await?;
    errors.into_result()?;

    let mut data = draft.data.clone();
    data.product_type_id = product_type.as_ref().map(|t| t.id);
    let slug_given = draft.slug_given;
    data.slug = unique_slug(tx, "products", seller.id, &data.slug, slug_given, None).await?;
    data.search_text = search_text(&data.title, &data.description, &data.tags, &draft.variants);
    let id = products::insert(tx, seller.account_id, seller.id, &data, now)
        .await
        .map_err(|err| slug_refused(err, UniqueIndex::ProductsSlug, slug_given))?;
    let owner = Owner {
        account_id: seller.account_id,
        seller_id: seller.id,
        product_id: id,
    };
    for variant in &draft.variants {
        variants::insert(tx, owner, variant, now).await?;
    }
    for collection_id in manual {
        collections::add_product(tx, collection_id, id, None).await?;
    }
    collections::refresh_product(tx, seller.id, id).await?;
    product_types::recount(tx, None, data.product_type_id).await?;
    reload_and_record(tx, op, id, topic::PRODUCTS_CREATED).await
}

/// Applies changes to a product.
pub async fn update(
    services: &Services,
    actor: &Actor,
    id: i64,
    expect: &dyn Precondition,
    changes: ProductChanges,
) -> ServiceResult<Shown<FullProduct>> {
    let op = Op::new(services, actor);
    let changes = &changes;
    services
        .write(|tx| async move { update_in(tx, op, id, expect, changes).await }.scoped())
        .await
}

/// One attempt of `update`.
async fn update_in(
    tx: &mut Tx,
    op: Op<'_>,
    id: i64,
    expect: &dyn Precondition,
    changes: &ProductChanges,
) -> ServiceResult<Shown<FullProduct>> {
    let (tenant, now) = (op.actor.tenant, op.now);
    // Manual collections change only when the request names them.
    let current = match changes.collection_ids() {
        Some(joining) => locked_product_and_collections(tx, tenant, id, joining).await?,
        None => locked_product(tx, tenant, id).await?,
    };
    let embedded = products::embedded_of(tx, id).await?;
    expect.check(&|| show(op, &current, &embedded), current.updated_on)?;
    let current_variants: Vec<VariantData> = embedded.variants.iter().map(|v| v.data()).collect();
    let before = current.data(embedded.shop_ids.to_vec(), String::new());
    let mut errors = FieldErrors::new();
    let draft = changes
        .clone()
        .apply(before.clone(), &current_variants, &mut errors);
    let seller = storage::sellers::find(&mut *tx, tenant, current.seller_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let product_type = resolve_type(
        tx,
        op,
        &seller,
        &draft.product_type,
        current.product_type_id,
        &mut errors,
    )
    .await?;
    if draft.attributes_changed {
        let schema = product_type
            .as_ref()
            .map(|t| t.attributes.0.as_slice())
            .unwrap_or_default();
        attributes::check_values(schema, &draft.data.custom_attributes, &mut errors);
    }
    if draft.data.shop_ids != before.shop_ids || draft.data.all_shops != before.all_shops {
        check_shops(tx, tenant, &seller, &draft.data, &mut errors).await?;
    }
    let manual = check_collections(
        tx,
        tenant,
        &seller,
        draft.collection_ids.as_deref(),
        &mut errors,
    )
    .await?;
    errors.into_result()?;

    let Draft {
        mut data,
        slug_given,
        price,
        collection_ids,
        ..
    } = draft;
    data.product_type_id = product_type.as_ref().map(|t| t.id);
    if slug_given && data.slug != before.slug {
        data.slug = unique_slug(tx, "products", seller.id, &data.slug, true, Some(id)).await?;
    }
    let membership_changes = match &collection_ids {
        Some(_) => {
            manual_membership_changes(tx, &seller, &embedded.collection_ids, &manual).await?
        }
        None => (Vec::new(), Vec::new()),
    };
    let price_changed = price.is_some_and(|(p, c)| {
        (p, c)
            != (
                current_variants[0].price,
                current_variants[0].price_comparison,
            )
    });
    if data == before && !price_changed && membership_changes == (Vec::new(), Vec::new()) {
        let shown = show(op, &current, &embedded);
        let unchanged = FullProduct {
            product: current,
            embedded,
        };
        return Ok(Shown::new(unchanged, shown));
    }
    let mut variants_after = current_variants;
    if let (true, Some((price, comparison))) = (price_changed, price) {
        let only = &embedded.variants[0];
        let mut changed = only.data();
        changed.price = price;
        changed.price_comparison = comparison;
        variants::update(tx, only.id, &changed, now).await?;
        variants_after = vec![changed];
    }
    (data.price, data.price_comparison) = lowest_price(&variants_after);
    data.search_text = search_text(&data.title, &data.description, &data.tags, &variants_after);
    products::update(tx, &current, &embedded.shop_ids, &data, now).await?;
    let (added, removed) = membership_changes;
    for collection_id in added {
        collections::add_product(tx, collection_id, id, None).await?;
    }
    for collection_id in removed {
        collections::remove_product(tx, collection_id, id).await?;
    }
    collections::refresh_product(tx, current.seller_id, id).await?;
    product_types::recount(tx, current.product_type_id, data.product_type_id).await?;
    reload_and_record(tx, op, id, topic::PRODUCTS_UPDATED).await
}

/// Deletes a product; answers it as it was.
pub async fn delete(
    services: &Services,
    actor: &Actor,
    id: i64,
    expect: &dyn Precondition,
) -> ServiceResult<Shown<FullProduct>> {
    let op = Op::new(services, actor);
    services
        .write(|tx| async move { delete_in(tx, op, id, expect).await }.scoped())
        .await
}

/// One attempt of `delete`.
async fn delete_in(
    tx: &mut Tx,
    op: Op<'_>,
    id: i64,
    expect: &dyn Precondition,
) -> ServiceResult<Shown<FullProduct>> {
    let tenant = op.actor.tenant;
    let current = locked_product_and_collections(tx, tenant, id, &[]).await?;
    let embedded = products::embedded_of(tx, id).await?;
    expect.check(&|| show(op, &current, &embedded), current.updated_on)?;
    // The shops to tell, as they were before the product's rows go.
    let shops = embedded.shop_ids.to_vec();
    let variant_ids: Vec<i64> = embedded.variants.iter().map(|v| v.id).collect();
    price_lists::forget_variants(tx, &variant_ids, op.now).await?;
    collections::forget_product(tx, id).await?;
    product_types::recount(tx, current.product_type_id, None).await?;
    products::delete(tx, &current).await?;
    let deleted = FullProduct {
        product: current,
        embedded,
    };
    let shown = record(tx, op, topic::PRODUCTS_DELETED, &deleted, &shops).await?;
    Ok(Shown::new(deleted, shown))
}

/// Shop ids must name shops of the product's seller.
async fn check_shops(
    tx: &mut Tx,
    tenant: Tenant,
    seller: &Seller,
    data: &ProductData,
    errors: &mut FieldErrors,
) -> ServiceResult<()> {
    if data.all_shops || data.shop_ids.is_empty() {
        return Ok(());
    }
    let found = products::tenant_shops(&mut *tx, tenant, &data.shop_ids).await?;
    for id in &data.shop_ids {
        if !found
            .iter()
            .any(|s| s.id == *id && s.seller_id == seller.id)
        {
            errors.add("shop_ids", format!("{id} is not a shop of the seller"));
        }
    }
    Ok(())
}

/// Collection ids must name manual collections of the product's seller; answers them.
async fn check_collections(
    tx: &mut Tx,
    tenant: Tenant,
    seller: &Seller,
    ids: Option<&[i64]>,
    errors: &mut FieldErrors,
) -> ServiceResult<Vec<i64>> {
    let Some(ids) = ids else {
        return Ok(Vec::new());
    };
    let found = collections::of_tenant_among(tx, tenant, ids).await?;
    let mut manual = Vec::new();
    for id in ids {
        match found
            .iter()
            .find(|c| c.id == *id && c.seller_id == seller.id)
        {
            None => errors.add(
                "collection_ids",
                format!("{id} is not a collection of the seller"),
            ),
            Some(c) if c.kind == CollectionKind::Smart => errors.add(
                "collection_ids",
                format!("{id} is a smart collection: its rules choose its products"),
            ),
            Some(_) if !manual.contains(id) => manual.push(*id),
            Some(_) => {}
        }
    }
    Ok(manual)
}

/// The manual collections to put the product in and to take it out of.
async fn manual_membership_changes(
    tx: &mut Tx,
    seller: &Seller,
    current: &[i64],
    wanted: &[i64],
) -> ServiceResult<(Vec<i64>, Vec<i64>)> {
    let manual = collections::of_seller(tx, seller.id, CollectionKind::Manual).await?;
    let is_manual = |id: &i64| manual.iter().any(|c| c.id == *id);
    let added = wanted
        .iter()
        .copied()
        .filter(|id| !current.contains(id))
        .collect();
    let removed = current
        .iter()
        .copied()
        .filter(|id| is_manual(id) && !wanted.contains(id))
        .collect();
    Ok((added, removed))
}

/// The product as written, with its event (heard in the shops it is available in now).
async fn reload_and_record(
    tx: &mut Tx,
    op: Op<'_>,
    id: i64,
    topic: &'static str,
) -> ServiceResult<Shown<FullProduct>> {
    let written = reload(tx, op.actor.tenant, id).await?;
    let shops = catalog::shops_of(tx, &written.product).await?;
    let shown = record(tx, op, topic, &written, &shops).await?;
    Ok(Shown::new(written, shown))
}

/// The product as its tenant reads it now, inside the transaction.
async fn reload(tx: &mut Tx, tenant: Tenant, id: i64) -> ServiceResult<FullProduct> {
    let (product, embedded) =
        products::find_full(&mut *tx, &products::CatalogScope::Tenant(tenant), id)
            .await?
            .ok_or_else(|| {
                ServiceError::internal(format!("product {id}, just written, is not found"))
            })?;
    Ok(FullProduct { product, embedded })
}

/// The product as a GET by the actor shows it.
fn show(op: Op<'_>, product: &Product, embedded: &Embedded) -> Value {
    op.present()
        .product(op.actor.scopes, op.actor.tenant, product, embedded)
}

/// Records a catalog event about a product, heard in `shops`, with the product as a GET
/// by the actor shows it; returns that document.
async fn record(
    tx: &mut Tx,
    op: Op<'_>,
    topic: &'static str,
    written: &FullProduct,
    shops: &[i64],
) -> ServiceResult<Value> {
    let product = &written.product;
    let doc = show(op, product, &written.embedded);
    let change = Change::of_catalog(
        topic,
        (product.account_id, product.seller_id),
        "product",
        product.id,
        Some(&product.slug),
        &doc,
    )
    .heard_in(shops);
    op.record(tx, change).await?;
    Ok(doc)
}
