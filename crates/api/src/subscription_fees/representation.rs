//! How a subscription fee looks to a client.

use domain::subscription::{FirstRenewal, PaymentInterval};
use domain::{Scope, ScopeSet, Timestamp};
use hal::{Link, Resource};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use storage::subscription_fees::PricedFee;

use crate::kernel::present::Presenter;
use crate::kernel::urls::Urls;
use crate::rels;

#[derive(Serialize, JsonSchema)]
pub struct SubscriptionFeeFields {
    id: i64,
    seller_id: i64,
    product_id: i64,
    variant_id: i64,
    payment_interval: PaymentInterval,
    renewal_fee: i64,
    /// What one unit renews for now, in minor units (follows the variant's price when
    /// `by_percentage`).
    renewal_fee_price: i64,
    setup_fee: i64,
    number_of_payments: i64,
    payment_day: Option<i64>,
    by_percentage: bool,
    allow_non_recurring_payment: bool,
    min_days_for_cancellation: i64,
    allow_changing_day: bool,
    extend_on_reenable: bool,
    on_first_renewal: FirstRenewal,
    created_on: Timestamp,
    updated_on: Timestamp,
}

pub fn subscription_fee_resource(urls: &Urls, viewer: ScopeSet, priced: &PricedFee) -> Resource {
    let fee = &priced.fee;
    let fields = SubscriptionFeeFields {
        id: fee.id,
        seller_id: fee.seller_id,
        product_id: fee.product_id,
        variant_id: fee.variant_id,
        payment_interval: fee.payment_interval,
        renewal_fee: fee.renewal_fee,
        renewal_fee_price: priced.renewal_fee_price(),
        setup_fee: fee.setup_fee,
        number_of_payments: fee.number_of_payments,
        payment_day: fee.payment_day,
        by_percentage: fee.by_percentage,
        allow_non_recurring_payment: fee.allow_non_recurring_payment,
        min_days_for_cancellation: fee.min_days_for_cancellation,
        allow_changing_day: fee.allow_changing_day,
        extend_on_reenable: fee.extend_on_reenable,
        on_first_renewal: fee.on_first_renewal,
        created_on: fee.created_on,
        updated_on: fee.updated_on,
    };
    let href = urls.subscription_fee(fee.id);
    let write = viewer.contains(Scope::ProductsWrite);
    Resource::new(["subscription_fee"])
        .with_properties(&fields)
        .link("self", Link::get(href.clone()))
        .rel_if(write, &rels::SUBSCRIPTIONS_UPDATE_SUBSCRIPTION_FEE, || {
            href.clone()
        })
        .rel_if(write, &rels::SUBSCRIPTIONS_DELETE_SUBSCRIPTION_FEE, || {
            href.clone()
        })
        .rel(&rels::PRODUCTS_PRODUCT, urls.product(fee.product_id))
        .rel(
            &rels::VARIANTS_VARIANT,
            urls.variant(fee.product_id, fee.variant_id),
        )
}

impl services::subscription_fees::Present for Presenter {
    fn subscription_fee(&self, viewer: ScopeSet, fee: &PricedFee) -> Value {
        subscription_fee_resource(&self.urls, viewer, fee).into_value(self.urls.curies())
    }
}
