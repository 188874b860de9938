//! Shipping tables: a shop's ways of shipping, created, changed and deleted, each one
//! transaction with its event. Orders name a table to be priced by it (`orders::pricing`);
//! an order keeps the table's name, so a table may change or go at any time.

pub mod input;

use domain::{ScopeSet, limits, topic};
use serde_json::Value;
use storage::shipping_tables::{self as stored, PER_SHOP_MAX, ShippingTable};
use storage::shops::Shop;
use storage::{ScopedExt, Tx, tenant_rows};

use self::input::{NewShippingTable, ShippingTableChanges};
use crate::events::Change;
use crate::shops::admins::managed_shop;
use crate::{Actor, Op, Precondition, ServiceError, ServiceResult, Services, Shown};

/// How a shipping table looks to a reader with `viewer`'s scopes (its GET).
pub trait Present {
    fn shipping_table(&self, viewer: ScopeSet, table: &ShippingTable) -> Value;
}

/// Adds a table to one of the actor's shops.
pub async fn create(
    services: &Services,
    actor: &Actor,
    shop_id: i64,
    input: NewShippingTable,
) -> ServiceResult<Shown<ShippingTable>> {
    let (data, position_given) = input.validate()?;
    let op = Op::new(services, actor);
    let data = &data;
    services
        .write(|tx| {
            async move {
                // Held, so that concurrent additions count each other.
                let shop = managed_shop(tx, op.actor, shop_id).await?;
                let (count, last_position) = stored::count_and_last_position(tx, shop.id).await?;
                if count >= PER_SHOP_MAX {
                    return Err(ServiceError::invalid_field(
                        "shop_id",
                        format!("the shop has {PER_SHOP_MAX} shipping tables, the most it may"),
                    ));
                }
                let mut data = data.clone();
                if !position_given {
                    data.position = last_position.saturating_add(1).min(limits::POSITION.max);
                }
                let owner = (shop.account_id, shop.seller_id, shop.id);
                let table = stored::insert(tx, owner, &data, op.now).await?;
                let shown = record(tx, op, topic::SHIPPING_TABLES_CREATED, &shop, &table).await?;
                Ok(Shown::new(table, shown))
            }
            .scoped()
        })
        .await
}

/// Changes one of the shop's tables.
pub async fn update(
    services: &Services,
    actor: &Actor,
    (shop_id, id): (i64, i64),
    expect: &dyn Precondition,
    changes: ShippingTableChanges,
) -> ServiceResult<Shown<ShippingTable>> {
    let op = Op::new(services, actor);
    let changes = &changes;
    services
        .write(|tx| {
            async move {
                let (shop, current) = locked(tx, op, (shop_id, id), expect).await?;
                let data = changes.clone().apply(&current)?;
                if data == current.data() {
                    let shown = show(op, &current);
                    return Ok(Shown::new(current, shown));
                }
                let table = stored::update(tx, id, &data, op.now).await?;
                let shown = record(tx, op, topic::SHIPPING_TABLES_UPDATED, &shop, &table).await?;
                Ok(Shown::new(table, shown))
            }
            .scoped()
        })
        .await
}

/// Deletes one of the shop's tables (orders priced by it keep its name); answers it as
/// it was.
pub async fn delete(
    services: &Services,
    actor: &Actor,
    (shop_id, id): (i64, i64),
    expect: &dyn Precondition,
) -> ServiceResult<Shown<ShippingTable>> {
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                let (shop, current) = locked(tx, op, (shop_id, id), expect).await?;
                tenant_rows::delete(tx, stored::TABLE, op.actor.tenant, id).await?;
                let shown = record(tx, op, topic::SHIPPING_TABLES_DELETED, &shop, &current).await?;
                Ok(Shown::new(current, shown))
            }
            .scoped()
        })
        .await
}

/// The shop (held, once the actor is found to manage it) and its table, locked, once the
/// caller's expectation of it holds; a table of another shop is not found.
async fn locked(
    tx: &mut Tx,
    op: Op<'_>,
    (shop_id, id): (i64, i64),
    expect: &dyn Precondition,
) -> ServiceResult<(Shop, ShippingTable)> {
    let shop = managed_shop(tx, op.actor, shop_id).await?;
    let current = stored::find_for_update(tx, op.actor.tenant, id)
        .await?
        .filter(|t| t.shop_id == shop_id)
        .ok_or(ServiceError::NotFound)?;
    expect.check(&|| show(op, &current), current.updated_on)?;
    Ok((shop, current))
}

/// The table as a GET by the actor shows it.
fn show(op: Op<'_>, table: &ShippingTable) -> Value {
    op.present().shipping_table(op.actor.scopes, table)
}

/// Records a change of the table, heard by its shop's subscriptions, with the table as a
/// GET by the actor shows it; returns that document.
async fn record(
    tx: &mut Tx,
    op: Op<'_>,
    topic: &'static str,
    shop: &Shop,
    table: &ShippingTable,
) -> ServiceResult<Value> {
    let doc = show(op, table);
    let change = Change::in_shop(topic, shop, "shipping_table", table.id, None, &doc);
    op.record(tx, change).await?;
    Ok(doc)
}
