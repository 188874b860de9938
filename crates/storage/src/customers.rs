//! Customers: a seller's contacts, with their addresses, their tags (indexed for filters)
//! and what they spent per currency. Emails are unique per seller whatever their case;
//! `orders_count`, `total_spent` and the spending rows are kept by every move of the
//! customer's orders (`record_order_move`), under the customer's row lock.

use domain::Timestamp;
use domain::catalog::product::tag_key;
use domain::customer::CustomerStatus;
use domain::order::Address;

use crate::Tenant;
use crate::db::{Database, Exec, Tx};
use crate::error::Result;
use crate::json::{JsonText, to_text};
use crate::sql::{Arg, Filter, Sort, Window, list_sql};
use crate::tenant_rows::{self, TenantTable};
use crate::write::{Columns, insert_rows};

#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct Customer {
    pub id: i64,
    pub account_id: i64,
    pub seller_id: i64,
    pub name: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub email: Option<String>,
    pub phone_number: Option<String>,
    pub company: Option<String>,
    pub opt_in: bool,
    #[sqlx(try_from = "String")]
    pub status: CustomerStatus,
    #[sqlx(try_from = "String")]
    pub tags: JsonText<Vec<String>>,
    pub note: String,
    pub default_shipping_address_id: Option<i64>,
    pub default_billing_address_id: Option<i64>,
    pub orders_count: i64,
    /// The seller's default currency at the customer's creation: `total_spent`'s.
    pub currency_code: String,
    pub total_spent: i64,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
}

macro_rules! columns {
    () => {
        "id, account_id, seller_id, name, first_name, last_name, email, phone_number, company, opt_in, \
         status, tags, note, default_shipping_address_id, default_billing_address_id, orders_count, \
         currency_code, total_spent, created_on, updated_on"
    };
}

macro_rules! address_columns {
    () => {
        "id, customer_id, name, company, street, street_2, locality, region, postal_code, country_code, \
         phone_number, created_on, updated_on"
    };
}

/// What a client writes of a customer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CustomerData {
    pub name: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub email: Option<String>,
    pub phone_number: Option<String>,
    pub company: Option<String>,
    pub opt_in: bool,
    pub status: Option<CustomerStatus>,
    pub tags: Vec<String>,
    pub note: String,
    pub default_shipping_address_id: Option<i64>,
    pub default_billing_address_id: Option<i64>,
}

impl Customer {
    pub fn data(&self) -> CustomerData {
        CustomerData {
            name: self.name.clone(),
            first_name: self.first_name.clone(),
            last_name: self.last_name.clone(),
            email: self.email.clone(),
            phone_number: self.phone_number.clone(),
            company: self.company.clone(),
            opt_in: self.opt_in,
            status: Some(self.status),
            tags: self.tags.0.clone(),
            note: self.note.clone(),
            default_shipping_address_id: self.default_shipping_address_id,
            default_billing_address_id: self.default_billing_address_id,
        }
    }
}

/// One of a customer's addresses.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct CustomerAddress {
    pub id: i64,
    pub customer_id: i64,
    pub name: Option<String>,
    pub company: Option<String>,
    pub street: Option<String>,
    pub street_2: Option<String>,
    pub locality: Option<String>,
    pub region: Option<String>,
    pub postal_code: Option<String>,
    pub country_code: Option<String>,
    pub phone_number: Option<String>,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
}

impl CustomerAddress {
    pub fn address(&self) -> Address {
        Address {
            name: self.name.clone(),
            company: self.company.clone(),
            street: self.street.clone(),
            street_2: self.street_2.clone(),
            locality: self.locality.clone(),
            region: self.region.clone(),
            postal_code: self.postal_code.clone(),
            country_code: self.country_code.clone(),
            phone_number: self.phone_number.clone(),
        }
    }
}

/// What a customer spent in one currency (paid orders).
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Spending {
    pub customer_id: i64,
    pub currency_code: String,
    pub total: i64,
}

