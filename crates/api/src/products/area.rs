//! The products area as the toolkit gathers it: paths, routes, root links, URL builders.

use axum::Router;
use axum::routing::get;
use domain::Scope;

use super::PRODUCT_LIST;
use crate::area::{Access, Area, Path, RootLink};
use crate::rels;
use crate::state::{ApiConfig, AppState};
use crate::urls::Urls;

pub const PRODUCTS: Path = Path::new("/products");
pub const PRODUCT: Path = Path::new("/products/{id}");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[
        RootLink {
            rel: &rels::PRODUCTS_PRODUCTS,
            shown: catalog_reader,
            href: |urls| urls.list_template(PRODUCTS.pattern(), &PRODUCT_LIST),
        },
        RootLink {
            rel: &rels::PRODUCTS_PRODUCT,
            shown: catalog_reader,
            href: |urls| urls.template(PRODUCT),
        },
        RootLink {
            rel: &rels::PRODUCTS_CREATE_PRODUCT,
            shown: catalog_writer,
            href: |urls| urls.template(PRODUCTS),
        },
    ],
};

fn routes(_: &ApiConfig) -> Router<AppState> {
    Router::new()
        .route(PRODUCTS.pattern(), get(super::list).post(super::create))
        .route(
            PRODUCT.pattern(),
            get(super::show).put(super::update).delete(super::delete),
        )
}

/// Tokens that may read a catalog: an account's own, or (`public`) named shops'.
fn catalog_reader(access: &Access<'_>) -> bool {
    access.has(Scope::ProductsRead) || access.has(Scope::Public)
}

/// Tokens that manage an account's catalog (its collections, types and price lists too).
pub fn catalog_admin(access: &Access<'_>) -> bool {
    access.tenant_has(Scope::ProductsRead)
}

/// Tokens that change an account's catalog.
pub fn catalog_writer(access: &Access<'_>) -> bool {
    access.tenant_has(Scope::ProductsWrite)
}

impl Urls {
    pub fn product(&self, id: i64) -> String {
        self.at(PRODUCT, &[id])
    }
}
