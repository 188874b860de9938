//! The payment methods area as the toolkit gathers it: paths (nested in their shop),
//! routes and URL builders. The shop links to its methods.

use domain::Scope;
use services::payment_methods::input::{NewPaymentMethod, PaymentMethodChanges};

use super::METHOD_LIST;
use crate::area::{Area, Path, Routes};
use crate::kernel::state::ApiConfig;
use crate::kernel::urls::Urls;
use crate::openapi::{Answer, Op};
use crate::rels;

pub const METHODS: Path = Path::new("/shops/{id}/payment_methods");
pub const METHOD: Path = Path::new("/shops/{id}/payment_methods/{method_id}");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[],
};

fn routes(routes: &mut Routes, _: &ApiConfig) {
    type Fields = super::PaymentMethodFields<'static>;
    routes
        .get(
            METHODS,
            super::list,
            Op::new("List a shop's payment methods", Answer::list::<Fields>())
                .scope(Scope::ShopsRead)
                .list(&METHOD_LIST)
                .rel(&rels::SHOPS_PAYMENT_METHODS),
        )
        .post(
            METHODS,
            super::create,
            Op::new(
                "Add a payment method to a shop",
                Answer::created::<Fields>(),
            )
            .scope(Scope::ShopsWrite)
            .json_body::<NewPaymentMethod>()
            .rel(&rels::SHOPS_CREATE_PAYMENT_METHOD),
        )
        .get(
            METHOD,
            super::show,
            Op::new("Show a payment method", Answer::resource::<Fields>())
                .scope(Scope::ShopsRead)
                .rel(&rels::SHOPS_PAYMENT_METHOD),
        )
        .put(
            METHOD,
            super::update,
            Op::new("Update a payment method", Answer::resource::<Fields>())
                .scope(Scope::ShopsWrite)
                .json_body::<PaymentMethodChanges>()
                .if_match()
                .rel(&rels::SHOPS_UPDATE_PAYMENT_METHOD),
        )
        .delete(
            METHOD,
            super::delete,
            Op::new("Delete a payment method", Answer::resource::<Fields>())
                .scope(Scope::ShopsWrite)
                .if_match()
                .rel(&rels::SHOPS_DELETE_PAYMENT_METHOD),
        );
}

impl Urls {
    pub fn payment_method(&self, shop_id: i64, id: i64) -> String {
        self.at(METHOD, &[shop_id, id])
    }

    /// Where a method is added to the shop.
    pub fn shop_payment_methods(&self, shop_id: i64) -> String {
        self.at(METHODS, &[shop_id])
    }

    /// The shop's methods, as a list template.
    pub fn payment_methods_of_shop(&self, shop_id: i64) -> String {
        self.list_template(&METHODS.with(&[shop_id]), &METHOD_LIST)
    }
}
