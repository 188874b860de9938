//! Charges of a card the gateway saved (a subscription's renewals): written `pending` under
//! the order's lock like any charge, sent to the gateway under the charge's key, and
//! recorded by `finalize_charge`. Their caller (the renewal engine) owns their retries.

use domain::FieldErrors;
use domain::payment::PaymentStatus;
use storage::Tx;
use storage::orders::Order;
use storage::payment_methods;
use storage::payments::{self as stored, Payment};
use storage::secret_box::SecretBox;

use super::{call_gateway, charge_row, method_of};
use crate::payments::credentials_of;
use crate::payments::gateway::{self, Credentials, Source};
use crate::{Op, ServiceResult};

/// A charge of a card the gateway saved, written `pending` and waiting for its call.
#[derive(Debug)]
pub(crate) struct SavedCardCharge {
    pub payment: Payment,
    pub credentials: Credentials,
}

/// Writes a pending charge of `amount` on the order (locked by the caller) through its
/// payment method, to be taken from the card the gateway saved as `token`: `None` when the
/// method is gone, disabled or takes no card (the order then waits to be paid by hand).
pub(crate) async fn start_saved_card_charge(
    tx: &mut Tx,
    op: Op<'_>,
    secret_box: &SecretBox,
    order: &Order,
    amount: i64,
) -> ServiceResult<Option<SavedCardCharge>> {
    let mut errors = FieldErrors::new();
    let Some(method) = method_of(tx, op, order, &mut errors).await? else {
        return Ok(None);
    };
    if !errors.is_empty() || gateway::of(method.method_type).is_none() {
        return Ok(None);
    }
    let row = charge_row(order, &method, amount, PaymentStatus::Pending);
    let payment = stored::insert(tx, &row, op.now).await?;
    let credentials = credentials_of(tx, secret_box, &method).await?;
    Ok(Some(SavedCardCharge {
        payment,
        credentials,
    }))
}

/// The credentials a pending charge was started with, to call its gateway again (after a
/// crash) under the same key: `None` when its method is gone.
pub(crate) async fn credentials_of_charge(
    tx: &mut Tx,
    op: Op<'_>,
    secret_box: &SecretBox,
    payment: &Payment,
) -> ServiceResult<Option<Credentials>> {
    let Some(id) = payment.payment_method_id else {
        return Ok(None);
    };
    match payment_methods::find(&mut *tx, op.actor.tenant, id).await? {
        Some(method) => Ok(Some(credentials_of(tx, secret_box, &method).await?)),
        None => Ok(None),
    }
}

/// Calls the gateway for a pending charge of the card saved as `token`.
pub(crate) async fn charge_saved_card(
    payment: &Payment,
    credentials: &Credentials,
    token: &str,
) -> gateway::Outcome {
    call_gateway(payment, credentials, Source::SavedCard(token)).await
}
