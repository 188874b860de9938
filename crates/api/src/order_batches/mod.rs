//! Batch status updates: many of a shop's orders moved to one status, each on its own,
//! answered with the orders moved and those left as they were, with why; over 100 orders,
//! answered 202 with the batch job that moves them (`crate::batches`).

pub mod area;
pub mod rels;

use axum::extract::State;
use domain::order::OrderStatus;
use domain::{Scope, ScopeSet};
use hal::{Link, Resource};
use schemars::JsonSchema;
use serde::Serialize;
use services::order_batches::input::BatchUpdate;
use services::order_batches::{self as operations, Outcome, Started};

use crate::batches::invalid_item;
use crate::kernel::auth::Auth;
use crate::kernel::error::ApiResult;
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, ResourceId};
use crate::kernel::state::AppState;
use crate::kernel::urls::Urls;
use crate::orders::order_resource;

/// The answer's own properties; the orders are embedded as `valid_items` and
/// `invalid_items`.
#[derive(Serialize, JsonSchema)]
pub struct BatchUpdateFields {
    /// The ids the batch named, in its order.
    ids: Vec<i64>,
    /// The status the orders were moved to.
    status: OrderStatus,
    /// The same, in Bootic v1's form.
    additions: Additions,
}

#[derive(Serialize, JsonSchema)]
pub struct Additions {
    status: OrderStatus,
}

async fn create(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(shop_id): ResourceId,
    JsonBody(input): JsonBody<BatchUpdate>,
) -> ApiResult<Hal> {
    auth.require(Scope::OrdersWrite)?;
    let started =
        operations::update_statuses(&state.services, &auth.actor()?, shop_id, input).await?;
    let (batch, outcome) = match started {
        Started::Done(batch, outcome) => (batch, outcome),
        Started::Queued(job) => {
            let location = state.urls.batch(job.value.summary.id);
            return Ok(Hal::accepted(
                job.document,
                location,
                job.value.summary.updated_on,
            ));
        }
    };
    let status = batch.target.status;
    let fields = BatchUpdateFields {
        ids: batch.ids,
        status,
        additions: Additions { status },
    };
    let doc = batch_resource(&state.urls, auth.scopes, shop_id, &fields, &outcome)
        .into_json(state.urls.curies());
    Ok(Hal::ok(doc, state.clock.now()))
}

fn batch_resource(
    urls: &Urls,
    viewer: ScopeSet,
    shop_id: i64,
    fields: &BatchUpdateFields,
    outcome: &Outcome,
) -> Resource {
    let valid = outcome
        .valid
        .iter()
        .map(|o| order_resource(urls, viewer, &o.order, &o.lines));
    let invalid = outcome.invalid.iter().map(invalid_item);
    Resource::new(["order_batch_update"])
        .with_properties(fields)
        .link("self", Link::get(urls.order_batch_updates(shop_id)))
        .rel(&crate::rels::SHOPS_SHOP, urls.shop(shop_id))
        .embed_all("valid_items", valid)
        .embed_all("invalid_items", invalid)
}
