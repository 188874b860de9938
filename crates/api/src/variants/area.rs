//! The variants area as the toolkit gathers it: paths, routes, URL builders.

use domain::Scope;
use services::variants::input::{NewVariant, VariantChanges};

use super::VARIANT_LIST;
use crate::area::{Area, Path, Routes};
use crate::catalog;
use crate::kernel::state::ApiConfig;
use crate::kernel::urls::Urls;
use crate::openapi::{Answer, Op, SHOP_SUBDOMAINS};
use crate::rels;

pub const VARIANTS: Path = Path::new("/products/{id}/variants");
pub const VARIANT: Path = Path::new("/products/{id}/variants/{variant_id}");
pub const STOCK_ADJUSTMENTS: Path =
    Path::new("/products/{id}/variants/{variant_id}/stock_adjustments");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[],
};

fn routes(routes: &mut Routes, _: &ApiConfig) {
    type Fields = super::VariantFields<'static>;
    routes
        .get(
            VARIANTS,
            super::list,
            Op::new("List a product's variants", Answer::list::<Fields>())
                .any_scope(catalog::READ_SCOPES)
                .list(&VARIANT_LIST)
                .query(SHOP_SUBDOMAINS)
                .rel(&rels::PRODUCTS_VARIANTS),
        )
        .post(
            VARIANTS,
            super::create,
            Op::new("Add a variant to a product", Answer::created::<Fields>())
                .scope(Scope::ProductsWrite)
                .json_body::<NewVariant>()
                .rel(&rels::PRODUCTS_CREATE_VARIANT),
        )
        .get(
            VARIANT,
            super::show,
            Op::new("Show a variant", Answer::resource::<Fields>())
                .any_scope(catalog::READ_SCOPES)
                .query(SHOP_SUBDOMAINS)
                .rel(&rels::VARIANTS_VARIANT),
        )
        .put(
            VARIANT,
            super::update,
            Op::new("Update a variant", Answer::resource::<Fields>())
                .scope(Scope::ProductsWrite)
                .json_body::<VariantChanges>()
                .if_match()
                .rel(&rels::VARIANTS_UPDATE),
        )
        .delete(
            VARIANT,
            super::delete,
            Op::new(
                "Delete a variant (never a product's last)",
                Answer::resource::<Fields>(),
            )
            .scope(Scope::ProductsWrite)
            .if_match()
            .rel(&rels::VARIANTS_DELETE),
        )
        .post(
            STOCK_ADJUSTMENTS,
            super::adjust_stock,
            Op::new(
                "Adjust a variant's stock in one atomic step",
                Answer::resource::<Fields>(),
            )
            .scope(Scope::ProductsWrite)
            .json_body::<super::StockAdjustment>()
            .rel(&rels::VARIANTS_ADJUST_STOCK),
        );
}

impl Urls {
    pub fn variants(&self, product_id: i64) -> String {
        self.at(VARIANTS, &[product_id])
    }

    /// A product's variants, as a list template.
    pub fn variants_list(&self, product_id: i64) -> String {
        self.list_template(&VARIANTS.with(&[product_id]), &super::VARIANT_LIST)
    }

    pub fn variant(&self, product_id: i64, id: i64) -> String {
        self.at(VARIANT, &[product_id, id])
    }
}
