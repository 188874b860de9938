//! How a customer and its addresses look to a client.

use domain::customer::CustomerStatus;
use domain::{Scope, ScopeSet, Timestamp};
use hal::{Link, Resource};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use services::customers::FullCustomer;
use storage::customers::{Customer, CustomerAddress};

use crate::kernel::present::Presenter;
use crate::kernel::urls::Urls;
use crate::rels;

#[derive(Serialize, JsonSchema)]
pub struct CustomerFields<'a> {
    id: i64,
    seller_id: i64,
    name: Option<&'a str>,
    first_name: Option<&'a str>,
    last_name: Option<&'a str>,
    email: Option<&'a str>,
    phone_number: Option<&'a str>,
    company: Option<&'a str>,
    opt_in: bool,
    status: CustomerStatus,
    tags: &'a [String],
    note: &'a str,
    /// In the order they were added.
    addresses: Vec<AddressFields<'a>>,
    default_shipping_address_id: Option<i64>,
    default_billing_address_id: Option<i64>,
    /// Orders placed, closed or shipped.
    orders_count: i64,
    /// Totals of closed and shipped orders in `currency_code`, in its minor units.
    total_spent: i64,
    /// The seller's currency.
    currency_code: &'a str,
    /// Totals of closed and shipped orders in every currency, by currency code.
    spent_by_currency: Vec<SpentFields<'a>>,
    created_on: Timestamp,
    updated_on: Timestamp,
}

#[derive(Serialize, JsonSchema)]
pub struct AddressFields<'a> {
    id: i64,
    customer_id: i64,
    name: Option<&'a str>,
    company: Option<&'a str>,
    street: Option<&'a str>,
    street_2: Option<&'a str>,
    locality: Option<&'a str>,
    region: Option<&'a str>,
    postal_code: Option<&'a str>,
    /// ISO 3166-1 alpha-2, upper case.
    country_code: Option<&'a str>,
    phone_number: Option<&'a str>,
    default_shipping: bool,
    default_billing: bool,
    created_on: Timestamp,
    updated_on: Timestamp,
}

#[derive(Serialize, JsonSchema)]
pub struct SpentFields<'a> {
    currency_code: &'a str,
    total: i64,
}

fn address_fields<'a>(customer: &Customer, address: &'a CustomerAddress) -> AddressFields<'a> {
    AddressFields {
        id: address.id,
        customer_id: address.customer_id,
        name: address.name.as_deref(),
        company: address.company.as_deref(),
        street: address.street.as_deref(),
        street_2: address.street_2.as_deref(),
        locality: address.locality.as_deref(),
        region: address.region.as_deref(),
        postal_code: address.postal_code.as_deref(),
        country_code: address.country_code.as_deref(),
        phone_number: address.phone_number.as_deref(),
        default_shipping: customer.default_shipping_address_id == Some(address.id),
        default_billing: customer.default_billing_address_id == Some(address.id),
        created_on: address.created_on,
        updated_on: address.updated_on,
    }
}

/// Whose view a customer is shown in: the shop's staff, or the customer's own (a
/// customer session's, with the links of the customer's own routes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    Staff(ScopeSet),
    Own,
}

pub fn customer_resource(urls: &Urls, viewer: ScopeSet, full: &FullCustomer) -> Resource {
    customer_in_view(urls, View::Staff(viewer), full)
}

