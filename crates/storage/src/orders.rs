//! Orders: a shop's orders and their lines. The account and seller are kept on the row so
//! that every tenancy filter is one indexed comparison; codes come from a per-shop counter
//! bumped in the writing transaction; lines snapshot what they sell and refer to the
//! catalog by id only.

use domain::order::{Address, OrderStatus, Totals};
use domain::payment::MethodType;
use domain::{CalendarDate, Timestamp};

use crate::Tenant;
use crate::db::{Database, Exec, Tx};
use crate::error::Result;
use crate::json::{JsonText, to_text};
use crate::sql::{
    Arg, Filter, PagePlan, Params, Sort, Source, Window, bind_as, bind_scalar, deferred_page_sql,
    escape_like,
};
use crate::subscription_purchases::MaybeDate;
use crate::tenant_rows::{self, TenantTable};
use crate::write::{Columns, execute_bound, insert_rows};

/// The first code of a shop's orders.
pub const FIRST_CODE: i64 = 1001;

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Order {
    pub id: i64,
    pub account_id: i64,
    pub seller_id: i64,
    pub shop_id: i64,
    pub code: i64,
    #[sqlx(try_from = "String")]
    pub status: OrderStatus,
    pub currency_code: String,
    pub email: Option<String>,
    pub contact_name: Option<String>,
    pub phone_number: Option<String>,
    #[sqlx(try_from = "Option<String>")]
    pub shipping_address: JsonText<Option<Address>>,
    #[sqlx(try_from = "Option<String>")]
    pub billing_address: JsonText<Option<Address>>,
    pub note: String,
    pub net_total: i64,
    pub discount_total: i64,
    pub shipping_total: i64,
    pub tax_total: i64,
    pub total: i64,
    pub tracking_code: Option<String>,
    pub courier_name: Option<String>,
    pub tracking_url: Option<String>,
    pub app_id: Option<i64>,
    /// The customer the order is linked to; the contact fields above are the order's own
    /// copy, kept when the customer changes or goes.
    pub contact_id: Option<i64>,
    /// The payment method the buyer chose, by id only (it may be deleted since), with a
    /// copy of its type and name as they were then.
    pub payment_method_id: Option<i64>,
    pub payment_method_type: Option<String>,
    pub payment_method_name: Option<String>,
    /// Approved charges, and refunds given back or owed (`storage::payments` keeps them).
    pub paid_total: i64,
    pub refunded_total: i64,
    #[sqlx(flatten)]
    pub basis: PricingBasis,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
    pub placed_on: Option<Timestamp>,
    pub closed_on: Option<Timestamp>,
    pub shipped_on: Option<Timestamp>,
    pub cancelled_on: Option<Timestamp>,
    /// A renewal order: the subscription purchase it bills, and the cycle's date.
    pub subscription_purchase_id: Option<i64>,
    #[sqlx(try_from = "Option<String>")]
    pub renewal_on: MaybeDate,
}

macro_rules! columns {
    () => {
        "id, account_id, seller_id, shop_id, code, status, currency_code, email, contact_name, phone_number, \
         shipping_address, billing_address, note, net_total, discount_total, shipping_total, tax_total, total, \
         tracking_code, courier_name, tracking_url, app_id, contact_id, payment_method_id, payment_method_type, \
         payment_method_name, paid_total, refunded_total, shipping_table_id, shipping_description, \
         weight_in_grams, base_currency_code, exchange_rate, created_on, updated_on, placed_on, closed_on, \
         shipped_on, cancelled_on, subscription_purchase_id, renewal_on"
    };
}

/// Fields an order list may be sorted by; each is indexed with the account.
pub const SORT_FIELDS: &[&str] = &["id", "code", "total", "created_on", "updated_on"];

/// The contact, addresses and note of an order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OrderDetails {
    /// The customer linked, if any.
    pub contact_id: Option<i64>,
    pub email: Option<String>,
    pub contact_name: Option<String>,
    pub phone_number: Option<String>,
    pub shipping_address: Option<Address>,
    pub billing_address: Option<Address>,
    pub note: String,
    /// The payment method chosen, as it was when it was chosen.
    pub payment_method: Option<PaymentChoice>,
}

