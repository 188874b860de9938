//! Building HAL resources: properties, `_class`, `_links` (with curies) and `_embedded`.

use std::borrow::Cow;
use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::Value;

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

/// A HAL resource under construction, written as JSON as it is built: properties, links
/// and embedded resources each go straight into a buffer of their own, so that a document
/// is serialised once, from typed values, with no tree of `Value`s in between. Curies are
/// collected from the namespaced links of the resource and of everything embedded in it,
/// and emitted once, at the top level.
#[derive(Clone, Debug, Default)]
pub struct Resource {
    class: Vec<Cow<'static, str>>,
    /// Object members, comma-separated, without the braces.
    properties: Vec<u8>,
    links: Vec<u8>,
    embedded: Vec<u8>,
    namespaces: BTreeSet<&'static str>,
    /// Every member name so far, to catch a name given twice (which JSON readers would
    /// resolve differently).
    #[cfg(debug_assertions)]
    names: Vec<(Part, String)>,
}

/// Room a new resource's properties and links start with.
const PROPERTIES_CAPACITY: usize = 512;
const LINKS_CAPACITY: usize = 1024;

#[cfg(debug_assertions)]
#[derive(Clone, Copy, Debug, PartialEq)]
enum Part {
    Properties,
    Links,
    Embedded,
}

