//! How a payment attempt looks to a client: what was tried, through which method, with
//! what outcome; of a card only its brand and last four digits.

use domain::payment::{MethodType, PaymentKind, PaymentStatus};
use domain::{ScopeSet, Timestamp};
use hal::{Link, Resource};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use storage::payments::Payment;

use crate::kernel::present::Presenter;
use crate::kernel::urls::Urls;
use crate::rels;

#[derive(Serialize, JsonSchema)]
pub struct PaymentFields<'a> {
    id: i64,
    order_id: i64,
    /// The method, by id: it may have been deleted since.
    payment_method_id: Option<i64>,
    /// The method's type and name when the payment was made.
    method: MethodFields<'a>,
    kind: PaymentKind,
    /// The charge a refund returns.
    charge_id: Option<i64>,
    amount: i64,
    currency_code: &'a str,
    status: PaymentStatus,
    reference: Option<&'a str>,
    card: Option<CardFields<'a>>,
    /// Why a charge was declined or failed: a stable code, and the gateway's words.
    failure_code: Option<&'a str>,
    failure_message: Option<&'a str>,
    created_on: Timestamp,
    updated_on: Timestamp,
}

#[derive(Serialize, JsonSchema)]
struct MethodFields<'a> {
    #[serde(rename = "type")]
    method_type: MethodType,
    name: &'a str,
}

#[derive(Serialize, JsonSchema)]
struct CardFields<'a> {
    brand: &'a str,
    last4: &'a str,
}

/// A payment with its links.
pub fn payment_resource(urls: &Urls, _viewer: ScopeSet, payment: &Payment) -> Resource {
    let card = payment
        .card_brand
        .as_deref()
        .zip(payment.card_last4.as_deref())
        .map(|(brand, last4)| CardFields { brand, last4 });
    let fields = PaymentFields {
        id: payment.id,
        order_id: payment.order_id,
        payment_method_id: payment.payment_method_id,
        method: MethodFields {
            method_type: payment.method_type,
            name: &payment.method_name,
        },
        kind: payment.kind,
        charge_id: payment.charge_id,
        amount: payment.amount,
        currency_code: &payment.currency_code,
        status: payment.status,
        reference: payment.reference.as_deref(),
        card,
        failure_code: payment.failure_code.as_deref(),
        failure_message: payment.failure_message.as_deref(),
        created_on: payment.created_on,
        updated_on: payment.updated_on,
    };
    Resource::new(["payment"])
        .with_properties(&fields)
        .link(
            "self",
            Link::get(urls.order_payment(payment.order_id, payment.id)),
        )
        .rel(&rels::ORDERS_ORDER, urls.order(payment.order_id))
}

impl services::payments::Present for Presenter {
    fn payment(&self, viewer: ScopeSet, payment: &Payment) -> Value {
        payment_resource(&self.urls, viewer, payment).into_value(self.urls.curies())
    }
}
