//! How an order looks to a client: its fields, its lines embedded, and the moves its status
//! and the token allow as links.

use domain::exchange::ExchangeRate;
use domain::order::{Address, OrderStatus, Transition};
use domain::{CalendarDate, Scope, ScopeSet, Timestamp};
use hal::{Link, RelDef, Resource};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use storage::orders::{Order, OrderLine};

use crate::kernel::present::Presenter;
use crate::kernel::urls::Urls;
use crate::rels;

#[derive(Serialize, JsonSchema)]
pub struct OrderFields<'a> {
    id: i64,
    shop_id: i64,
    seller_id: i64,
    code: String,
    status: OrderStatus,
    currency_code: &'a str,
    email: Option<&'a str>,
    contact_name: Option<&'a str>,
    phone_number: Option<&'a str>,
    shipping_address: Option<&'a Address>,
    billing_address: Option<&'a Address>,
    note: &'a str,
    net_total: i64,
    discount_total: i64,
    shipping_total: i64,
    tax_total: i64,
    total: i64,
    tracking_code: Option<&'a str>,
    courier_name: Option<&'a str>,
    tracking_url: Option<&'a str>,
    app_id: Option<i64>,
    /// The customer the order is linked to.
    contact_id: Option<i64>,
    /// The payment method chosen (by id: it may have been deleted since).
    payment_method_id: Option<i64>,
    /// The payment method's name and type when it was chosen (Bootic v1's payment_info).
    payment_info: Option<PaymentInfo<'a>>,
    /// Approved charges, in minor units.
    paid_total: i64,
    /// Refunds given back or owed by the merchant, in minor units.
    refunded_total: i64,
    /// What the buyer still owes: total less what was paid and kept (0 once cancelled).
    outstanding: i64,
    /// The shop's shipping table that priced the shipping (null: set by hand).
    shipping_table_id: Option<i64>,
    /// The shipping table's name when it priced the order.
    shipping_description: Option<&'a str>,
    /// The weight of the order's lines, which weight-priced shipping uses.
    weight_in_grams: i64,
    /// For an order in another currency than its shop's: the rate its prices were
    /// converted with (null for an order in the shop's currency).
    exchange_rate: Option<ExchangeRateUsed<'a>>,
    created_on: Timestamp,
    updated_on: Timestamp,
    placed_on: Option<Timestamp>,
    closed_on: Option<Timestamp>,
    shipped_on: Option<Timestamp>,
    cancelled_on: Option<Timestamp>,
    /// A renewal order: the subscription purchase it bills, and the cycle's date.
    subscription_purchase_id: Option<i64>,
    renewal_on: Option<CalendarDate>,
}

#[derive(Serialize, JsonSchema)]
struct PaymentInfo<'a> {
    name: &'a str,
    #[serde(rename = "type")]
    method_type: &'a str,
}

/// The rate an order was priced with: one unit of `from_currency` (its shop's) bought
/// `rate` units of `to_currency` (the order's).
#[derive(Serialize, JsonSchema)]
pub struct ExchangeRateUsed<'a> {
    from_currency: &'a str,
    to_currency: &'a str,
    /// A decimal string ("950.25").
    rate: String,
}

#[derive(Serialize)]
struct LineFields<'a> {
    id: i64,
    product_id: i64,
    variant_id: Option<i64>,
    title: &'a str,
    variant_title: &'a str,
    sku: Option<&'a str>,
    unit_price: i64,
    quantity: i64,
    /// The subscription fee a recurring line subscribes on.
    subscription_fee_id: Option<i64>,
    /// Charged once on a recurring line, in `line_total`.
    setup_fee: i64,
    line_total: i64,
}

/// The rel of each move.
fn rel_of(transition: Transition) -> &'static RelDef {
    match transition {
        Transition::Place => &rels::ORDERS_PLACE,
        Transition::Close => &rels::ORDERS_CLOSE,
        Transition::Ship => &rels::ORDERS_SHIP,
        Transition::Cancel => &rels::ORDERS_CANCEL,
    }
}

/// An order with its lines, and the links a holder of `viewer` may follow in its status.
pub fn order_resource(
    urls: &Urls,
    viewer: ScopeSet,
    order: &Order,
    lines: &[OrderLine],
) -> Resource {
    order_at(urls, viewer, order, lines, urls.order(order.id))
}

/// An order as its customer sees it from their own session: its fields and lines, at
/// its place among the customer's orders, with no link to what only the shop may do.
pub fn own_order_resource(urls: &Urls, order: &Order, lines: &[OrderLine]) -> Resource {
    order_at(
        urls,
        ScopeSet::EMPTY,
        order,
        lines,
        urls.own_order(order.id),
    )
    .rel(&rels::ACCOUNT_CUSTOMER, urls.own_profile())
}

