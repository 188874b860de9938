//! Product types: list, read, create, update (name, attribute schema) and delete (refused
//! while products use the type).

mod representation;

use axum::Router;
use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use axum::routing::get;
use domain::catalog::attributes::{self, AttributeDef};
use domain::{FieldErrors, Scope, topic, validation};
use serde::Deserialize;
use serde_json::Value;
use storage::product_types::{self, ProductType, ProductTypeFilter};
use storage::sellers::Seller;
use storage::sql::Direction;
use storage::{ScopedExt, Tenant, Tx, UniqueIndex, tenant_rows};

use crate::events::{Change, WriteCtx};
use crate::kernel::auth::Auth;
use crate::kernel::conditional::check_preconditions;
use crate::kernel::error::{ApiError, ApiResult};
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, Patch, ResourceId};
use crate::kernel::list::{ListRequest, ListSpec};
use crate::kernel::query::QueryParams;
use crate::products::TypeChoice;
use crate::sellers::owning_seller;
use crate::state::AppState;

pub use representation::product_type_resource;

const NAME_MAX: usize = 255;

pub static PRODUCT_TYPE_LIST: ListSpec = ListSpec {
    name: "product_types",
    default_per_page: 20,
    sort_fields: product_types::SORT_FIELDS,
    default_sort: ("id", Direction::Asc),
    filters: &[
        "q",
        "names",
        "seller_ids",
        "created_on.gte",
        "created_on.lte",
        "updated_on.gte",
        "updated_on.lte",
    ],
};

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/product_types", get(list).post(create))
        .route("/product_types/{id}", get(show).put(update).delete(delete))
}

async fn list(
    State(state): State<AppState>,
    auth: Auth,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsRead)?;
    let mut errors = FieldErrors::new();
    let request = ListRequest::parse(
        &PRODUCT_TYPE_LIST,
        QueryParams::parse(query.as_deref()),
        &mut errors,
    );
    let params = &request.params;
    let filter = ProductTypeFilter {
        seller_ids: params.id_list("seller_ids", &mut errors),
        q: params.get("q").map(str::to_owned),
        names: params.list("names"),
        created_on: params.time_range("created_on", &mut errors),
        updated_on: params.time_range("updated_on", &mut errors),
    };
    errors.into_result()?;
    let (rows, total) = auth
        .tenant_page(|tenant| {
            product_types::list(&state.db, tenant, &filter, request.sort, request.window())
        })
        .await?;
    let items = rows
        .iter()
        .map(|t| product_type_resource(&state.urls, &auth, t))
        .collect();
    Ok(request.respond(&PRODUCT_TYPE_LIST, &state, "/product_types", total, items))
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsRead)?;
    let product_type = product_types::find(&state.db, auth.own_tenant()?, id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let doc =
        product_type_resource(&state.urls, &auth, &product_type).into_value(state.urls.curies());
    Ok(Hal::ok(doc, product_type.updated_on))
}

#[derive(Debug, Deserialize)]
struct NewProductType {
    name: String,
    #[serde(default)]
    seller_id: Option<i64>,
    #[serde(default)]
    attributes: Option<Vec<AttributeDef>>,
}

async fn create(
    State(state): State<AppState>,
    auth: Auth,
    JsonBody(input): JsonBody<NewProductType>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let seller = owning_seller(&state.db, auth.own_tenant()?, input.seller_id).await?;
    let name = input.name.trim().to_owned();
    let defs = input.attributes.unwrap_or_default();
    check(&name, &defs)?;
    let ctx = WriteCtx::new(&state, &auth);
    let (seller, name, defs) = (&seller, &name, &defs);
    let product_type = state
        .write(|tx| async move { insert(tx, ctx, seller, name, defs, false).await }.scoped())
        .await?;
    let doc =
        product_type_resource(&state.urls, &auth, &product_type).into_value(state.urls.curies());
    Ok(Hal::created(
        doc,
        state.urls.product_type(product_type.id),
        product_type.updated_on,
    ))
}

#[derive(Debug, Default, Deserialize)]
struct ProductTypeChanges {
    #[serde(default)]
    name: Patch<String>,
    #[serde(default)]
    attributes: Patch<Vec<AttributeDef>>,
    #[serde(default)]
    seller_id: Patch<i64>,
}

async fn update(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
    JsonBody(changes): JsonBody<ProductTypeChanges>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let tenant = auth.own_tenant()?;
    let ctx = WriteCtx::new(&state, &auth);
    let (headers, changes) = (&headers, &changes);
    let (product_type, doc) = state
        .write(|tx| async move { change(tx, ctx, tenant, id, headers, changes).await }.scoped())
        .await?;
    Ok(Hal::ok(doc, product_type.updated_on))
}

