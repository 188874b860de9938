//! The collections area as the toolkit gathers it: paths, routes, root links, URL
//! builders.

use domain::Scope;
use services::collections::input::{CollectionChanges, NewCollection, NewMember, Reorder};

use super::{COLLECTION_LIST, MEMBER_LIST};
use crate::area::{Area, Path, RootLink, Routes};
use crate::catalog;
use crate::kernel::state::ApiConfig;
use crate::kernel::urls::Urls;
use crate::openapi::{Answer, Op};
use crate::products::ProductFields;
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

fn routes(routes: &mut Routes, _: &ApiConfig) {
    type Fields = super::CollectionFields<'static>;
    routes
        .get(
            COLLECTIONS,
            super::list,
            Op::new("List collections", Answer::list::<Fields>())
                .scope(Scope::ProductsRead)
                .list(&COLLECTION_LIST)
                .rel(&rels::COLLECTIONS_COLLECTIONS)
                .rel(&rels::PRODUCTS_COLLECTIONS),
        )
        .post(
            COLLECTIONS,
            super::create,
            Op::new(
                "Create a manual or smart collection",
                Answer::created::<Fields>(),
            )
            .scope(Scope::ProductsWrite)
            .json_body::<NewCollection>()
            .rel(&rels::COLLECTIONS_CREATE_COLLECTION),
        )
        .get(
            COLLECTION,
            super::show,
            Op::new("Show a collection", Answer::resource::<Fields>())
                .scope(Scope::ProductsRead)
                .rel(&rels::COLLECTIONS_COLLECTION),
        )
        .put(
            COLLECTION,
            super::update,
            Op::new("Update a collection", Answer::resource::<Fields>())
                .scope(Scope::ProductsWrite)
                .json_body::<CollectionChanges>()
                .if_match()
                .rel(&rels::COLLECTIONS_UPDATE),
        )
        .delete(
            COLLECTION,
            super::remove,
            Op::new(
                "Delete a collection (its products stay)",
                Answer::resource::<Fields>(),
            )
            .scope(Scope::ProductsWrite)
            .if_match()
            .rel(&rels::COLLECTIONS_DELETE),
        )
        .get(
            MEMBERS,
            super::members,
            Op::new(
                "List a collection's products in its order",
                Answer::list::<ProductFields<'static>>(),
            )
            .scope(Scope::ProductsRead)
            .list(&MEMBER_LIST)
            .rel(&rels::COLLECTIONS_PRODUCTS),
        )
        .post(
            MEMBERS,
            super::add_product,
            Op::new(
                "Add a product to a manual collection (the collection, embedding the product)",
                Answer::resource::<Fields>(),
            )
            .scope(Scope::ProductsWrite)
            .json_body::<NewMember>()
            .rel(&rels::COLLECTIONS_ADD_PRODUCT),
        )
        .put(
            MEMBERS,
            super::reorder,
            Op::new(
                "Move products of a manual collection before the others",
                Answer::resource::<Fields>(),
            )
            .scope(Scope::ProductsWrite)
            .json_body::<Reorder>()
            .rel(&rels::COLLECTIONS_REORDER_PRODUCTS),
        )
        .delete(
            MEMBER,
            super::remove_product,
            Op::new(
                "Take a product out of a manual collection (the collection, embedding the product)",
                Answer::resource::<Fields>(),
            )
            .scope(Scope::ProductsWrite)
            .rel(&rels::COLLECTIONS_REMOVE_PRODUCT),
        );
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
