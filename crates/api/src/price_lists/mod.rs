//! Price lists: per-variant prices by quantity tier for a seller's buyers, with the
//! conditions under which they apply. List, read, create, update and delete; items are in
//! `items`, the preview of the prices a list gives in `prices`.

pub mod area;
mod input;
mod items;
mod prices;
pub mod rels;
mod representation;

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use domain::catalog::pricing::{PriceListKind, PriceListStatus};
use domain::{FieldErrors, Scope, topic};
use serde_json::Value;
use storage::price_lists::{self, PriceList, PriceListFilter};
use storage::sql::Direction;
use storage::{ScopedExt, Tenant, Tx, tenant_rows};

use crate::events::{Change, WriteCtx};
use crate::kernel::auth::Auth;
use crate::kernel::conditional::check_preconditions;
use crate::kernel::error::{ApiError, ApiResult};
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, ResourceId};
use crate::kernel::list::{ListRequest, ListSpec};
use crate::kernel::query::QueryParams;
use crate::kernel::state::AppState;

pub use representation::price_list_resource;

pub static PRICE_LIST_LIST: ListSpec = ListSpec {
    name: "price_lists",
    default_per_page: 20,
    sort_fields: price_lists::SORT_FIELDS,
    default_sort: ("id", Direction::Asc),
    filters: &[
        "q",
        "status",
        "kind",
        "seller_ids",
        "created_on.gte",
        "created_on.lte",
        "updated_on.gte",
        "updated_on.lte",
    ],
};

/// A list's items.
pub static ITEM_LIST: ListSpec = ListSpec {
    name: "price_list_items",
    default_per_page: 20,
    sort_fields: price_lists::ITEM_SORT_FIELDS,
    default_sort: ("id", Direction::Asc),
    filters: &["variant_ids", "product_ids"],
};

async fn list(
    State(state): State<AppState>,
    auth: Auth,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsRead)?;
    let mut errors = FieldErrors::new();
    let request = ListRequest::parse(
        &PRICE_LIST_LIST,
        QueryParams::parse(query.as_deref()),
        &mut errors,
    );
    let params = &request.params;
    let filter = PriceListFilter {
        seller_ids: params.id_list("seller_ids", &mut errors),
        q: params.get("q").map(str::to_owned),
        status: params.parsed::<PriceListStatus>("status", &mut errors),
        kind: params.parsed::<PriceListKind>("kind", &mut errors),
        created_on: params.time_range("created_on", &mut errors),
        updated_on: params.time_range("updated_on", &mut errors),
    };
    errors.into_result()?;
    let (rows, total) = auth
        .tenant_page(|tenant| {
            price_lists::list(&state.db, tenant, &filter, request.sort, request.window())
        })
        .await?;
    let items = rows
        .iter()
        .map(|l| price_list_resource(&state.urls, &auth, l))
        .collect();
    Ok(request.respond(&PRICE_LIST_LIST, &state, "/price_lists", total, items))
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsRead)?;
    let list = price_lists::find(&state.db, auth.own_tenant()?, id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let doc = price_list_resource(&state.urls, &auth, &list).into_value(state.urls.curies());
    Ok(Hal::ok(doc, list.updated_on))
}

async fn create(
    State(state): State<AppState>,
    auth: Auth,
    JsonBody(input): JsonBody<input::NewPriceList>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let seller =
        services::sellers::owning_seller(&state.db, auth.own_tenant()?, input.seller_id).await?;
    let data = input.validate(&seller)?;
    let ctx = WriteCtx::new(&state, &auth);
    let (seller, data) = (&seller, &data);
    let (list, doc) = state
        .write(|tx| {
            async move {
                let list =
                    price_lists::insert(tx, seller.account_id, seller.id, data, ctx.now).await?;
                let doc = document(ctx, &list);
                record(tx, ctx, topic::PRICE_LISTS_CREATED, &list, &doc).await?;
                Ok((list, doc))
            }
            .scoped()
        })
        .await?;
    Ok(Hal::created(
        doc,
        state.urls.price_list(list.id),
        list.updated_on,
    ))
}

async fn update(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
    JsonBody(changes): JsonBody<input::PriceListChanges>,
) -> ApiResult<Hal> {
    auth.require(Scope::ProductsWrite)?;
    let tenant = auth.own_tenant()?;
    let ctx = WriteCtx::new(&state, &auth);
    let (headers, changes) = (&headers, &changes);
    let (list, doc) = state
        .write(|tx| {
            async move {
                let current = locked(tx, tenant, id).await?;
                let current_doc = document(ctx, &current);
                check_preconditions(headers, &current_doc, current.updated_on)?;
                let data = changes.clone().apply(&current)?;
                if data == current.data() {
                    return Ok((current, current_doc));
                }
                let list = price_lists::update(tx, id, &data, ctx.now).await?;
                let doc = document(ctx, &list);
                record(tx, ctx, topic::PRICE_LISTS_UPDATED, &list, &doc).await?;
                Ok((list, doc))
            }
            .scoped()
        })
        .await?;
    Ok(Hal::ok(doc, list.updated_on))
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
                let current = locked(tx, tenant, id).await?;
                let doc = document(ctx, &current);
                check_preconditions(headers, &doc, current.updated_on)?;
                tenant_rows::delete(tx, price_lists::TABLE, tenant, id).await?;
                record(tx, ctx, topic::PRICE_LISTS_DELETED, &current, &doc).await?;
                Ok(doc)
            }
            .scoped()
        })
        .await?;
    Ok(Hal::ok(doc, ctx.now))
}

async fn locked(tx: &mut Tx, tenant: Tenant, id: i64) -> ApiResult<PriceList> {
    price_lists::find_for_update(tx, tenant, id)
        .await?
        .ok_or_else(ApiError::not_found)
}

fn document(ctx: WriteCtx<'_>, list: &PriceList) -> Value {
    let urls = &ctx.state.urls;
    price_list_resource(urls, ctx.auth, list).into_value(urls.curies())
}

/// Records an event about the list; `doc` is the list as GET shows it, with the items
/// concerned embedded for item events.
async fn record(
    tx: &mut Tx,
    ctx: WriteCtx<'_>,
    topic: &'static str,
    list: &PriceList,
    doc: &Value,
) -> ApiResult<i64> {
    let change = Change::of_catalog(
        topic,
        (list.account_id, list.seller_id),
        "price_list",
        list.id,
        None,
        doc,
    );
    ctx.record(tx, change).await
}
