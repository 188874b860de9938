//! The price lists area as the toolkit gathers it: paths, routes, root links, URL
//! builders.

use axum::Router;
use axum::routing::get;

use super::{ITEM_LIST, PRICE_LIST_LIST, items, prices};
use crate::area::{Area, Path, RootLink, Routes};
use crate::catalog;
use crate::kernel::state::{ApiConfig, AppState};
use crate::kernel::urls::Urls;
use crate::rels;

pub const PRICE_LISTS: Path = Path::new("/price_lists");
pub const PRICE_LIST: Path = Path::new("/price_lists/{id}");
pub const ITEMS: Path = Path::new("/price_lists/{id}/items");
pub const ITEM: Path = Path::new("/price_lists/{id}/items/{item_id}");
pub const PRICES: Path = Path::new("/price_lists/{id}/prices");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[
        RootLink {
            rel: &rels::PRICE_LISTS_PRICE_LISTS,
            shown: catalog::admin,
            href: |urls| urls.list_template(PRICE_LISTS.pattern(), &PRICE_LIST_LIST),
        },
        RootLink {
            rel: &rels::PRICE_LISTS_PRICE_LIST,
            shown: catalog::admin,
            href: |urls| urls.template(PRICE_LIST),
        },
        RootLink {
            rel: &rels::PRICE_LISTS_CREATE_PRICE_LIST,
            shown: catalog::writer,
            href: |urls| urls.template(PRICE_LISTS),
        },
    ],
};

fn routes(routes: &mut Routes, config: &ApiConfig) {
    routes.undocumented(plain_routes(config));
}

fn plain_routes(_: &ApiConfig) -> Router<AppState> {
    Router::new()
        .route(PRICE_LISTS.pattern(), get(super::list).post(super::create))
        .route(
            PRICE_LIST.pattern(),
            get(super::show).put(super::update).delete(super::remove),
        )
        .route(ITEMS.pattern(), get(items::list).put(items::upsert))
        .route(ITEM.pattern(), get(items::show).delete(items::remove))
        .route(PRICES.pattern(), get(prices::show))
}

impl Urls {
    pub fn price_list(&self, id: i64) -> String {
        self.at(PRICE_LIST, &[id])
    }

    /// A price list's items, as a list template.
    pub fn price_list_items(&self, list_id: i64) -> String {
        self.list_template(&ITEMS.with(&[list_id]), &ITEM_LIST)
    }
}