/// A payment method an order names: its id, and its type and name when it was chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaymentChoice {
    pub id: i64,
    pub method_type: MethodType,
    pub name: String,
}

/// What an order was priced with beyond its lines: the shipping table it ships by (its
/// name copied: the table may change or go), its parcel's weight, and, for an order in
/// another currency than its shop's, the shop's currency and the rate (millionths) its
/// prices were converted with.
#[derive(Clone, Debug, Default, PartialEq, Eq, sqlx::FromRow)]
pub struct PricingBasis {
    pub shipping_table_id: Option<i64>,
    pub shipping_description: Option<String>,
    pub weight_in_grams: i64,
    pub base_currency_code: Option<String>,
    pub exchange_rate: Option<i64>,
}

/// Tracking of a shipped order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tracking {
    pub tracking_code: Option<String>,
    pub courier_name: Option<String>,
    pub tracking_url: Option<String>,
}

impl Order {
    pub fn details(&self) -> OrderDetails {
        OrderDetails {
            contact_id: self.contact_id,
            email: self.email.clone(),
            contact_name: self.contact_name.clone(),
            phone_number: self.phone_number.clone(),
            shipping_address: self.shipping_address.0.clone(),
            billing_address: self.billing_address.0.clone(),
            note: self.note.clone(),
            payment_method: self.payment_method(),
        }
    }

    /// The payment method the order names, as it was when chosen.
    pub fn payment_method(&self) -> Option<PaymentChoice> {
        Some(PaymentChoice {
            id: self.payment_method_id?,
            method_type: self.payment_method_type.as_deref()?.parse().ok()?,
            name: self.payment_method_name.clone()?,
        })
    }

    pub fn set_details(&mut self, details: OrderDetails) {
        self.contact_id = details.contact_id;
        self.email = details.email;
        self.contact_name = details.contact_name;
        self.phone_number = details.phone_number;
        self.shipping_address = JsonText(details.shipping_address);
        self.billing_address = JsonText(details.billing_address);
        self.note = details.note;
        let choice = details.payment_method;
        self.payment_method_id = choice.as_ref().map(|c| c.id);
        self.payment_method_type = choice.as_ref().map(|c| c.method_type.as_str().to_owned());
        self.payment_method_name = choice.map(|c| c.name);
    }

    pub fn totals(&self) -> Totals {
        Totals {
            net_total: self.net_total,
            discount_total: self.discount_total,
            shipping_total: self.shipping_total,
            tax_total: self.tax_total,
            total: self.total,
        }
    }

    pub fn set_totals(&mut self, totals: Totals) {
        self.net_total = totals.net_total;
        self.discount_total = totals.discount_total;
        self.shipping_total = totals.shipping_total;
        self.tax_total = totals.tax_total;
        self.total = totals.total;
    }

    /// Sets what the order costs, in which currency, and what it was priced with.
    pub fn set_pricing(&mut self, currency_code: String, basis: PricingBasis, totals: Totals) {
        self.currency_code = currency_code;
        self.basis = basis;
        self.set_totals(totals);
    }

    /// Moves the order to `status`, noting when it first got there.
    pub fn enter(&mut self, status: OrderStatus, now: Timestamp) {
        self.status = status;
        let noted = match status {
            OrderStatus::Checkout => return,
            OrderStatus::Placed => &mut self.placed_on,
            OrderStatus::Closed => &mut self.closed_on,
            OrderStatus::Shipped => &mut self.shipped_on,
            OrderStatus::Cancelled => &mut self.cancelled_on,
        };
        noted.get_or_insert(now);
    }

    pub fn set_tracking(&mut self, tracking: Tracking) {
        self.tracking_code = tracking.tracking_code;
        self.courier_name = tracking.courier_name;
        self.tracking_url = tracking.tracking_url;
    }
}

/// One line of an order.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct OrderLine {
    pub id: i64,
    pub order_id: i64,
    pub position: i64,
    #[sqlx(flatten)]
    pub sold: LineData,
}

