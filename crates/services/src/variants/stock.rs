//! Stock adjustments. Concurrent adjustments of one variant on this node wait in the
//! variant's lane (`lanes`) and are applied as one batch: one transaction that locks the
//! product and the variant once, applies each adjustment in arrival order with its own
//! check (`domain::catalog::stock`), records each accepted one's event with the variant as
//! it left it, and commits once. Each request is answered with its own outcome; a refused
//! one changes nothing. Other nodes' batches wait for the same row locks, so the stock a
//! batch starts from is always the committed one.
//!
//! A batch sends two statements on PostgreSQL: one takes its locks (the seller's catalog,
//! the product, the variant) and reads the variant, the other writes the stock, the events
//! and their deliveries once the documents are made; then its commit. More only when the
//! seller has smart collections to refresh.

use std::sync::Arc;

use domain::catalog::stock::{self, Refusal};
use domain::limits;
use storage::collections;
use storage::variants::{self as stored, StockOwner, Variant};
use storage::{ScopedExt, Tenant, Tx, outbox};

use crate::events::Change;
use crate::lanes::{Lanes, Unanswered};
use crate::{Actor, Op, ServiceError, ServiceResult, Services, Shown};

/// Adjustments applied in one transaction at most.
const MAX_BATCH: usize = 64;

/// The variant a lane adjusts, as the tenant of its requests names it: requests of other
/// tenants never share a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VariantKey {
    tenant: Tenant,
    product_id: i64,
    id: i64,
}

/// One adjustment waiting in its variant's lane.
pub struct Adjustment {
    actor: Actor,
    delta: i64,
}

type Answer = ServiceResult<Shown<Variant>>;

/// An adjustment's answer, with the queries its batch sent when it is the batch's first
/// (so that `X-Db-Queries` of concurrent requests add up to what their batches sent).
type Counted = (Answer, u32);

/// The lanes of every variant being adjusted on this node.
pub type StockLanes = Lanes<VariantKey, Adjustment, Counted>;

pub fn lanes() -> Arc<StockLanes> {
    Arc::new(Lanes::new(MAX_BATCH))
}

/// Adds `delta` (not 0, within the stock's range) to the variant's stock, in its lane's
/// next batch.
pub async fn adjust(
    services: &Services,
    actor: &Actor,
    product_id: i64,
    id: i64,
    delta: i64,
) -> Answer {
    if delta == 0 || !limits::STOCK.contains(delta) {
        return Err(ServiceError::invalid_field(
            "delta",
            format!("{} (and not 0)", limits::STOCK.message()),
        ));
    }
    let key = VariantKey {
        tenant: actor.tenant,
        product_id,
        id,
    };
    let adjustment = Adjustment {
        actor: actor.clone(),
        delta,
    };
    let runner = services.clone();
    let run = move |batch: Vec<Adjustment>| {
        let services = runner.clone();
        async move {
            let (answers, queries) =
                storage::query_count::counting(apply_batch(&services, key, &batch)).await;
            let shares = std::iter::once(queries).chain(std::iter::repeat(0));
            answers.into_iter().zip(shares).collect()
        }
    };
    match services.stock_lanes.submit(key, adjustment, run).await {
        Ok((answer, queries)) => {
            storage::query_count::note(queries);
            answer
        }
        Err(Unanswered) => Err(ServiceError::internal(
            "the batch of the stock adjustment stopped before answering it",
        )),
    }
}

/// Applies a batch in one transaction: an answer per adjustment, in order.
async fn apply_batch(services: &Services, key: VariantKey, batch: &[Adjustment]) -> Vec<Answer> {
    let now = services.now();
    let outcome = services
        .write(|tx| async move { apply_in(tx, services, key, batch, now).await }.scoped())
        .await;
    match outcome {
        Ok(answers) => answers,
        Err(err) => {
            let mut answers: Vec<Answer> =
                batch.iter().skip(1).map(|_| Err(err.shared())).collect();
            answers.insert(0, Err(err));
            answers
        }
    }
}

async fn apply_in(
    tx: &mut Tx,
    services: &Services,
    key: VariantKey,
    batch: &[Adjustment],
    now: domain::Timestamp,
) -> ServiceResult<Vec<Answer>> {
    let (current, owner) = stored::lock_for_stock(tx, key.tenant, key.product_id, key.id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let (outcomes, end) = stock::apply_in_order(
        current.stock,
        current.available_if_no_stock,
        batch.iter().map(|a| a.delta),
    );
    let mut answers = Vec::with_capacity(batch.len());
    let mut accepted = Vec::new();
    for (adjustment, outcome) in batch.iter().zip(outcomes) {
        match outcome {
            Ok(stock) => {
                let variant = Variant {
                    stock,
                    updated_on: now,
                    ..current.clone()
                };
                let op = Op {
                    services,
                    actor: &adjustment.actor,
                    now,
                };
                let document = super::show(op, &variant);
                accepted.push(answers.len());
                answers.push(Ok(Shown::new(variant, document)));
            }
            Err(refusal) => answers.push(Err(refused(refusal))),
        }
    }
    if accepted.is_empty() {
        return Ok(answers);
    }
    let changes: Vec<(&Adjustment, &Shown<Variant>)> = accepted
        .iter()
        .filter_map(|&i| Some((batch.get(i)?, answers.get(i)?.as_ref().ok()?)))
        .collect();
    let events: Vec<_> = changes
        .iter()
        .map(|(adjustment, shown)| {
            change(key.product_id, owner, &shown.value, &shown.document)
                .event(adjustment.actor.as_event_actor())
        })
        .collect();
    if owner.has_smart_collections {
        // Their members depend on the stock: refreshed once it is written.
        stored::set_stock(tx, key.product_id, key.id, end, now).await?;
        collections::refresh_product(tx, owner.seller_id, key.product_id).await?;
        outbox::record_all(tx, &events, now).await?;
    } else {
        stored::set_stock_and_record(tx, key.product_id, key.id, end, now, &events).await?;
    }
    Ok(answers)
}

/// A variant's stock change, heard in its product's shops as they are at the event.
fn change<'a>(
    product_id: i64,
    owner: StockOwner,
    variant: &'a Variant,
    document: &'a serde_json::Value,
) -> Change<'a> {
    Change::of_catalog(
        domain::topic::VARIANTS_UPDATED,
        (owner.account_id, owner.seller_id),
        "variant",
        variant.id,
        variant.sku.as_deref(),
        document,
    )
    .heard_in_shops_of(product_id, owner.seller_id, owner.all_shops)
}

/// The answer to a refused adjustment.
fn refused(refusal: Refusal) -> ServiceError {
    let message = match refusal {
        Refusal::Insufficient(stock) => format!(
            "would take the stock ({stock}) below zero, and the variant is not available_if_no_stock"
        ),
        Refusal::OutOfRange(stock) => format!(
            "would take the stock ({stock}) out of its range, {} to {}",
            limits::STOCK.min,
            limits::STOCK.max
        ),
    };
    ServiceError::invalid_field("delta", message)
}
