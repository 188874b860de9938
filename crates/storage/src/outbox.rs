//! The event outbox. An event is written in the same transaction as the change it reports,
//! with a delivery for every subscription that hears of it, so there is never a change
//! without its event, nor an event (or a delivery) for a rolled-back change. Delivery reads
//! the outbox in `id` (= `sequence`) order.

use domain::Timestamp;

use crate::db::Tx;
use crate::error::Result;
use crate::events::{self, NewEvent};
use crate::webhook_deliveries;

/// Records an event inside the caller's transaction, with a delivery for every
/// subscription that hears of it; returns its sequence number.
pub async fn record(tx: &mut Tx, event: &NewEvent<'_>, now: Timestamp) -> Result<i64> {
    let id = events::insert(tx, event, now).await?;
    webhook_deliveries::fan_out(tx, id, event, now).await?;
    Ok(id)
}
