//! How a subscription purchase looks to a client.

use domain::subscription::PaymentInterval;
use domain::subscription::purchase::{PausedBy, PurchaseState};
use domain::{CalendarDate, Scope, ScopeSet, Timestamp};
use hal::{Link, Resource};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use storage::subscription_purchases::SubscriptionPurchase;

use crate::kernel::present::Presenter;
use crate::kernel::urls::Urls;
use crate::rels;

#[derive(Serialize, JsonSchema)]
pub struct SubscriptionPurchaseFields {
    id: i64,
    shop_id: i64,
    contact_id: Option<i64>,
    original_order_id: Option<i64>,
    product_id: i64,
    variant_id: Option<i64>,
    product_name: String,
    subscription_fee_id: Option<i64>,
    state: PurchaseState,
    paused_by: Option<PausedBy>,
    /// When it was last paused.
    last_pause_at: Option<Timestamp>,
    currency_code: String,
    units: i64,
    /// Minor units a cycle charges.
    total_renewal_fee: i64,
    payment_interval: PaymentInterval,
    payment_day: i64,
    paid_setup_fee: bool,
    start_date: CalendarDate,
    last_payment_on: Option<CalendarDate>,
    next_payment_on: CalendarDate,
    end_date: Option<CalendarDate>,
    cancel_at: Option<CalendarDate>,
    total_payments: i64,
    /// Renewals still to charge; 0 on an active purchase is unlimited.
    remaining_payments: i64,
    failed_attempts: i64,
    /// When a failed renewal is tried again.
    retry_on: Option<CalendarDate>,
    payments_to_skip: i64,
    /// A percentage, to two decimals.
    renewal_discount: f64,
    discount_num_charges: i64,
    created_on: Timestamp,
    updated_on: Timestamp,
}

pub fn subscription_purchase_resource(
    urls: &Urls,
    viewer: ScopeSet,
    p: &SubscriptionPurchase,
) -> Resource {
    let fields = SubscriptionPurchaseFields {
        id: p.id,
        shop_id: p.shop_id,
        contact_id: p.contact_id,
        original_order_id: p.original_order_id,
        product_id: p.product_id,
        variant_id: p.variant_id,
        product_name: p.product_name.clone(),
        subscription_fee_id: p.subscription_fee_id,
        state: p.state,
        paused_by: p.paused_by.0,
        last_pause_at: p.last_pause_at,
        currency_code: p.currency_code.clone(),
        units: p.units,
        total_renewal_fee: p.total_renewal_fee,
        payment_interval: p.payment_interval,
        payment_day: p.payment_day,
        paid_setup_fee: p.paid_setup_fee,
        start_date: p.start_date,
        last_payment_on: p.last_payment_on.0,
        next_payment_on: p.next_payment_on,
        end_date: p.end_date.0,
        cancel_at: p.cancel_at.0,
        total_payments: p.total_payments,
        remaining_payments: p.remaining_payments,
        failed_attempts: p.failed_attempts,
        retry_on: p.retry_on.0,
        payments_to_skip: p.payments_to_skip,
        renewal_discount: hundredths(p.renewal_discount),
        discount_num_charges: p.discount_num_charges,
        created_on: p.created_on,
        updated_on: p.updated_on,
    };
    let href = urls.subscription_purchase(p.id);
    let write = viewer.contains(Scope::OrdersWrite);
    let mut resource = Resource::new(["subscription_purchase"])
        .with_properties(&fields)
        .link("self", Link::get(href.clone()))
        .rel_if(
            write,
            &rels::SUBSCRIPTIONS_UPDATE_SUBSCRIPTION_PURCHASE,
            || href.clone(),
        )
        .rel(&rels::SHOPS_SHOP, urls.shop(p.shop_id))
        .rel(&rels::PRODUCTS_PRODUCT, urls.product(p.product_id));
    if let Some(order_id) = p.original_order_id {
        resource = resource.rel(&rels::ORDERS_ORDER, urls.order(order_id));
    }
    if let Some(contact_id) = p.contact_id {
        resource = resource.rel(&rels::CUSTOMERS_CUSTOMER, urls.customer(contact_id));
    }
    if let Some(variant_id) = p.variant_id {
        resource = resource.rel(
            &rels::VARIANTS_VARIANT,
            urls.variant(p.product_id, variant_id),
        );
    }
    if let Some(fee_id) = p.subscription_fee_id {
        resource = resource.rel(
            &rels::SUBSCRIPTIONS_SUBSCRIPTION_FEE,
            urls.subscription_fee(fee_id),
        );
    }
    resource
}

/// Hundredths of a percent as the percentage (1250 is 12.5).
fn hundredths(value: i64) -> f64 {
    // Within 0–10,000: exact in an f64.
    value as f64 / 100.0
}

impl services::subscription_purchases::Present for Presenter {
    fn subscription_purchase(&self, viewer: ScopeSet, purchase: &SubscriptionPurchase) -> Value {
        subscription_purchase_resource(&self.urls, viewer, purchase).into_value(self.urls.curies())
    }
}
