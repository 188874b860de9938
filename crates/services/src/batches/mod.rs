//! Batch jobs: work over more items than one request does, accepted at once (pending,
//! with `batches.created`) and done off the request path by the worker, which calls
//! [`run_next`]: a chunk of the oldest unfinished job at a time, each item by its area's
//! own operation (its transaction, its event), then the chunk's progress saved — with
//! `batches.finished` in the transaction that saves the last one.
//!
//! A crash between an item's write and the save of its chunk makes the next run do the
//! chunk again; each kind's item operation is idempotent (an order already in the status
//! counts as moved, with no second event), so nothing is done twice.

use domain::batch::{BatchKind, CHUNK, InvalidItem};
use domain::{ScopeSet, topic};
use serde_json::Value;
use storage::batches::{self as stored, Batch, NewBatch, Progress};
use storage::shops::{self, Shop};
use storage::{ScopedExt, Tenant, Tx};

use crate::events::Change;
use crate::order_batches;
use crate::{Actor, Op, ServiceError, ServiceResult, Services, Shown};

/// How a job looks to a reader with `viewer`'s scopes (its GET).
pub trait Present {
    fn batch(&self, viewer: ScopeSet, batch: &Batch) -> Value;
}

/// The worker's name in events and logs.
pub const JOB: &str = "batches";

/// Writes a pending job in the caller's transaction, with its `batches.created` event.
pub(crate) async fn enqueue(
    tx: &mut Tx,
    op: Op<'_>,
    shop: &Shop,
    new: &NewBatch<'_>,
) -> ServiceResult<Shown<Batch>> {
    let id = stored::insert(tx, new, op.now).await?;
    let written = reload(tx, op.actor.tenant, id).await?;
    let document = record(tx, op, topic::BATCHES_CREATED, shop, &written).await?;
    Ok(Shown::new(written, document))
}

/// Does the next chunk of the oldest unfinished job; whether there was one.
pub async fn run_next(services: &Services) -> ServiceResult<bool> {
    let Some(batch) = stored::next_unfinished(services.db()).await? else {
        return Ok(false);
    };
    let job = &batch.summary;
    let actor = Actor::system(JOB, job.account_id, job.seller_id);
    let ids = &batch.item_ids.0;
    let start = usize::try_from(job.processed)
        .unwrap_or(usize::MAX)
        .min(ids.len());
    let chunk = &ids[start..(start + CHUNK).min(ids.len())];
    let mut invalid_items = batch.invalid_items.0.clone();
    let mut succeeded = job.succeeded;
    for &id in chunk {
        match do_item(services, &actor, &batch, id).await? {
            Ok(()) => succeeded += 1,
            Err(errors) => invalid_items.push(InvalidItem {
                id,
                errors: errors.errors().to_vec(),
            }),
        }
    }
    let processed = i64::try_from(start + chunk.len()).unwrap_or(i64::MAX);
    let progress = Progress {
        processed,
        succeeded,
        failed: i64::try_from(invalid_items.len()).unwrap_or(i64::MAX),
        invalid_items: &invalid_items,
    };
    save(services, &actor, &batch, &progress).await?;
    Ok(true)
}

/// Does one item by its kind's operation; `Ok(Err(..))` says why it was left as it was.
async fn do_item(
    services: &Services,
    actor: &Actor,
    batch: &Batch,
    id: i64,
) -> ServiceResult<Result<(), domain::FieldErrors>> {
    let job = &batch.summary;
    match job.kind {
        BatchKind::OrderStatus => {
            let target = order_batches::Move::to(job.target_status)
                .ok_or_else(|| ServiceError::internal("a batch's orders are moved to checkout"))?;
            let moved = order_batches::move_one(services, actor, job.shop_id, id, target).await;
            Ok(moved.map(|_| ()))
        }
    }
}

/// Saves a chunk's progress, and the job's end with its event, in one transaction;
/// nothing when another run saved this chunk first.
async fn save(
    services: &Services,
    actor: &Actor,
    batch: &Batch,
    progress: &Progress<'_>,
) -> ServiceResult<()> {
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                if !stored::save_progress(tx, batch, progress, op.now).await? {
                    return Ok(());
                }
                if progress.processed >= batch.summary.total {
                    let shop = shops::find(&mut *tx, op.actor.tenant, batch.summary.shop_id)
                        .await?
                        .ok_or_else(|| ServiceError::internal("the batch's shop is not found"))?;
                    let written = reload(tx, op.actor.tenant, batch.summary.id).await?;
                    record(tx, op, topic::BATCHES_FINISHED, &shop, &written).await?;
                }
                Ok(())
            }
            .scoped()
        })
        .await
}

async fn reload(tx: &mut Tx, tenant: Tenant, id: i64) -> ServiceResult<Batch> {
    stored::find(&mut *tx, tenant, id)
        .await?
        .ok_or_else(|| ServiceError::internal(format!("batch {id}, just written, is not found")))
}

/// Records a job's event, heard by its shop's subscriptions, with the job as a GET by the
/// actor shows it; returns that document.
async fn record(
    tx: &mut Tx,
    op: Op<'_>,
    topic: &'static str,
    shop: &Shop,
    written: &Batch,
) -> ServiceResult<Value> {
    let doc = op.present().batch(op.actor.scopes, written);
    let change = Change::in_shop(topic, shop, "batch", written.summary.id, None, &doc);
    op.record(tx, change).await?;
    Ok(doc)
}
