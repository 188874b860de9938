//! The sellers area as the toolkit gathers it: paths, routes, root links, URL builders.

use axum::Router;
use axum::routing::get;
use domain::Scope;

use super::SELLER_LIST;
use crate::area::{Access, Area, Path, RootLink, Routes};
use crate::kernel::state::{ApiConfig, AppState};
use crate::kernel::urls::Urls;
use crate::rels;

pub const SELLERS: Path = Path::new("/sellers");
pub const SELLER: Path = Path::new("/sellers/{id}");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[
        RootLink {
            rel: &rels::SELLERS_SELLERS,
            shown: reader,
            href: |urls| urls.list_template(SELLERS.pattern(), &SELLER_LIST),
        },
        RootLink {
            rel: &rels::SELLERS_SELLER,
            shown: reader,
            href: |urls| urls.template(SELLER),
        },
    ],
};

fn routes(routes: &mut Routes, config: &ApiConfig) {
    routes.undocumented(plain_routes(config));
}

fn plain_routes(_: &ApiConfig) -> Router<AppState> {
    Router::new()
        .route(SELLERS.pattern(), get(super::list))
        .route(SELLER.pattern(), get(super::show))
}

fn reader(access: &Access<'_>) -> bool {
    access.has(Scope::SellersRead)
}

impl Urls {
    pub fn seller(&self, id: i64) -> String {
        self.at(SELLER, &[id])
    }
}
