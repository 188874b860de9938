//! The v1 profile of a v2 document: what the published v1 clients look for. Bodies are the
//! same resources; links stay under `/v1`; link relations take their v1 names under the
//! `btc` curie (`products:update` is `btc:update_product`); templates declare the v1
//! (underscored) names of range filters (`created_on_gte`, which `/v2` reads too).

use std::borrow::Cow;

use serde_json::{Map, Value, json};

/// v2 relations whose v1 name the rule in [`v1_rel`] would not give.
const RENAMED: &[(&str, &str)] = &[
    ("products:create_asset", "btc:create_product_asset"),
    ("products:delete_asset", "btc:delete_product_asset"),
    ("products:collections", "btc:product_collections"),
    ("collections:products", "btc:collection_products"),
    ("product_types:products", "btc:product_type_products"),
    ("sellers:shops", "btc:seller_shops"),
    // v1 called a shop's customers its contacts.
    ("customers:customers", "btc:contacts"),
    ("customers:orders", "btc:customer_orders"),
    // The signed-in customer's own routes (v2 only) beside the shop's view of customers.
    ("account:customer", "btc:account"),
    ("account:orders", "btc:account_orders"),
    ("account:order", "btc:account_order"),
    ("account:addresses", "btc:account_addresses"),
    ("account:address", "btc:account_address"),
    ("account:create_address", "btc:create_account_address"),
    ("account:update_address", "btc:update_account_address"),
    ("account:delete_address", "btc:delete_account_address"),
];

/// The root's links that v1 also named otherwise: every product is `btc:all_products`.
pub const ROOT_ALIASES: &[(&str, &str)] = &[("products:products", "btc:all_products")];

/// Action names that v1 spells with the resource they act on (`update_product`).
const ACTIONS: &[&str] = &["update", "delete", "reactivate", "disable", "rotate_secret"];

/// The v1 name of a v2 relation: `ns:name` is `btc:name` (`products:create_product` is
/// `btc:create_product`, `orders:orders` is `btc:orders`), an action on the resource
/// itself names it (`orders:update` is `btc:update_order`), and [`RENAMED`] names the
/// ones this would make ambiguous. Registered relations (`self`, `next`) keep theirs.
pub fn v1_rel(rel: &str) -> Cow<'_, str> {
    let Some((namespace, name)) = rel.split_once(':') else {
        return Cow::Borrowed(rel);
    };
    if let Some((_, v1)) = RENAMED.iter().find(|(v2, _)| *v2 == rel) {
        return Cow::Borrowed(v1);
    }
    if ACTIONS.contains(&name) {
        let singular = namespace.strip_suffix('s').unwrap_or(namespace);
        return Cow::Owned(format!("btc:{name}_{singular}"));
    }
    Cow::Owned(format!("btc:{name}"))
}

/// Turns v2 documents into their v1 profile.
pub struct Profile<'a> {
    /// `{public}/v2`, the prefix of every API link.
    pub v2: &'a str,
    /// `{public}/v1`.
    pub v1: &'a str,
    /// The `btc` curie's documentation: `{public}/docs/v1`.
    pub docs: &'a str,
}

impl Profile<'_> {
    /// Converts `document` in place: every `_links` at any depth, and `_links.curies` at
    /// the top (one `btc` curie where a `btc:` relation is used).
    pub fn convert(&self, document: &mut Value) {
        let mut uses_btc = false;
        self.walk(document, &mut uses_btc);
        if let Some(Value::Object(links)) = document.get_mut("_links") {
            links.remove("curies");
            if uses_btc {
                let curie = json!([{
                    "name": "btc",
                    "href": format!("{}#{{rel}}", self.docs),
                    "templated": true,
                    "title": "The v1 relations",
                }]);
                links.insert("curies".to_owned(), curie);
            }
        }
    }

    fn walk(&self, value: &mut Value, uses_btc: &mut bool) {
        match value {
            Value::Array(items) => items.iter_mut().for_each(|v| self.walk(v, uses_btc)),
            Value::Object(object) => {
                let is_root = object
                    .get("_class")
                    .and_then(Value::as_array)
                    .is_some_and(|c| c.iter().any(|c| c == "root"));
                if let Some(Value::Object(links)) = object.get_mut("_links") {
                    *links = self.links(std::mem::take(links), is_root, uses_btc);
                }
                for (key, child) in object.iter_mut() {
                    if key != "_links" {
                        self.walk(child, uses_btc);
                    }
                }
            }
            _ => {}
        }
    }

    fn links(
        &self,
        links: Map<String, Value>,
        is_root: bool,
        uses_btc: &mut bool,
    ) -> Map<String, Value> {
        let mut converted = Map::with_capacity(links.len() + 1);
        for (rel, mut link) in links {
            if rel == "curies" {
                continue;
            }
            self.link(&mut link);
            let name = v1_rel(&rel).into_owned();
            *uses_btc |= name.starts_with("btc:");
            if is_root {
                for (_, alias) in ROOT_ALIASES.iter().filter(|(v2, _)| *v2 == rel) {
                    converted.insert((*alias).to_owned(), link.clone());
                }
            }
            converted.insert(name, link);
        }
        converted
    }

    /// A link (or a list of them) under `/v1`, its template in v1 names.
    fn link(&self, link: &mut Value) {
        match link {
            Value::Array(links) => links.iter_mut().for_each(|l| self.link(l)),
            Value::Object(object) => {
                if let Some(Value::String(href)) = object.get_mut("href") {
                    *href = self.href(href);
                }
            }
            _ => {}
        }
    }

    fn href(&self, href: &str) -> String {
        let href = match href.strip_prefix(self.v2) {
            Some(rest) if rest.is_empty() || rest.starts_with(['/', '?', '{']) => {
                format!("{}{rest}", self.v1)
            }
            _ => href.to_owned(),
        };
        v1_template(&href)
    }
}

