//! The products area as the toolkit gathers it: paths, routes, root links, URL builders.

use axum::Router;
use axum::routing::get;

use super::PRODUCT_LIST;
use crate::area::{Area, Path, RootLink, Routes};
use crate::catalog;
use crate::kernel::state::{ApiConfig, AppState};
use crate::kernel::urls::Urls;
use crate::rels;

pub const PRODUCTS: Path = Path::new("/products");
pub const PRODUCT: Path = Path::new("/products/{id}");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[
        RootLink {
            rel: &rels::PRODUCTS_PRODUCTS,
            shown: catalog::reader,
            href: |urls| urls.list_template(PRODUCTS.pattern(), &PRODUCT_LIST),
        },
        RootLink {
            rel: &rels::PRODUCTS_PRODUCT,
            shown: catalog::reader,
            href: |urls| urls.template(PRODUCT),
        },
        RootLink {
            rel: &rels::PRODUCTS_CREATE_PRODUCT,
            shown: catalog::writer,
            href: |urls| urls.template(PRODUCTS),
        },
    ],
};

fn routes(routes: &mut Routes, config: &ApiConfig) {
    routes.undocumented(plain_routes(config));
}

fn plain_routes(_: &ApiConfig) -> Router<AppState> {
    Router::new()
        .route(PRODUCTS.pattern(), get(super::list).post(super::create))
        .route(
            PRODUCT.pattern(),
            get(super::show).put(super::update).delete(super::delete),
        )
}

impl Urls {
    pub fn product(&self, id: i64) -> String {
        self.at(PRODUCT, &[id])
    }

    /// The products list with `filter` (`shop_ids`, `type_ids`, `collections`) preset to
    /// `id`, as a template declaring the other parameters.
    pub fn products_where(&self, filter: &str, id: i64) -> String {
        self.list_template_with(
            PRODUCTS.pattern(),
            &PRODUCT_LIST,
            &[(filter, id.to_string())],
        )
    }
}
