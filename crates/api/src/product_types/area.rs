//! The product types area as the toolkit gathers it: paths, routes, root links, URL
//! builders.

use axum::Router;
use axum::routing::get;

use super::PRODUCT_TYPE_LIST;
use crate::area::{Area, Path, RootLink};
use crate::catalog;
use crate::kernel::state::{ApiConfig, AppState};
use crate::kernel::urls::Urls;
use crate::rels;

pub const PRODUCT_TYPES: Path = Path::new("/product_types");
pub const PRODUCT_TYPE: Path = Path::new("/product_types/{id}");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[
        RootLink {
            rel: &rels::PRODUCT_TYPES_PRODUCT_TYPES,
            shown: catalog::admin,
            href: |urls| urls.list_template(PRODUCT_TYPES.pattern(), &PRODUCT_TYPE_LIST),
        },
        RootLink {
            rel: &rels::PRODUCT_TYPES_PRODUCT_TYPE,
            shown: catalog::admin,
            href: |urls| urls.template(PRODUCT_TYPE),
        },
        RootLink {
            rel: &rels::PRODUCT_TYPES_CREATE_PRODUCT_TYPE,
            shown: catalog::writer,
            href: |urls| urls.template(PRODUCT_TYPES),
        },
    ],
};

fn routes(_: &ApiConfig) -> Router<AppState> {
    Router::new()
        .route(
            PRODUCT_TYPES.pattern(),
            get(super::list).post(super::create),
        )
        .route(
            PRODUCT_TYPE.pattern(),
            get(super::show).put(super::update).delete(super::delete),
        )
}

impl Urls {
    pub fn product_type(&self, id: i64) -> String {
        self.at(PRODUCT_TYPE, &[id])
    }
}
