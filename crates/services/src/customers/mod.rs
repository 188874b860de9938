//! Customers: create, update and delete them and their addresses; the customer an order
//! is linked to (found by email, or created); and the figures their orders' moves keep.

pub mod input;
pub mod passwords;

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;

use domain::customer::{ADDRESSES_MAX, change_of_move};
use domain::order::OrderStatus;
use domain::{FieldErrors, ScopeSet, topic};
use serde_json::Value;
use storage::customers::{
    self as stored, Customer, CustomerAddress, CustomerData, FiguresOverflow, OrderMove, Owner,
    Spending,
};
use storage::orders::Order;
use storage::sellers::Seller;
use storage::{Exec, ScopedExt, Tenant, Tx, UniqueIndex, tenant_rows};

use self::input::{
    AddressChanges, AddressDraft, CustomerChanges, NewAddress, NewCustomer, OwnChanges,
};
use crate::events::Change;
use crate::sellers::owning_seller;
use crate::{Actor, Op, Precondition, ServiceError, ServiceResult, Services, Shown, Unconditional};

/// A customer with what its representation embeds: its addresses and its spending.
#[derive(Clone, Debug, PartialEq)]
pub struct FullCustomer {
    pub customer: Customer,
    pub addresses: Vec<CustomerAddress>,
    pub spending: Vec<Spending>,
}

impl FullCustomer {
    /// One customer with what it embeds.
    pub async fn load<'a>(
        exec: impl Into<Exec<'a>> + Copy,
        customer: Customer,
    ) -> storage::Result<FullCustomer> {
        let mut loaded = Self::load_all(exec, vec![customer]).await?;
        Ok(loaded.remove(0))
    }

    /// Reads what a page of customers embeds, in two queries, and pairs it up.
    pub async fn load_all<'a>(
        exec: impl Into<Exec<'a>> + Copy,
        customers: Vec<Customer>,
    ) -> storage::Result<Vec<FullCustomer>> {
        let ids: Vec<i64> = customers.iter().map(|c| c.id).collect();
        let mut addresses: HashMap<i64, Vec<CustomerAddress>> = HashMap::new();
        for address in stored::addresses_of(exec, &ids).await? {
            addresses
                .entry(address.customer_id)
                .or_default()
                .push(address);
        }
        let mut spending: HashMap<i64, Vec<Spending>> = HashMap::new();
        for spent in stored::spending_of(exec, &ids).await? {
            spending.entry(spent.customer_id).or_default().push(spent);
        }
        Ok(customers
            .into_iter()
            .map(|customer| FullCustomer {
                addresses: addresses.remove(&customer.id).unwrap_or_default(),
                spending: spending.remove(&customer.id).unwrap_or_default(),
                customer,
            })
            .collect())
    }
}

/// How a customer and its addresses look to a reader with `viewer`'s scopes (their GETs).
pub trait Present {
    fn customer(&self, viewer: ScopeSet, customer: &FullCustomer) -> Value;
}

/// A password as stored: an argon2id PHC string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PasswordHash(pub String);

/// Hashes a password that met the rules: the auth service's argon2id, on its bounded
/// pool. Operations check a password given with other fields themselves, so that its
/// problems are named with theirs, and hash it before their transaction begins.
pub type Hasher = fn(String) -> Pin<Box<dyn Future<Output = String> + Send>>;

/// The hash of a checked password, if one was given.
async fn hash_given(password: Option<String>, hasher: Hasher) -> Option<PasswordHash> {
    match password {
        Some(password) => Some(PasswordHash(hasher(password).await)),
        None => None,
    }
}

