//! The shops area as the toolkit gathers it: paths, routes, root links, URL builders.

use axum::Router;
use axum::routing::{get, post};
use domain::Scope;

use super::SHOP_LIST;
use crate::area::{Access, Area, Path, RootLink, Routes};
use crate::kernel::state::{ApiConfig, AppState};
use crate::kernel::urls::Urls;
use crate::rels;

pub const SHOPS: Path = Path::new("/shops");
pub const SHOP: Path = Path::new("/shops/{id}");
/// A seller's shops: where a shop is created.
pub const SELLER_SHOPS: Path = Path::new("/sellers/{id}/shops");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[
        RootLink {
            rel: &rels::SHOPS_SHOPS,
            shown: reader,
            href: |urls| urls.list_template(SHOPS.pattern(), &SHOP_LIST),
        },
        RootLink {
            rel: &rels::SHOPS_SHOP,
            shown: reader,
            href: |urls| urls.template(SHOP),
        },
    ],
};

fn routes(routes: &mut Routes, config: &ApiConfig) {
    routes.undocumented(plain_routes(config));
}

fn plain_routes(_: &ApiConfig) -> Router<AppState> {
    Router::new()
        .route(SHOPS.pattern(), get(super::list))
        .route(SHOP.pattern(), get(super::show).put(super::update))
        .route(SELLER_SHOPS.pattern(), post(super::create))
}

fn reader(access: &Access<'_>) -> bool {
    access.has(Scope::ShopsRead)
}

impl Urls {
    pub fn shop(&self, id: i64) -> String {
        self.at(SHOP, &[id])
    }

    pub fn seller_shops(&self, id: i64) -> String {
        self.at(SELLER_SHOPS, &[id])
    }

    /// A seller's shops.
    pub fn shops_of_seller(&self, seller_id: i64) -> String {
        format!("{}?seller_ids={seller_id}", self.at(SHOPS, &[]))
    }
}
