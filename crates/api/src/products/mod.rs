//! Products: list (an admin view for the account's tokens, the public catalog of named
//! shops for others), read, create with variants, update and delete.

pub mod area;
pub mod rels;
mod representation;

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use domain::catalog::product::{ProductStatus, tag_key};
use domain::catalog::search;
use domain::{FieldErrors, Scope, limits};
use services::products as operations;
use services::products::input::{NewProduct, ProductChanges};
use storage::products::{self, ProductFilter, ShopRef};
use storage::sql::Direction;

use crate::catalog::CatalogView;
use crate::kernel::auth::Auth;
use crate::kernel::conditional::IfMatch;
use crate::kernel::error::ApiResult;
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, ResourceId};
use crate::kernel::list::{ListSpec, total_items};
use crate::kernel::query::QueryParams;
use crate::kernel::state::AppState;

pub use representation::{ProductFields, product_resource};

pub static PRODUCT_LIST: ListSpec = ListSpec {
    name: "products",
    default_per_page: 20,
    sort_fields: products::SORT_FIELDS,
    default_sort: ("id", Direction::Asc),
    filters: &[
        "q",
        "status",
        "shop_ids",
        "shop_subdomains",
        "collections",
        "type_ids",
        "tags",
        "sku",
        "vendor",
        "price.gte",
        "price.lte",
        "created_on.gte",
        "created_on.lte",
        "updated_on.gte",
        "updated_on.lte",
    ],
};

async fn list(
    State(state): State<AppState>,
    auth: Auth,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    let (request, mut errors) = PRODUCT_LIST.begin(query.as_deref());
    let view = CatalogView::resolve(&state, &auth, &request.params).await?;
    let filter = filter(&state, &view, &request.params, &mut errors).await?;
    errors.into_result()?;
    let (rows, total) = products::list(
        &state.db,
        &view.scope(),
        &filter,
        request.sort,
        request.window(),
        state.config.exact_total_cap,
    )
    .await?;
    Ok(request
        .respond(
            &state,
            area::PRODUCTS.pattern(),
            (rows, total_items(total)),
            |(product, embedded)| {
                product_resource(&state.urls, auth.scopes, &view, product, embedded)
            },
        )
        .showing(view.shows()))
}

/// The list's filters; shops named by id or subdomain are looked up (one query).
async fn filter(
    state: &AppState,
    view: &CatalogView,
    params: &QueryParams,
    errors: &mut FieldErrors,
) -> ApiResult<ProductFilter> {
    let shop_ids = params.id_list("shop_ids", errors);
    let shops = match view {
        CatalogView::Admin(tenant) => {
            let by_id = match &shop_ids {
                Some(ids) => Some(products::tenant_shops(&state.db, *tenant, ids).await?),
                None => None,
            };
            let by_subdomain = match params.list("shop_subdomains") {
                Some(names) => {
                    Some(products::shops_by_subdomain(&state.db, Some(*tenant), &names).await?)
                }
                None => None,
            };
            both(by_id, by_subdomain)
        }
        CatalogView::Public { shops, .. } => shop_ids.map(|ids| {
            shops
                .iter()
                .copied()
                .filter(|s| ids.contains(&s.id))
                .collect()
        }),
    };
    Ok(ProductFilter {
        status: params.parsed::<ProductStatus>("status", errors),
        shops,
        collection_ids: params.id_list("collections", errors),
        type_ids: params.id_list("type_ids", errors),
        tags: params
            .list("tags")
            .map(|tags| tags.iter().map(|t| tag_key(t)).collect()),
        skus: params.list("sku"),
        vendors: params.list("vendor"),
        price: params.int_range("price", limits::AMOUNT, errors),
        created_on: params.time_range("created_on", errors),
        updated_on: params.time_range("updated_on", errors),
        words: params.get("q").and_then(search::query_words),
    })
}

/// Shops named both by id and by subdomain: those named both ways.
fn both(a: Option<Vec<ShopRef>>, b: Option<Vec<ShopRef>>) -> Option<Vec<ShopRef>> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.into_iter().filter(|s| b.contains(s)).collect()),
        (a, b) => a.or(b),
    }
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    let view = CatalogView::resolve(&state, &auth, &QueryParams::parse(query.as_deref())).await?;
    let (product, embedded) = view.full_product(&state, id).await?;
    let doc = product_resource(&state.urls, auth.scopes, &view, &product, &embedded)
        .into_json(state.urls.curies());
    Ok(Hal::ok(doc, product.updated_on).showing(view.shows()))
}

async fn create(
    State(state): State<AppState>,
    auth: Auth,
    JsonBody(input): JsonBody<NewProduct>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    created(&state, &auth, input).await
}

/// Creates a product available in the shop, for the shop's seller.
async fn create_in_shop(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(shop_id): ResourceId,
    JsonBody(input): JsonBody<NewProduct>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let shop = auth
        .find(|tenant| storage::shops::find(&state.db, tenant, shop_id))
        .await?;
    created(&state, &auth, input.in_shop(shop.seller_id, shop.id)).await
}

async fn created(state: &AppState, auth: &Auth, input: NewProduct) -> ApiResult<Hal> {
    let made = operations::create(&state.services, &auth.actor()?, input).await?;
    let product = &made.value.product;
    Ok(Hal::created(
        made.document,
        state.urls.product(product.id),
        product.updated_on,
    ))
}

async fn update(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
    JsonBody(changes): JsonBody<ProductChanges>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let expect = IfMatch(&headers);
    let changed = operations::update(&state.services, &auth.actor()?, id, &expect, changes).await?;
    Ok(Hal::ok(changed.document, changed.value.product.updated_on))
}

async fn delete(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let expect = IfMatch(&headers);
    let deleted = operations::delete(&state.services, &auth.actor()?, id, &expect).await?;
    Ok(Hal::ok(deleted.document, state.clock.now()))
}
