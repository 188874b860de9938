//! Orders: a shop's orders with their lines, listed and read with `orders.read`, created in
//! checkout, edited, moved along the state machine (place, close, ship, cancel) and deleted
//! with `orders.write`.

pub mod area;
pub mod rels;
mod representation;

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use domain::catalog::search;
use domain::order::{OrderStatus, Transition};
use domain::payment::MethodType;
use domain::{FieldErrors, Scope, limits};
use storage::orders::{self, OrderFilter, OrderLine};
use storage::sql::Direction;

use services::orders::input::{self, ShipInput};
use services::orders::{self as operations};

use crate::kernel::auth::Auth;
use crate::kernel::conditional::IfMatch;
use crate::kernel::error::ApiResult;
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, ResourceId};
use crate::kernel::list::ListSpec;
use crate::kernel::query::QueryParams;
use crate::kernel::revalidation::AccountData;
use crate::kernel::state::AppState;

pub use representation::{OrderFields, order_resource, own_order_resource};

pub static ORDER_LIST: ListSpec = ListSpec {
    name: "orders",
    default_per_page: 20,
    sort_fields: orders::SORT_FIELDS,
    default_sort: ("id", Direction::Desc),
    filters: &[
        "q",
        "status",
        "shop_ids",
        "code",
        "contact_id",
        "product_id",
        "payment_method",
        "payment_method_id",
        "total.gte",
        "total.lte",
        "net_total.gte",
        "net_total.lte",
        "shipping_total.gte",
        "shipping_total.lte",
        "discount_total.gte",
        "discount_total.lte",
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
    respond_list(
        &state,
        &auth,
        query.as_deref(),
        area::ORDERS.pattern(),
        Whose::Tenant,
    )
    .await
}

/// Whose orders a list shows.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Whose {
    /// The token's account's (with `orders.read`).
    Tenant,
    /// One customer's of the token's account (with `orders.read`).
    Customer(i64),
    /// The signed-in customer's own, as they see them.
    Own(oauth::SignedInCustomer),
}

/// A page of orders under the request's filters, narrowed to one customer's when asked;
/// `path` is the list's own.
pub(crate) async fn respond_list(
    state: &AppState,
    auth: &Auth,
    query: Option<&str>,
    path: &str,
    whose: Whose,
) -> ApiResult<Hal> {
    let (tenant, contact_id) = match whose {
        Whose::Tenant | Whose::Customer(_) => {
            auth.require(Scope::OrdersRead)?;
            let contact = match whose {
                Whose::Customer(id) => Some(id),
                _ => None,
            };
            (auth.tenant(), contact)
        }
        Whose::Own(customer) => (Some(customer.tenant), Some(customer.id)),
    };
    let (request, mut filter) = ORDER_LIST.read(query, filter)?;
    if let Some(id) = contact_id {
        // Narrowed to the customer, within whatever `contact_id` the query names.
        let named = filter
            .contact_ids
            .as_ref()
            .is_none_or(|ids| ids.contains(&id));
        filter.contact_ids = Some(if named { vec![id] } else { Vec::new() });
    }
    let page = match tenant {
        Some(tenant) => {
            orders::list(&state.db, tenant, &filter, request.sort, request.window()).await?
        }
        None => (Vec::new(), 0),
    };
    let ids: Vec<i64> = page.0.iter().map(|o| o.id).collect();
    let lines = orders::lines_of(&state.db, &ids).await?;
    let urls = &state.urls;
    Ok(request
        .respond(state, path, page, |order| {
            let lines = lines_of_order(&lines, order.id);
            match whose {
                Whose::Own(_) => own_order_resource(urls, order, lines),
                _ => order_resource(urls, auth.scopes, order, lines),
            }
        })
        .showing(tenant.map(|t| AccountData::of([t.account_id]))))
}

/// The list's filters. Statuses may use Bootic's names (`pending`, `invalid`); a code
/// that is not a number matches no order; every word of `q` must match (see
/// `orders::OrderFilter::words`).
fn filter(params: &QueryParams, errors: &mut FieldErrors) -> OrderFilter {
    let statuses = params.list("status").map(|names| {
        names
            .iter()
            .filter_map(|name| match OrderStatus::parse_lenient(name) {
                Ok(status) => Some(status),
                Err(e) => {
                    errors.add("status", format!("`{name}` {e}"));
                    None
                }
            })
            .collect()
    });
    let payment_method_types = params.list("payment_method").map(|names| {
        names
            .iter()
            .filter_map(|name| match name.parse::<MethodType>() {
                Ok(kind) => Some(kind),
                Err(e) => {
                    errors.add("payment_method", format!("`{name}` {e}"));
                    None
                }
            })
            .collect()
    });
    OrderFilter {
        payment_method_types,
        payment_method_ids: params.id_list("payment_method_id", errors),
        words: params.get("q").and_then(search::query_words),
        statuses,
        shop_ids: params.id_list("shop_ids", errors),
        contact_ids: params.id_list("contact_id", errors),
        product_ids: params.id_list("product_id", errors),
        codes: params
            .list("code")
            .map(|codes| codes.iter().filter_map(|c| c.parse().ok()).collect()),
        total: params.int_range("total", limits::AMOUNT, errors),
        net_total: params.int_range("net_total", limits::AMOUNT, errors),
        shipping_total: params.int_range("shipping_total", limits::AMOUNT, errors),
        discount_total: params.int_range("discount_total", limits::AMOUNT, errors),
        created_on: params.time_range("created_on", errors),
        updated_on: params.time_range("updated_on", errors),
    }
}