/// Fields a customer list may be sorted by (`name` and `email` without regard to case);
/// each is indexed with the account.
pub const SORT_FIELDS: &[&str] = &[
    "id",
    "name",
    "email",
    "created_on",
    "updated_on",
    "orders_count",
    "total_spent",
];

#[derive(Clone, Debug, Default)]
pub struct CustomerFilter {
    pub seller_ids: Option<Vec<i64>>,
    /// Part of the name, email, phone number or company, in any case.
    pub q: Option<String>,
    /// Exact emails, in any case.
    pub emails: Option<Vec<String>>,
    /// Any of these tags, in any case.
    pub tags: Option<Vec<String>>,
    pub status: Option<CustomerStatus>,
    pub created_on: crate::sql::TimeRange,
    pub updated_on: crate::sql::TimeRange,
}

/// Where its rows are deleted, with `tenant_rows::delete`.
pub const TABLE: TenantTable = TenantTable::new("customers");

/// The seller a new customer belongs to.
#[derive(Clone, Copy, Debug)]
pub struct Owner<'a> {
    pub account_id: i64,
    pub seller_id: i64,
    pub currency_code: &'a str,
}

pub async fn insert(
    tx: &mut Tx,
    owner: Owner<'_>,
    data: &CustomerData,
    now: Timestamp,
) -> Result<Customer> {
    let customer: Customer = written(data)
        .set("account_id", owner.account_id)
        .set("seller_id", owner.seller_id)
        .set("currency_code", owner.currency_code)
        .set("created_on", now)
        .set("updated_on", now)
        .insert_into("customers")
        .fetch_row(tx, columns!())
        .await?;
    write_tags(tx, &customer, &data.tags).await?;
    Ok(customer)
}

/// Writes `data` over a customer the caller has locked.
pub async fn update(
    tx: &mut Tx,
    before: &Customer,
    data: &CustomerData,
    now: Timestamp,
) -> Result<Customer> {
    let customer: Customer = written(data)
        .set("updated_on", now)
        .update("customers", before.id)
        .fetch_row(tx, columns!())
        .await?;
    if data.tags != before.tags.0 {
        with_conn!(Exec::Tx(tx), |c| {
            sqlx::query("DELETE FROM customer_tags WHERE customer_id = $1")
                .bind(before.id)
                .execute(c)
                .await
                .map(|_| ())
        })?;
        write_tags(tx, &customer, &data.tags).await?;
    }
    Ok(customer)
}

/// The columns `data` writes, on insert and update alike.
fn written(data: &CustomerData) -> Columns {
    let lower = |text: &Option<String>| text.as_deref().map(str::to_lowercase);
    Columns::new()
        .set("name", &data.name)
        .set("name_key", lower(&data.name))
        .set("first_name", &data.first_name)
        .set("last_name", &data.last_name)
        .set("email", &data.email)
        .set("email_key", lower(&data.email))
        .set("phone_number", &data.phone_number)
        .set("company", &data.company)
        .set("opt_in", data.opt_in)
        .set(
            "status",
            data.status.unwrap_or(CustomerStatus::Active).as_str(),
        )
        .set("tags", to_text(&data.tags))
        .set("note", &data.note)
        .set(
            "default_shipping_address_id",
            data.default_shipping_address_id,
        )
        .set(
            "default_billing_address_id",
            data.default_billing_address_id,
        )
}

async fn write_tags(tx: &mut Tx, customer: &Customer, tags: &[String]) -> Result<()> {
    let rows = tags.iter().map(|tag| {
        [
            Arg::Int(customer.id),
            Arg::Text(tag_key(tag)),
            Arg::Int(customer.account_id),
            Arg::Int(customer.seller_id),
        ]
    });
    insert_rows(
        tx,
        "customer_tags (customer_id, tag_key, account_id, seller_id)",
        rows,
    )
    .await
}

/// Marks the customer changed now (its addresses were written); answers it.
pub async fn touch(tx: &mut Tx, id: i64, now: Timestamp) -> Result<Customer> {
    Columns::new()
        .set("updated_on", now)
        .update("customers", id)
        .fetch_row(tx, columns!())
        .await
}