/// One attempt of `update`: the type and its document after the changes.
async fn change(
    tx: &mut Tx,
    ctx: WriteCtx<'_>,
    tenant: Tenant,
    id: i64,
    headers: &HeaderMap,
    changes: &ProductTypeChanges,
) -> ApiResult<(ProductType, Value)> {
    let (urls, auth) = (&ctx.state.urls, ctx.auth);
    let current = product_types::find_for_update(tx, tenant, id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let current_doc = product_type_resource(urls, auth, &current).into_value(urls.curies());
    check_preconditions(headers, &current_doc, current.updated_on)?;
    let mut errors = FieldErrors::new();
    if !changes.seller_id.is_absent() {
        errors.add("seller_id", "cannot be changed");
    }
    let name = match &changes.name {
        Patch::Absent => current.name.clone(),
        Patch::Null => {
            errors.add("name", "can't be null");
            current.name.clone()
        }
        Patch::Value(name) => name.trim().to_owned(),
    };
    let defs = match &changes.attributes {
        Patch::Absent => current.attributes.0.clone(),
        Patch::Null => Vec::new(),
        Patch::Value(defs) => defs.clone(),
    };
    errors.into_result()?;
    check(&name, &defs)?;
    if name == current.name && defs == current.attributes.0 {
        return Ok((current, current_doc));
    }
    let product_type = product_types::update(tx, id, &name, &defs, ctx.now).await?;
    let doc = product_type_resource(urls, auth, &product_type).into_value(urls.curies());
    record(tx, ctx, topic::PRODUCT_TYPES_UPDATED, &product_type, &doc).await?;
    Ok((product_type, doc))
}

async fn delete(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let tenant = auth.own_tenant()?;
    let ctx = WriteCtx::new(&state, &auth);
    let headers = &headers;
    let doc = state
        .write(|tx| {
            async move {
                let urls = &ctx.state.urls;
                let current = product_types::find_for_update(tx, tenant, id)
                    .await?
                    .ok_or_else(ApiError::not_found)?;
                let doc = product_type_resource(urls, ctx.auth, &current).into_value(urls.curies());
                check_preconditions(headers, &doc, current.updated_on)?;
                if current.products_count > 0 {
                    return Err(ApiError::invalid_field(
                        "products_count",
                        format!(
                            "the type is used by {} products: give them another type or delete them first",
                            current.products_count
                        ),
                    ));
                }
                tenant_rows::delete(tx, product_types::TABLE, tenant, id).await?;
                record(tx, ctx, topic::PRODUCT_TYPES_DELETED, &current, &doc).await?;
                Ok(doc)
            }
            .scoped()
        })
        .await?;
    Ok(Hal::ok(doc, ctx.now))
}

fn check(name: &str, defs: &[AttributeDef]) -> Result<(), FieldErrors> {
    let mut errors = FieldErrors::new();
    errors.check("name", validation::text(name, NAME_MAX));
    attributes::check_schema(defs, &mut errors);
    errors.into_result()
}

/// Creates a type, recording its event; `found_free_by_name` when a product named it and
/// `find_by_name` found none.
async fn insert(
    tx: &mut Tx,
    ctx: WriteCtx<'_>,
    seller: &Seller,
    name: &str,
    defs: &[AttributeDef],
    found_free_by_name: bool,
) -> ApiResult<ProductType> {
    let product_type = product_types::insert(tx, seller.account_id, seller.id, name, defs, ctx.now)
        .await
        .map_err(|err| {
            let err = ApiError::from(err);
            // A name found free just before and taken now is a type a concurrent write
            // created: run again, it is found by name.
            if found_free_by_name {
                err.retry_if_taken(UniqueIndex::ProductTypesName)
            } else {
                err
            }
        })?;
    let urls = &ctx.state.urls;
    let doc = product_type_resource(urls, ctx.auth, &product_type).into_value(urls.curies());
    record(tx, ctx, topic::PRODUCT_TYPES_CREATED, &product_type, &doc).await?;
    Ok(product_type)
}

async fn record(
    tx: &mut Tx,
    ctx: WriteCtx<'_>,
    topic: &'static str,
    product_type: &ProductType,
    doc: &Value,
) -> ApiResult<i64> {
    let change = Change::of_catalog(
        topic,
        (product_type.account_id, product_type.seller_id),
        "product_type",
        product_type.id,
        None,
        doc,
    );
    ctx.record(tx, change).await
}

/// The type a product write names: kept, cleared, one of the seller's by id, or found by
/// name in any case (and created, recording `product_types.created`, when new).
pub async fn resolve_type(
    tx: &mut Tx,
    ctx: WriteCtx<'_>,
    seller: &Seller,
    choice: &TypeChoice,
    current: Option<i64>,
    errors: &mut FieldErrors,
) -> ApiResult<Option<ProductType>> {
    let tenant = ctx.auth.own_tenant()?;
    let id = match choice {
        TypeChoice::Clear => return Ok(None),
        TypeChoice::Keep => match current {
            Some(id) => id,
            None => return Ok(None),
        },
        TypeChoice::Id(id) => *id,
        TypeChoice::Name(name) => {
            if let Some(found) = product_types::find_by_name(tx, seller.id, name).await? {
                return Ok(Some(found));
            }
            return Ok(Some(insert(tx, ctx, seller, name, &[], true).await?));
        }
    };
    // Held, so that it stays, with its schema, while the product is checked against it.
    let found = product_types::find_held(tx, tenant, id)
        .await?
        .filter(|t| t.seller_id == seller.id);
    if found.is_none() && matches!(choice, TypeChoice::Id(_)) {
        errors.add("product_type_id", "is not a product type of the seller");
    }
    Ok(found)
}
