//! The list envelope shared by every collection: counts, page links and `_embedded.items`.

use crate::link::Link;
use crate::resource::Resource;

/// How many items a list holds: counted exactly, or counted up to a bound past which
/// counting would cost a read per item (a search over a large catalog), as search engines
/// answer (Elasticsearch's `"relation": "gte"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TotalItems {
    Exact(u64),
    /// More than this many: the list goes on past it.
    MoreThan(u64),
}

impl TotalItems {
    /// The number shown as `total_items`: the count, or the bound it exceeds.
    pub fn shown(self) -> u64 {
        match self {
            TotalItems::Exact(n) | TotalItems::MoreThan(n) => n,
        }
    }

    pub fn is_exact(self) -> bool {
        matches!(self, TotalItems::Exact(_))
    }
}

impl From<u64> for TotalItems {
    fn from(count: u64) -> Self {
        TotalItems::Exact(count)
    }
}

/// Which page of how many items a list shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListPage {
    pub page: u64,
    pub per_page: u64,
    pub total_items: TotalItems,
}

impl ListPage {
    /// The last page, when the total is exact; an empty list still has page 1.
    pub fn last_page(&self) -> Option<u64> {
        match self.total_items {
            TotalItems::Exact(n) => Some(n.div_ceil(self.per_page.max(1)).max(1)),
            TotalItems::MoreThan(_) => None,
        }
    }

    /// Whether a page follows this one. A bounded total is never below the end of the
    /// page it was counted for, so more items than it means a next page.
    pub fn has_next(&self) -> bool {
        self.last_page().is_none_or(|last| self.page < last)
    }

    pub fn offset(&self) -> u64 {
        (self.page.saturating_sub(1)).saturating_mul(self.per_page)
    }
}

/// A list resource `_class: ["results", name]` with `total_items`, `total_items_exact`
/// (false when `total_items` is a lower bound), `self`, `first`, and where they exist
/// `last` (only under an exact total: a bounded one knows no last page), `prev` and
/// `next`. `href_for` builds the address of a given page.
pub fn list_resource(
    name: &'static str,
    page: ListPage,
    items: Vec<Resource>,
    href_for: impl Fn(u64) -> String,
) -> Resource {
    let last = page.last_page();
    let mut list = Resource::new(["results", name])
        .property("total_items", page.total_items.shown())
        .property("total_items_exact", page.total_items.is_exact())
        .property("page", page.page)
        .property("per_page", page.per_page)
        .link("self", Link::get(href_for(page.page)))
        .link("first", Link::get(href_for(1)));
    if let Some(last) = last {
        list = list.link("last", Link::get(href_for(last)));
    }
    if page.page > 1 {
        let prev = last.map_or(page.page - 1, |last| (page.page - 1).min(last));
        list = list.link("prev", Link::get(href_for(prev)));
    }
    if page.has_next() {
        list = list.link("next", Link::get(href_for(page.page + 1)));
    }
    list.embed_all("items", items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::Curies;

    fn list(page: u64, total: TotalItems) -> serde_json::Value {
        let p = ListPage {
            page,
            per_page: 10,
            total_items: total,
        };
        list_resource("shops", p, Vec::new(), |n| format!("/s?page={n}"))
            .into_value(&Curies::new("/d"))
    }

    fn links(page: u64, total: u64) -> serde_json::Value {
        list(page, TotalItems::Exact(total))["_links"].clone()
    }

    #[test]
    fn first_middle_last_and_beyond() {
        let first = links(1, 25);
        assert_eq!(first["last"]["href"], "/s?page=3");
        assert_eq!(first["next"]["href"], "/s?page=2");
        assert!(first.get("prev").is_none());
        let middle = links(2, 25);
        assert_eq!(middle["prev"]["href"], "/s?page=1");
        assert_eq!(middle["next"]["href"], "/s?page=3");
        let last = links(3, 25);
        assert!(last.get("next").is_none());
        assert_eq!(last["prev"]["href"], "/s?page=2");
        let beyond = links(9, 25);
        assert_eq!(beyond["prev"]["href"], "/s?page=3");
        assert!(beyond.get("next").is_none());
    }

    #[test]
    fn empty_list_has_one_page() {
        let empty = links(1, 0);
        assert_eq!(empty["last"]["href"], "/s?page=1");
        assert!(empty.get("next").is_none() && empty.get("prev").is_none());
        assert_eq!(
            ListPage {
                page: 3,
                per_page: 20,
                total_items: TotalItems::Exact(0)
            }
            .offset(),
            40
        );
    }

    #[test]
    fn a_bounded_total_has_no_last_page_and_always_a_next() {
        let exact = list(1, TotalItems::Exact(25));
        assert_eq!(exact["total_items_exact"], true);
        let bounded = list(3, TotalItems::MoreThan(1000));
        assert_eq!(bounded["total_items"], 1000);
        assert_eq!(bounded["total_items_exact"], false);
        let links = &bounded["_links"];
        assert!(links.get("last").is_none());
        assert_eq!(links["next"]["href"], "/s?page=4");
        assert_eq!(links["prev"]["href"], "/s?page=2");
        assert_eq!(links["first"]["href"], "/s?page=1");
    }
}
