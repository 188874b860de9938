//! The product types area as the toolkit gathers it: paths, routes, root links, URL
//! builders.

use domain::Scope;
use services::product_types::input::{NewProductType, ProductTypeChanges};

use super::PRODUCT_TYPE_LIST;
use crate::area::{Area, Path, RootLink, Routes};
use crate::catalog;
use crate::kernel::state::ApiConfig;
use crate::kernel::urls::Urls;
use crate::openapi::{Answer, Op};
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

fn routes(routes: &mut Routes, _: &ApiConfig) {
    type Fields = super::ProductTypeFields<'static>;
    routes
        .get(
            PRODUCT_TYPES,
            super::list,
            Op::new("List product types", Answer::list::<Fields>())
                .scope(Scope::ProductsRead)
                .list(&PRODUCT_TYPE_LIST)
                .rel(&rels::PRODUCT_TYPES_PRODUCT_TYPES),
        )
        .post(
            PRODUCT_TYPES,
            super::create,
            Op::new("Create a product type", Answer::created::<Fields>())
                .scope(Scope::ProductsWrite)
                .json_body::<NewProductType>()
                .rel(&rels::PRODUCT_TYPES_CREATE_PRODUCT_TYPE),
        )
        .get(
            PRODUCT_TYPE,
            super::show,
            Op::new("Show a product type", Answer::resource::<Fields>())
                .scope(Scope::ProductsRead)
                .rel(&rels::PRODUCT_TYPES_PRODUCT_TYPE),
        )
        .put(
            PRODUCT_TYPE,
            super::update,
            Op::new("Update a product type", Answer::resource::<Fields>())
                .scope(Scope::ProductsWrite)
                .json_body::<ProductTypeChanges>()
                .if_match()
                .rel(&rels::PRODUCT_TYPES_UPDATE),
        )
        .delete(
            PRODUCT_TYPE,
            super::delete,
            Op::new(
                "Delete a product type no product uses",
                Answer::resource::<Fields>(),
            )
            .scope(Scope::ProductsWrite)
            .if_match()
            .rel(&rels::PRODUCT_TYPES_DELETE),
        );
}

impl Urls {
    pub fn product_type(&self, id: i64) -> String {
        self.at(PRODUCT_TYPE, &[id])
    }
}
