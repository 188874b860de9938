//! The list envelope shared by every collection: counts, page links and `_embedded.items`.

use crate::link::Link;
use crate::resource::Resource;

/// Which page of how many items a list shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListPage {
    pub page: u64,
    pub per_page: u64,
    pub total_items: u64,
}

impl ListPage {
    /// The last page that exists; an empty list still has page 1.
    pub fn last_page(&self) -> u64 {
        self.total_items.div_ceil(self.per_page.max(1)).max(1)
    }

    pub fn offset(&self) -> u64 {
        (self.page.saturating_sub(1)).saturating_mul(self.per_page)
    }
}

/// A list resource `_class: ["results", name]` with `self`, `first`, `last` and, where they
/// exist, `prev` and `next`. `href_for` builds the address of a given page.
pub fn list_resource(
    name: &'static str,
    page: ListPage,
    items: Vec<Resource>,
    href_for: impl Fn(u64) -> String,
) -> Resource {
    let last = page.last_page();
    let mut list = Resource::new(["results", name])
        .property("total_items", page.total_items)
        .property("page", page.page)
        .property("per_page", page.per_page)
        .link("self", Link::get(href_for(page.page)))
        .link("first", Link::get(href_for(1)))
        .link("last", Link::get(href_for(last)));
    if page.page > 1 {
        list = list.link("prev", Link::get(href_for((page.page - 1).min(last))));
    }
    if page.page < last {
        list = list.link("next", Link::get(href_for(page.page + 1)));
    }
    list.embed_all("items", items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::Curies;

    fn links(page: u64, total: u64) -> serde_json::Value {
        let p = ListPage {
            page,
            per_page: 10,
            total_items: total,
        };
        list_resource("shops", p, Vec::new(), |n| format!("/s?page={n}"))
            .into_value(&Curies::new("/d"))["_links"]
            .clone()
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
                total_items: 0
            }
            .offset(),
            40
        );
    }
}
