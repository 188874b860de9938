//! Bulk loading of generated order histories (seeds and benchmarks): many orders of one
//! shop with their lines in multi-row statements, ids and codes reserved up front, in the
//! way of `catalog_load`. The orders are history: loading them takes no stock, links no
//! customer, takes no payment and records no events.

use domain::Timestamp;
use domain::order::{Address, OrderStatus};

use crate::bulk::{self, insert_all, next_id};
use crate::db::{Database, Exec, Tx};
use crate::error::Result;
use crate::json::to_text;
use crate::orders::{self, LineData};
use crate::shops::Shop;
use crate::sql::Arg;

/// An order to load; its amounts are its lines' (`net_total`) and its shipping.
pub struct LoadOrder {
    pub status: OrderStatus,
    pub email: Option<String>,
    pub contact_name: Option<String>,
    pub phone_number: Option<String>,
    /// Also its billing address.
    pub shipping_address: Option<Address>,
    pub shipping_total: i64,
    pub created_on: Timestamp,
    /// When it got to each status its own implies; the latest is its `updated_on`.
    pub placed_on: Option<Timestamp>,
    pub closed_on: Option<Timestamp>,
    pub shipped_on: Option<Timestamp>,
    pub cancelled_on: Option<Timestamp>,
    /// At least one.
    pub lines: Vec<LineData>,
}

/// A variant of the catalog as a loaded order's line may sell it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct SoldVariant {
    pub variant_id: i64,
    pub product_id: i64,
    pub title: String,
    pub variant_title: String,
    pub sku: Option<String>,
    pub price: i64,
}

/// Up to `limit` of the seller's variants, the first by id: what loaded lines sell.
pub async fn variants_to_sell(
    db: &Database,
    seller_id: i64,
    limit: i64,
) -> Result<Vec<SoldVariant>> {
    with_conn!(Exec::Db(db), |c| {
        sqlx::query_as::<_, SoldVariant>(
            "SELECT v.id AS variant_id, v.product_id, p.title, v.title AS variant_title, v.sku, v.price \
             FROM variants v JOIN products p ON p.id = v.product_id WHERE v.seller_id = $1 \
             ORDER BY v.id LIMIT $2",
        )
        .bind(seller_id)
        .bind(limit)
        .fetch_all(c)
        .await
    })
    .map_err(Into::into)
}

/// How many orders the shop has.
pub async fn orders_of_shop(db: &Database, shop_id: i64) -> Result<i64> {
    with_conn!(Exec::Db(db), |c| {
        sqlx::query_scalar("SELECT COUNT(*) FROM orders WHERE shop_id = $1")
            .bind(shop_id)
            .fetch_one(c)
            .await
    })
    .map_err(Into::into)
}

/// Inserts `orders` into the shop, with the shop's next codes; answers the first id given.
pub async fn load(tx: &mut Tx, shop: &Shop, orders: &[LoadOrder]) -> Result<i64> {
    bulk::lock(tx, "orders, order_lines").await?;
    let first_order = next_id(tx, "orders").await?;
    let count = i64::try_from(orders.len()).unwrap_or(i64::MAX);
    let first_code = orders::reserve_codes(tx, shop.id, count.max(1)).await?;
    let mut order_rows = Vec::with_capacity(orders.len());
    let mut line_rows = Vec::new();
    for ((id, code), order) in (first_order..).zip(first_code..).zip(orders) {
        let net_total: i64 = order.lines.iter().map(|l| l.line_total).sum();
        let updated_on = [
            order.placed_on,
            order.closed_on,
            order.shipped_on,
            order.cancelled_on,
        ]
        .into_iter()
        .flatten()
        .fold(order.created_on, Timestamp::max);
        let address = order.shipping_address.as_ref().map(to_text);
        order_rows.push([
            Arg::Int(id),
            Arg::Int(shop.account_id),
            Arg::Int(shop.seller_id),
            Arg::Int(shop.id),
            Arg::Int(code),
            Arg::Text(order.status.as_str().into()),
            Arg::Text(shop.currency_code.clone()),
            Arg::MaybeText(order.email.clone()),
            Arg::MaybeText(order.contact_name.clone()),
            Arg::MaybeText(order.phone_number.clone()),
            Arg::MaybeText(address.clone()),
            Arg::MaybeText(address),
            Arg::Int(net_total),
            Arg::Int(order.shipping_total),
            Arg::Int(net_total + order.shipping_total),
            Arg::from(order.created_on),
            Arg::from(updated_on),
            Arg::from(order.placed_on),
            Arg::from(order.closed_on),
            Arg::from(order.shipped_on),
            Arg::from(order.cancelled_on),
        ]);
        for (position, line) in (1..).zip(&order.lines) {
            line_rows.push([
                Arg::Int(id),
                Arg::Int(position),
                Arg::Int(line.product_id),
                Arg::MaybeInt(line.variant_id),
                Arg::Text(line.title.clone()),
                Arg::Text(line.variant_title.clone()),
                Arg::MaybeText(line.sku.clone()),
                Arg::Int(line.unit_price),
                Arg::Int(line.quantity),
                Arg::Int(line.line_total),
            ]);
        }
    }
    insert_all(
        tx,
        "orders (id, account_id, seller_id, shop_id, code, status, currency_code, email, contact_name, \
         phone_number, shipping_address, billing_address, net_total, shipping_total, total, created_on, \
         updated_on, placed_on, closed_on, shipped_on, cancelled_on)",
        &order_rows,
        "",
    )
    .await?;
    insert_all(
        tx,
        "order_lines (order_id, position, product_id, variant_id, title, variant_title, sku, unit_price, \
         quantity, line_total)",
        &line_rows,
        "",
    )
    .await?;
    bulk::advance_sequences(tx, &["orders"]).await?;
    Ok(first_order)
}

/// Refreshes the planner's statistics after a bulk load of orders.
pub async fn refresh_statistics(db: &Database) -> Result<()> {
    bulk::refresh_statistics(db, &["orders", "order_lines"]).await
}
