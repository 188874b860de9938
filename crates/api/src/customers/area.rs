//! The customers area as the toolkit gathers it: paths, routes, root links, URL builders.

use domain::Scope;
use services::customers::input::{AddressChanges, CustomerChanges, NewAddress, NewCustomer};

use super::{ADDRESS_LIST, CUSTOMER_LIST};
use crate::area::{Access, Area, Path, RootLink, Routes};
use crate::kernel::state::ApiConfig;
use crate::kernel::urls::Urls;
use crate::openapi::{Answer, Op};
use crate::orders::ORDER_LIST;
use crate::rels;

pub const CUSTOMERS: Path = Path::new("/customers");
pub const CUSTOMER: Path = Path::new("/customers/{id}");
pub const CUSTOMER_ORDERS: Path = Path::new("/customers/{id}/orders");
pub const ADDRESSES: Path = Path::new("/customers/{id}/addresses");
pub const ADDRESS: Path = Path::new("/customers/{id}/addresses/{address_id}");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[
        RootLink {
            rel: &rels::CUSTOMERS_CUSTOMERS,
            shown: reader,
            href: |urls| urls.list_template(CUSTOMERS.pattern(), &CUSTOMER_LIST),
        },
        RootLink {
            rel: &rels::CUSTOMERS_CUSTOMER,
            shown: reader,
            href: |urls| urls.template(CUSTOMER),
        },
        RootLink {
            rel: &rels::CUSTOMERS_CREATE_CUSTOMER,
            shown: writer,
            href: |urls| urls.template(CUSTOMERS),
        },
    ],
};

fn reader(access: &Access<'_>) -> bool {
    access.tenant_has(Scope::CustomersRead)
}

fn writer(access: &Access<'_>) -> bool {
    access.tenant_has(Scope::CustomersWrite)
}

fn routes(routes: &mut Routes, _: &ApiConfig) {
    type Fields = super::CustomerFields<'static>;
    type AddressFields = super::AddressFields<'static>;
    type OrderFields = crate::orders::OrderFields<'static>;
    routes
        .get(
            CUSTOMERS,
            super::list,
            Op::new("List customers", Answer::list::<Fields>())
                .scope(Scope::CustomersRead)
                .list(&CUSTOMER_LIST)
                .rel(&rels::CUSTOMERS_CUSTOMERS),
        )
        .post(
            CUSTOMERS,
            super::create,
            Op::new("Create a customer", Answer::created::<Fields>())
                .scope(Scope::CustomersWrite)
                .json_body::<NewCustomer>()
                .rel(&rels::CUSTOMERS_CREATE_CUSTOMER),
        )
        .get(
            CUSTOMER,
            super::show,
            Op::new("Show a customer", Answer::resource::<Fields>())
                .scope(Scope::CustomersRead)
                .rel(&rels::CUSTOMERS_CUSTOMER),
        )
        .put(
            CUSTOMER,
            super::update,
            Op::new("Update a customer", Answer::resource::<Fields>())
                .scope(Scope::CustomersWrite)
                .json_body::<CustomerChanges>()
                .if_match()
                .rel(&rels::CUSTOMERS_UPDATE),
        )
        .delete(
            CUSTOMER,
            super::delete,
            Op::new(
                "Delete a customer (its orders stay, unlinked)",
                Answer::resource::<Fields>(),
            )
            .scope(Scope::CustomersWrite)
            .if_match()
            .rel(&rels::CUSTOMERS_DELETE),
        )
        .get(
            CUSTOMER_ORDERS,
            super::orders,
            Op::new(
                "List a customer's orders (needs orders.read too)",
                Answer::list::<OrderFields>(),
            )
            .scope(Scope::CustomersRead)
            .list(&ORDER_LIST)
            .rel(&rels::CUSTOMERS_ORDERS),
        )
        .get(
            ADDRESSES,
            super::addresses::list,
            Op::new(
                "List a customer's addresses",
                Answer::list::<AddressFields>(),
            )
            .scope(Scope::CustomersRead)
            .list(&ADDRESS_LIST)
            .rel(&rels::CUSTOMERS_ADDRESSES),
        )
        .post(
            ADDRESSES,
            super::addresses::create,
            Op::new(
                "Add an address to a customer",
                Answer::created::<AddressFields>(),
            )
            .scope(Scope::CustomersWrite)
            .json_body::<NewAddress>()
            .rel(&rels::CUSTOMERS_CREATE_ADDRESS),
        )
        .get(
            ADDRESS,
            super::addresses::show,
            Op::new(
                "Show a customer's address",
                Answer::resource::<AddressFields>(),
            )
            .scope(Scope::CustomersRead)
            .rel(&rels::CUSTOMERS_ADDRESS),
        )
        .put(
            ADDRESS,
            super::addresses::update,
            Op::new(
                "Update a customer's address",
                Answer::resource::<AddressFields>(),
            )
            .scope(Scope::CustomersWrite)
            .json_body::<AddressChanges>()
            .rel(&rels::CUSTOMERS_UPDATE_ADDRESS),
        )
        .delete(
            ADDRESS,
            super::addresses::delete,
            Op::new(
                "Delete a customer's address",
                Answer::resource::<AddressFields>(),
            )
            .scope(Scope::CustomersWrite)
            .rel(&rels::CUSTOMERS_DELETE_ADDRESS),
        );
}

impl Urls {
    pub fn customer(&self, id: i64) -> String {
        self.at(CUSTOMER, &[id])
    }

    /// A customer's orders, as a list template.
    pub fn customer_orders(&self, id: i64) -> String {
        self.list_template(&CUSTOMER_ORDERS.with(&[id]), &ORDER_LIST)
    }

    /// A customer's addresses, as a list template.
    pub fn customer_addresses(&self, id: i64) -> String {
        self.list_template(&ADDRESSES.with(&[id]), &ADDRESS_LIST)
    }

    /// Where an address is added to a customer.
    pub fn customer_new_address(&self, id: i64) -> String {
        self.at(ADDRESSES, &[id])
    }

    pub fn customer_address(&self, customer_id: i64, id: i64) -> String {
        self.at(ADDRESS, &[customer_id, id])
    }
}
