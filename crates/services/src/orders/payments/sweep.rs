//! The payments sweep, run by a worker: charges whose gateway's answer was never recorded
//! (the request died between its two transactions) are given up once
//! `CHARGE_TIMEOUT_SECS` have passed, and refunds that are due are made again (see
//! `payments::refunds`). Each is settled as the system, acting for its seller.

use domain::payment::{PaymentKind, PaymentStatus};
use storage::ScopedExt;
use storage::payments::{self as stored, Outcome, Payment};
use storage::secret_box::SecretBox;

use super::{CHARGE_TIMEOUT_SECS, finalize_charge};
use crate::payments::refunds;
use crate::{Actor, Op, ServiceResult, Services};

/// What one sweep did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Swept {
    /// Charges given up.
    pub abandoned: usize,
    /// Refunds made or given up.
    pub refunds_settled: usize,
    /// Refunds put off again.
    pub refunds_postponed: usize,
}

/// The most attempts one sweep settles (the next sweep takes the rest).
const BATCH: i64 = 100;

/// Settles what is due now.
pub async fn sweep(services: &Services, secret_box: &SecretBox) -> ServiceResult<Swept> {
    let now = services.now();
    let before = now.plus_secs(-CHARGE_TIMEOUT_SECS);
    let due = stored::unsettled(services.db(), before, now, BATCH).await?;
    let mut swept = Swept::default();
    for payment in due {
        let actor = Actor::system("payments", payment.account_id, payment.seller_id);
        match payment.kind {
            PaymentKind::Charge => {
                abandon(services, &actor, &payment).await?;
                swept.abandoned += 1;
            }
            PaymentKind::Refund => {
                if refunds::settle(services, &actor, secret_box, &payment).await? {
                    swept.refunds_settled += 1;
                } else {
                    swept.refunds_postponed += 1;
                }
            }
        }
    }
    Ok(swept)
}

/// Gives up a charge whose gateway's answer was lost: `failed`, its amount free again.
async fn abandon(services: &Services, actor: &Actor, payment: &Payment) -> ServiceResult<()> {
    let outcome = Outcome {
        status: PaymentStatus::Failed,
        reference: None,
        failure_code: Some("abandoned".into()),
        failure_message: Some(
            "the gateway's answer was not recorded in time; no charge is assumed".into(),
        ),
        saved_card: None,
    };
    let op = Op::new(services, actor);
    let outcome = &outcome;
    services
        .write(|tx| async move { finalize_charge(tx, op, payment, outcome).await }.scoped())
        .await?;
    Ok(())
}