/// Creates a customer (with its first addresses, and a password when given) for the
/// seller the input names.
pub async fn create(
    services: &Services,
    actor: &Actor,
    input: NewCustomer,
    hasher: Hasher,
) -> ServiceResult<Shown<FullCustomer>> {
    let seller = owning_seller(services.db(), actor.tenant, input.seller_id).await?;
    let mut draft = input.validate()?;
    let password = hash_given(draft.password.take(), hasher).await;
    let op = Op::new(services, actor);
    let (seller, draft, password) = (&seller, &draft, &password);
    services
        .write(|tx| {
            async move {
                let customer = stored::insert(tx, owner_of(seller), &draft.data, op.now).await?;
                if let Some(PasswordHash(hash)) = password {
                    stored::set_password(tx, customer.id, Some(hash.as_str())).await?;
                }
                let customer = add_addresses(tx, op, customer, &draft.addresses).await?;
                let full = reload(tx, op.actor.tenant, customer.id).await?;
                let shown = record(tx, op, topic::CUSTOMERS_CREATED, &full).await?;
                Ok(Shown::new(full, shown))
            }
            .scoped()
        })
        .await
}

/// Changes a customer's fields, and its password when one is given (which ends the
/// customer's sessions, as disabling the customer does).
pub async fn update(
    services: &Services,
    actor: &Actor,
    id: i64,
    expect: &dyn Precondition,
    changes: CustomerChanges,
    hasher: Hasher,
) -> ServiceResult<Shown<FullCustomer>> {
    let mut changes = changes;
    let mut password_errors = FieldErrors::new();
    let given = changes.take_password(&mut password_errors);
    let password = hash_given(given, hasher).await;
    write_changes(
        services,
        actor,
        id,
        expect,
        changes,
        password,
        password_errors,
    )
    .await
}

/// What a signed-in customer changes of their own profile.
pub async fn update_own(
    services: &Services,
    actor: &Actor,
    id: i64,
    changes: OwnChanges,
) -> ServiceResult<Shown<FullCustomer>> {
    let changes = changes.into_changes()?;
    write_changes(
        services,
        actor,
        id,
        &Unconditional,
        changes,
        None,
        FieldErrors::new(),
    )
    .await
}

/// Writes checked changes (and a new password's hash); `found` holds the problems found
/// before the transaction, named with those of the other fields.
async fn write_changes(
    services: &Services,
    actor: &Actor,
    id: i64,
    expect: &dyn Precondition,
    changes: CustomerChanges,
    password: Option<PasswordHash>,
    found: FieldErrors,
) -> ServiceResult<Shown<FullCustomer>> {
    let op = Op::new(services, actor);
    let (changes, password, found) = (&changes, &password, &found);
    services
        .write(|tx| {
            async move {
                let current = locked(tx, op, id, expect).await?;
                let mut errors = found.clone();
                let data = match changes.clone().apply(&current.customer) {
                    Ok(data) => {
                        check_defaults(&data, &current.addresses, &mut errors);
                        errors.into_result()?;
                        data
                    }
                    Err(others) => {
                        errors.merge(others);
                        return Err(errors.into());
                    }
                };
                let disabled = data.status.is_some_and(|s| !s.may_sign_in())
                    && current.customer.status.may_sign_in();
                if let Some(PasswordHash(hash)) = password {
                    stored::set_password(tx, id, Some(hash.as_str())).await?;
                }
                if password.is_some() || disabled {
                    storage::tokens::revoke_customer(tx, id, None, op.now).await?;
                }
                if data == current.customer.data() {
                    let shown = show(op, &current);
                    return Ok(Shown::new(current, shown));
                }
                stored::update(tx, &current.customer, &data, op.now).await?;
                let full = reload(tx, op.actor.tenant, id).await?;
                let shown = record(tx, op, topic::CUSTOMERS_UPDATED, &full).await?;
                Ok(Shown::new(full, shown))
            }
            .scoped()
        })
        .await
}

/// Sets the customer's password and ends every other session of theirs (`kept`: the
/// session that changed it, which stays).
pub async fn change_password(
    services: &Services,
    actor: &Actor,
    id: i64,
    password: PasswordHash,
    kept: Option<&str>,
) -> ServiceResult<()> {
    let op = Op::new(services, actor);
    let password = &password;
    services
        .write(|tx| {
            async move {
                stored::find_for_update(tx, op.actor.tenant, id)
                    .await?
                    .ok_or(ServiceError::NotFound)?;
                stored::set_password(tx, id, Some(&password.0)).await?;
                storage::tokens::revoke_customer(tx, id, kept, op.now).await?;
                Ok(())
            }
            .scoped()
        })
        .await
}