pub fn customer_in_view(urls: &Urls, view: View, full: &FullCustomer) -> Resource {
    let customer = &full.customer;
    let fields = CustomerFields {
        id: customer.id,
        seller_id: customer.seller_id,
        name: customer.name.as_deref(),
        first_name: customer.first_name.as_deref(),
        last_name: customer.last_name.as_deref(),
        email: customer.email.as_deref(),
        phone_number: customer.phone_number.as_deref(),
        company: customer.company.as_deref(),
        opt_in: customer.opt_in,
        status: customer.status,
        tags: &customer.tags.0,
        note: &customer.note,
        addresses: full
            .addresses
            .iter()
            .map(|a| address_fields(customer, a))
            .collect(),
        default_shipping_address_id: customer.default_shipping_address_id,
        default_billing_address_id: customer.default_billing_address_id,
        orders_count: customer.orders_count,
        total_spent: customer.total_spent,
        currency_code: &customer.currency_code,
        spent_by_currency: full
            .spending
            .iter()
            .map(|s| SpentFields {
                currency_code: &s.currency_code,
                total: s.total,
            })
            .collect(),
        created_on: customer.created_on,
        updated_on: customer.updated_on,
    };
    let resource = Resource::new(["customer"]).with_properties(&fields);
    let viewer = match view {
        View::Own => return own_links(urls, resource),
        View::Staff(viewer) => viewer,
    };
    let href = urls.customer(customer.id);
    let write = viewer.contains(Scope::CustomersWrite);
    resource
        .link("self", Link::get(href.clone()))
        .rel_if(write, &rels::CUSTOMERS_UPDATE, || href.clone())
        .rel_if(write, &rels::CUSTOMERS_DELETE, || href.clone())
        .rel_if(
            viewer.contains(Scope::OrdersRead),
            &rels::CUSTOMERS_ORDERS,
            || urls.customer_orders(customer.id),
        )
        .rel(
            &rels::CUSTOMERS_ADDRESSES,
            urls.customer_addresses(customer.id),
        )
        .rel_if(write, &rels::CUSTOMERS_CREATE_ADDRESS, || {
            urls.customer_new_address(customer.id)
        })
}

/// The signed-in customer's links: what their session may do.
fn own_links(urls: &Urls, resource: Resource) -> Resource {
    let href = urls.own_profile();
    resource
        .link("self", Link::get(href.clone()))
        .rel(&rels::ACCOUNT_UPDATE, href)
        .rel(&rels::ACCOUNT_PASSWORD, urls.own_password())
        .rel(&rels::ACCOUNT_ORDERS, urls.own_orders())
        .rel(&rels::ACCOUNT_ADDRESSES, urls.own_addresses())
        .rel(&rels::ACCOUNT_CREATE_ADDRESS, urls.own_new_address())
        .rel(&rels::ACCOUNT_SIGN_OUT, urls.own_session())
}

pub fn address_resource(
    urls: &Urls,
    viewer: ScopeSet,
    customer: &Customer,
    address: &CustomerAddress,
) -> Resource {
    address_in_view(urls, View::Staff(viewer), customer, address)
}

pub fn address_in_view(
    urls: &Urls,
    view: View,
    customer: &Customer,
    address: &CustomerAddress,
) -> Resource {
    let resource =
        Resource::new(["customer_address"]).with_properties(&address_fields(customer, address));
    match view {
        View::Own => {
            let href = urls.own_address(address.id);
            resource
                .link("self", Link::get(href.clone()))
                .rel(&rels::ACCOUNT_CUSTOMER, urls.own_profile())
                .rel(&rels::ACCOUNT_UPDATE_ADDRESS, href.clone())
                .rel(&rels::ACCOUNT_DELETE_ADDRESS, href)
        }
        View::Staff(viewer) => {
            let href = urls.customer_address(customer.id, address.id);
            let write = viewer.contains(Scope::CustomersWrite);
            resource
                .link("self", Link::get(href.clone()))
                .rel(&rels::CUSTOMERS_CUSTOMER, urls.customer(customer.id))
                .rel_if(write, &rels::CUSTOMERS_UPDATE_ADDRESS, || href.clone())
                .rel_if(write, &rels::CUSTOMERS_DELETE_ADDRESS, || href.clone())
        }
    }
}

impl services::customers::Present for Presenter {
    fn customer(&self, viewer: ScopeSet, customer: &FullCustomer) -> Value {
        customer_resource(&self.urls, viewer, customer).into_value(self.urls.curies())
    }
}
