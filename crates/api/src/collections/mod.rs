//! Collections: list, read, create, update, delete; their products in the collection's
//! order; and, for manual collections, adding, removing and reordering products.

pub mod area;
mod input;
pub mod rels;
mod representation;

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use domain::catalog::collection::CollectionKind;
use domain::{FieldErrors, Scope, limits, topic};
use serde::Deserialize;
use serde_json::Value;
use storage::collections::{self, Collection, CollectionFilter};
use storage::locks::{self, Catalog};
use storage::products;
use storage::sql::Direction;
use storage::{ScopedExt, Tenant, Tx, UniqueIndex, tenant_rows};

use services::products::Related;
use services::slugs::{slug_refused, unique_slug};

use crate::catalog::CatalogView;
use crate::events::{Change, WriteCtx};
use crate::kernel::auth::Auth;
use crate::kernel::conditional::check_preconditions;
use crate::kernel::error::{ApiError, ApiResult};
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, NestedIds, ResourceId};
use crate::kernel::list::{ListRequest, ListSpec};
use crate::kernel::query::QueryParams;
use crate::products::product_resource;

use crate::kernel::state::AppState;

pub use representation::collection_resource;

/// The most products one reorder may name.
const REORDER_MAX: usize = 1000;

pub static COLLECTION_LIST: ListSpec = ListSpec {
    name: "collections",
    default_per_page: 20,
    sort_fields: collections::SORT_FIELDS,
    default_sort: ("id", Direction::Asc),
    filters: &[
        "q",
        "kind",
        "product_ids",
        "seller_ids",
        "created_on.gte",
        "created_on.lte",
        "updated_on.gte",
        "updated_on.lte",
    ],
};

/// A collection's products: always in the collection's own order.
pub static MEMBER_LIST: ListSpec = ListSpec {
    name: "products",
    default_per_page: 20,
    sort_fields: &["position"],
    default_sort: ("position", Direction::Asc),
    filters: &[],
};

async fn list(
    State(state): State<AppState>,
    auth: Auth,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsRead)?;
    let mut errors = FieldErrors::new();
    let request = ListRequest::parse(
        &COLLECTION_LIST,
        QueryParams::parse(query.as_deref()),
        &mut errors,
    );
    let params = &request.params;
    let filter = CollectionFilter {
        seller_ids: params.id_list("seller_ids", &mut errors),
        kind: params.parsed::<CollectionKind>("kind", &mut errors),
        product_ids: params.id_list("product_ids", &mut errors),
        q: params.get("q").map(str::to_owned),
        created_on: params.time_range("created_on", &mut errors),
        updated_on: params.time_range("updated_on", &mut errors),
    };
    errors.into_result()?;
    let (rows, total) = auth
        .tenant_page(|tenant| {
            collections::list(&state.db, tenant, &filter, request.sort, request.window())
        })
        .await?;
    let items = rows
        .iter()
        .map(|c| collection_resource(&state.urls, &auth, c))
        .collect();
    Ok(request.respond(&COLLECTION_LIST, &state, "/collections", total, items))
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsRead)?;
    let collection = collections::find(&state.db, auth.own_tenant()?, id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let doc = collection_resource(&state.urls, &auth, &collection).into_value(state.urls.curies());
    Ok(Hal::ok(doc, collection.updated_on))
}

async fn create(
    State(state): State<AppState>,
    auth: Auth,
    JsonBody(input): JsonBody<input::NewCollection>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let seller =
        services::sellers::owning_seller(&state.db, auth.own_tenant()?, input.seller_id).await?;
    let (data, slug_given) = input.validate()?;
    let ctx = WriteCtx::new(&state, &auth);
    let (seller, data) = (&seller, &data);
    let (collection, doc) = state
        .write(|tx| {
            async move {
                // A smart collection's members depend on every product of the seller.
                if data.kind == CollectionKind::Smart {
                    locks::seller_catalog(tx, seller.id, Catalog::Exclusive).await?;
                }
                let mut data = data.clone();
                data.slug =
                    unique_slug(tx, "collections", seller.id, &data.slug, slug_given, None).await?;
                let collection =
                    collections::insert(tx, seller.account_id, seller.id, &data, ctx.now)
                        .await
                        .map_err(|err| {
                            slug_refused(err, UniqueIndex::CollectionsSlug, slug_given)
                        })?;
                let doc = document(ctx, &collection);
                record(tx, ctx, topic::COLLECTIONS_CREATED, &collection, &doc).await?;
                Ok((collection, doc))
            }
            .scoped()
        })
        .await?;
    Ok(Hal::created(
        doc,
        state.urls.collection(collection.id),
        collection.updated_on,
    ))
}

