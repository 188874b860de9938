//! An order's payments as the toolkit gathers them: paths (nested in their order), routes
//! and URL builders. The order links to them.

use domain::Scope;
use services::payments::input::NewPayment;

use super::PAYMENT_LIST;
use crate::area::{Area, Path, Routes};
use crate::kernel::state::ApiConfig;
use crate::kernel::urls::Urls;
use crate::openapi::{Answer, Op};
use crate::rels;

pub const PAYMENTS: Path = Path::new("/orders/{id}/payments");
pub const PAYMENT: Path = Path::new("/orders/{id}/payments/{payment_id}");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[],
};

fn routes(routes: &mut Routes, _: &ApiConfig) {
    type Fields = super::PaymentFields<'static>;
    routes
        .get(
            PAYMENTS,
            super::list,
            Op::new("List an order's payments", Answer::list::<Fields>())
                .scope(Scope::OrdersRead)
                .list(&PAYMENT_LIST)
                .rel(&rels::ORDERS_PAYMENTS),
        )
        .post(
            PAYMENTS,
            super::create,
            Op::new(
                "Pay an order through its payment method",
                Answer::created::<Fields>(),
            )
            .scope(Scope::OrdersWrite)
            .json_body::<NewPayment>()
            .also(Answer::error_with::<Fields>(402, "payment"))
            .also(Answer::error_with::<Fields>(502, "payment"))
            .rel(&rels::ORDERS_CREATE_PAYMENT),
        )
        .get(
            PAYMENT,
            super::show,
            Op::new("Show a payment of an order", Answer::resource::<Fields>())
                .scope(Scope::OrdersRead)
                .rel(&rels::ORDERS_PAYMENT),
        );
}

impl Urls {
    pub fn order_payment(&self, order_id: i64, id: i64) -> String {
        self.at(PAYMENT, &[order_id, id])
    }

    /// Where an order is paid.
    pub fn order_new_payment(&self, order_id: i64) -> String {
        self.at(PAYMENTS, &[order_id])
    }

    /// The order's payments, as a list template.
    pub fn order_payments(&self, order_id: i64) -> String {
        self.list_template(&PAYMENTS.with(&[order_id]), &PAYMENT_LIST)
    }
}
