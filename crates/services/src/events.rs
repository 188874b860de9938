//! Recording events: a change's topic, who hears of it, and the item as a GET shows it,
//! written in the transaction of the change itself (the outbox the dispatcher reads).

use domain::Timestamp;
use serde_json::Value;
use storage::Tx;
use storage::events::{Actor, NewEvent};
use storage::outbox;
use storage::shops::Shop;

use crate::{Op, ServiceResult};

/// A change to report: its topic and the item as a GET shows it now.
pub struct Change<'a> {
    pub topic: &'static str,
    pub account_id: i64,
    pub seller_id: Option<i64>,
    pub shop: Option<&'a Shop>,
    /// The shops whose subscriptions hear of it, when not all of the seller's.
    pub shop_ids: Option<&'a [i64]>,
    pub item_type: &'static str,
    pub item_id: i64,
    pub item_slug: Option<&'a str>,
    pub item: &'a Value,
}

impl<'a> Change<'a> {
    /// A change of the shop itself.
    pub fn of_shop(topic: &'static str, shop: &'a Shop, item: &'a Value) -> Self {
        Self {
            topic,
            account_id: shop.account_id,
            seller_id: Some(shop.seller_id),
            shop: Some(shop),
            shop_ids: None,
            item_type: "shop",
            item_id: shop.id,
            item_slug: Some(&shop.subdomain),
            item,
        }
    }

    /// A change of an item that belongs to one shop (an order): heard by that shop's
    /// subscriptions, with the shop named in the event.
    pub fn in_shop(
        topic: &'static str,
        shop: &'a Shop,
        item_type: &'static str,
        item_id: i64,
        item_slug: Option<&'a str>,
        item: &'a Value,
    ) -> Self {
        Self {
            topic,
            account_id: shop.account_id,
            seller_id: Some(shop.seller_id),
            shop: Some(shop),
            shop_ids: None,
            item_type,
            item_id,
            item_slug,
            item,
        }
    }

    /// A change in a seller's catalog (products, variants, collections, types, prices).
    pub fn of_catalog(
        topic: &'static str,
        owner: (i64, i64),
        item_type: &'static str,
        item_id: i64,
        item_slug: Option<&'a str>,
        item: &'a Value,
    ) -> Self {
        let (account_id, seller_id) = owner;
        Self {
            topic,
            account_id,
            seller_id: Some(seller_id),
            shop: None,
            shop_ids: None,
            item_type,
            item_id,
            item_slug,
            item,
        }
    }
}

impl<'a> Change<'a> {
    /// Heard only by the subscriptions of these shops (a product's shops).
    pub fn heard_in(self, shop_ids: &'a [i64]) -> Self {
        Self {
            shop_ids: Some(shop_ids),
            ..self
        }
    }
}

/// Writes the event for `change` in the caller's transaction, naming `actor` as its cause.
pub async fn record(
    tx: &mut Tx,
    actor: Actor<'_>,
    change: Change<'_>,
    now: Timestamp,
) -> storage::Result<i64> {
    let event = NewEvent {
        topic: change.topic,
        account_id: change.account_id,
        seller_id: change.seller_id,
        shop_id: change.shop.map(|s| s.id),
        shop_subdomain: change.shop.map(|s| s.subdomain.as_str()),
        shop_ids: change.shop_ids,
        item_type: change.item_type,
        item_id: change.item_id,
        item_slug: change.item_slug,
        actor,
        item: change.item,
    };
    outbox::record(tx, &event, now).await
}

impl Op<'_> {
    /// Records `change` in the transaction, caused by the operation's actor.
    pub(crate) async fn record(&self, tx: &mut Tx, change: Change<'_>) -> ServiceResult<i64> {
        Ok(record(tx, self.actor.as_event_actor(), change, self.now).await?)
    }
}
