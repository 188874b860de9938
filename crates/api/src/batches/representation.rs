//! How a batch job looks to a client: its progress, and the items it left as they were.

use domain::batch::{BatchKind, BatchState, InvalidItem};
use domain::order::OrderStatus;
use domain::{ScopeSet, Timestamp};
use hal::{Link, Resource};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use storage::batches::{Batch, BatchSummary};

use crate::kernel::present::Presenter;
use crate::kernel::urls::Urls;
use crate::rels;

/// A job's own properties; its invalid items are embedded as `invalid_items`.
#[derive(Serialize, JsonSchema)]
pub struct BatchFields {
    id: i64,
    shop_id: i64,
    kind: BatchKind,
    /// The status the orders are moved to.
    status: OrderStatus,
    state: BatchState,
    /// Items in the job.
    total: i64,
    /// Items done so far: succeeded + failed.
    processed: i64,
    succeeded: i64,
    failed: i64,
    created_on: Timestamp,
    updated_on: Timestamp,
    finished_on: Option<Timestamp>,
}

/// An item a batch left as it was, and why.
#[derive(Serialize, JsonSchema)]
pub struct InvalidItemFields<'a> {
    id: i64,
    /// As a refused request's `_embedded.errors`.
    errors: Vec<ErrorFields<'a>>,
}

#[derive(Serialize, JsonSchema)]
pub struct ErrorFields<'a> {
    field: &'a str,
    messages: &'a [String],
}

/// A job as lists show it: its progress; its invalid items are on its own page.
pub fn batch_summary(urls: &Urls, batch: &BatchSummary) -> Resource {
    let fields = BatchFields {
        id: batch.id,
        shop_id: batch.shop_id,
        kind: batch.kind,
        status: batch.target_status,
        state: batch.state,
        total: batch.total,
        processed: batch.processed,
        succeeded: batch.succeeded,
        failed: batch.failed,
        created_on: batch.created_on,
        updated_on: batch.updated_on,
        finished_on: batch.finished_on,
    };
    Resource::new(["batch"])
        .with_properties(&fields)
        .link("self", Link::get(urls.batch(batch.id)))
        .rel(&rels::SHOPS_SHOP, urls.shop(batch.shop_id))
}

/// A job whole (its GET, its events): the summary with its invalid items embedded.
pub fn batch_resource(urls: &Urls, batch: &Batch) -> Resource {
    batch_summary(urls, &batch.summary).embed_all(
        "invalid_items",
        batch.invalid_items.0.iter().map(invalid_item),
    )
}

/// An item left as it was, as batch answers and jobs embed it.
pub fn invalid_item(item: &InvalidItem) -> Resource {
    Resource::new(["invalid_item"]).with_properties(&InvalidItemFields {
        id: item.id,
        errors: item
            .errors
            .iter()
            .map(|e| ErrorFields {
                field: &e.field,
                messages: &e.messages,
            })
            .collect(),
    })
}

impl services::batches::Present for Presenter {
    fn batch(&self, _viewer: ScopeSet, batch: &Batch) -> Value {
        batch_resource(&self.urls, batch).into_value(self.urls.curies())
    }
}
