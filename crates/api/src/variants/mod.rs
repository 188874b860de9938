//! Variants under `/products/{product_id}/variants`: list, read, add, change, delete (never
//! the last one) and atomic stock adjustments.

pub mod input;
mod representation;

use axum::Router;
use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::routing::{get, post};
use domain::{FieldErrors, Scope, limits, topic};
use serde::Deserialize;
use serde_json::Value;
use storage::product_assets;
use storage::products::{self, Product};
use storage::sql::Direction;
use storage::variants::{self, Owner, StockChange, Variant, VariantData};
use storage::{ScopedExt, Tenant, Tx, collections, price_lists, tenant_rows};

use crate::events::{Change, WriteCtx};
use crate::kernel::auth::Auth;
use crate::kernel::conditional::check_preconditions;
use crate::kernel::error::{ApiError, ApiResult};
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, NestedIds, ResourceId};
use crate::kernel::list::{ListRequest, ListSpec};
use crate::kernel::query::QueryParams;
use crate::products::write::{check_skus_free, locked_product, refresh_derived, shops_of};
use crate::products::{CatalogView, VARIANTS_MAX};
use crate::state::AppState;

pub use representation::variant_resource;

use input::{Defaults, NewVariant, VariantChanges};

pub static VARIANT_LIST: ListSpec = ListSpec {
    name: "variants",
    default_per_page: 20,
    sort_fields: variants::SORT_FIELDS,
    default_sort: ("position", Direction::Asc),
    filters: &[],
};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/products/{id}/variants", get(list).post(create))
        .route(
            "/products/{id}/variants/{variant_id}",
            get(show).put(update).delete(delete),
        )
        .route(
            "/products/{id}/variants/{variant_id}/stock_adjustments",
            post(adjust_stock),
        )
}

