//! An order's payments: listed and read with `orders.read`; made with `orders.write`
//! through the order's payment method (the operation is `services::payments::pay`). An
//! approved charge is a 201; a declined one a 402 `payment_declined` and a gateway's
//! failure a 502 `gateway_error`, each with the recorded attempt embedded; a charge held
//! back by another still waiting for its gateway a 409 `payment_in_progress`.

pub mod area;
pub mod rels;
mod representation;

use axum::extract::{RawQuery, State};
use domain::Scope;
use domain::payment::PaymentStatus;
use services::orders::payments::{self as operations, Attempt};
use services::payments::input::NewPayment;
use storage::orders;
use storage::payments;
use storage::sql::Direction;

use crate::kernel::auth::Auth;
use crate::kernel::error::{ApiError, ApiResult, ErrorCode};
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, NestedIds, ResourceId};
use crate::kernel::list::ListSpec;
use crate::kernel::revalidation::AccountData;
use crate::kernel::state::AppState;

pub use representation::{PaymentFields, payment_resource};

pub static PAYMENT_LIST: ListSpec = ListSpec {
    name: "payments",
    default_per_page: 50,
    sort_fields: payments::SORT_FIELDS,
    default_sort: ("id", Direction::Asc),
    filters: &[],
};

async fn list(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(order_id): ResourceId,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::OrdersRead)?;
    let (request, ()) = PAYMENT_LIST.read(query.as_deref(), |_, _| ())?;
    auth.find(|tenant| orders::find(&state.db, tenant, order_id))
        .await?;
    let page = payments::of_order(&state.db, order_id, request.sort, request.window()).await?;
    let path = area::PAYMENTS.with(&[order_id]);
    Ok(request
        .respond(&state, &path, page, |p| {
            payment_resource(&state.urls, auth.scopes, p)
        })
        .showing(AccountData::own(&auth)))
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(order_id, id): NestedIds,
) -> ApiResult<Hal> {
    auth.require(Scope::OrdersRead)?;
    auth.find(|tenant| orders::find(&state.db, tenant, order_id))
        .await?;
    let payment = payments::find_of_order(&state.db, order_id, id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let doc = payment_resource(&state.urls, auth.scopes, &payment).into_value(state.urls.curies());
    Ok(Hal::ok(doc, payment.updated_on).showing(AccountData::own(&auth)))
}

async fn create(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(order_id): ResourceId,
    JsonBody(input): JsonBody<NewPayment>,
) -> ApiResult<Hal> {
    auth.require(Scope::OrdersWrite)?;
    let attempt = operations::pay(
        &state.services,
        &auth.actor()?,
        state.auth.secret_box(),
        order_id,
        input,
    )
    .await?;
    let recorded = match attempt {
        Attempt::Recorded(recorded) => *recorded,
        Attempt::InProgress { pending } => {
            return Err(ApiError::payment_in_progress(format!(
                "a charge of {pending} for this order is waiting for its gateway; ask again in a moment"
            )));
        }
    };
    let payment = &recorded.value;
    let message = payment.failure_message.clone().unwrap_or_default();
    match payment.status {
        PaymentStatus::Declined => Err(ApiError::with_embedded(
            ErrorCode::PaymentDeclined,
            format!("the payment was declined: {message}"),
            "payment",
            recorded.document,
        )),
        PaymentStatus::Failed => Err(ApiError::with_embedded(
            ErrorCode::GatewayError,
            format!("the payment gateway failed: {message}"),
            "payment",
            recorded.document,
        )),
        _ => Ok(Hal::created(
            recorded.document,
            state.urls.order_payment(order_id, payment.id),
            payment.updated_on,
        )),
    }
}
