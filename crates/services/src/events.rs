//! Recording events: a change's topic, who hears of it, and the item as a GET shows it,
//! written in the transaction of the change itself (the outbox the dispatcher reads).

use domain::Timestamp;
use serde_json::Value;
use storage::Tx;
use storage::events::{Actor, Audience, NewEvent};
use storage::outbox;
use storage::shops::Shop;

use crate::{Op, ServiceResult};

/// A change to report: its topic and the item as a GET shows it now.
pub struct Change<'a> {
    pub topic: &'static str,
    pub account_id: i64,
    pub seller_id: Option<i64>,
    pub shop: Option<&'a Shop>,
    /// Whose subscriptions hear of it.
    pub audience: Audience<'a>,
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
            audience: Audience::Owner,
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
            audience: Audience::Owner,
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
        Self::of_seller(topic, owner, item_type, item_id, item_slug, item)
    }

    /// A change of something the seller keeps for all its shops (a customer): heard by
    /// the subscriptions of every shop of the seller.
    pub fn of_seller(
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
            audience: Audience::Owner,
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
            audience: Audience::Shops(shop_ids),
            ..self
        }
    }

    /// Heard only by the subscriptions of the product's shops, as they are when the event
    /// is written (the caller holds the product locked).
    pub fn heard_in_shops_of(self, product_id: i64, seller_id: i64, all_shops: bool) -> Self {
        Self {
            audience: Audience::ProductShops {
                product_id,
                seller_id,
                all_shops,
            },
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
    outbox::record(tx, &change.event(actor), now).await
}

impl<'a> Change<'a> {
    /// The event row that reports the change, caused by `actor`.
    pub fn event(&self, actor: Actor<'a>) -> NewEvent<'a> {
        let change = self;
        NewEvent {
            topic: change.topic,
            account_id: change.account_id,
            seller_id: change.seller_id,
            shop_id: change.shop.map(|s| s.id),
            shop_subdomain: change.shop.map(|s| s.subdomain.as_str()),
            audience: change.audience,
            item_type: change.item_type,
            item_id: change.item_id,
            item_slug: change.item_slug,
            actor,
            item: change.item,
        }
    }
}

impl Op<'_> {
    /// Records `change` in the transaction, caused by the operation's actor.
    pub(crate) async fn record(&self, tx: &mut Tx, change: Change<'_>) -> ServiceResult<i64> {
        Ok(record(tx, self.actor.as_event_actor(), change, self.now).await?)
    }
}
