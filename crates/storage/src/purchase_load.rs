//! Bulk loading of generated subscription purchases (seeds and benchmarks), in the way of
//! `order_load`: each purchase with the paid order that opened it (one recurring line),
//! that order's approved charge, which saved the card renewals charge, and the purchase
//! itself, in multi-row statements with ids and codes reserved up front. As a history
//! load, it takes no stock and records no events.

use domain::order::{Address, OrderStatus};
use domain::payment::{MethodType, PaymentKind, PaymentStatus};
use domain::subscription::billing::Billing;
use domain::{CalendarDate, Timestamp};

use crate::bulk::{self, insert_all, next_id};
use crate::db::{Database, Exec, Tx};
use crate::error::Result;
use crate::json::to_text;
use crate::order_load::SoldVariant;
use crate::orders::{self, LineData};
use crate::shops::Shop;
use crate::sql::Arg;
use crate::subscription_purchases::due_on;

/// The method the opening orders were paid with, and renewals are charged with.
pub struct PaidWith {
    pub id: i64,
    pub method_type: MethodType,
    pub name: String,
}

/// The shop's first enabled test gateway method, which approves the saved test cards.
pub async fn test_gateway_of_shop(db: &Database, shop_id: i64) -> Result<Option<PaidWith>> {
    let found: Option<(i64, String)> = with_conn!(Exec::Db(db), |c| {
        sqlx::query_as(
            "SELECT id, name FROM payment_methods WHERE shop_id = $1 AND method_type = $2 AND enabled \
             ORDER BY position, id LIMIT 1",
        )
        .bind(shop_id)
        .bind(MethodType::TestGateway.as_str())
        .fetch_optional(c)
        .await
    })?;
    Ok(found.map(|(id, name)| PaidWith {
        id,
        method_type: MethodType::TestGateway,
        name,
    }))
}

/// The product's variants, in their order.
pub async fn variants_of_product(db: &Database, product_id: i64) -> Result<Vec<SoldVariant>> {
    with_conn!(Exec::Db(db), |c| {
        sqlx::query_as::<_, SoldVariant>(
            "SELECT v.id AS variant_id, v.product_id, p.title, v.title AS variant_title, v.sku, v.price \
             FROM variants v JOIN products p ON p.id = v.product_id WHERE v.product_id = $1 \
             ORDER BY v.position, v.id",
        )
        .bind(product_id)
        .fetch_all(c)
        .await
    })
    .map_err(Into::into)
}

/// A purchase to load, with its opening order (closed when paid in full).
pub struct LoadPurchase {
    pub email: String,
    pub contact_name: String,
    /// Also the billing address.
    pub shipping_address: Address,
    pub created_on: Timestamp,
    pub placed_on: Timestamp,
    /// When the charge was approved, which closed the order and opened the purchase.
    pub paid_on: Timestamp,
    /// The recurring line (`subscription_fee_id` set); the order's only one.
    pub line: LineData,
    /// The approved charge's gateway reference, and the card it saved.
    pub reference: String,
    pub card_brand: String,
    pub card_last4: String,
    pub saved_card: String,
    /// The purchase's figures, as a paid order opens them.
    pub start_date: CalendarDate,
    pub billing: Billing,
}