/// Deletes a customer; its orders stay, with their own copy of the contact, unlinked.
pub async fn delete(
    services: &Services,
    actor: &Actor,
    id: i64,
    expect: &dyn Precondition,
) -> ServiceResult<Shown<FullCustomer>> {
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                // Orders come before customers in the lock order (`storage::locks`).
                stored::lock_orders_of(tx, id).await?;
                let current = locked(tx, op, id, expect).await?;
                // Revoked before the foreign key unlinks the tokens from the customer.
                storage::tokens::revoke_customer(tx, id, None, op.now).await?;
                tenant_rows::delete(tx, stored::TABLE, op.actor.tenant, id).await?;
                let shown = record(tx, op, topic::CUSTOMERS_DELETED, &current).await?;
                Ok(Shown::new(current, shown))
            }
            .scoped()
        })
        .await
}

/// Adds an address to a customer; answers the customer and the new address's id.
pub async fn create_address(
    services: &Services,
    actor: &Actor,
    customer_id: i64,
    input: NewAddress,
) -> ServiceResult<(Shown<FullCustomer>, i64)> {
    let draft = input.validate()?;
    let op = Op::new(services, actor);
    let draft = &draft;
    services
        .write(|tx| {
            async move {
                let current = locked(tx, op, customer_id, &Unconditional).await?;
                if current.addresses.len() >= ADDRESSES_MAX {
                    return Err(ServiceError::invalid_field(
                        "addresses",
                        format!("the customer has the most addresses it may ({ADDRESSES_MAX})"),
                    ));
                }
                let customer = current.customer;
                let made = stored::insert_address(tx, &customer, &draft.address, op.now).await?;
                let defaults = apply_defaults(
                    customer.data(),
                    made.id,
                    draft,
                    current.addresses.is_empty(),
                );
                stored::update(tx, &customer, &defaults, op.now).await?;
                let full = reload(tx, op.actor.tenant, customer_id).await?;
                let shown = record(tx, op, topic::CUSTOMERS_UPDATED, &full).await?;
                Ok((Shown::new(full, shown), made.id))
            }
            .scoped()
        })
        .await
}

/// Changes one of a customer's addresses (its parts, whether it is a default).
pub async fn update_address(
    services: &Services,
    actor: &Actor,
    customer_id: i64,
    id: i64,
    changes: AddressChanges,
) -> ServiceResult<Shown<FullCustomer>> {
    let op = Op::new(services, actor);
    let changes = &changes;
    services
        .write(|tx| {
            async move {
                let current = locked(tx, op, customer_id, &Unconditional).await?;
                let address = address_of(&current, id)?;
                let draft = changes.clone().apply(address.address())?;
                let defaults = apply_defaults(current.customer.data(), id, &draft, false);
                let parts_change = draft.address != address.address();
                if !parts_change && defaults == current.customer.data() {
                    let shown = show(op, &current);
                    return Ok(Shown::new(current, shown));
                }
                if parts_change {
                    stored::update_address(tx, id, &draft.address, op.now).await?;
                }
                stored::update(tx, &current.customer, &defaults, op.now).await?;
                let full = reload(tx, op.actor.tenant, customer_id).await?;
                let shown = record(tx, op, topic::CUSTOMERS_UPDATED, &full).await?;
                Ok(Shown::new(full, shown))
            }
            .scoped()
        })
        .await
}

/// Deletes one of a customer's addresses; a default it was is left unset. Answers the
/// customer as it is now, and as it was (with the address).
pub async fn delete_address(
    services: &Services,
    actor: &Actor,
    customer_id: i64,
    id: i64,
) -> ServiceResult<(Shown<FullCustomer>, FullCustomer)> {
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                let current = locked(tx, op, customer_id, &Unconditional).await?;
                address_of(&current, id)?;
                stored::delete_address(tx, customer_id, id).await?;
                stored::touch(tx, customer_id, op.now).await?;
                let full = reload(tx, op.actor.tenant, customer_id).await?;
                let shown = record(tx, op, topic::CUSTOMERS_UPDATED, &full).await?;
                Ok((Shown::new(full, shown), current))
            }
            .scoped()
        })
        .await
}

