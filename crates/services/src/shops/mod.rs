//! Shops: created under a seller, and their settings changed by those who manage them
//! (`admins::require_manager`).

pub mod admins;
pub mod input;

use domain::{ScopeSet, topic};
use serde_json::Value;
use storage::shops::{self as stored, Shop};
use storage::{ScopedExt, Tx, sellers};

use self::input::{NewShop, ShopChanges};
use crate::events::Change;
use crate::{Actor, Op, Precondition, ServiceError, ServiceResult, Services, Shown};

/// How a shop looks to a reader with `viewer`'s scopes (its GET).
pub trait Present {
    fn shop(&self, viewer: ScopeSet, shop: &Shop) -> Value;
}

/// Opens a shop for one of the actor's sellers (none: not found).
pub async fn create(
    services: &Services,
    actor: &Actor,
    seller_id: i64,
    input: NewShop,
) -> ServiceResult<Shown<Shop>> {
    let seller = sellers::find(services.db(), actor.tenant, seller_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let (subdomain, settings) = input.validate(&seller)?;
    let op = Op::new(services, actor);
    let (seller, subdomain, settings) = (&seller, &subdomain, &settings);
    services
        .write(|tx| {
            async move {
                let (account_id, seller_id) = (seller.account_id, seller.id);
                let shop =
                    stored::insert(tx, account_id, seller_id, subdomain, settings, op.now).await?;
                let shown = record(tx, op, topic::SHOPS_CREATED, &shop).await?;
                admins::add_first_owners(tx, op, &shop).await?;
                Ok(Shown::new(shop, shown))
            }
            .scoped()
        })
        .await
}

/// Changes a shop's settings (for a user, one who manages the shop).
pub async fn update(
    services: &Services,
    actor: &Actor,
    id: i64,
    expect: &dyn Precondition,
    changes: ShopChanges,
) -> ServiceResult<Shown<Shop>> {
    let op = Op::new(services, actor);
    let changes = &changes;
    services
        .write(|tx| {
            async move {
                let current = stored::find_for_update(tx, op.actor.tenant, id)
                    .await?
                    .ok_or(ServiceError::NotFound)?;
                admins::require_manager(tx, op.actor, current.id).await?;
                expect.check(&|| show(op, &current), current.updated_on)?;
                let settings = changes.clone().apply(&current)?;
                if settings == current.settings() {
                    let shown = show(op, &current);
                    return Ok(Shown::new(current, shown));
                }
                let shop = stored::update(tx, id, &settings, op.now).await?;
                let shown = record(tx, op, topic::SHOPS_UPDATED, &shop).await?;
                Ok(Shown::new(shop, shown))
            }
            .scoped()
        })
        .await
}

/// The shop as a GET by the actor shows it.
fn show(op: Op<'_>, shop: &Shop) -> Value {
    op.present().shop(op.actor.scopes, shop)
}

/// Records a change of the shop with the shop as a GET by the actor shows it; returns that
/// document.
async fn record(tx: &mut Tx, op: Op<'_>, topic: &'static str, shop: &Shop) -> ServiceResult<Value> {
    let doc = show(op, shop);
    op.record(tx, Change::of_shop(topic, shop, &doc)).await?;
    Ok(doc)
}
