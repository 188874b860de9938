//! Event topics. A topic is a dotted path; a subscription to a prefix receives every topic
//! below it (`orders` receives `orders.updated.shipped`).

/// Every topic an event can carry, and every prefix a subscription may name.
pub const TOPICS: &[&str] = &[
    "batches",
    "batches.created",
    "batches.finished",
    "orders",
    "orders.created",
    "orders.created.checkout",
    "orders.updated",
    "orders.updated.placed",
    "orders.updated.closed",
    "orders.updated.shipped",
    "orders.updated.cancelled",
    "orders.deleted",
    "orders.documents",
    "orders.documents.created",
    "orders.documents.generated",
    "orders.payments",
    "orders.payments.created",
    "orders.refunds",
    "orders.refunds.created",
    "products",
    "products.created",
    "products.updated",
    "products.deleted",
    "products.updated.variants",
    "products.updated.variants.created",
    "products.updated.variants.updated",
    "products.updated.variants.deleted",
    "products.updated.assets",
    "products.updated.assets.created",
    "products.updated.assets.deleted",
    "shops",
    "shops.created",
    "shops.updated",
    "shops.payment_methods",
    "shops.payment_methods.created",
    "shops.payment_methods.updated",
    "shops.payment_methods.deleted",
    "shops.shipping_tables",
    "shops.shipping_tables.created",
    "shops.shipping_tables.updated",
    "shops.shipping_tables.deleted",
    "shops.exchange_rates",
    "shops.exchange_rates.created",
    "shops.exchange_rates.updated",
    "shops.exchange_rates.deleted",
    "shops.admins",
    "shops.admins.created",
    "shops.admins.updated",
    "shops.admins.deleted",
    "collections",
    "collections.created",
    "collections.updated",
    "collections.updated.products",
    "collections.updated.products.added",
    "collections.updated.products.removed",
    "collections.deleted",
    "product_types",
    "product_types.created",
    "product_types.updated",
    "product_types.deleted",
    "price_lists",
    "price_lists.created",
    "price_lists.updated",
    "price_lists.updated.items",
    "price_lists.updated.items.upserted",
    "price_lists.updated.items.deleted",
    "price_lists.deleted",
    "customers",
    "customers.created",
    "customers.updated",
    "customers.deleted",
    "subscriptions",
    "subscriptions.fees",
    "subscriptions.fees.created",
    "subscriptions.fees.updated",
    "subscriptions.fees.deleted",
    "subscriptions.purchases",
    "subscriptions.purchases.created",
    "subscriptions.purchases.updated",
    "subscriptions.purchases.paused",
    "subscriptions.purchases.resumed",
    "subscriptions.purchases.cancelled",
    "subscriptions.purchases.renewed",
    "subscriptions.purchases.failed",
    "subscriptions.purchases.finished",
];