pub async fn find<'a>(
    exec: impl Into<Exec<'a>>,
    tenant: Tenant,
    id: i64,
) -> Result<Option<Customer>> {
    tenant_rows::find(exec, "customers", columns!(), tenant, id).await
}

/// Reads a customer and holds it against concurrent writers until the transaction ends
/// (`FOR NO KEY UPDATE`: see `locks` on why not `FOR UPDATE`).
pub async fn find_for_update(tx: &mut Tx, tenant: Tenant, id: i64) -> Result<Option<Customer>> {
    tenant_rows::find_locked(
        tx,
        "customers",
        columns!(),
        tenant,
        id,
        " FOR NO KEY UPDATE",
    )
    .await
}

/// The seller's customer with this email, in any case.
pub async fn find_by_email(tx: &mut Tx, seller_id: i64, email: &str) -> Result<Option<Customer>> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, Customer>(concat!(
            "SELECT ",
            columns!(),
            " FROM customers WHERE seller_id = $1 AND email_key = $2"
        ))
        .bind(seller_id)
        .bind(email.to_lowercase())
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}

pub async fn list(
    db: &Database,
    tenant: Tenant,
    filter: &CustomerFilter,
    sort: Sort,
    window: Window,
) -> Result<(Vec<Customer>, u64)> {
    let mut f = Filter::new();
    f.eq("account_id", Arg::Int(tenant.account_id))
        .eq_opt("seller_id", tenant.seller_id.map(Arg::Int));
    if let Some(ids) = &filter.seller_ids {
        f.any_of("seller_id", ids.iter().copied().map(Arg::Int));
    }
    if let Some(emails) = &filter.emails {
        f.any_of(
            "email_key",
            emails.iter().map(|e| Arg::Text(e.to_lowercase())),
        );
    }
    if let Some(tags) = &filter.tags {
        let account = tenant.account_id;
        f.condition(|p| {
            format!(
                "id IN (SELECT customer_id FROM customer_tags WHERE account_id = {} AND tag_key IN ({}))",
                p.bind(Arg::Int(account)),
                p.bind_all(tags.iter().map(|t| Arg::Text(tag_key(t))))
            )
        });
    }
    f.eq_opt(
        "status",
        filter.status.map(|s| Arg::Text(s.as_str().into())),
    );
    if let Some(q) = &filter.q {
        f.contains_text(&["name_key", "email_key", "phone_number", "company"], q);
    }
    f.range("created_on", filter.created_on.0, filter.created_on.1)
        .range("updated_on", filter.updated_on.0, filter.updated_on.1);
    let sort = match sort.column {
        "name" => Sort {
            column: "name_key",
            ..sort
        },
        "email" => Sort {
            column: "email_key",
            ..sort
        },
        _ => sort,
    };
    let sql = list_sql(columns!(), "customers", &f, sort, window);
    fetch_list!(Exec::Db(db), Customer, sql, f)
}

/// The addresses of these customers, in id order: one query for a page of them.
pub async fn addresses_of<'a>(
    exec: impl Into<Exec<'a>>,
    customer_ids: &[i64],
) -> Result<Vec<CustomerAddress>> {
    rows_of(
        exec.into(),
        concat!("SELECT ", address_columns!(), " FROM customer_addresses"),
        customer_ids,
        "id",
    )
    .await
}

/// What these customers spent, per currency in code order: one query for a page of them.
pub async fn spending_of<'a>(
    exec: impl Into<Exec<'a>>,
    customer_ids: &[i64],
) -> Result<Vec<Spending>> {
    rows_of(
        exec.into(),
        "SELECT customer_id, currency_code, total FROM customer_spending",
        customer_ids,
        "currency_code",
    )
    .await
}

