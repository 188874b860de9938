//! The collections area as the toolkit gathers it: paths, routes, root links, URL
//! builders.

use axum::Router;
use axum::routing::{self, get};

use super::{COLLECTION_LIST, MEMBER_LIST};
use crate::area::{Area, Path, RootLink, Routes};
use crate::catalog;
use crate::kernel::state::{ApiConfig, AppState};
use crate::kernel::urls::Urls;
use crate::rels;

pub const COLLECTIONS: Path = Path::new("/collections");
pub const COLLECTION: Path = Path::new("/collections/{id}");
pub const MEMBERS: Path = Path::new("/collections/{id}/products");
pub const MEMBER: Path = Path::new("/collections/{id}/products/{product_id}");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[
        RootLink {
            rel: &rels::COLLECTIONS_COLLECTIONS,
            shown: catalog::admin,
            href: |urls| urls.list_template(COLLECTIONS.pattern(), &COLLECTION_LIST),
        },
        RootLink {
            rel: &rels::COLLECTIONS_COLLECTION,
            shown: catalog::admin,
            href: |urls| urls.template(COLLECTION),
        },
        RootLink {
            rel: &rels::COLLECTIONS_CREATE_COLLECTION,
            shown: catalog::writer,
            href: |urls| urls.template(COLLECTIONS),
        },
    ],
};

fn routes(routes: &mut Routes, config: &ApiConfig) {
    routes.undocumented(plain_routes(config));
}

fn plain_routes(_: &ApiConfig) -> Router<AppState> {
    Router::new()
        .route(COLLECTIONS.pattern(), get(super::list).post(super::create))
        .route(
            COLLECTION.pattern(),
            get(super::show).put(super::update).delete(super::remove),
        )
        .route(
            MEMBERS.pattern(),
            get(super::members)
                .post(super::add_product)
                .put(super::reorder),
        )
        .route(MEMBER.pattern(), routing::delete(super::remove_product))
}

impl Urls {
    pub fn collection(&self, id: i64) -> String {
        self.at(COLLECTION, &[id])
    }

    /// The collections holding a product, as a list template.
    pub fn collections_of_product(&self, product_id: i64) -> String {
        let preset = [("product_ids", product_id.to_string())];
        self.list_template_with(COLLECTIONS.pattern(), &COLLECTION_LIST, &preset)
    }

    /// A collection's products, as a list template.
    pub fn collection_members(&self, id: i64) -> String {
        self.list_template(&MEMBERS.with(&[id]), &MEMBER_LIST)
    }
}