/// Inserts the purchases into the shop, with their orders (the shop's next codes), lines
/// and charges; answers the first purchase id given.
pub async fn load(
    tx: &mut Tx,
    shop: &Shop,
    paid_with: &PaidWith,
    purchases: &[LoadPurchase],
) -> Result<i64> {
    bulk::lock(tx, "orders, order_lines, payments, subscription_purchases").await?;
    let first_order = next_id(tx, "orders").await?;
    let first_line = next_id(tx, "order_lines").await?;
    let first_payment = next_id(tx, "payments").await?;
    let first_purchase = next_id(tx, "subscription_purchases").await?;
    let count = i64::try_from(purchases.len()).unwrap_or(i64::MAX);
    let first_code = orders::reserve_codes(tx, shop.id, count.max(1)).await?;
    let mut order_rows = Vec::with_capacity(purchases.len());
    let mut line_rows = Vec::with_capacity(purchases.len());
    let mut payment_rows = Vec::with_capacity(purchases.len());
    let mut purchase_rows = Vec::with_capacity(purchases.len());
    for (n, purchase) in (0..).zip(purchases) {
        let (order_id, line_id) = (first_order + n, first_line + n);
        let line = &purchase.line;
        let total = line.line_total + line.setup_fee;
        let address = Arg::Text(to_text(&purchase.shipping_address));
        order_rows.push([
            Arg::Int(order_id),
            Arg::Int(shop.account_id),
            Arg::Int(shop.seller_id),
            Arg::Int(shop.id),
            Arg::Int(first_code + n),
            Arg::Text(OrderStatus::Closed.as_str().into()),
            Arg::Text(shop.currency_code.clone()),
            Arg::Text(purchase.email.clone()),
            Arg::Text(purchase.contact_name.clone()),
            address.clone(),
            address,
            Arg::Int(total),
            Arg::Int(total),
            Arg::Int(total),
            Arg::Int(paid_with.id),
            Arg::Text(paid_with.method_type.as_str().into()),
            Arg::Text(paid_with.name.clone()),
            Arg::from(purchase.created_on),
            Arg::from(purchase.paid_on),
            Arg::from(purchase.placed_on),
            Arg::from(purchase.paid_on),
        ]);
        line_rows.push([
            Arg::Int(line_id),
            Arg::Int(order_id),
            Arg::Int(1),
            Arg::Int(line.product_id),
            Arg::MaybeInt(line.variant_id),
            Arg::Text(line.title.clone()),
            Arg::Text(line.variant_title.clone()),
            Arg::MaybeText(line.sku.clone()),
            Arg::Int(line.unit_price),
            Arg::Int(line.quantity),
            Arg::Int(line.line_total),
            Arg::MaybeInt(line.subscription_fee_id),
            Arg::Int(line.setup_fee),
        ]);
        payment_rows.push([
            Arg::Int(first_payment + n),
            Arg::Int(shop.account_id),
            Arg::Int(shop.seller_id),
            Arg::Int(shop.id),
            Arg::Int(order_id),
            Arg::Int(paid_with.id),
            Arg::Text(paid_with.method_type.as_str().into()),
            Arg::Text(paid_with.name.clone()),
            Arg::Text(PaymentKind::Charge.as_str().into()),
            Arg::Int(total),
            Arg::Text(shop.currency_code.clone()),
            Arg::Text(PaymentStatus::Approved.as_str().into()),
            Arg::Text(purchase.reference.clone()),
            Arg::Text(purchase.card_brand.clone()),
            Arg::Text(purchase.card_last4.clone()),
            Arg::Text(purchase.saved_card.clone()),
            Arg::from(purchase.paid_on),
            Arg::from(purchase.paid_on),
        ]);
        purchase_rows.push(purchase_row(
            (first_purchase + n, order_id, line_id),
            shop,
            paid_with,
            purchase,
        ));
    }
    insert_all(
        tx,
        "orders (id, account_id, seller_id, shop_id, code, status, currency_code, email, contact_name, \
         shipping_address, billing_address, net_total, total, paid_total, payment_method_id, \
         payment_method_type, payment_method_name, created_on, updated_on, placed_on, closed_on)",
        &order_rows,
        "",
    )
    .await?;
    insert_all(
        tx,
        "order_lines (id, order_id, position, product_id, variant_id, title, variant_title, sku, unit_price, \
         quantity, line_total, subscription_fee_id, setup_fee)",
        &line_rows,
        "",
    )
    .await?;
    insert_all(
        tx,
        "payments (id, account_id, seller_id, shop_id, order_id, payment_method_id, method_type, \
         method_name, kind, amount, currency_code, status, reference, card_brand, card_last4, saved_card, \
         created_on, updated_on)",
        &payment_rows,
        "",
    )
    .await?;
    insert_all(
        tx,
        "subscription_purchases (id, account_id, seller_id, shop_id, original_order_id, original_line_id, \
         product_id, variant_id, product_name, subscription_fee_id, state, currency_code, units, \
         total_renewal_fee, payment_interval, payment_day, paid_setup_fee, start_date, last_payment_on, \
         next_payment_on, total_payments, remaining_payments, payments_to_skip, prorated_days, prorated_of, \
         payment_method_id, saved_card, due_on, created_on, updated_on)",
        &purchase_rows,
        "",
    )
    .await?;
    bulk::advance_sequences(
        tx,
        &[
            "orders",
            "order_lines",
            "payments",
            "subscription_purchases",
        ],
    )
    .await?;
    Ok(first_purchase)
}

/// The purchase's row as `subscription_purchases::insert` writes it when its order is paid.
fn purchase_row(
    (id, order_id, line_id): (i64, i64, i64),
    shop: &Shop,
    paid_with: &PaidWith,
    purchase: &LoadPurchase,
) -> [Arg; 30] {
    let (line, b) = (&purchase.line, &purchase.billing);
    [
        Arg::Int(id),
        Arg::Int(shop.account_id),
        Arg::Int(shop.seller_id),
        Arg::Int(shop.id),
        Arg::Int(order_id),
        Arg::Int(line_id),
        Arg::Int(line.product_id),
        Arg::MaybeInt(line.variant_id),
        Arg::Text(line.title.clone()),
        Arg::MaybeInt(line.subscription_fee_id),
        Arg::Text(b.state.as_str().into()),
        Arg::Text(shop.currency_code.clone()),
        Arg::Int(line.quantity),
        Arg::Int(b.total_renewal_fee),
        Arg::Text(b.interval.as_str().into()),
        Arg::Int(i64::from(b.payment_day)),
        Arg::Bool(line.setup_fee > 0),
        Arg::from(purchase.start_date),
        Arg::from(b.last_payment_on),
        Arg::from(b.next_payment_on),
        Arg::Int(b.total_payments),
        Arg::Int(b.remaining_payments),
        Arg::Int(b.payments_to_skip),
        Arg::MaybeInt(b.prorated.map(|p| p.0)),
        Arg::MaybeInt(b.prorated.map(|p| p.1)),
        Arg::Int(paid_with.id),
        Arg::Text(purchase.saved_card.clone()),
        Arg::from(due_on(b, None)),
        Arg::from(purchase.paid_on),
        Arg::from(purchase.paid_on),
    ]
}

/// Refreshes the planner's statistics after a bulk load of purchases.
pub async fn refresh_statistics(db: &Database) -> Result<()> {
    bulk::refresh_statistics(
        db,
        &[
            "orders",
            "order_lines",
            "payments",
            "subscription_purchases",
        ],
    )
    .await
}
