//! Price lists: create, update and delete; their items are written in `items`.

pub mod input;
mod items;

use domain::{ScopeSet, topic};
use serde_json::Value;
use storage::price_lists::{self as stored, PriceList, PriceListItem};
use storage::{ScopedExt, Tenant, Tx, tenant_rows};

use self::input::{NewPriceList, PriceListChanges};
pub use self::items::{ListWithItems, RemovedItem, remove_item, upsert_items};
use crate::events::Change;
use crate::sellers::owning_seller;
use crate::{Actor, Op, Precondition, ServiceError, ServiceResult, Services, Shown};

/// How a price list and its items look to a reader with `viewer`'s scopes (their GETs);
/// item events show the list with the items concerned embedded.
pub trait Present {
    fn price_list(&self, viewer: ScopeSet, list: &PriceList) -> Value;

    fn price_list_with_items(
        &self,
        viewer: ScopeSet,
        list: &PriceList,
        items: &[PriceListItem],
    ) -> Value;

    fn price_list_item(&self, viewer: ScopeSet, list: &PriceList, item: &PriceListItem) -> Value;
}

/// Creates a price list for the seller the input names (or the actor's only one).
pub async fn create(
    services: &Services,
    actor: &Actor,
    input: NewPriceList,
) -> ServiceResult<Shown<PriceList>> {
    let seller = owning_seller(services.db(), actor.tenant, input.seller_id).await?;
    let data = input.validate(&seller)?;
    let op = Op::new(services, actor);
    let (seller, data) = (&seller, &data);
    services
        .write(|tx| {
            async move {
                check_contacts(tx, seller.id, &data.contact_ids, &[]).await?;
                let list = stored::insert(tx, seller.account_id, seller.id, data, op.now).await?;
                let shown = record_list(tx, op, topic::PRICE_LISTS_CREATED, &list).await?;
                Ok(Shown::new(list, shown))
            }
            .scoped()
        })
        .await
}

/// Changes a list's fields.
pub async fn update(
    services: &Services,
    actor: &Actor,
    id: i64,
    expect: &dyn Precondition,
    changes: PriceListChanges,
) -> ServiceResult<Shown<PriceList>> {
    let op = Op::new(services, actor);
    let changes = &changes;
    services
        .write(|tx| {
            async move {
                let current = locked(tx, op.actor.tenant, id).await?;
                expect_list(op, &current, expect)?;
                let data = changes.clone().apply(&current)?;
                if data == current.data() {
                    let shown = show(op, &current);
                    return Ok(Shown::new(current, shown));
                }
                check_contacts(
                    tx,
                    current.seller_id,
                    &data.contact_ids,
                    &current.contact_ids.0,
                )
                .await?;
                let list = stored::update(tx, id, &data, op.now).await?;
                let shown = record_list(tx, op, topic::PRICE_LISTS_UPDATED, &list).await?;
                Ok(Shown::new(list, shown))
            }
            .scoped()
        })
        .await
}

/// Deletes a list with its items; answers it as it was.
pub async fn remove(
    services: &Services,
    actor: &Actor,
    id: i64,
    expect: &dyn Precondition,
) -> ServiceResult<Shown<PriceList>> {
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                let tenant = op.actor.tenant;
                let current = locked(tx, tenant, id).await?;
                expect_list(op, &current, expect)?;
                tenant_rows::delete(tx, stored::TABLE, tenant, id).await?;
                let shown = record_list(tx, op, topic::PRICE_LISTS_DELETED, &current).await?;
                Ok(Shown::new(current, shown))
            }
            .scoped()
        })
        .await
}

/// The contacts a write names are the seller's customers; ids the list already held
/// pass (their customer may have been deleted since, which only makes them match no one).
async fn check_contacts(
    tx: &mut Tx,
    seller_id: i64,
    ids: &[i64],
    held: &[i64],
) -> ServiceResult<()> {
    let new: Vec<i64> = ids
        .iter()
        .copied()
        .filter(|id| !held.contains(id))
        .collect();
    let missing = storage::customers::not_of_seller(tx, seller_id, &new).await?;
    if missing.is_empty() {
        return Ok(());
    }
    let named: Vec<String> = missing.iter().map(i64::to_string).collect();
    Err(ServiceError::invalid_field(
        "contact_ids",
        format!("names no customer of the seller: {}", named.join(", ")),
    ))
}

async fn locked(tx: &mut Tx, tenant: Tenant, id: i64) -> ServiceResult<PriceList> {
    stored::find_for_update(tx, tenant, id)
        .await?
        .ok_or(ServiceError::NotFound)
}

/// The caller's expectation of the list, against the list as the actor would GET it.
fn expect_list(op: Op<'_>, list: &PriceList, expect: &dyn Precondition) -> ServiceResult<()> {
    expect.check(&|| show(op, list), list.updated_on)
}

/// The list as a GET by the actor shows it.
fn show(op: Op<'_>, list: &PriceList) -> Value {
    op.present().price_list(op.actor.scopes, list)
}

/// Records an event about the list itself; returns the list as a GET by the actor shows it,
/// the event's document.
async fn record_list(
    tx: &mut Tx,
    op: Op<'_>,
    topic: &'static str,
    list: &PriceList,
) -> ServiceResult<Value> {
    let doc = show(op, list);
    record(tx, op, topic, list, &doc).await?;
    Ok(doc)
}

/// Records an event about the list; `doc` is the list as GET shows it, with the items
/// concerned embedded for item events.
async fn record(
    tx: &mut Tx,
    op: Op<'_>,
    topic: &'static str,
    list: &PriceList,
    doc: &Value,
) -> ServiceResult<i64> {
    let change = Change::of_catalog(
        topic,
        (list.account_id, list.seller_id),
        "price_list",
        list.id,
        None,
        doc,
    );
    op.record(tx, change).await
}
