//! Shops: created under a seller, and their settings changed.

pub mod input;

use domain::{ScopeSet, topic};
use serde_json::Value;
use storage::shops::{self as stored, Shop};
use storage::{ScopedExt, Tx, sellers};

use self::input::{NewShop, ShopChanges};
use crate::events::Change;
use crate::{Actor, Op, Precondition, ServiceError, ServiceResult, Services};

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
) -> ServiceResult<Shop> {
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
                record(tx, op, topic::SHOPS_CREATED, &shop).await?;
                Ok(shop)
            }
            .scoped()
        })
        .await
}

/// Changes a shop's subdomain or settings.
pub async fn update(
    services: &Services,
    actor: &Actor,
    id: i64,
    expect: &dyn Precondition,
    changes: ShopChanges,
) -> ServiceResult<Shop> {
    let op = Op::new(services, actor);
    let changes = &changes;
    services
        .write(|tx| {
            async move {
                let current = stored::find_for_update(tx, op.actor.tenant, id)
                    .await?
                    .ok_or(ServiceError::NotFound)?;
                let shown = op.present().shop(op.actor.scopes, &current);
                expect.check(&shown, current.updated_on)?;
                let settings = changes.clone().apply(&current)?;
                if settings == current.settings() {
                    return Ok(current);
                }
                let shop = stored::update(tx, id, &settings, op.now).await?;
                record(tx, op, topic::SHOPS_UPDATED, &shop).await?;
                Ok(shop)
            }
            .scoped()
        })
        .await
}

async fn record(tx: &mut Tx, op: Op<'_>, topic: &'static str, shop: &Shop) -> ServiceResult<i64> {
    let doc = op.present().shop(op.actor.scopes, shop);
    op.record(tx, Change::of_shop(topic, shop, &doc)).await
}
