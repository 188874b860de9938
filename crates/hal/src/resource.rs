//! Building HAL resources: properties, `_class`, `_links` (with curies) and `_embedded`.

use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::link::{Curie, Link};
use crate::rel::RelDef;

/// Where the curie documentation lives: `{docs_base}/{namespace}/{rel}`.
#[derive(Clone, Debug)]
pub struct Curies {
    docs_base: String,
}

impl Curies {
    pub fn new(docs_base: impl Into<String>) -> Self {
        Self {
            docs_base: docs_base.into().trim_end_matches('/').to_owned(),
        }
    }

    pub fn docs_base(&self) -> &str {
        &self.docs_base
    }

    pub fn curie(&self, namespace: &str) -> Curie {
        Curie {
            name: namespace.to_owned(),
            href: format!("{}/{namespace}/{{rel}}", self.docs_base),
            templated: true,
            title: format!("The {namespace} relations"),
        }
    }
}

/// A HAL resource under construction. Curies are collected from the namespaced links of
/// the resource and of everything embedded in it, and emitted once, at the top level.
#[derive(Clone, Debug, Default)]
pub struct Resource {
    class: Vec<String>,
    properties: Map<String, Value>,
    links: Map<String, Value>,
    embedded: Map<String, Value>,
    namespaces: BTreeSet<&'static str>,
}

impl Resource {
    pub fn new<I, S>(class: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            class: class.into_iter().map(Into::into).collect(),
            ..Self::default()
        }
    }

    /// Adds the fields of a representation struct as top-level properties.
    ///
    /// # Panics
    /// When `props` does not serialise to a JSON object: a programming error in a
    /// representation type, never a consequence of input.
    pub fn with_properties<T: Serialize + ?Sized>(mut self, props: &T) -> Self {
        match serde_json::to_value(props) {
            Ok(Value::Object(map)) => self.properties.extend(map),
            other => panic!("a representation must serialise to a JSON object, got {other:?}"),
        }
        self
    }

    pub fn property(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.properties.insert(key.to_owned(), value.into());
        self
    }

    /// A registered (IANA) relation such as `self`, `next` or `last`; titled after the
    /// relation unless the link has a title of its own (every link has one).
    pub fn link(mut self, rel: &str, mut link: Link) -> Self {
        debug_assert!(
            !rel.contains(':'),
            "namespaced rels go through Resource::rel"
        );
        if link.title.is_none() {
            link.title = Some(registered_title(rel).into());
        }
        self.links.insert(rel.to_owned(), to_value(&link));
        self
    }

    /// A namespaced relation from the registry.
    pub fn rel(mut self, def: &'static RelDef, href: impl Into<String>) -> Self {
        self.namespaces.insert(def.namespace);
        self.links.insert(def.rel(), to_value(&def.link(href)));
        self
    }

    /// A namespaced relation present only when `available` holds (scope, state).
    pub fn rel_if(
        self,
        available: bool,
        def: &'static RelDef,
        href: impl FnOnce() -> String,
    ) -> Self {
        if available {
            self.rel(def, href())
        } else {
            self
        }
    }

    pub fn embed(mut self, name: &str, resource: Resource) -> Self {
        let value = self.absorb(resource);
        self.embedded.insert(name.to_owned(), value);
        self
    }

    /// Embeds a list under `name`; the key is present even when the list is empty.
    pub fn embed_all(mut self, name: &str, resources: impl IntoIterator<Item = Resource>) -> Self {
        let values: Vec<Value> = resources.into_iter().map(|r| self.absorb(r)).collect();
        self.embedded.insert(name.to_owned(), Value::Array(values));
        self
    }

    /// The finished document, with `_links.curies` for every namespace it uses.
    pub fn into_value(self, curies: &Curies) -> Value {
        let curie_list: Vec<Curie> = self.namespaces.iter().map(|ns| curies.curie(ns)).collect();
        let mut object = self.into_object();
        if let Some(Value::Object(links)) = object.get_mut("_links") {
            links.insert("curies".to_owned(), to_value(&curie_list));
        }
        Value::Object(object)
    }

    fn absorb(&mut self, child: Resource) -> Value {
        self.namespaces.extend(child.namespaces.iter().copied());
        Value::Object(child.into_object())
    }

    fn into_object(self) -> Map<String, Value> {
        let mut object = self.properties;
        object.insert(
            "_class".to_owned(),
            Value::Array(self.class.into_iter().map(Value::String).collect()),
        );
        object.insert("_links".to_owned(), Value::Object(self.links));
        // Present even when empty: clients read `_embedded` without checking for it.
        object.insert("_embedded".to_owned(), Value::Object(self.embedded));
        object
    }
}

/// The title of a registered relation's link.
fn registered_title(rel: &str) -> &'static str {
    match rel {
        "self" => "This resource",
        "first" => "The first page",
        "last" => "The last page",
        "prev" => "The previous page",
        "next" => "The next page",
        "enclosure" => "The file",
        "up" => "The parent resource",
        "collection" => "The list this belongs to",
        _ => "A related resource",
    }
}

fn to_value<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("links serialise to JSON")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::link::Method;

    static UPDATE: RelDef = RelDef::new("shops", "update", Method::Put, "Update shop", "d");
    static SELLER: RelDef = RelDef::new("sellers", "seller", Method::Get, "Seller", "d");

    #[test]
    fn builds_properties_links_curies_and_embedded() {
        #[derive(Serialize)]
        struct Shop {
            id: i64,
            name: &'static str,
        }
        let child = Resource::new(["seller"])
            .property("id", 7)
            .link("self", Link::get("https://x/v2/sellers/7"))
            .rel(&SELLER, "https://x/v2/sellers/7");
        let doc = Resource::new(["shop"])
            .with_properties(&Shop { id: 1, name: "A" })
            .link("self", Link::get("https://x/v2/shops/1"))
            .rel(&UPDATE, "https://x/v2/shops/1")
            .rel_if(false, &SELLER, || unreachable!())
            .embed("seller", child)
            .into_value(&Curies::new("https://x/docs/rels/"));
        assert_eq!(doc["id"], 1);
        assert_eq!(doc["_class"], json!(["shop"]));
        assert_eq!(doc["_links"]["shops:update"]["method"], "put");
        assert_eq!(doc["_links"]["shops:update"]["templated"], false);
        assert_eq!(
            doc["_links"]["curies"],
            json!([
                {"name": "sellers", "href": "https://x/docs/rels/sellers/{rel}", "templated": true,
                 "title": "The sellers relations"},
                {"name": "shops", "href": "https://x/docs/rels/shops/{rel}", "templated": true,
                 "title": "The shops relations"}
            ])
        );
        assert_eq!(doc["_links"]["self"]["title"], "This resource");
        assert_eq!(doc["_links"]["shops:update"]["title"], "Update shop");
        let seller = &doc["_embedded"]["seller"];
        assert_eq!(seller["id"], 7);
        assert_eq!(seller["_embedded"], json!({}), "present, if empty");
        assert!(
            seller["_links"].get("curies").is_none(),
            "curies only at the top"
        );
    }

    #[test]
    fn empty_embedded_lists_are_kept_and_curies_always_present() {
        let doc = Resource::new(["results"])
            .link("self", Link::get("/x"))
            .embed_all("items", Vec::new())
            .into_value(&Curies::new("/d"));
        assert_eq!(doc["_embedded"]["items"], json!([]));
        assert_eq!(doc["_links"]["curies"], json!([]));
    }
}