/// An order with its lines, `self` at `href`, and the links a holder of `viewer` may
/// follow in its status.
fn order_at(
    urls: &Urls,
    viewer: ScopeSet,
    order: &Order,
    lines: &[OrderLine],
    href: String,
) -> Resource {
    let fields = OrderFields {
        id: order.id,
        shop_id: order.shop_id,
        seller_id: order.seller_id,
        code: order.code.to_string(),
        status: order.status,
        currency_code: &order.currency_code,
        email: order.email.as_deref(),
        contact_name: order.contact_name.as_deref(),
        phone_number: order.phone_number.as_deref(),
        shipping_address: order.shipping_address.0.as_ref(),
        billing_address: order.billing_address.0.as_ref(),
        note: &order.note,
        net_total: order.net_total,
        discount_total: order.discount_total,
        shipping_total: order.shipping_total,
        tax_total: order.tax_total,
        total: order.total,
        tracking_code: order.tracking_code.as_deref(),
        courier_name: order.courier_name.as_deref(),
        tracking_url: order.tracking_url.as_deref(),
        app_id: order.app_id,
        contact_id: order.contact_id,
        payment_method_id: order.payment_method_id,
        payment_info: order
            .payment_method_name
            .as_deref()
            .zip(order.payment_method_type.as_deref())
            .map(|(name, method_type)| PaymentInfo { name, method_type }),
        paid_total: order.paid_total,
        refunded_total: order.refunded_total,
        outstanding: services::payments::balance_of(order).outstanding(),
        shipping_table_id: order.basis.shipping_table_id,
        shipping_description: order.basis.shipping_description.as_deref(),
        weight_in_grams: order.basis.weight_in_grams,
        exchange_rate: exchange_rate_used(order),
        created_on: order.created_on,
        updated_on: order.updated_on,
        placed_on: order.placed_on,
        closed_on: order.closed_on,
        shipped_on: order.shipped_on,
        cancelled_on: order.cancelled_on,
        subscription_purchase_id: order.subscription_purchase_id,
        renewal_on: order.renewal_on.0,
    };
    let id = order.id;
    let write = viewer.contains(Scope::OrdersWrite);
    let mut resource = Resource::new(["order"])
        .with_properties(&fields)
        .link("self", Link::get(href))
        .rel_if(write, &rels::ORDERS_UPDATE, || urls.order(id))
        .rel_if(
            write && order.status.is_editable(),
            &rels::ORDERS_DELETE,
            || urls.order(id),
        );
    if let Some(purchase) = order
        .subscription_purchase_id
        .filter(|_| viewer.contains(Scope::OrdersRead))
    {
        resource = resource.rel(
            &rels::SUBSCRIPTIONS_SUBSCRIPTION_PURCHASE,
            urls.subscription_purchase(purchase),
        );
    }
    let tracked = matches!(order.status, OrderStatus::Closed | OrderStatus::Shipped);
    resource = resource.rel_if(write && tracked, &rels::ORDERS_TRACKING, || {
        urls.order_tracking(id)
    });
    for transition in order.status.transitions() {
        resource = resource.rel_if(write, rel_of(transition), || {
            urls.order_move(id, transition)
        });
    }
    let documented = matches!(
        order.status,
        OrderStatus::Placed | OrderStatus::Closed | OrderStatus::Shipped
    );
    resource = resource
        .rel_if(
            viewer.contains(Scope::OrdersRead),
            &rels::ORDERS_DOCUMENTS,
            || urls.order_documents_list(id),
        )
        .rel_if(write && documented, &rels::ORDERS_CREATE_DOCUMENT, || {
            urls.order_documents(id)
        });
    let payable = matches!(
        order.status,
        OrderStatus::Placed | OrderStatus::Closed | OrderStatus::Shipped
    ) && fields_outstanding(order) > 0
        && order.payment_method_id.is_some();
    resource = resource
        .rel_if(
            viewer.contains(Scope::OrdersRead),
            &rels::ORDERS_PAYMENTS,
            || urls.order_payments(id),
        )
        .rel_if(write && payable, &rels::ORDERS_CREATE_PAYMENT, || {
            urls.order_new_payment(id)
        });
    resource
        .rel_if(viewer.contains(Scope::ShopsRead), &rels::SHOPS_SHOP, || {
            urls.shop(order.shop_id)
        })
        .rel_opt(
            order
                .contact_id
                .filter(|_| viewer.contains(Scope::CustomersRead)),
            &rels::CUSTOMERS_CUSTOMER,
            |contact| urls.customer(contact),
        )
        .embed_all("lines", lines.iter().map(line_resource))
}

fn fields_outstanding(order: &Order) -> i64 {
    services::payments::balance_of(order).outstanding()
}

fn exchange_rate_used(order: &Order) -> Option<ExchangeRateUsed<'_>> {
    let basis = &order.basis;
    let rate = basis
        .exchange_rate
        .and_then(ExchangeRate::from_millionths)?;
    Some(ExchangeRateUsed {
        from_currency: basis.base_currency_code.as_deref()?,
        to_currency: &order.currency_code,
        rate: rate.to_string(),
    })
}

fn line_resource(line: &OrderLine) -> Resource {
    Resource::new(["order_line"]).with_properties(&LineFields {
        id: line.id,
        product_id: line.sold.product_id,
        variant_id: line.sold.variant_id,
        title: &line.sold.title,
        variant_title: &line.sold.variant_title,
        sku: line.sold.sku.as_deref(),
        unit_price: line.sold.unit_price,
        quantity: line.sold.quantity,
        subscription_fee_id: line.sold.subscription_fee_id,
        setup_fee: line.sold.setup_fee,
        line_total: line.sold.line_total,
    })
}

impl services::orders::Present for Presenter {
    fn order(&self, viewer: ScopeSet, order: &Order, lines: &[OrderLine]) -> Value {
        order_resource(&self.urls, viewer, order, lines).into_value(self.urls.curies())
    }
}
