//! Exchange rates: what one unit of a shop's currency buys of another, added, changed and
//! deleted, each one transaction with its event. An order in another currency than its
//! shop's is priced with the rate (`orders::pricing`) and keeps it, so a later change
//! leaves placed orders as they were.

pub mod input;

use domain::{ScopeSet, topic};
use serde_json::Value;
use storage::exchange_rates::{self as stored, StoredRate};
use storage::shops::{self, Shop};
use storage::{ScopedExt, Tx, tenant_rows};

use self::input::{ExchangeRateChanges, NewExchangeRate};
use crate::events::Change;
use crate::shops::admins::managed_shop;
use crate::{Actor, Op, Precondition, ServiceError, ServiceResult, Services, Shown};

/// How an exchange rate looks to a reader with `viewer`'s scopes (its GET).
pub trait Present {
    fn exchange_rate(&self, viewer: ScopeSet, rate: &StoredRate) -> Value;
}

/// Adds a rate from the shop's currency to another (one per currency: a second is a 422
/// on `to_currency`).
pub async fn create(
    services: &Services,
    actor: &Actor,
    shop_id: i64,
    input: NewExchangeRate,
) -> ServiceResult<Shown<StoredRate>> {
    let shop = shops::find(services.db(), actor.tenant, shop_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let (to, rate) = input.validate(&shop.currency_code)?;
    let op = Op::new(services, actor);
    let to = &to;
    services
        .write(|tx| {
            async move {
                let shop = &managed_shop(tx, op.actor, shop_id).await?;
                if shop.currency_code == *to {
                    // The shop's currency changed since the request was checked.
                    return Err(ServiceError::invalid_field(
                        "to_currency",
                        "is the shop's own currency",
                    ));
                }
                let owner = (shop.account_id, shop.seller_id, shop.id);
                let pair = (shop.currency_code.as_str(), to.as_str());
                let stored = stored::insert(tx, owner, pair, rate.millionths(), op.now).await?;
                let shown = record(tx, op, topic::EXCHANGE_RATES_CREATED, shop, &stored).await?;
                Ok(Shown::new(stored, shown))
            }
            .scoped()
        })
        .await
}

/// Changes one of the shop's rates.
pub async fn update(
    services: &Services,
    actor: &Actor,
    (shop_id, id): (i64, i64),
    expect: &dyn Precondition,
    changes: ExchangeRateChanges,
) -> ServiceResult<Shown<StoredRate>> {
    let rate = changes.validate()?;
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                let (shop, current) = locked(tx, op, (shop_id, id), expect).await?;
                if current.rate == rate.millionths() {
                    let shown = show(op, &current);
                    return Ok(Shown::new(current, shown));
                }
                let stored = stored::set_rate(tx, id, rate.millionths(), op.now).await?;
                let shown = record(tx, op, topic::EXCHANGE_RATES_UPDATED, &shop, &stored).await?;
                Ok(Shown::new(stored, shown))
            }
            .scoped()
        })
        .await
}

/// Deletes one of the shop's rates (orders priced with it keep it); answers it as it was.
pub async fn delete(
    services: &Services,
    actor: &Actor,
    (shop_id, id): (i64, i64),
    expect: &dyn Precondition,
) -> ServiceResult<Shown<StoredRate>> {
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                let (shop, current) = locked(tx, op, (shop_id, id), expect).await?;
                tenant_rows::delete(tx, stored::TABLE, op.actor.tenant, id).await?;
                let shown = record(tx, op, topic::EXCHANGE_RATES_DELETED, &shop, &current).await?;
                Ok(Shown::new(current, shown))
            }
            .scoped()
        })
        .await
}

/// The shop (held, once the actor is found to manage it) and its rate, locked, once the
/// caller's expectation of it holds; a rate of another shop is not found.
async fn locked(
    tx: &mut Tx,
    op: Op<'_>,
    (shop_id, id): (i64, i64),
    expect: &dyn Precondition,
) -> ServiceResult<(Shop, StoredRate)> {
    let shop = managed_shop(tx, op.actor, shop_id).await?;
    let current = stored::find_for_update(tx, op.actor.tenant, id)
        .await?
        .filter(|r| r.shop_id == shop_id)
        .ok_or(ServiceError::NotFound)?;
    expect.check(&|| show(op, &current), current.updated_on)?;
    Ok((shop, current))
}

/// The rate as a GET by the actor shows it.
fn show(op: Op<'_>, rate: &StoredRate) -> Value {
    op.present().exchange_rate(op.actor.scopes, rate)
}

/// Records a change of the rate, heard by its shop's subscriptions, with the rate as a
/// GET by the actor shows it; returns that document.
async fn record(
    tx: &mut Tx,
    op: Op<'_>,
    topic: &'static str,
    shop: &Shop,
    rate: &StoredRate,
) -> ServiceResult<Value> {
    let doc = show(op, rate);
    let change = Change::in_shop(topic, shop, "exchange_rate", rate.id, None, &doc);
    op.record(tx, change).await?;
    Ok(doc)
}