/// What a line is written with: what was sold, as it was then.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct LineData {
    pub product_id: i64,
    pub variant_id: Option<i64>,
    pub title: String,
    pub variant_title: String,
    pub sku: Option<String>,
    pub unit_price: i64,
    pub quantity: i64,
    /// The subscription fee the line was sold on, by id only (it may change or go).
    pub subscription_fee_id: Option<i64>,
    /// Charged once on a recurring line, beside unit price × quantity.
    pub setup_fee: i64,
    pub line_total: i64,
}

/// A new order of a shop.
pub struct NewOrder<'a> {
    pub account_id: i64,
    pub seller_id: i64,
    pub shop_id: i64,
    pub code: i64,
    pub currency_code: &'a str,
    pub details: &'a OrderDetails,
    pub basis: &'a PricingBasis,
    pub totals: Totals,
    pub app_id: Option<i64>,
    /// The cycle it bills, for a renewal order.
    pub renewal: Option<RenewalOf>,
}

/// The cycle of a subscription purchase that a renewal order bills: one order per
/// (purchase, cycle), the unique index `orders_renewal_key` refusing a second.
#[derive(Clone, Copy, Debug)]
pub struct RenewalOf {
    pub purchase_id: i64,
    pub on: CalendarDate,
}

#[derive(Clone, Debug, Default)]
pub struct OrderFilter {
    /// Words each matching the code, the contact's email or name, or a line's title or SKU.
    pub words: Option<Vec<String>>,
    pub statuses: Option<Vec<OrderStatus>>,
    pub shop_ids: Option<Vec<i64>>,
    pub codes: Option<Vec<i64>>,
    /// Orders linked to these customers.
    pub contact_ids: Option<Vec<i64>>,
    /// Orders naming a payment method of these types, or these methods.
    pub payment_method_types: Option<Vec<MethodType>>,
    pub payment_method_ids: Option<Vec<i64>>,
    /// Orders with a line of one of these products.
    pub product_ids: Option<Vec<i64>>,
    pub total: (Option<i64>, Option<i64>),
    pub net_total: (Option<i64>, Option<i64>),
    pub shipping_total: (Option<i64>, Option<i64>),
    pub discount_total: (Option<i64>, Option<i64>),
    pub created_on: crate::sql::TimeRange,
    pub updated_on: crate::sql::TimeRange,
}

/// The next code of the shop's orders (1001 first), reserved in the caller's transaction.
pub async fn next_code(tx: &mut Tx, shop_id: i64) -> Result<i64> {
    reserve_codes(tx, shop_id, 1).await
}

/// Reserves the shop's next `count` codes (at least one) in the caller's transaction:
/// the first of them.
pub async fn reserve_codes(tx: &mut Tx, shop_id: i64, count: i64) -> Result<i64> {
    let last: i64 = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_scalar(
            "INSERT INTO order_codes (shop_id, last_code) VALUES ($1, $2) \
             ON CONFLICT (shop_id) DO UPDATE SET last_code = order_codes.last_code + $3 RETURNING last_code",
        )
        .bind(shop_id)
        .bind(FIRST_CODE + count - 1)
        .bind(count)
        .fetch_one(c)
        .await
    })?;
    Ok(last - count + 1)
}

pub async fn insert(tx: &mut Tx, new: &NewOrder<'_>, now: Timestamp) -> Result<i64> {
    let columns = Columns::new()
        .set("account_id", new.account_id)
        .set("seller_id", new.seller_id)
        .set("shop_id", new.shop_id)
        .set("code", new.code)
        .set("status", OrderStatus::Checkout.as_str())
        .set("currency_code", new.currency_code);
    let columns = with_totals(with_details(columns, new.details), new.totals);
    with_basis(columns, new.basis)
        .set("app_id", new.app_id)
        .set(
            "subscription_purchase_id",
            new.renewal.map(|r| r.purchase_id),
        )
        .set("renewal_on", new.renewal.map(|r| r.on))
        .set("created_on", now)
        .set("updated_on", now)
        .insert_into("orders")
        .fetch_id(tx)
        .await
}

