//! Subscription fees: the recurring terms a variant is sold on, created, changed and
//! deleted, each one transaction with its event. A fee belongs to one variant of the
//! actor's account and takes its product and seller from it; it goes with the variant by
//! foreign-key cascade. A fee used by a purchase that may still renew is not deleted.

pub mod input;

use domain::{FieldErrors, ScopeSet, topic};
use serde_json::Value;
use storage::secret_box::SecretBox;
use storage::subscription_fees::{self as stored, Owner, PricedFee, SubscriptionFee};
use storage::{ScopedExt, Tx, tenant_rows, variants};

use self::input::{NewSubscriptionFee, SubscriptionFeeChanges};
use crate::events::Change;
use crate::{
    Actor, Op, Precondition, ServiceError, ServiceResult, Services, Shown, subscription_purchases,
};

/// What a variant id that names none of the actor's variants is told (whether it names
/// another account's is not said).
const NO_SUCH_VARIANT: &str = "is not a variant of the account";

/// How a fee looks to a reader with `viewer`'s scopes (its GET).
pub trait Present {
    fn subscription_fee(&self, viewer: ScopeSet, fee: &PricedFee) -> Value;
}

/// Creates a fee for one of the actor's variants.
pub async fn create(
    services: &Services,
    actor: &Actor,
    input: NewSubscriptionFee,
) -> ServiceResult<Shown<PricedFee>> {
    let (fee, errors) = input.checked();
    let op = Op::new(services, actor);
    let (fee, errors) = (&fee, &errors);
    services
        .write(|tx| {
            async move {
                let mut errors = errors.clone();
                // Held, so that the variant stays while the fee naming it is written.
                let variant = if fee.ids_in_range() {
                    variants::find_held_of_tenant(tx, op.actor.tenant, fee.variant_id).await?
                } else {
                    None
                };
                match &variant {
                    None => errors.add("variant_id", NO_SUCH_VARIANT),
                    Some(v) if fee.product_id.is_some_and(|id| id != v.product_id) => {
                        errors.add("product_id", "is not the product of the variant")
                    }
                    Some(_) => {}
                }
                errors.into_result()?;
                let variant = variant.ok_or(ServiceError::NotFound)?;
                let owner = Owner {
                    account_id: variant.account_id,
                    seller_id: variant.seller_id,
                    product_id: variant.product_id,
                    variant_id: variant.id,
                };
                let made = stored::insert(tx, owner, &fee.terms, op.now).await?;
                let priced = PricedFee {
                    fee: made,
                    variant_price: variant.price,
                };
                let shown = record(tx, op, topic::SUBSCRIPTION_FEES_CREATED, &priced).await?;
                Ok(Shown::new(priced, shown))
            }
            .scoped()
        })
        .await
}

/// Changes a fee's terms. With `update_purchases_fees`, its active purchases take the
/// terms in the same transaction (`subscription_purchases::apply_fee_terms`), and with
/// `notify_purchases` their buyers are mailed them. A change that changes nothing writes
/// nothing.
pub async fn update(
    services: &Services,
    actor: &Actor,
    secret_box: &SecretBox,
    id: i64,
    expect: &dyn Precondition,
    changes: SubscriptionFeeChanges,
) -> ServiceResult<Shown<PricedFee>> {
    let op = Op::new(services, actor);
    let changes = &changes;
    services
        .write(|tx| {
            async move {
                let current = locked(tx, op, id, expect).await?;
                let terms = changes.apply(&current.fee.terms())?;
                let (priced, shown) = if terms == current.fee.terms() {
                    let shown = show(op, &current);
                    (current, shown)
                } else {
                    let fee = stored::update(tx, id, &terms, op.now).await?;
                    let priced = PricedFee {
                        fee,
                        variant_price: current.variant_price,
                    };
                    let shown = record(tx, op, topic::SUBSCRIPTION_FEES_UPDATED, &priced).await?;
                    (priced, shown)
                };
                if changes.update_purchases_fees == Some(true) {
                    let notify = changes.notify_purchases == Some(true);
                    subscription_purchases::apply_fee_terms(tx, op, secret_box, &priced, notify)
                        .await?;
                }
                Ok(Shown::new(priced, shown))
            }
            .scoped()
        })
        .await
}

/// Deletes a fee; answers it as it was.
pub async fn delete(
    services: &Services,
    actor: &Actor,
    id: i64,
    expect: &dyn Precondition,
) -> ServiceResult<Shown<PricedFee>> {
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                let current = locked(tx, op, id, expect).await?;
                let renewing = subscription_purchases::renewing_of_fee(tx, id).await?;
                if renewing > 0 {
                    let mut errors = FieldErrors::new();
                    errors.add(
                        "id",
                        format!(
                            "the fee is used by {renewing} subscription purchase(s) that may still renew \
                             (active, paused or failed): cancel them or move them to another fee first"
                        ),
                    );
                    return Err(errors.into());
                }
                tenant_rows::delete(tx, stored::TABLE, op.actor.tenant, id).await?;
                let shown = record(tx, op, topic::SUBSCRIPTION_FEES_DELETED, &current).await?;
                Ok(Shown::new(current, shown))
            }
            .scoped()
        })
        .await
}

/// The fee, locked, with its variant's price, once the caller's expectation of it holds.
async fn locked(
    tx: &mut Tx,
    op: Op<'_>,
    id: i64,
    expect: &dyn Precondition,
) -> ServiceResult<PricedFee> {
    let fee: SubscriptionFee = stored::find_for_update(tx, op.actor.tenant, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let current = stored::priced(&mut *tx, vec![fee])
        .await?
        .pop()
        .ok_or(ServiceError::NotFound)?;
    expect.check(&|| show(op, &current), current.fee.updated_on)?;
    Ok(current)
}

/// The fee as a GET by the actor shows it.
fn show(op: Op<'_>, fee: &PricedFee) -> Value {
    op.present().subscription_fee(op.actor.scopes, fee)
}

/// Records a change of the fee with the fee as a GET by the actor shows it; returns that
/// document.
async fn record(
    tx: &mut Tx,
    op: Op<'_>,
    topic: &'static str,
    priced: &PricedFee,
) -> ServiceResult<Value> {
    let doc = show(op, priced);
    let fee = &priced.fee;
    let change = Change::of_catalog(
        topic,
        (fee.account_id, fee.seller_id),
        "subscription_fee",
        fee.id,
        None,
        &doc,
    );
    op.record(tx, change).await?;
    Ok(doc)
}
