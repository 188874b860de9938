//! Batch status updates: many of a shop's orders moved to one status, each order by the
//! orders' own move (its transaction, its stock, its event), so that one order's failure
//! undoes no other's.

pub mod input;

use domain::FieldErrors;
use storage::orders as stored;
use storage::shops;

use self::input::{Batch, BatchUpdate};
use crate::orders::{self, FullOrder};
use crate::{Actor, ServiceError, ServiceResult, Services, Unconditional};

/// What became of each order of a batch, in the order the batch named them.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Orders now in the status (moved by the batch, or already there).
    pub valid: Vec<FullOrder>,
    /// Orders left as they were, with why.
    pub invalid: Vec<InvalidItem>,
}

/// An order a batch could not move.
#[derive(Debug)]
pub struct InvalidItem {
    pub id: i64,
    pub errors: FieldErrors,
}

/// What an unknown order is told: the same for a missing order, another shop's and
/// another account's, so that nothing is learnt of others' orders.
const NOT_FOUND: &str = "no order with this id in the shop";

/// Moves each named order of the shop to the batch's status. The input is checked whole
/// first (nothing is written when it is refused); then each order moves on its own. An
/// order already in the status counts as moved, without a second event, so a batch may be
/// repeated, or run alongside an identical one, harmlessly.
pub async fn update_statuses(
    services: &Services,
    actor: &Actor,
    shop_id: i64,
    input: BatchUpdate,
) -> ServiceResult<(Batch, Outcome)> {
    let batch = input.validate()?;
    shops::find(services.db(), actor.tenant, shop_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let mut outcome = Outcome::default();
    for &id in &batch.ids {
        match move_one(services, actor, shop_id, id, &batch).await? {
            Ok(order) => outcome.valid.push(order),
            Err(errors) => outcome.invalid.push(InvalidItem { id, errors }),
        }
    }
    Ok((batch, outcome))
}

/// Moves one order; `Ok(Err(..))` says why it was not moved.
async fn move_one(
    services: &Services,
    actor: &Actor,
    shop_id: i64,
    id: i64,
    batch: &Batch,
) -> ServiceResult<Result<FullOrder, FieldErrors>> {
    let not_found = || FieldErrors::single("id", NOT_FOUND);
    let Some(current) = in_shop(services, actor, shop_id, id).await? else {
        return Ok(Err(not_found()));
    };
    if current.order.status == batch.status {
        return Ok(Ok(current));
    }
    let moved =
        orders::transition(services, actor, id, &Unconditional, batch.transition, None).await;
    match moved {
        Ok(moved) => Ok(Ok(moved.value)),
        // A concurrent write may have moved it there first: then it is where it was asked
        // to be, and that write recorded the move's one event.
        Err(ServiceError::Invalid(errors)) => {
            match reached(services, actor, shop_id, id, batch).await? {
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

/// The order, when it is now in the batch's status.
async fn reached(
    services: &Services,
    actor: &Actor,
    shop_id: i64,
    id: i64,
    batch: &Batch,
) -> ServiceResult<Option<FullOrder>> {
    Ok(in_shop(services, actor, shop_id, id)
        .await?
        .filter(|o| o.order.status == batch.status))
}