/// The customer's address `id`, or 404.
fn address_of(customer: &FullCustomer, id: i64) -> ServiceResult<&CustomerAddress> {
    customer
        .addresses
        .iter()
        .find(|a| a.id == id)
        .ok_or(ServiceError::NotFound)
}

/// The customer's data with address `id` made (or unmade) a default as `draft` asks;
/// `first` makes it both defaults unless the draft says otherwise.
fn apply_defaults(
    mut data: CustomerData,
    id: i64,
    draft: &AddressDraft,
    first: bool,
) -> CustomerData {
    for (asked, slot) in [
        (
            draft.default_shipping,
            &mut data.default_shipping_address_id,
        ),
        (draft.default_billing, &mut data.default_billing_address_id),
    ] {
        match asked {
            Some(true) => *slot = Some(id),
            Some(false) if *slot == Some(id) => *slot = None,
            _ if first && slot.is_none() => *slot = Some(id),
            _ => {}
        }
    }
    data
}

/// Adds a new customer's first addresses, the first (or the ones marked) as defaults.
async fn add_addresses(
    tx: &mut Tx,
    op: Op<'_>,
    customer: Customer,
    addresses: &[AddressDraft],
) -> ServiceResult<Customer> {
    if addresses.is_empty() {
        return Ok(customer);
    }
    let mut data = customer.data();
    let mut first_id = None;
    for draft in addresses {
        let made = stored::insert_address(tx, &customer, &draft.address, op.now).await?;
        first_id.get_or_insert(made.id);
        if draft.default_shipping == Some(true) {
            data.default_shipping_address_id = Some(made.id);
        }
        if draft.default_billing == Some(true) {
            data.default_billing_address_id = Some(made.id);
        }
    }
    data.default_shipping_address_id = data.default_shipping_address_id.or(first_id);
    data.default_billing_address_id = data.default_billing_address_id.or(first_id);
    Ok(stored::update(tx, &customer, &data, op.now).await?)
}

/// The defaults a write names are the customer's own addresses.
fn check_defaults(data: &CustomerData, addresses: &[CustomerAddress], errors: &mut FieldErrors) {
    for (field, id) in [
        (
            "default_shipping_address_id",
            data.default_shipping_address_id,
        ),
        (
            "default_billing_address_id",
            data.default_billing_address_id,
        ),
    ] {
        if let Some(id) = id
            && !addresses.iter().any(|a| a.id == id)
        {
            errors.add(field, "is not one of the customer's addresses");
        }
    }
}

/// The customer with what it embeds, locked, once the caller's expectation of it holds.
async fn locked(
    tx: &mut Tx,
    op: Op<'_>,
    id: i64,
    expect: &dyn Precondition,
) -> ServiceResult<FullCustomer> {
    let customer = stored::find_for_update(tx, op.actor.tenant, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    let current = embed(tx, customer).await?;
    expect.check(&|| show(op, &current), current.customer.updated_on)?;
    Ok(current)
}

async fn embed(tx: &mut Tx, customer: Customer) -> ServiceResult<FullCustomer> {
    let addresses = stored::addresses_of(&mut *tx, &[customer.id]).await?;
    let spending = stored::spending_of(&mut *tx, &[customer.id]).await?;
    Ok(FullCustomer {
        customer,
        addresses,
        spending,
    })
}

/// The customer as its tenant reads it now, inside the transaction.
async fn reload(tx: &mut Tx, tenant: Tenant, id: i64) -> ServiceResult<FullCustomer> {
    let customer = stored::find(&mut *tx, tenant, id).await?.ok_or_else(|| {
        ServiceError::internal(format!("customer {id}, just written, is not found"))
    })?;
    embed(tx, customer).await
}

fn owner_of(seller: &Seller) -> Owner<'_> {
    Owner {
        account_id: seller.account_id,
        seller_id: seller.id,
        currency_code: &seller.default_currency_code,
    }
}

/// The customer as a GET by the actor shows it.
fn show(op: Op<'_>, full: &FullCustomer) -> Value {
    op.present().customer(op.actor.scopes, full)
}