async fn update(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
    JsonBody(changes): JsonBody<input::CollectionChanges>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let tenant = auth.own_tenant()?;
    let ctx = WriteCtx::new(&state, &auth);
    let (headers, changes) = (&headers, &changes);
    let (collection, doc) = state
        .write(|tx| {
            async move {
                let current = locked_for_change(tx, tenant, id).await?;
                let current_doc = document(ctx, &current);
                check_preconditions(headers, &current_doc, current.updated_on)?;
                let data = changes.clone().apply(current.data())?;
                if data == current.data() {
                    return Ok((current, current_doc));
                }
                let collection = collections::update(tx, &current, &data, ctx.now).await?;
                let doc = document(ctx, &collection);
                record(tx, ctx, topic::COLLECTIONS_UPDATED, &collection, &doc).await?;
                Ok((collection, doc))
            }
            .scoped()
        })
        .await?;
    Ok(Hal::ok(doc, collection.updated_on))
}

async fn remove(
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
                let current = locked_for_change(tx, tenant, id).await?;
                let doc = document(ctx, &current);
                check_preconditions(headers, &doc, current.updated_on)?;
                tenant_rows::delete(tx, collections::TABLE, tenant, id).await?;
                record(tx, ctx, topic::COLLECTIONS_DELETED, &current, &doc).await?;
                Ok(doc)
            }
            .scoped()
        })
        .await?;
    Ok(Hal::ok(doc, ctx.now))
}

/// The collection's products in its sort order; its `products_count` is the total.
async fn members(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsRead)?;
    let tenant = auth.own_tenant()?;
    let mut errors = FieldErrors::new();
    let request = ListRequest::parse(
        &MEMBER_LIST,
        QueryParams::parse(query.as_deref()),
        &mut errors,
    );
    errors.into_result()?;
    let collection = collections::find(&state.db, tenant, id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let rows = products::list_in_collection(&state.db, id, collection.sort_order, request.window())
        .await?;
    let related = Related::load(&state.db, &rows).await?;
    let view = CatalogView::Admin(tenant);
    let items = rows
        .iter()
        .map(|p| product_resource(&state.urls, auth.scopes, &view, p, related.parts(p.id)))
        .collect();
    let total = u64::try_from(collection.products_count).unwrap_or(0);
    let path = format!("/collections/{id}/products");
    Ok(request.respond(&MEMBER_LIST, &state, &path, total, items))
}

#[derive(Debug, Deserialize)]
struct NewMember {
    product_id: i64,
    #[serde(default)]
    position: Option<i64>,
}

async fn add_product(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    JsonBody(input): JsonBody<NewMember>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let tenant = auth.own_tenant()?;
    if let Some(position) = input.position {
        limits::POSITION
            .check(position)
            .map_err(|message| ApiError::invalid_field("position", message))?;
    }
    let ctx = WriteCtx::new(&state, &auth);
    let (collection, doc) = state
        .write(|tx| {
            async move {
                let collection = manual(locked(tx, tenant, id).await?)?;
                // Held so that it is not deleted meanwhile; writes to it may go on.
                let product = products::find_held(tx, tenant, input.product_id)
                    .await?
                    .filter(|p| p.seller_id == collection.seller_id)
                    .ok_or_else(|| {
                        ApiError::invalid_field(
                            "product_id",
                            "is not a product of the collection's seller",
                        )
                    })?;
                if !collections::add_product(tx, id, product.id, input.position).await? {
                    return Err(ApiError::invalid_field(
                        "product_id",
                        "is in the collection already",
                    ));
                }
                let (collection, doc) =
                    membership_changed(tx, ctx, tenant, &collection, product.id).await?;
                record(tx, ctx, topic::COLLECTION_PRODUCTS_ADDED, &collection, &doc).await?;
                Ok((collection, doc))
            }
            .scoped()
        })
        .await?;
    Ok(Hal::ok(doc, collection.updated_on))
}

async fn remove_product(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(id, product_id): NestedIds,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let tenant = auth.own_tenant()?;
    let ctx = WriteCtx::new(&state, &auth);
    let (collection, doc) = state
        .write(|tx| {
            async move {
                let collection = manual(locked(tx, tenant, id).await?)?;
                if !collections::remove_product(tx, id, product_id).await? {
                    return Err(ApiError::not_found());
                }
                let (collection, doc) =
                    membership_changed(tx, ctx, tenant, &collection, product_id).await?;
                record(
                    tx,
                    ctx,
                    topic::COLLECTION_PRODUCTS_REMOVED,
                    &collection,
                    &doc,
                )
                .await?;
                Ok((collection, doc))
            }
            .scoped()
        })
        .await?;
    Ok(Hal::ok(doc, collection.updated_on))
}