/// The columns of what the buyer tells.
fn with_details(columns: Columns, details: &OrderDetails) -> Columns {
    columns
        .set("contact_id", details.contact_id)
        .set("email", &details.email)
        .set("contact_name", &details.contact_name)
        .set("phone_number", &details.phone_number)
        .set(
            "shipping_address",
            details.shipping_address.as_ref().map(to_text),
        )
        .set(
            "billing_address",
            details.billing_address.as_ref().map(to_text),
        )
        .set("note", &details.note)
        .set(
            "payment_method_id",
            details.payment_method.as_ref().map(|c| c.id),
        )
        .set(
            "payment_method_type",
            details
                .payment_method
                .as_ref()
                .map(|c| c.method_type.as_str()),
        )
        .set(
            "payment_method_name",
            details.payment_method.as_ref().map(|c| c.name.as_str()),
        )
}

/// The columns of what the order was priced with.
fn with_basis(columns: Columns, basis: &PricingBasis) -> Columns {
    columns
        .set("shipping_table_id", basis.shipping_table_id)
        .set("shipping_description", &basis.shipping_description)
        .set("weight_in_grams", basis.weight_in_grams)
        .set("base_currency_code", &basis.base_currency_code)
        .set("exchange_rate", basis.exchange_rate)
}

/// The columns of the order's amounts.
fn with_totals(columns: Columns, totals: Totals) -> Columns {
    columns
        .set("net_total", totals.net_total)
        .set("discount_total", totals.discount_total)
        .set("shipping_total", totals.shipping_total)
        .set("tax_total", totals.tax_total)
        .set("total", totals.total)
}

/// Writes every changeable column of `order` (locked by the caller), with `updated_on`.
pub async fn save(tx: &mut Tx, order: &Order, now: Timestamp) -> Result<()> {
    let columns = Columns::new()
        .set("status", order.status.as_str())
        .set("currency_code", &order.currency_code);
    let columns = with_totals(with_details(columns, &order.details()), order.totals());
    with_basis(columns, &order.basis)
        .set("tracking_code", &order.tracking_code)
        .set("courier_name", &order.courier_name)
        .set("tracking_url", &order.tracking_url)
        .set("placed_on", order.placed_on)
        .set("closed_on", order.closed_on)
        .set("shipped_on", order.shipped_on)
        .set("cancelled_on", order.cancelled_on)
        .set("updated_on", now)
        .update("orders", order.id)
        .execute(tx)
        .await
}

/// Replaces the order's lines with `lines`, in this order.
pub async fn write_lines(tx: &mut Tx, order_id: i64, lines: &[LineData]) -> Result<()> {
    execute_bound(
        tx,
        "DELETE FROM order_lines WHERE order_id = $1".to_owned(),
        &[Arg::Int(order_id)],
    )
    .await?;
    insert_lines(tx, order_id, lines).await
}

/// Writes the lines of an order that has none yet (one just inserted), in this order.
pub async fn insert_lines(tx: &mut Tx, order_id: i64, lines: &[LineData]) -> Result<()> {
    let rows = lines.iter().zip(1_i64..).map(|(line, position)| {
        [
            Arg::Int(order_id),
            Arg::Int(position),
            Arg::Int(line.product_id),
            Arg::MaybeInt(line.variant_id),
            Arg::Text(line.title.clone()),
            Arg::Text(line.variant_title.clone()),
            Arg::MaybeText(line.sku.clone()),
            Arg::Int(line.unit_price),
            Arg::Int(line.quantity),
            Arg::MaybeInt(line.subscription_fee_id),
            Arg::Int(line.setup_fee),
            Arg::Int(line.line_total),
        ]
    });
    insert_rows(
        tx,
        "order_lines (order_id, position, product_id, variant_id, title, variant_title, sku, unit_price, \
         quantity, subscription_fee_id, setup_fee, line_total)",
        rows,
    )
    .await
}

/// Where orders are deleted (with their lines), with `tenant_rows::delete`.
pub const TABLE: TenantTable = TenantTable::new("orders");

pub async fn find<'a>(exec: impl Into<Exec<'a>>, tenant: Tenant, id: i64) -> Result<Option<Order>> {
    tenant_rows::find(exec, "orders", columns!(), tenant, id).await
}