async fn list(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(product_id): ResourceId,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    let mut errors = FieldErrors::new();
    let request = ListRequest::parse(
        &VARIANT_LIST,
        QueryParams::parse(query.as_deref()),
        &mut errors,
    );
    let view = CatalogView::resolve(&state, &auth, &request.params).await?;
    errors.into_result()?;
    products::find(&state.db, &view.scope(), product_id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let (rows, total) =
        variants::list(&state.db, product_id, request.sort, request.window()).await?;
    let items = rows
        .iter()
        .map(|v| variant_resource(&state.urls, &auth, &view, v))
        .collect();
    let path = format!("/products/{product_id}/variants");
    Ok(request.respond(&VARIANT_LIST, &state, &path, total, items))
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(product_id, id): NestedIds,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    let view = CatalogView::resolve(&state, &auth, &QueryParams::parse(query.as_deref())).await?;
    products::find(&state.db, &view.scope(), product_id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let variant = variants::find(&state.db, product_id, id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let doc = variant_resource(&state.urls, &auth, &view, &variant).into_value(state.urls.curies());
    Ok(Hal::ok(doc, variant.updated_on))
}

async fn create(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(product_id): ResourceId,
    JsonBody(input): JsonBody<NewVariant>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let tenant = auth.own_tenant()?;
    let ctx = WriteCtx::new(&state, &auth);
    let input = &input;
    let (variant, doc) = state
        .write(|tx| {
            async move {
                let product = locked_product(tx, tenant, product_id).await?;
                let existing = variants::of_products(&mut *tx, &[product_id]).await?;
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
                        format!(
                            "the product has the most variants allowed ({})",
                            VARIANTS_MAX
                        ),
                    );
                }
                check_images(tx, product_id, &data, &mut errors).await?;
                check_skus_free(
                    tx,
                    product.seller_id,
                    std::slice::from_ref(&data),
                    None,
                    "",
                    &mut errors,
                )
                .await?;
                errors.into_result()?;
                let owner = Owner {
                    account_id: product.account_id,
                    seller_id: product.seller_id,
                    product_id,
                };
                let variant = variants::insert(tx, owner, &data, ctx.now).await?;
                refresh_derived(tx, &product, ctx.now).await?;
                let doc = document(ctx, tenant, &variant);
                record(tx, ctx, topic::VARIANTS_CREATED, &product, &variant, &doc).await?;
                Ok((variant, doc))
            }
            .scoped()
        })
        .await?;
    Ok(Hal::created(
        doc,
        state.urls.variant(product_id, variant.id),
        variant.updated_on,
    ))
}

async fn update(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(product_id, id): NestedIds,
    headers: HeaderMap,
    JsonBody(changes): JsonBody<VariantChanges>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let tenant = auth.own_tenant()?;
    let ctx = WriteCtx::new(&state, &auth);
    let (headers, changes) = (&headers, &changes);
    let (variant, doc) = state
        .write(|tx| {
            async move {
                let product = locked_product(tx, tenant, product_id).await?;
                let current = variants::find_for_update(tx, product_id, id)
                    .await?
                    .ok_or_else(ApiError::not_found)?;
                let current_doc = document(ctx, tenant, &current);
                check_preconditions(headers, &current_doc, current.updated_on)?;
                let data = changes.clone().apply(current.data())?;
                if data == current.data() {
                    return Ok((current, current_doc));
                }
                let mut errors = FieldErrors::new();
                check_images(tx, product_id, &data, &mut errors).await?;
                if data.sku != current.sku {
                    check_skus_free(
                        tx,
                        product.seller_id,
                        std::slice::from_ref(&data),
                        Some(id),
                        "",
                        &mut errors,
                    )
                    .await?;
                }
                errors.into_result()?;
                let variant = variants::update(tx, id, &data, ctx.now).await?;
                refresh_derived(tx, &product, ctx.now).await?;
                let doc = document(ctx, tenant, &variant);
                record(tx, ctx, topic::VARIANTS_UPDATED, &product, &variant, &doc).await?;
                Ok((variant, doc))
            }
            .scoped()
        })
        .await?;
    Ok(Hal::ok(doc, variant.updated_on))
}

async fn delete(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(product_id, id): NestedIds,
    headers: HeaderMap,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let tenant = auth.own_tenant()?;
    let ctx = WriteCtx::new(&state, &auth);
    let headers = &headers;
    let doc = state
        .write(|tx| {
            async move {
                let product = locked_product(tx, tenant, product_id).await?;
                let current = variants::find_for_update(tx, product_id, id)
                    .await?
                    .ok_or_else(ApiError::not_found)?;
                let doc = document(ctx, tenant, &current);
                check_preconditions(headers, &doc, current.updated_on)?;
                let siblings = variants::of_products(&mut *tx, &[product_id]).await?;
                if siblings.len() <= 1 {
                    return Err(ApiError::invalid_field(
                        "id",
                        "is the product's last variant: a product keeps at least one (delete the product instead)",
                    ));
                }
                price_lists::forget_variants(tx, &[id], ctx.now).await?;
                tenant_rows::delete(tx, variants::TABLE, tenant, id).await?;
                refresh_derived(tx, &product, ctx.now).await?;
                record(tx, ctx, topic::VARIANTS_DELETED, &product, &current, &doc).await?;
                Ok(doc)
            }
            .scoped()
        })
        .await?;
    Ok(Hal::ok(doc, ctx.now))
}

#[derive(Debug, Deserialize)]
struct StockAdjustment {
    delta: i64,
}

/// Adds `delta` to the stock in one conditional update (see `storage::variants`).
async fn adjust_stock(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(product_id, id): NestedIds,
    JsonBody(input): JsonBody<StockAdjustment>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    if input.delta == 0 || !limits::STOCK.contains(input.delta) {
        return Err(ApiError::invalid_field(
            "delta",
            format!("{} (and not 0)", limits::STOCK.message()),
        ));
    }
    let tenant = auth.own_tenant()?;
    let ctx = WriteCtx::new(&state, &auth);
    let delta = input.delta;
    let (variant, doc) = state
        .write(|tx| {
            async move {
                let product = locked_product(tx, tenant, product_id).await?;
                let variant = match variants::adjust_stock(tx, product_id, id, delta, ctx.now)
                    .await?
                {
                    StockChange::Applied(variant) => *variant,
                    StockChange::Insufficient(stock) => {
                        return Err(ApiError::invalid_field(
                            "delta",
                            format!(
                                "would take the stock ({stock}) below zero, and the variant is not available_if_no_stock"
                            ),
                        ));
                    }
                    StockChange::OutOfRange(stock) => {
                        return Err(ApiError::invalid_field(
                            "delta",
                            format!(
                                "would take the stock ({stock}) out of its range, {} to {}",
                                limits::STOCK.min,
                                limits::STOCK.max
                            ),
                        ));
                    }
                    StockChange::NotFound => return Err(ApiError::not_found()),
                };
                products::touch(tx, product_id, ctx.now).await?;
                collections::refresh_product(tx, product.seller_id, product_id).await?;
                let doc = document(ctx, tenant, &variant);
                record(tx, ctx, topic::VARIANTS_UPDATED, &product, &variant, &doc).await?;
                Ok((variant, doc))
            }
            .scoped()
        })
        .await?;
    Ok(Hal::ok(doc, variant.updated_on))
}

/// A variant's images must be images of its product.
async fn check_images(
    tx: &mut Tx,
    product_id: i64,
    data: &VariantData,
    errors: &mut FieldErrors,
) -> ApiResult<()> {
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

/// A variant as its tenant's GET shows it (also for orders' stock changes).
pub(crate) fn document(ctx: WriteCtx<'_>, tenant: Tenant, variant: &Variant) -> Value {
    let urls = &ctx.state.urls;
    variant_resource(urls, ctx.auth, &CatalogView::Admin(tenant), variant).into_value(urls.curies())
}

/// Records a variant's change, heard in its product's shops.
pub(crate) async fn record(
    tx: &mut Tx,
    ctx: WriteCtx<'_>,
    topic: &'static str,
    product: &Product,
    variant: &Variant,
    doc: &Value,
) -> ApiResult<i64> {
    let shops = shops_of(tx, product).await?;
    let change = Change::of_catalog(
        topic,
        (product.account_id, product.seller_id),
        "variant",
        variant.id,
        variant.sku.as_deref(),
        doc,
    )
    .heard_in(&shops);
    ctx.record(tx, change).await
}