/// `select`'s rows of these customers, by customer and then `then_by`.
async fn rows_of<R: crate::tenant_rows::Row>(
    exec: Exec<'_>,
    select: &'static str,
    customer_ids: &[i64],
    then_by: &'static str,
) -> Result<Vec<R>> {
    if customer_ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut f = Filter::new();
    f.any_of("customer_id", customer_ids.iter().copied().map(Arg::Int));
    let sql = format!("{select}{} ORDER BY customer_id, {then_by}", f.where_sql());
    Ok(fetch_all_bound!(exec, R, sql, f.args())?)
}

/// The customer's address with this id.
pub async fn find_address<'a>(
    exec: impl Into<Exec<'a>>,
    customer_id: i64,
    id: i64,
) -> Result<Option<CustomerAddress>> {
    with_conn!(exec.into(), |c| {
        sqlx::query_as::<_, CustomerAddress>(concat!(
            "SELECT ",
            address_columns!(),
            " FROM customer_addresses WHERE id = $1 AND customer_id = $2"
        ))
        .bind(id)
        .bind(customer_id)
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}

/// How many addresses the customer has.
pub async fn count_addresses(tx: &mut Tx, customer_id: i64) -> Result<i64> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_scalar::<_, i64>(
            "SELECT COUNT(*) FROM customer_addresses WHERE customer_id = $1",
        )
        .bind(customer_id)
        .fetch_one(c)
        .await
    })
    .map_err(Into::into)
}

pub async fn insert_address(
    tx: &mut Tx,
    customer: &Customer,
    address: &Address,
    now: Timestamp,
) -> Result<CustomerAddress> {
    address_columns(address)
        .set("customer_id", customer.id)
        .set("account_id", customer.account_id)
        .set("created_on", now)
        .set("updated_on", now)
        .insert_into("customer_addresses")
        .fetch_row(tx, address_columns!())
        .await
}

pub async fn update_address(
    tx: &mut Tx,
    id: i64,
    address: &Address,
    now: Timestamp,
) -> Result<CustomerAddress> {
    address_columns(address)
        .set("updated_on", now)
        .update("customer_addresses", id)
        .fetch_row(tx, address_columns!())
        .await
}

/// Deletes the address, and clears the customer's defaults that named it.
pub async fn delete_address(tx: &mut Tx, customer_id: i64, id: i64) -> Result<()> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query("DELETE FROM customer_addresses WHERE id = $1 AND customer_id = $2")
            .bind(id)
            .bind(customer_id)
            .execute(&mut *c)
            .await?;
        sqlx::query(
            "UPDATE customers SET \
             default_shipping_address_id = CASE WHEN default_shipping_address_id = $2 THEN NULL \
             ELSE default_shipping_address_id END, \
             default_billing_address_id = CASE WHEN default_billing_address_id = $2 THEN NULL \
             ELSE default_billing_address_id END \
             WHERE id = $1",
        )
        .bind(customer_id)
        .bind(id)
        .execute(&mut *c)
        .await
        .map(|_| ())
    })?;
    Ok(())
}

fn address_columns(address: &Address) -> Columns {
    Columns::new()
        .set("name", &address.name)
        .set("company", &address.company)
        .set("street", &address.street)
        .set("street_2", &address.street_2)
        .set("locality", &address.locality)
        .set("region", &address.region)
        .set("postal_code", &address.postal_code)
        .set("country_code", &address.country_code)
        .set("phone_number", &address.phone_number)
}

/// What one move of an order does to its customer's figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrderMove<'a> {
    pub orders_change: i64,
    pub spent_change: i64,
    /// The order's currency.
    pub currency_code: &'a str,
}

/// The customer's figures would pass the largest integer a column holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FiguresOverflow;