/// Reads an order and holds it against concurrent writers until the transaction ends.
pub async fn find_for_update(tx: &mut Tx, tenant: Tenant, id: i64) -> Result<Option<Order>> {
    tenant_rows::find_for_update(tx, "orders", columns!(), tenant, id).await
}

/// The renewal order of `purchase_id` for the cycle `on`, if it was written.
pub async fn renewal_of(tx: &mut Tx, purchase_id: i64, on: CalendarDate) -> Result<Option<Order>> {
    let sql = concat!(
        "SELECT ",
        columns!(),
        " FROM orders WHERE subscription_purchase_id = $1 AND renewal_on = $2"
    );
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, Order>(sql)
            .bind(purchase_id)
            .bind(on.to_string())
            .fetch_optional(c)
            .await
    })
    .map_err(Into::into)
}

/// Whether the order has a line sold on a subscription fee.
pub async fn has_recurring_lines<'a>(exec: impl Into<Exec<'a>>, order_id: i64) -> Result<bool> {
    let sql = "SELECT EXISTS (SELECT 1 FROM order_lines WHERE order_id = $1 \
               AND subscription_fee_id IS NOT NULL)";
    with_conn!(exec.into(), |c| {
        sqlx::query_scalar::<_, bool>(sql)
            .bind(order_id)
            .fetch_one(c)
            .await
    })
    .map_err(Into::into)
}

/// Every line of these orders in one query, by order and position.
pub async fn lines_of<'a>(exec: impl Into<Exec<'a>>, order_ids: &[i64]) -> Result<Vec<OrderLine>> {
    if order_ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut f = Filter::new();
    f.any_of("order_id", order_ids.iter().copied().map(Arg::Int));
    let sql = format!(
        "SELECT id, order_id, position, product_id, variant_id, title, variant_title, sku, unit_price, quantity, \
         subscription_fee_id, setup_fee, line_total FROM order_lines{} ORDER BY order_id, position, id",
        f.where_sql()
    );
    Ok(fetch_all_bound!(exec.into(), OrderLine, sql, f.args())?)
}

/// Matches an order list reads first and sorts, rather than find its page by a walk in
/// the sort's order: sorting this many ids costs a few milliseconds.
const MATCHES_FIRST_UP_TO: u64 = 10_000;

/// A page of the tenant's orders under `filter`, and their total (two statements on one
/// connection: the count, then the page, found as the count says).
pub async fn list(
    db: &Database,
    tenant: Tenant,
    filter: &OrderFilter,
    sort: Sort,
    window: Window,
) -> Result<(Vec<Order>, u64)> {
    let mut f = Filter::new();
    f.eq("account_id", Arg::Int(tenant.account_id))
        .eq_opt("seller_id", tenant.seller_id.map(Arg::Int));
    if let Some(statuses) = &filter.statuses {
        f.any_of(
            "status",
            statuses.iter().map(|s| Arg::Text(s.as_str().to_owned())),
        );
    }
    if let Some(ids) = &filter.shop_ids {
        f.any_of("shop_id", ids.iter().copied().map(Arg::Int));
    }
    if let Some(codes) = &filter.codes {
        f.any_of("code", codes.iter().copied().map(Arg::Int));
    }
    if let Some(ids) = &filter.contact_ids {
        f.any_of("contact_id", ids.iter().copied().map(Arg::Int));
    }
    if let Some(types) = &filter.payment_method_types {
        f.any_of(
            "payment_method_type",
            types.iter().map(|t| Arg::Text(t.as_str().to_owned())),
        );
    }
    if let Some(ids) = &filter.payment_method_ids {
        f.any_of("payment_method_id", ids.iter().copied().map(Arg::Int));
    }
    if let Some(ids) = &filter.product_ids {
        f.condition(|p| {
            let ids = p.bind_all(ids.iter().copied().map(Arg::Int));
            format!(
                "EXISTS (SELECT 1 FROM order_lines l WHERE l.order_id = orders.id AND l.product_id IN ({ids}))"
            )
        });
    }
    for word in filter.words.iter().flatten() {
        f.condition(|p| matching_word(p, word));
    }
    f.range("total", filter.total.0, filter.total.1)
        .range("net_total", filter.net_total.0, filter.net_total.1)
        .range(
            "shipping_total",
            filter.shipping_total.0,
            filter.shipping_total.1,
        )
        .range(
            "discount_total",
            filter.discount_total.0,
            filter.discount_total.1,
        )
        .range("created_on", filter.created_on.0, filter.created_on.1)
        .range("updated_on", filter.updated_on.0, filter.updated_on.1);
    let count = format!("SELECT COUNT(*) FROM orders{}", f.where_sql());
    with_conn!(Exec::Db(db), |c| {
        let total: i64 = bind_scalar(sqlx::query_scalar(sqlx::AssertSqlSafe(count)), f.args())
            .fetch_one(&mut *c)
            .await?;
        let total = u64::try_from(total).unwrap_or(0);
        // The count tells how to find the page: matches known to be few are read first and
        // sorted, for a walk in the sort's order could pass over every other order of the
        // account to find them (a day early in a long history, walked from the newest
        // order); many are found by that walk, which soon fills the page.
        let plan = if total <= MATCHES_FIRST_UP_TO {
            PagePlan::MatchesFirst
        } else {
            PagePlan::Planned
        };
        let source = Source::table("orders");
        let page = deferred_page_sql(columns!(), "orders", source, &f, sort, window, plan);
        let rows = bind_as(
            sqlx::query_as::<_, Order>(sqlx::AssertSqlSafe(page)),
            f.args(),
        )
        .fetch_all(&mut *c)
        .await?;
        crate::query_count::note(1);
        Ok::<_, crate::Error>((rows, total))
    })
}