/// One order's share of a page's lines (which come ordered by order).
fn lines_of_order(lines: &[OrderLine], order_id: i64) -> &[OrderLine] {
    let start = lines.partition_point(|l| l.order_id < order_id);
    let end = lines.partition_point(|l| l.order_id <= order_id);
    &lines[start..end]
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    auth.require(Scope::OrdersRead)?;
    let order = auth
        .find(|tenant| orders::find(&state.db, tenant, id))
        .await?;
    let lines = orders::lines_of(&state.db, &[id]).await?;
    let doc =
        order_resource(&state.urls, auth.scopes, &order, &lines).into_json(state.urls.curies());
    Ok(Hal::ok(doc, order.updated_on).showing(AccountData::own(&auth)))
}

async fn create(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(shop_id): ResourceId,
    JsonBody(input): JsonBody<input::NewOrder>,
) -> ApiResult<Hal> {
    auth.require(Scope::OrdersWrite)?;
    let made = operations::create(&state.services, &auth.actor()?, shop_id, input).await?;
    let order = &made.value.order;
    Ok(Hal::created(
        made.document,
        state.urls.order(order.id),
        order.updated_on,
    ))
}

async fn update(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
    JsonBody(changes): JsonBody<input::OrderChanges>,
) -> ApiResult<Hal> {
    auth.require(Scope::OrdersWrite)?;
    let expect = IfMatch(&headers);
    let changed = operations::update(&state.services, &auth.actor()?, id, &expect, changes).await?;
    Ok(Hal::ok(changed.document, changed.value.order.updated_on))
}

async fn delete(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
) -> ApiResult<Hal> {
    auth.require(Scope::OrdersWrite)?;
    let deleted =
        operations::delete(&state.services, &auth.actor()?, id, &IfMatch(&headers)).await?;
    Ok(Hal::ok(deleted.document, state.clock.now()))
}

/// Makes a move of the state machine; `ship` carries the tracking.
async fn move_order(
    state: &AppState,
    auth: &Auth,
    id: i64,
    headers: &HeaderMap,
    transition: Transition,
    shipment: Option<ShipInput>,
) -> ApiResult<Hal> {
    auth.require(Scope::OrdersWrite)?;
    let expect = IfMatch(headers);
    let moved = operations::transition(
        &state.services,
        &auth.actor()?,
        id,
        &expect,
        transition,
        shipment,
    )
    .await?;
    Ok(Hal::ok(moved.document, moved.value.order.updated_on))
}

async fn place(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
) -> ApiResult<Hal> {
    move_order(&state, &auth, id, &headers, Transition::Place, None).await
}

async fn close(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
) -> ApiResult<Hal> {
    move_order(&state, &auth, id, &headers, Transition::Close, None).await
}

async fn ship(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
    JsonBody(shipment): JsonBody<ShipInput>,
) -> ApiResult<Hal> {
    move_order(
        &state,
        &auth,
        id,
        &headers,
        Transition::Ship,
        Some(shipment),
    )
    .await
}

/// Sets a shipment's tracking (shipping a closed order) and may mail the customer.
async fn tracking(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
    JsonBody(input): JsonBody<input::TrackingInput>,
) -> ApiResult<Hal> {
    auth.require(Scope::OrdersWrite)?;
    let tracked = operations::track(
        &state.services,
        &auth.actor()?,
        state.auth.secret_box(),
        id,
        &IfMatch(&headers),
        input,
    )
    .await?;
    Ok(Hal::ok(tracked.document, tracked.value.order.updated_on))
}

/// Cancels the order; the refunds of its payments are made before it answers (see
/// `services::payments::cancel`).
async fn cancel(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
) -> ApiResult<Hal> {
    auth.require(Scope::OrdersWrite)?;
    let cancelled = services::orders::payments::cancel(
        &state.services,
        &auth.actor()?,
        state.auth.secret_box(),
        id,
        &IfMatch(&headers),
    )
    .await?;
    Ok(Hal::ok(
        cancelled.document,
        cancelled.value.order.updated_on,
    ))
}
