//! The registry of link relations: one definition per rel builds its links and its curie
//! documentation page, so the two cannot drift apart.

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::link::{Link, Method};

/// One link relation `namespace:name`, with what a client needs to know to follow it.
#[derive(Debug, PartialEq, Eq)]
pub struct RelDef {
    pub namespace: &'static str,
    pub name: &'static str,
    pub method: Method,
    pub title: &'static str,
    pub description: &'static str,
}

impl RelDef {
    pub const fn new(
        namespace: &'static str,
        name: &'static str,
        method: Method,
        title: &'static str,
        description: &'static str,
    ) -> Self {
        Self {
            namespace,
            name,
            method,
            title,
            description,
        }
    }

    /// The compact rel as it appears in `_links`, e.g. `shops:update`.
    pub fn rel(&self) -> String {
        format!("{}:{}", self.namespace, self.name)
    }

    /// A link for this rel: its method and title come from the definition.
    pub fn link(&self, href: impl Into<String>) -> Link {
        Link::new(self.method, href).with_title(self.title)
    }
}

/// Every rel the API may emit. Built from a static list; `check` guards its consistency.
#[derive(Debug, Clone, Copy)]
pub struct RelRegistry {
    rels: &'static [&'static RelDef],
}

impl RelRegistry {
    pub const fn new(rels: &'static [&'static RelDef]) -> Self {
        Self { rels }
    }

    pub fn all(&self) -> &'static [&'static RelDef] {
        self.rels
    }

    pub fn get(&self, namespace: &str, name: &str) -> Option<&'static RelDef> {
        self.rels
            .iter()
            .copied()
            .find(|r| r.namespace == namespace && r.name == name)
    }

    pub fn namespaces(&self) -> BTreeSet<&'static str> {
        self.rels.iter().map(|r| r.namespace).collect()
    }

    pub fn in_namespace<'a>(
        &'a self,
        namespace: &'a str,
    ) -> impl Iterator<Item = &'static RelDef> + 'a {
        self.rels
            .iter()
            .copied()
            .filter(move |r| r.namespace == namespace)
    }

    /// Rels must be unique and spelt in lower snake case, with a title and a description.
    pub fn check(&self) -> Result<(), String> {
        let mut seen = BTreeSet::new();
        for rel in self.rels {
            let id = rel.rel();
            if !seen.insert(id.clone()) {
                return Err(format!("rel {id} is defined twice"));
            }
            let snake = |s: &str| {
                !s.is_empty()
                    && s.chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            };
            if !snake(rel.namespace) || !snake(rel.name) {
                return Err(format!("rel {id} is not lower snake case"));
            }
            if rel.title.is_empty() || rel.description.is_empty() {
                return Err(format!("rel {id} lacks a title or description"));
            }
        }
        Ok(())
    }

    /// The page served at `{docs_base}/{namespace}/{name}`, linking to the `operation`
    /// its links lead to (what it is called, and where it is described).
    pub fn rel_page(
        &self,
        rel: &RelDef,
        docs_base: &str,
        operation: Option<(&str, &str)>,
    ) -> String {
        let operation = operation.map_or(String::new(), |(name, href)| {
            format!(
                "<dt>Operation</dt><dd><a href=\"{href}\"><code>{name}</code></a></dd>",
                href = escape(href),
                name = escape(name),
            )
        });
        let mut body = String::new();
        let _ = write!(
            body,
            "<p><a href=\"{base}\">All relations</a> › <a href=\"{base}/{ns}\">{ns}</a></p>\
             <h1><code>{id}</code></h1><p class=\"title\">{title}</p>\
             <dl><dt>Method</dt><dd><code>{method}</code></dd>{operation}</dl><p>{description}</p>",
            base = escape(docs_base),
            ns = escape(rel.namespace),
            id = escape(&rel.rel()),
            title = escape(rel.title),
            method = rel.method.as_str().to_uppercase(),
            description = escape(rel.description),
        );
        page(&rel.rel(), &body)
    }

    /// The page served at `{docs_base}/{namespace}`: the namespace's rels, each linked.
    pub fn namespace_page(&self, namespace: &str, docs_base: &str) -> Option<String> {
        let mut rows = String::new();
        for rel in self.in_namespace(namespace) {
            let _ = write!(
                rows,
                "<tr><td><a href=\"{base}/{ns}/{name}\"><code>{id}</code></a></td><td><code>{method}</code></td><td>{title}</td></tr>",
                base = escape(docs_base),
                ns = escape(rel.namespace),
                name = escape(rel.name),
                id = escape(&rel.rel()),
                method = rel.method.as_str().to_uppercase(),
                title = escape(rel.title),
            );
        }
        if rows.is_empty() {
            return None;
        }
        let body = format!(
            "<p><a href=\"{base}\">All relations</a></p><h1>{ns}</h1>\
             <table><tr><th>Relation</th><th>Method</th><th>Meaning</th></tr>{rows}</table>",
            base = escape(docs_base),
            ns = escape(namespace),
        );
        Some(page(namespace, &body))
    }

    /// A page naming every relation in another profile: `renamed` gives each its name
    /// there (`btc:update_product`), whose part after the prefix is the row's anchor (the
    /// profile's curie expands to `{page}#{rel}`); each row links to the relation's page.
    /// `aliases` are further names, each of a registered relation (`products:products`).
    pub fn renamed_page(
        &self,
        title: &str,
        introduction: &str,
        docs_base: &str,
        renamed: impl Fn(&RelDef) -> String,
        aliases: &[(&str, &str)],
    ) -> String {
        let named = self.all().iter().map(|rel| (renamed(rel), *rel));
        let aliased = aliases.iter().filter_map(|(rel, alias)| {
            let (namespace, name) = rel.split_once(':')?;
            Some(((*alias).to_owned(), self.get(namespace, name)?))
        });
        let mut rows = String::new();
        for (name, rel) in named.chain(aliased) {
            let anchor = name.split_once(':').map_or(name.as_str(), |(_, n)| n);
            let _ = write!(
                rows,
                "<tr id=\"{anchor}\"><td><code>{name}</code></td>\
                 <td><a href=\"{base}/{ns}/{rel_name}\"><code>{id}</code></a></td>\
                 <td><code>{method}</code></td><td>{title}</td></tr>",
                anchor = escape(anchor),
                name = escape(&name),
                base = escape(docs_base),
                ns = escape(rel.namespace),
                rel_name = escape(rel.name),
                id = escape(&rel.rel()),
                method = rel.method.as_str().to_uppercase(),
                title = escape(rel.title),
            );
        }
        let body = format!(
            "<h1>{title}</h1><p>{introduction}</p><table><tr><th>Name</th><th>Relation</th>\
             <th>Method</th><th>Meaning</th></tr>{rows}</table>",
            title = escape(title),
            introduction = escape(introduction),
        );
        page(title, &body)
    }

    /// The page served at `{docs_base}`: every namespace.
    pub fn index_page(&self, docs_base: &str) -> String {
        let mut items = String::new();
        for ns in self.namespaces() {
            let _ = write!(
                items,
                "<li><a href=\"{base}/{ns}\">{ns}</a></li>",
                base = escape(docs_base),
                ns = escape(ns)
            );
        }
        page(
            "Link relations",
            &format!("<h1>Link relations</h1><ul>{items}</ul>"),
        )
    }
}

fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\
         <style>body{{font-family:system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;line-height:1.5}}\
         td,th{{text-align:left;padding:.25rem .75rem .25rem 0}}</style></head><body>{}</body></html>",
        escape(title),
        body
    )
}

/// Escapes text for HTML element content and double-quoted attributes.
fn escape(text: &str) -> std::borrow::Cow<'_, str> {
    html_escape::encode_quoted_attribute(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    static UPDATE: RelDef = RelDef::new(
        "shops",
        "update",
        Method::Put,
        "Update shop",
        "Changes <settings>.",
    );
    static LIST: RelDef = RelDef::new("shops", "shops", Method::Get, "Shops", "Lists shops.");
    static REGISTRY: RelRegistry = RelRegistry::new(&[&UPDATE, &LIST]);

    #[test]
    fn link_takes_method_and_title_from_the_definition() {
        let link = UPDATE.link("https://x/v2/shops/1");
        assert_eq!(link.method, Method::Put);
        assert_eq!(link.title.as_deref(), Some("Update shop"));
        assert!(!link.templated);
        assert!(LIST.link("https://x/v2/shops{?page}").templated);
    }

    #[test]
    fn pages_escape_text_and_link_back() {
        let html = REGISTRY.rel_page(
            &UPDATE,
            "https://x/docs/rels",
            Some((
                "PUT /shops/{id}",
                "https://x/openapi.json#/paths/~1shops~1%7Bid%7D/put",
            )),
        );
        assert!(html.contains("<code>shops:update</code>"));
        assert!(html.contains("Changes &lt;settings&gt;."));
        assert!(html.contains("<code>PUT</code>"));
        assert!(html.contains(
            "<a href=\"https://x/openapi.json#/paths/~1shops~1%7Bid%7D/put\"><code>PUT /shops/{id}</code></a>"
        ));
        let ns = REGISTRY
            .namespace_page("shops", "https://x/docs/rels")
            .unwrap();
        assert!(ns.contains("href=\"https://x/docs/rels/shops/update\""));
        assert!(
            REGISTRY
                .namespace_page("orders", "https://x/docs/rels")
                .is_none()
        );
        assert!(REGISTRY.index_page("/d").contains("href=\"/d/shops\""));
    }

    #[test]
    fn check_refuses_duplicates_and_bad_names() {
        assert!(REGISTRY.check().is_ok());
        static DUP: RelRegistry = RelRegistry::new(&[&UPDATE, &UPDATE]);
        assert!(DUP.check().unwrap_err().contains("twice"));
        static BAD_DEF: RelDef = RelDef::new("Shops", "x", Method::Get, "t", "d");
        static BAD: RelRegistry = RelRegistry::new(&[&BAD_DEF]);
        assert!(BAD.check().is_err());
    }
}