/// A URI template's range variables in their underscored spelling: `{?created_on.gte}` is
/// `{?created_on_gte}`.
fn v1_template(href: &str) -> String {
    let Some(start) = href.find('{') else {
        return href.to_owned();
    };
    let (fixed, template) = href.split_at(start);
    let template = template.replace(".gte", "_gte").replace(".lte", "_lte");
    format!("{fixed}{template}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relations_take_their_v1_names() {
        let names = [
            ("products:products", "btc:products"),
            ("products:product", "btc:product"),
            ("products:create_product", "btc:create_product"),
            ("products:update", "btc:update_product"),
            ("products:delete", "btc:delete_product"),
            ("products:create_variant", "btc:create_variant"),
            ("products:create_asset", "btc:create_product_asset"),
            ("variants:update", "btc:update_variant"),
            ("shops:shops", "btc:shops"),
            ("shops:shop", "btc:shop"),
            ("orders:orders", "btc:orders"),
            ("orders:order", "btc:order"),
            ("orders:create_order", "btc:create_order"),
            ("orders:update", "btc:update_order"),
            ("price_lists:update", "btc:update_price_list"),
            ("self", "self"),
            ("next", "next"),
        ];
        for (v2, v1) in names {
            assert_eq!(v1_rel(v2), v1, "{v2}");
        }
    }

    #[test]
    fn every_registered_relation_has_one_v1_name() {
        let mut seen = std::collections::HashMap::new();
        for def in crate::rels::REGISTRY.all() {
            let v2 = def.rel();
            let v1 = v1_rel(&v2).into_owned();
            assert!(v1.starts_with("btc:"), "{v2} → {v1}");
            if let Some(other) = seen.insert(v1.clone(), v2.clone()) {
                panic!("{other} and {v2} are both {v1}");
            }
        }
    }

    #[test]
    fn documents_link_under_v1_in_v1_names() {
        let profile = Profile {
            v2: "https://x/v2",
            v1: "https://x/v1",
            docs: "https://x/docs/v1",
        };
        let mut doc = json!({
            "_class": ["root"],
            "_links": {
                "self": {"href": "https://x/v2", "title": "This resource"},
                "products:products": {"href": "https://x/v2/products{?q,created_on.gte,page}", "templated": true},
                "curies": [{"name": "products", "href": "https://x/docs/rels/products/{rel}"}],
            },
            "_embedded": {"shops": [{
                "_class": ["shop"],
                "_links": {
                    "orders:orders": {"href": "https://x/v2/orders?shop_ids=1{&updated_on.lte,page}"},
                    "other": {"href": "https://x/v2x/not-ours"},
                },
                "_embedded": {},
                "url": "https://x/v2/kept-as-is",
            }]},
        });
        profile.convert(&mut doc);
        let links = &doc["_links"];
        assert_eq!(links["self"]["href"], "https://x/v1");
        assert_eq!(
            links["btc:all_products"]["href"],
            "https://x/v1/products{?q,created_on_gte,page}"
        );
        assert_eq!(links["btc:products"], links["btc:all_products"]);
        assert!(links.get("products:products").is_none());
        assert_eq!(links["curies"][0]["name"], "btc");
        assert_eq!(links["curies"][0]["href"], "https://x/docs/v1#{rel}");
        let shop = &doc["_embedded"]["shops"][0];
        assert_eq!(
            shop["_links"]["btc:orders"]["href"],
            "https://x/v1/orders?shop_ids=1{&updated_on_lte,page}"
        );
        assert_eq!(shop["_links"]["other"]["href"], "https://x/v2x/not-ours");
        assert_eq!(shop["url"], "https://x/v2/kept-as-is", "only links change");
    }
}
