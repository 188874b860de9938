//! Event topics. A topic is a dotted path; a subscription to a prefix receives every topic
//! below it (`orders` receives `orders.updated.shipped`).

/// Every topic an event can carry, and every prefix a subscription may name.
pub const TOPICS: &[&str] = &[
    "orders",
    "orders.created",
    "orders.created.checkout",
    "orders.updated",
    "orders.updated.placed",
    "orders.updated.closed",
    "orders.updated.shipped",
    "orders.updated.cancelled",
    "orders.deleted",
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
];

pub const SHOPS_CREATED: &str = "shops.created";
pub const SHOPS_UPDATED: &str = "shops.updated";

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