/// An order is created in checkout (a cart): its most specific topic.
pub const ORDERS_CREATED_CHECKOUT: &str = "orders.created.checkout";
pub const ORDERS_UPDATED: &str = "orders.updated";
pub const ORDERS_PLACED: &str = "orders.updated.placed";
pub const ORDERS_CLOSED: &str = "orders.updated.closed";
pub const ORDERS_SHIPPED: &str = "orders.updated.shipped";
pub const ORDERS_CANCELLED: &str = "orders.updated.cancelled";
pub const ORDERS_DELETED: &str = "orders.deleted";
/// An order's document (invoice, packing slip) is asked for: it waits to be generated.
pub const ORDER_DOCUMENTS_CREATED: &str = "orders.documents.created";
/// An order's document is generated and can be downloaded.
pub const ORDER_DOCUMENTS_GENERATED: &str = "orders.documents.generated";
/// A payment attempt was recorded (with its status: approved, declined, failed).
pub const ORDER_PAYMENTS_CREATED: &str = "orders.payments.created";
/// A refund was recorded (given back through the gateway, or owed by the merchant).
pub const ORDER_REFUNDS_CREATED: &str = "orders.refunds.created";
pub const SHOPS_CREATED: &str = "shops.created";
pub const SHOPS_UPDATED: &str = "shops.updated";
pub const PAYMENT_METHODS_CREATED: &str = "shops.payment_methods.created";
pub const PAYMENT_METHODS_UPDATED: &str = "shops.payment_methods.updated";
pub const PAYMENT_METHODS_DELETED: &str = "shops.payment_methods.deleted";
pub const SHIPPING_TABLES_CREATED: &str = "shops.shipping_tables.created";
pub const SHIPPING_TABLES_UPDATED: &str = "shops.shipping_tables.updated";
pub const SHIPPING_TABLES_DELETED: &str = "shops.shipping_tables.deleted";
pub const EXCHANGE_RATES_CREATED: &str = "shops.exchange_rates.created";
pub const EXCHANGE_RATES_UPDATED: &str = "shops.exchange_rates.updated";
pub const EXCHANGE_RATES_DELETED: &str = "shops.exchange_rates.deleted";
pub const SHOP_ADMINS_CREATED: &str = "shops.admins.created";
pub const SHOP_ADMINS_UPDATED: &str = "shops.admins.updated";
pub const SHOP_ADMINS_DELETED: &str = "shops.admins.deleted";
pub const PRODUCTS_CREATED: &str = "products.created";
pub const PRODUCTS_UPDATED: &str = "products.updated";
pub const PRODUCTS_DELETED: &str = "products.deleted";
pub const VARIANTS_CREATED: &str = "products.updated.variants.created";
pub const VARIANTS_UPDATED: &str = "products.updated.variants.updated";
pub const VARIANTS_DELETED: &str = "products.updated.variants.deleted";
pub const ASSETS_CREATED: &str = "products.updated.assets.created";
pub const ASSETS_DELETED: &str = "products.updated.assets.deleted";
pub const COLLECTIONS_CREATED: &str = "collections.created";
pub const COLLECTIONS_UPDATED: &str = "collections.updated";
pub const COLLECTION_PRODUCTS_ADDED: &str = "collections.updated.products.added";
pub const COLLECTION_PRODUCTS_REMOVED: &str = "collections.updated.products.removed";
pub const COLLECTIONS_DELETED: &str = "collections.deleted";
pub const PRODUCT_TYPES_CREATED: &str = "product_types.created";
pub const PRODUCT_TYPES_UPDATED: &str = "product_types.updated";
pub const PRODUCT_TYPES_DELETED: &str = "product_types.deleted";
pub const PRICE_LISTS_CREATED: &str = "price_lists.created";
pub const PRICE_LISTS_UPDATED: &str = "price_lists.updated";
pub const PRICE_LIST_ITEMS_UPSERTED: &str = "price_lists.updated.items.upserted";
pub const PRICE_LIST_ITEMS_DELETED: &str = "price_lists.updated.items.deleted";
pub const PRICE_LISTS_DELETED: &str = "price_lists.deleted";
pub const CUSTOMERS_CREATED: &str = "customers.created";
pub const CUSTOMERS_UPDATED: &str = "customers.updated";
pub const CUSTOMERS_DELETED: &str = "customers.deleted";
pub const SUBSCRIPTION_FEES_CREATED: &str = "subscriptions.fees.created";
pub const SUBSCRIPTION_FEES_UPDATED: &str = "subscriptions.fees.updated";
pub const SUBSCRIPTION_FEES_DELETED: &str = "subscriptions.fees.deleted";
pub const SUBSCRIPTION_PURCHASES_CREATED: &str = "subscriptions.purchases.created";
pub const SUBSCRIPTION_PURCHASES_UPDATED: &str = "subscriptions.purchases.updated";
pub const SUBSCRIPTION_PURCHASES_PAUSED: &str = "subscriptions.purchases.paused";
pub const SUBSCRIPTION_PURCHASES_RESUMED: &str = "subscriptions.purchases.resumed";
pub const SUBSCRIPTION_PURCHASES_CANCELLED: &str = "subscriptions.purchases.cancelled";
pub const SUBSCRIPTION_PURCHASES_RENEWED: &str = "subscriptions.purchases.renewed";
pub const SUBSCRIPTION_PURCHASES_FAILED: &str = "subscriptions.purchases.failed";
pub const SUBSCRIPTION_PURCHASES_FINISHED: &str = "subscriptions.purchases.finished";