/// Adds an order move to the customer's figures, on a customer row the caller has locked
/// (level 9 of `locks`). `Ok(Err(FiguresOverflow))`: nothing was written.
pub async fn record_order_move(
    tx: &mut Tx,
    customer: &Customer,
    change: OrderMove<'_>,
    now: Timestamp,
) -> Result<std::result::Result<(), FiguresOverflow>> {
    let in_total = change.currency_code == customer.currency_code;
    let Some(orders_count) = customer.orders_count.checked_add(change.orders_change) else {
        return Ok(Err(FiguresOverflow));
    };
    let total_spent = if in_total {
        match customer.total_spent.checked_add(change.spent_change) {
            Some(total) => total,
            None => return Ok(Err(FiguresOverflow)),
        }
    } else {
        customer.total_spent
    };
    if change.spent_change != 0 {
        let current: Option<i64> = with_conn!(Exec::Tx(tx), |c| {
            sqlx::query_scalar(
                "SELECT total FROM customer_spending WHERE customer_id = $1 AND currency_code = $2",
            )
            .bind(customer.id)
            .bind(change.currency_code)
            .fetch_optional(c)
            .await
        })?;
        let Some(total) = current.unwrap_or(0).checked_add(change.spent_change) else {
            return Ok(Err(FiguresOverflow));
        };
        with_conn!(Exec::Tx(tx), |c| {
            sqlx::query(
                "INSERT INTO customer_spending (customer_id, currency_code, account_id, total) \
                 VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (customer_id, currency_code) DO UPDATE SET total = excluded.total",
            )
            .bind(customer.id)
            .bind(change.currency_code)
            .bind(customer.account_id)
            .bind(total)
            .execute(c)
            .await
            .map(|_| ())
        })?;
    }
    Columns::new()
        .set("orders_count", orders_count)
        .set("total_spent", total_spent)
        .set("updated_on", now)
        .update("customers", customer.id)
        .execute(tx)
        .await?;
    Ok(Ok(()))
}

/// Locks the customer's orders (level 1 of `locks`) before the customer is deleted, whose
/// foreign key then unlinks them; answers how many there are.
pub async fn lock_orders_of(tx: &mut Tx, customer_id: i64) -> Result<u64> {
    let sql = format!(
        "SELECT id FROM orders WHERE contact_id = $1 ORDER BY id{}",
        crate::locks::clause(tx.backend(), " FOR UPDATE")
    );
    let ids: Vec<i64> = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
            .bind(customer_id)
            .fetch_all(c)
            .await
    })?;
    Ok(ids.len() as u64)
}

/// A customer with the hash of its password (none until one is set), for signing in.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct CustomerCredentials {
    #[sqlx(flatten)]
    pub customer: Customer,
    pub password_hash: Option<String>,
}

/// The seller's customer with this email, in any case, with its password hash.
pub async fn credentials(
    db: &Database,
    seller_id: i64,
    email: &str,
) -> Result<Option<CustomerCredentials>> {
    with_conn!(Exec::Db(db), |c| {
        sqlx::query_as::<_, CustomerCredentials>(concat!(
            "SELECT ",
            columns!(),
            ", password_hash FROM customers WHERE seller_id = $1 AND email_key = $2"
        ))
        .bind(seller_id)
        .bind(email.trim().to_lowercase())
        .fetch_optional(c)
        .await
    })
    .map_err(Into::into)
}

/// Sets (or, with `None`, removes) the password of a customer the caller has locked.
pub async fn set_password(tx: &mut Tx, id: i64, hash: Option<&str>) -> Result<()> {
    Columns::new()
        .set("password_hash", hash)
        .update("customers", id)
        .execute(tx)
        .await
}

/// Which of `ids` name none of the seller's customers, in the order given.
pub async fn not_of_seller(tx: &mut Tx, seller_id: i64, ids: &[i64]) -> Result<Vec<i64>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut f = Filter::new();
    f.eq("seller_id", Arg::Int(seller_id))
        .any_of("id", ids.iter().copied().map(Arg::Int));
    let sql = format!("SELECT id FROM customers{}", f.where_sql());
    let found: Vec<i64> = with_conn!(Exec::Tx(tx), |c| {
        crate::sql::bind_scalar(sqlx::query_scalar(sqlx::AssertSqlSafe(sql)), f.args())
            .fetch_all(c)
            .await
    })?;
    Ok(ids
        .iter()
        .copied()
        .filter(|id| !found.contains(id))
        .collect())
}