impl Resource {
    pub fn new<I, S>(class: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<Cow<'static, str>>,
    {
        Self {
            class: class.into_iter().map(Into::into).collect(),
            // About what a resource of the catalog writes, so that a page's hundred-odd
            // resources are not each grown a doubling at a time.
            properties: Vec::with_capacity(PROPERTIES_CAPACITY),
            links: Vec::with_capacity(LINKS_CAPACITY),
            ..Self::default()
        }
    }

    /// Adds the fields of a representation struct as top-level properties.
    ///
    /// # Panics
    /// When `props` does not serialise to a JSON object: a programming error in a
    /// representation type, never a consequence of input.
    pub fn with_properties<T: Serialize + ?Sized>(mut self, props: &T) -> Self {
        let buffer = &mut self.properties;
        let had_members = !buffer.is_empty();
        let start = buffer.len();
        serde_json::to_writer(&mut *buffer, props).expect("representations serialise to JSON");
        let object = &buffer[start..];
        assert!(
            object.first() == Some(&b'{') && object.last() == Some(&b'}'),
            "a representation must serialise to a JSON object, got {}",
            String::from_utf8_lossy(object)
        );
        buffer.pop();
        if buffer.len() == start + 1 {
            // `{}`: no members to add.
            buffer.truncate(start);
        } else if had_members {
            buffer[start] = b',';
        } else {
            buffer.remove(start);
        }
        #[cfg(debug_assertions)]
        if let Ok(serde_json::Value::Object(map)) = serde_json::to_value(props) {
            for name in map.keys() {
                self.note_name(Part::Properties, name);
            }
        }
        self
    }

    pub fn property(mut self, key: &str, value: impl Serialize) -> Self {
        #[cfg(debug_assertions)]
        self.note_name(Part::Properties, key);
        member(&mut self.properties, key, &value);
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
        #[cfg(debug_assertions)]
        self.note_name(Part::Links, rel);
        member(&mut self.links, rel, &link);
        self
    }

    /// A namespaced relation from the registry.
    pub fn rel(mut self, def: &'static RelDef, href: impl Into<String>) -> Self {
        self.namespaces.insert(def.namespace);
        #[cfg(debug_assertions)]
        self.note_name(Part::Links, &def.rel());
        // `"namespace:name":`, written without building the rel (names are lower snake
        // case: `RelRegistry::check` refuses any other).
        debug_assert!(
            (def.namespace.bytes().chain(def.name.bytes()))
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
            "rel {} needs escaping",
            def.rel()
        );
        let buffer = &mut self.links;
        if !buffer.is_empty() {
            buffer.push(b',');
        }
        buffer.push(b'"');
        buffer.extend_from_slice(def.namespace.as_bytes());
        buffer.push(b':');
        buffer.extend_from_slice(def.name.as_bytes());
        buffer.extend_from_slice(b"\":");
        serde_json::to_writer(&mut *buffer, &def.link(href)).expect("links serialise to JSON");
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

    /// A namespaced relation present only when there is a `value` to link to.
    pub fn rel_opt<T>(
        self,
        value: Option<T>,
        def: &'static RelDef,
        href: impl FnOnce(T) -> String,
    ) -> Self {
        match value {
            Some(value) => self.rel(def, href(value)),
            None => self,
        }
    }

    pub fn embed(mut self, name: &str, resource: Resource) -> Self {
        #[cfg(debug_assertions)]
        self.note_name(Part::Embedded, name);
        begin_member(&mut self.embedded, name);
        self.absorb(resource);
        self
    }

    /// Embeds a list under `name`; the key is present even when the list is empty.
    pub fn embed_all(mut self, name: &str, resources: impl IntoIterator<Item = Resource>) -> Self {
        #[cfg(debug_assertions)]
        self.note_name(Part::Embedded, name);
        begin_member(&mut self.embedded, name);
        self.embedded.push(b'[');
        for (i, resource) in resources.into_iter().enumerate() {
            if i > 0 {
                self.embedded.push(b',');
            }
            self.absorb(resource);
        }
        self.embedded.push(b']');
        self
    }

    /// The finished document as JSON text, with `_links.curies` for every namespace it
    /// uses.
    pub fn into_json(self, curies: &Curies) -> Vec<u8> {
        let curie_list: Vec<Curie> = self.namespaces.iter().map(|ns| curies.curie(ns)).collect();
        let mut out = Vec::with_capacity(self.written_len() + 128 * curie_list.len());
        self.write_object(&mut out, Some(&curie_list));
        out
    }

    /// The finished document as a JSON value (see `into_json`).
    pub fn into_value(self, curies: &Curies) -> Value {
        serde_json::from_slice(&self.into_json(curies)).expect("a built resource is valid JSON")
    }

    /// Writes `child` as the value of the member begun last in `embedded`.
    fn absorb(&mut self, child: Resource) {
        self.namespaces.extend(child.namespaces.iter().copied());
        self.embedded.reserve(child.written_len());
        let mut embedded = std::mem::take(&mut self.embedded);
        child.write_object(&mut embedded, None);
        self.embedded = embedded;
    }

    fn write_object(&self, out: &mut Vec<u8>, curies: Option<&[Curie]>) {
        out.push(b'{');
        out.extend_from_slice(&self.properties);
        if !self.properties.is_empty() {
            out.push(b',');
        }
        out.extend_from_slice(b"\"_class\":");
        serde_json::to_writer(&mut *out, &self.class).expect("strings serialise");
        out.extend_from_slice(b",\"_links\":{");
        out.extend_from_slice(&self.links);
        if let Some(curies) = curies {
            if !self.links.is_empty() {
                out.push(b',');
            }
            out.extend_from_slice(b"\"curies\":");
            serde_json::to_writer(&mut *out, curies).expect("curies serialise");
        }
        // Present even when empty: clients read `_embedded` without checking for it.
        out.extend_from_slice(b"},\"_embedded\":{");
        out.extend_from_slice(&self.embedded);
        out.extend_from_slice(b"}}");
    }

    /// About how long `write_object` makes the resource.
    fn written_len(&self) -> usize {
        self.properties.len() + self.links.len() + self.embedded.len() + 64
    }

    #[cfg(debug_assertions)]
    fn note_name(&mut self, part: Part, name: &str) {
        assert!(
            !self.names.iter().any(|(p, n)| *p == part && n == name),
            "{name:?} is given twice in a resource's {part:?}"
        );
        self.names.push((part, name.to_owned()));
    }
}

/// Appends `"name":` to an object's members, after a comma when it has some already.
fn begin_member(buffer: &mut Vec<u8>, name: &str) {
    if !buffer.is_empty() {
        buffer.push(b',');
    }
    serde_json::to_writer(&mut *buffer, name).expect("strings serialise");
    buffer.push(b':');
}

/// Appends `"name":value` to an object's members.
fn member<T: Serialize + ?Sized>(buffer: &mut Vec<u8>, name: &str, value: &T) {
    begin_member(buffer, name);
    serde_json::to_writer(&mut *buffer, value).expect("HAL values serialise to JSON");
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
    fn writes_members_in_order_with_one_separator_each() {
        #[derive(Serialize)]
        struct Empty {}
        #[derive(Serialize)]
        struct Named<'a> {
            name: &'a str,
        }
        let child = Resource::new(["c"]).with_properties(&Empty {});
        let json = Resource::new(["a", "b"])
            .with_properties(&Empty {})
            .with_properties(&Named { name: "q\"uote" })
            .property("n", 1)
            .rel(&SELLER, "/s/1")
            .embed_all("none", Vec::new())
            .embed_all("two", [child.clone(), child])
            .into_json(&Curies::new("/d"));
        assert_eq!(
            String::from_utf8(json).unwrap(),
            concat!(
                r#"{"name":"q\"uote","n":1,"_class":["a","b"],"#,
                r#""_links":{"sellers:seller":{"href":"/s/1","templated":false,"method":"get","title":"Seller"},"#,
                r#""curies":[{"name":"sellers","href":"/d/sellers/{rel}","templated":true,"title":"The sellers relations"}]},"#,
                r#""_embedded":{"none":[],"two":["#,
                r#"{"_class":["c"],"_links":{},"_embedded":{}},{"_class":["c"],"_links":{},"_embedded":{}}]}}"#
            )
        );
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "given twice")]
    fn a_name_given_twice_is_a_programming_error() {
        let _ = Resource::new(["a"]).property("id", 1).property("id", 2);
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
