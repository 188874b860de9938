//! Batch status updates: many of a shop's orders moved to one status, each order by the
//! orders' own move (its transaction, its stock, its event), so that one order's failure
//! undoes no other's. Up to `input::NOW_MAX` orders are moved by the request; more become
//! a job (`crate::batches`) whose worker moves them with [`move_one`] too.

pub mod input;

use domain::FieldErrors;
use domain::batch::{BatchKind, InvalidItem};
use storage::ScopedExt;
use storage::batches::{Batch as Job, NewBatch};
use storage::orders as stored;
use storage::shops;

pub use self::input::Move;
use self::input::{Batch, BatchUpdate};
use crate::orders::{self, FullOrder};
use crate::{Actor, Op, ServiceError, ServiceResult, Services, Shown, Unconditional, batches};

/// What a batch request started.
#[derive(Debug)]
pub enum Started {
    /// Moved by the request: what became of each order.
    Done(Batch, Outcome),
    /// Too many for one request: the job that will move them, as its GET shows it.
    Queued(Shown<Job>),
}

/// What became of each order of a batch, in the order the batch named them.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Orders now in the status (moved by the batch, or already there).
    pub valid: Vec<FullOrder>,
    /// Orders left as they were, with why.
    pub invalid: Vec<InvalidItem>,
}

/// What an unknown order is told: the same for a missing order, another shop's and
/// another account's, so that nothing is learnt of others' orders.
const NOT_FOUND: &str = "no order with this id in the shop";

/// What an order the server failed to move is told.
const FAILED: &str = "the order could not be moved (a server error): move it again";

/// Moves each named order of the shop to the batch's status, or, for more than
/// `input::NOW_MAX` orders, writes the job that will. The input is checked whole first
/// (nothing is written when it is refused); then each order moves on its own. An order
/// already in the status counts as moved, without a second event, so a batch may be
/// repeated, or run alongside an identical one, harmlessly.
pub async fn update_statuses(
    services: &Services,
    actor: &Actor,
    shop_id: i64,
    input: BatchUpdate,
) -> ServiceResult<Started> {
    let batch = input.validate()?;
    if !batch.runs_now() {
        return queue(services, actor, shop_id, &batch)
            .await
            .map(Started::Queued);
    }
    shops::find(services.db(), actor.tenant, shop_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let mut outcome = Outcome::default();
    for &id in &batch.ids {
        match move_one(services, actor, shop_id, id, batch.target).await {
            Ok(order) => outcome.valid.push(order),
            Err(errors) => outcome.invalid.push(InvalidItem {
                id,
                errors: errors.errors().to_vec(),
            }),
        }
    }
    Ok(Started::Done(batch, outcome))
}

/// Writes the job that moves the batch's orders.
async fn queue(
    services: &Services,
    actor: &Actor,
    shop_id: i64,
    batch: &Batch,
) -> ServiceResult<Shown<Job>> {
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                let shop = shops::find(&mut *tx, op.actor.tenant, shop_id)
                    .await?
                    .ok_or(ServiceError::NotFound)?;
                let new = NewBatch {
                    account_id: shop.account_id,
                    seller_id: shop.seller_id,
                    shop_id,
                    kind: BatchKind::OrderStatus,
                    target_status: batch.target.status,
                    item_ids: &batch.ids,
                };
                batches::enqueue(tx, op, &shop, &new).await
            }
            .scoped()
        })
        .await
}

/// Moves one order of the shop; `Err(..)` says why it was not moved. One order's failure
/// is its own, a server error too: reported with it, so that the others still move and a
/// job is never stuck on one order.
pub(crate) async fn move_one(
    services: &Services,
    actor: &Actor,
    shop_id: i64,
    id: i64,
    target: Move,
) -> Result<FullOrder, FieldErrors> {
    try_move(services, actor, shop_id, id, target)
        .await
        .unwrap_or_else(|err| {
            tracing::error!(order = id, error = %err, "a batch could not move an order");
            Err(FieldErrors::single("id", FAILED))
        })
}

async fn try_move(
    services: &Services,
    actor: &Actor,
    shop_id: i64,
    id: i64,
    target: Move,
) -> ServiceResult<Result<FullOrder, FieldErrors>> {
    let not_found = || FieldErrors::single("id", NOT_FOUND);
    let Some(current) = in_shop(services, actor, shop_id, id).await? else {
        return Ok(Err(not_found()));
    };
    if current.order.status == target.status {
        return Ok(Ok(current));
    }
    let moved =
        orders::transition(services, actor, id, &Unconditional, target.transition, None).await;
    match moved {
        Ok(moved) => Ok(Ok(moved.value)),
        // A concurrent write may have moved it there first: then it is where it was asked
        // to be, and that write recorded the move's one event.
        Err(ServiceError::Invalid(errors)) => {
            match reached(services, actor, shop_id, id, target).await? {
                Some(order) => Ok(Ok(order)),
                None => Ok(Err(errors)),
            }
        }
        Err(ServiceError::NotFound) => Ok(Err(not_found())),
        Err(other) => Err(other),
    }
}

/// The order with its lines, when it is one of the shop's.
async fn in_shop(
    services: &Services,
    actor: &Actor,
    shop_id: i64,
    id: i64,
) -> ServiceResult<Option<FullOrder>> {
    let Some(order) = stored::find(services.db(), actor.tenant, id).await? else {
        return Ok(None);
    };
    if order.shop_id != shop_id {
        return Ok(None);
    }
    let lines = stored::lines_of(services.db(), &[id]).await?;
    Ok(Some(FullOrder { order, lines }))
}

/// The order, when it is now in the target status.
async fn reached(
    services: &Services,
    actor: &Actor,
    shop_id: i64,
    id: i64,
    target: Move,
) -> ServiceResult<Option<FullOrder>> {
    Ok(in_shop(services, actor, shop_id, id)
        .await?
        .filter(|o| o.order.status == target.status))
}
