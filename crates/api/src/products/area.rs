//! The products area as the toolkit gathers it: paths, routes, root links, URL builders.

use domain::Scope;
use services::products::input::{NewProduct, ProductChanges};

use super::PRODUCT_LIST;
use crate::area::{Area, Path, RootLink, Routes};
use crate::catalog;
use crate::kernel::state::ApiConfig;
use crate::kernel::urls::Urls;
use crate::openapi::{Answer, Op, SHOP_SUBDOMAINS};
use crate::rels;

pub const PRODUCTS: Path = Path::new("/products");
pub const PRODUCT: Path = Path::new("/products/{id}");
/// Creating a product available in one shop (a shop's `products:create_product`).
pub const SHOP_PRODUCTS: Path = Path::new("/shops/{id}/products");

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

fn routes(routes: &mut Routes, _: &ApiConfig) {
    type Fields = super::ProductFields<'static>;
    routes
        .get(
            PRODUCTS,
            super::list,
            Op::new("List products", Answer::list::<Fields>())
                .any_scope(catalog::READ_SCOPES)
                .list(&PRODUCT_LIST)
                .rel(&rels::PRODUCTS_PRODUCTS)
                .rel(&rels::PRODUCT_TYPES_PRODUCTS),
        )
        .post(
            PRODUCTS,
            super::create,
            Op::new(
                "Create a product with its variants",
                Answer::created::<Fields>(),
            )
            .scope(Scope::ProductsWrite)
            .json_body::<NewProduct>()
            .rel(&rels::PRODUCTS_CREATE_PRODUCT),
        )
        .post(
            SHOP_PRODUCTS,
            super::create_in_shop,
            Op::new(
                "Create a product available in this shop (and in those the body names), for \
                 the shop's seller",
                Answer::created::<Fields>(),
            )
            .scope(Scope::ProductsWrite)
            .json_body::<NewProduct>(),
        )
        .get(
            PRODUCT,
            super::show,
            Op::new("Show a product", Answer::resource::<Fields>())
                .any_scope(catalog::READ_SCOPES)
                .query(SHOP_SUBDOMAINS)
                .rel(&rels::PRODUCTS_PRODUCT),
        )
        .put(
            PRODUCT,
            super::update,
            Op::new("Update a product", Answer::resource::<Fields>())
                .scope(Scope::ProductsWrite)
                .json_body::<ProductChanges>()
                .if_match()
                .rel(&rels::PRODUCTS_UPDATE),
        )
        .delete(
            PRODUCT,
            super::delete,
            Op::new(
                "Delete a product with its variants and images",
                Answer::resource::<Fields>(),
            )
            .scope(Scope::ProductsWrite)
            .if_match()
            .rel(&rels::PRODUCTS_DELETE),
        );
}

impl Urls {
    pub fn product(&self, id: i64) -> String {
        self.at(PRODUCT, &[id])
    }

    pub fn shop_products(&self, shop_id: i64) -> String {
        self.at(SHOP_PRODUCTS, &[shop_id])
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