pub const BATCHES_CREATED: &str = "batches.created";
pub const BATCHES_FINISHED: &str = "batches.finished";

pub fn is_known(topic: &str) -> bool {
    TOPICS.contains(&topic)
}

/// Whether a subscription to `subscribed` receives an event with topic `event`.
pub fn matches(subscribed: &str, event: &str) -> bool {
    event == subscribed
        || event
            .strip_prefix(subscribed)
            .is_some_and(|rest| rest.starts_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hierarchical_matching() {
        assert!(matches("orders", "orders.updated.shipped"));
        assert!(matches("orders.updated", "orders.updated.shipped"));
        assert!(matches("orders.created", "orders.created"));
        assert!(!matches("orders.updated.shipped", "orders.updated"));
        assert!(!matches("order", "orders.created"));
        assert!(!matches("products", "orders.created"));
    }

    #[test]
    fn every_named_topic_is_registered() {
        for topic in [
            ORDERS_CREATED_CHECKOUT,
            ORDERS_UPDATED,
            ORDERS_PLACED,
            ORDERS_CLOSED,
            ORDERS_SHIPPED,
            ORDERS_CANCELLED,
            ORDERS_DELETED,
            ORDER_DOCUMENTS_CREATED,
            ORDER_DOCUMENTS_GENERATED,
            ORDER_PAYMENTS_CREATED,
            ORDER_REFUNDS_CREATED,
            SHOPS_CREATED,
            SHOPS_UPDATED,
            PAYMENT_METHODS_CREATED,
            PAYMENT_METHODS_UPDATED,
            PAYMENT_METHODS_DELETED,
            SHIPPING_TABLES_CREATED,
            SHIPPING_TABLES_UPDATED,
            SHIPPING_TABLES_DELETED,
            EXCHANGE_RATES_CREATED,
            EXCHANGE_RATES_UPDATED,
            EXCHANGE_RATES_DELETED,
            SHOP_ADMINS_CREATED,
            SHOP_ADMINS_UPDATED,
            SHOP_ADMINS_DELETED,
            PRODUCTS_CREATED,
            PRODUCTS_UPDATED,
            PRODUCTS_DELETED,
            VARIANTS_CREATED,
            VARIANTS_UPDATED,
            VARIANTS_DELETED,
            ASSETS_CREATED,
            ASSETS_DELETED,
            COLLECTIONS_CREATED,
            COLLECTIONS_UPDATED,
            COLLECTION_PRODUCTS_ADDED,
            COLLECTION_PRODUCTS_REMOVED,
            COLLECTIONS_DELETED,
            PRODUCT_TYPES_CREATED,
            PRODUCT_TYPES_UPDATED,
            PRODUCT_TYPES_DELETED,
            PRICE_LISTS_CREATED,
            PRICE_LISTS_UPDATED,
            PRICE_LIST_ITEMS_UPSERTED,
            PRICE_LIST_ITEMS_DELETED,
            PRICE_LISTS_DELETED,
            CUSTOMERS_CREATED,
            CUSTOMERS_UPDATED,
            CUSTOMERS_DELETED,
            SUBSCRIPTION_FEES_CREATED,
            SUBSCRIPTION_FEES_UPDATED,
            SUBSCRIPTION_FEES_DELETED,
            SUBSCRIPTION_PURCHASES_CREATED,
            SUBSCRIPTION_PURCHASES_UPDATED,
            SUBSCRIPTION_PURCHASES_PAUSED,
            SUBSCRIPTION_PURCHASES_RESUMED,
            SUBSCRIPTION_PURCHASES_CANCELLED,
            SUBSCRIPTION_PURCHASES_RENEWED,
            SUBSCRIPTION_PURCHASES_FAILED,
            SUBSCRIPTION_PURCHASES_FINISHED,
            BATCHES_CREATED,
            BATCHES_FINISHED,
        ] {
            assert!(is_known(topic), "{topic}");
        }
    }

    #[test]
    fn every_topic_has_its_parents_registered() {
        for topic in TOPICS {
            let mut prefix = *topic;
            while let Some((parent, _)) = prefix.rsplit_once('.') {
                assert!(
                    is_known(parent),
                    "{parent} (parent of {topic}) is not registered"
                );
                prefix = parent;
            }
        }
    }
}