/// Records a change of the customer, heard by its seller's shops; returns the document.
async fn record(
    tx: &mut Tx,
    op: Op<'_>,
    topic: &'static str,
    full: &FullCustomer,
) -> ServiceResult<Value> {
    let doc = show(op, full);
    let customer = &full.customer;
    let change = Change::of_seller(
        topic,
        (customer.account_id, customer.seller_id),
        "customer",
        customer.id,
        None,
        &doc,
    );
    op.record(tx, change).await?;
    Ok(doc)
}

/// Whom an order write links the order to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContactLink {
    /// The link stays as it is.
    Keep,
    /// No customer.
    Unlinked,
    /// This customer of the order's seller.
    Id(i64),
    /// The seller's customer with the order's email, created when there is none; none
    /// when the order has no email.
    ByEmail,
}

/// The customer an order written with `link` names, checked (`contact_id` errors go to
/// `errors`) or found by email and created when new, recording `customers.created`.
pub(crate) async fn resolve_contact(
    tx: &mut Tx,
    op: Op<'_>,
    seller_id: i64,
    link: ContactLink,
    order: ContactOf<'_>,
    errors: &mut FieldErrors,
) -> ServiceResult<Option<i64>> {
    match link {
        ContactLink::Keep => Ok(order.current),
        ContactLink::Unlinked => Ok(None),
        ContactLink::Id(id) => {
            let found = stored::find(&mut *tx, op.actor.tenant, id)
                .await?
                .filter(|c| c.seller_id == seller_id);
            if found.is_none() {
                errors.add("contact_id", "is not a customer of the shop's seller");
            }
            Ok(found.map(|c| c.id))
        }
        ContactLink::ByEmail => {
            let Some(email) = order.email else {
                return Ok(None);
            };
            if let Some(found) = stored::find_by_email(tx, seller_id, email).await? {
                return Ok(Some(found.id));
            }
            if !errors.is_empty() {
                // The order is refused anyway: create no one.
                return Ok(None);
            }
            let seller = storage::sellers::find(&mut *tx, op.actor.tenant, seller_id)
                .await?
                .ok_or_else(|| {
                    ServiceError::internal(format!("seller {seller_id} is not found"))
                })?;
            let draft = NewCustomer::for_order(email, order.name, order.phone_number)
                .validate()
                .map_err(ServiceError::Invalid)?;
            // An email found free just before and taken now is a customer a concurrent
            // write created: run again, it is found.
            let customer = stored::insert(tx, owner_of(&seller), &draft.data, op.now)
                .await
                .map_err(|err| ServiceError::from(err).derived(UniqueIndex::CustomersEmail))?;
            let full = embed(tx, customer).await?;
            record(tx, op, topic::CUSTOMERS_CREATED, &full).await?;
            Ok(Some(full.customer.id))
        }
    }
}

/// What an order tells of its contact, for linking it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ContactOf<'a> {
    pub current: Option<i64>,
    pub email: Option<&'a str>,
    pub name: Option<&'a str>,
    pub phone_number: Option<&'a str>,
}

/// Brings the figures of the order's customer up to date with its move from `from`
/// (the order and customer in the caller's transaction; the customer locked here, after
/// everything else the move locks).
pub(crate) async fn record_order_move(
    tx: &mut Tx,
    op: Op<'_>,
    order: &Order,
    from: OrderStatus,
) -> ServiceResult<()> {
    let Some(customer_id) = order.contact_id else {
        return Ok(());
    };
    let (orders_change, spent_change) = change_of_move(from, order.status, order.total);
    if (orders_change, spent_change) == (0, 0) {
        return Ok(());
    }
    let Some(customer) = stored::find_for_update(tx, op.actor.tenant, customer_id).await? else {
        return Ok(());
    };
    let change = OrderMove {
        orders_change,
        spent_change,
        currency_code: &order.currency_code,
    };
    match stored::record_order_move(tx, &customer, change, op.now).await? {
        Ok(()) => Ok(()),
        Err(FiguresOverflow) => Err(ServiceError::invalid_field(
            "total",
            "the customer's total spent would pass the largest amount a customer can hold",
        )),
    }
}