#[derive(Debug, Deserialize)]
struct Reorder {
    product_ids: Vec<i64>,
}

/// Moves the products named, in that order, before the other members.
async fn reorder(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    JsonBody(input): JsonBody<Reorder>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let tenant = auth.own_tenant()?;
    let mut ids = input.product_ids;
    let mut errors = FieldErrors::new();
    if ids.is_empty() || ids.len() > REORDER_MAX {
        errors.add(
            "product_ids",
            format!("must name 1 to {REORDER_MAX} products"),
        );
    }
    let mut seen = std::collections::HashSet::new();
    if !ids.iter().all(|id| seen.insert(*id)) {
        errors.add("product_ids", "names a product twice");
    }
    errors.into_result()?;
    ids.dedup();
    let ctx = WriteCtx::new(&state, &auth);
    let ids = &ids;
    let (collection, doc) = state
        .write(|tx| {
            async move {
                let collection = manual(locked(tx, tenant, id).await?)?;
                let members = collections::members_among(tx, id, ids).await?;
                let strangers: Vec<String> = ids
                    .iter()
                    .filter(|p| !members.contains(p))
                    .map(i64::to_string)
                    .collect();
                if !strangers.is_empty() {
                    return Err(ApiError::invalid_field(
                        "product_ids",
                        format!("not in the collection: {}", strangers.join(", ")),
                    ));
                }
                collections::move_to_front(tx, id, ids).await?;
                let collection = collections::touch(tx, collection.id, ctx.now).await?;
                let doc = document(ctx, &collection);
                record(tx, ctx, topic::COLLECTIONS_UPDATED, &collection, &doc).await?;
                Ok((collection, doc))
            }
            .scoped()
        })
        .await?;
    Ok(Hal::ok(doc, collection.updated_on))
}

async fn locked(tx: &mut Tx, tenant: Tenant, id: i64) -> ApiResult<Collection> {
    collections::find_for_update(tx, tenant, id)
        .await?
        .ok_or_else(ApiError::not_found)
}

/// The collection an update or a deletion changes, locked (see
/// `collections::find_for_change`), or 404.
async fn locked_for_change(tx: &mut Tx, tenant: Tenant, id: i64) -> ApiResult<Collection> {
    collections::find_for_change(tx, tenant, id)
        .await?
        .ok_or_else(ApiError::not_found)
}

fn manual(collection: Collection) -> ApiResult<Collection> {
    match collection.kind {
        CollectionKind::Manual => Ok(collection),
        CollectionKind::Smart => Err(ApiError::invalid_field(
            "kind",
            "the collection is smart: its rules choose its products",
        )),
    }
}

/// After a product joined or left: the collection touched, as a document embedding the
/// product concerned (as it is now, when it still exists).
async fn membership_changed(
    tx: &mut Tx,
    ctx: WriteCtx<'_>,
    tenant: Tenant,
    collection: &Collection,
    product_id: i64,
) -> ApiResult<(Collection, Value)> {
    let collection = collections::touch(tx, collection.id, ctx.now).await?;
    let urls = &ctx.state.urls;
    let mut resource = collection_resource(urls, ctx.auth, &collection);
    if let Some(product) = products::find_held(tx, tenant, product_id).await? {
        let related = Related::load_in(tx, &product).await?;
        let view = CatalogView::Admin(tenant);
        resource = resource.embed(
            "product",
            product_resource(
                urls,
                ctx.auth.scopes,
                &view,
                &product,
                related.parts(product_id),
            ),
        );
    }
    Ok((collection, resource.into_value(urls.curies())))
}

fn document(ctx: WriteCtx<'_>, collection: &Collection) -> Value {
    let urls = &ctx.state.urls;
    collection_resource(urls, ctx.auth, collection).into_value(urls.curies())
}

async fn record(
    tx: &mut Tx,
    ctx: WriteCtx<'_>,
    topic: &'static str,
    collection: &Collection,
    doc: &Value,
) -> ApiResult<i64> {
    let change = Change::of_catalog(
        topic,
        (collection.account_id, collection.seller_id),
        "collection",
        collection.id,
        Some(&collection.slug),
        doc,
    );
    ctx.record(tx, change).await
}