/// An order one word of `q` finds: its code (the word a number), or the word within its
/// contact's email or name, or within one of its lines' titles or SKUs.
fn matching_word(p: &mut Params, word: &str) -> String {
    let code = match word.parse::<i64>() {
        Ok(code) => format!("code = {} OR ", p.bind(Arg::Int(code))),
        Err(_) => String::new(),
    };
    let like = p.bind(Arg::Text(format!("%{}%", escape_like(word))));
    let contains = |column: &str| format!("LOWER({column}) LIKE {like} ESCAPE '\\'");
    format!(
        "({code}{} OR {} OR EXISTS (SELECT 1 FROM order_lines l WHERE l.order_id = orders.id \
         AND ({} OR {})))",
        contains("email"),
        contains("contact_name"),
        contains("l.title"),
        contains("l.sku"),
    )
}

/// A variant as an order line may sell it: with its product's title and currency, and
/// whether the product is available in the order's shop.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Sellable {
    pub variant_id: i64,
    pub product_id: i64,
    pub title: String,
    pub variant_title: String,
    pub sku: Option<String>,
    pub price: i64,
    pub price_comparison: Option<i64>,
    pub currency_code: String,
    pub weight_in_grams: Option<i64>,
    pub in_shop: bool,
}

/// The seller's variants among `variant_ids`, as lines of an order in `shop_id` would
/// sell them; one query.
pub async fn sellable<'a>(
    exec: impl Into<Exec<'a>>,
    seller_id: i64,
    shop_id: i64,
    variant_ids: &[i64],
) -> Result<Vec<Sellable>> {
    let mut p = Params::new();
    let shop = p.bind(Arg::Int(shop_id));
    let seller = p.bind(Arg::Int(seller_id));
    let ids = p.bind_all(variant_ids.iter().copied().map(Arg::Int));
    // Availability is a column, not a condition: a variant outside the shop is reported,
    // not silently left out.
    let sql = format!(
        "SELECT v.id AS variant_id, v.product_id, p.title, v.title AS variant_title, v.sku, v.price, \
         v.price_comparison, p.currency_code, v.weight_in_grams, CASE WHEN p.all_shops = TRUE OR EXISTS (SELECT 1 FROM \
         product_shops ps WHERE ps.product_id = p.id AND ps.shop_id = {shop}) THEN TRUE ELSE FALSE END AS in_shop \
         FROM variants v JOIN products p ON p.id = v.product_id WHERE v.seller_id = {seller} AND v.id IN ({ids}) \
         ORDER BY v.id"
    );
    Ok(fetch_all_bound!(exec.into(), Sellable, sql, p.args())?)
}
