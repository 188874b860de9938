//! How a shop looks to a client.

use domain::shop::Storefront;
use domain::{Scope, ScopeSet};
use hal::{Link, Resource};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use storage::shops::Shop;

use crate::kernel::present::Presenter;
use crate::kernel::urls::Urls;
use crate::rels;

#[derive(Serialize, JsonSchema)]
pub struct ShopFields<'a> {
    id: i64,
    seller_id: i64,
    subdomain: &'a str,
    /// The storefront's address; `null` for a headless shop (its merchant serves it).
    url: Option<String>,
    name: &'a str,
    description: &'a str,
    locale: &'a str,
    currency_code: &'a str,
    timezone: &'a str,
    contact_email: Option<&'a str>,
    storefront: Storefront,
    created_on: domain::Timestamp,
    updated_on: domain::Timestamp,
}

/// A shop with the links a reader with `viewer`'s scopes may follow.
pub fn shop_resource(urls: &Urls, viewer: ScopeSet, shop: &Shop) -> Resource {
    let fields = ShopFields {
        id: shop.id,
        seller_id: shop.seller_id,
        subdomain: &shop.subdomain,
        url: match shop.storefront {
            Storefront::Hosted => Some(urls.storefront(&shop.subdomain)),
            Storefront::Headless => None,
        },
        name: &shop.name,
        description: &shop.description,
        locale: &shop.locale,
        currency_code: &shop.currency_code,
        timezone: &shop.timezone,
        contact_email: shop.contact_email.as_deref(),
        storefront: shop.storefront,
        created_on: shop.created_on,
        updated_on: shop.updated_on,
    };
    let read_settings = viewer.contains(Scope::ShopsRead);
    let write_settings = viewer.contains(Scope::ShopsWrite);
    Resource::new(["shop"])
        .with_properties(&fields)
        .link("self", Link::get(urls.shop(shop.id)))
        .rel_if(
            viewer.contains(Scope::ShopsWrite),
            &rels::SHOPS_UPDATE,
            || urls.shop(shop.id),
        )
        .rel_if(
            viewer.contains(Scope::ShopsRead),
            &rels::SHOPS_ADMINS,
            || urls.shop_admins(shop.id),
        )
        .rel_if(
            viewer.contains(Scope::ShopsWrite),
            &rels::SHOPS_CREATE_ADMIN,
            || urls.shop_new_admin(shop.id),
        )
        .rel_if(
            viewer.contains(Scope::SellersRead),
            &rels::SELLERS_SELLER,
            || urls.seller(shop.seller_id),
        )
        .rel_if(
            viewer.contains(Scope::HubRead),
            &rels::WEBHOOKS_SUBSCRIPTIONS,
            || urls.shop_subscriptions_template(shop.id),
        )
        .rel_if(
            viewer.contains(Scope::HubWrite),
            &rels::WEBHOOKS_CREATE_SUBSCRIPTION,
            || urls.shop_subscriptions(shop.id),
        )
        .rel_if(
            viewer.contains(Scope::ProductsRead),
            &rels::PRODUCTS_PRODUCTS,
            || urls.products_where("shop_ids", shop.id),
        )
        .rel_if(
            viewer.contains(Scope::ProductsWrite),
            &rels::PRODUCTS_CREATE_PRODUCT,
            || urls.shop_products(shop.id),
        )
        .rel_if(
            viewer.contains(Scope::OrdersRead),
            &rels::ORDERS_ORDERS,
            || urls.orders_of_shop(shop.id),
        )
        .rel_if(
            viewer.contains(Scope::OrdersWrite),
            &rels::ORDERS_CREATE_ORDER,
            || urls.shop_orders(shop.id),
        )
        .rel_if(
            viewer.contains(Scope::OrdersWrite),
            &rels::ORDERS_BATCH_UPDATES,
            || urls.order_batch_updates(shop.id),
        )
        .rel_if(read_settings, &rels::SHOPS_SHIPPING_TABLES, || {
            urls.shipping_tables(shop.id)
        })
        .rel_if(write_settings, &rels::SHOPS_CREATE_SHIPPING_TABLE, || {
            urls.new_shipping_table(shop.id)
        })
        .rel_if(read_settings, &rels::SHOPS_EXCHANGE_RATES, || {
            urls.exchange_rates(shop.id)
        })
        .rel_if(write_settings, &rels::SHOPS_CREATE_EXCHANGE_RATE, || {
            urls.new_exchange_rate(shop.id)
        })
        .rel_if(read_settings, &rels::SHOPS_PAYMENT_METHODS, || {
            urls.payment_methods_of_shop(shop.id)
        })
        .rel_if(write_settings, &rels::SHOPS_CREATE_PAYMENT_METHOD, || {
            urls.shop_payment_methods(shop.id)
        })
}

impl services::shops::Present for Presenter {
    fn shop(&self, viewer: ScopeSet, shop: &Shop) -> Value {
        shop_resource(&self.urls, viewer, shop).into_value(self.urls.curies())
    }
}
