//! The signed-in customer's area as the toolkit gathers it: paths, routes, root links,
//! URL builders.

use services::customers::input::{AddressChanges, NewAddress, OwnChanges};

use super::{NewPassword, PasswordChange, ResetRequest, SessionAnswer, SignIn};
use crate::area::{Access, Area, Path, RootLink, Routes};
use crate::customers::{ADDRESS_LIST, AddressFields, CustomerFields};
use crate::kernel::state::ApiConfig;
use crate::kernel::urls::Urls;
use crate::openapi::{Answer, Op};
use crate::orders::{ORDER_LIST, OrderFields};
use crate::rels;

/// Where a customer signs in to one of the shop's seller's accounts.
pub const SESSIONS: Path = Path::new("/shops/{id}/customer_sessions");
/// Where a customer asks for a password reset, and where they set the new password.
pub const RESETS: Path = Path::new("/shops/{id}/customer_password_resets");
pub const NEW_PASSWORD: Path = Path::new("/shops/{id}/customer_password");
pub const SESSION: Path = Path::new("/customer/session");
pub const PROFILE: Path = Path::new("/customer");
pub const PASSWORD: Path = Path::new("/customer/password");
pub const ADDRESSES: Path = Path::new("/customer/addresses");
pub const ADDRESS: Path = Path::new("/customer/addresses/{id}");
pub const ORDERS: Path = Path::new("/customer/orders");
pub const ORDER: Path = Path::new("/customer/orders/{id}");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[
        RootLink {
            rel: &rels::ACCOUNT_SIGN_IN,
            shown: storefront,
            href: |urls| urls.template(SESSIONS),
        },
        RootLink {
            rel: &rels::ACCOUNT_RESET_PASSWORD,
            shown: storefront,
            href: |urls| urls.template(RESETS),
        },
        RootLink {
            rel: &rels::ACCOUNT_NEW_PASSWORD,
            shown: storefront,
            href: |urls| urls.template(NEW_PASSWORD),
        },
        RootLink {
            rel: &rels::ACCOUNT_CUSTOMER,
            shown: customer,
            href: |urls| urls.own_profile(),
        },
        RootLink {
            rel: &rels::ACCOUNT_ORDERS,
            shown: customer,
            href: |urls| urls.own_orders(),
        },
    ],
};

/// A storefront app's token (public, bound to no account), which signs customers in.
fn storefront(access: &Access<'_>) -> bool {
    access.has(domain::Scope::Public)
        && !access.tenant_has(domain::Scope::Public)
        && access.customer().is_none()
}

fn customer(access: &Access<'_>) -> bool {
    access.customer().is_some()
}

fn routes(routes: &mut Routes, _: &ApiConfig) {
    type Customer = CustomerFields<'static>;
    type Address = AddressFields<'static>;
    type Order = OrderFields<'static>;
    let own = |summary, answer| Op::new(summary, answer);
    routes
        .post(
            SESSIONS,
            super::sign_in,
            Op::new(
                "Sign a customer in (a storefront app's token, public scope)",
                Answer::created::<SessionAnswer>(),
            )
            .scope(domain::Scope::Public)
            .json_body::<SignIn>()
            .rel(&rels::ACCOUNT_SIGN_IN),
        )
        .post(
            RESETS,
            super::request_reset,
            Op::new(
                "Ask for a customer's password reset (a storefront app's token, public scope)",
                Answer::accepted(),
            )
            .scope(domain::Scope::Public)
            .json_body::<ResetRequest>()
            .rel(&rels::ACCOUNT_RESET_PASSWORD),
        )
        .put(
            NEW_PASSWORD,
            super::complete_reset,
            Op::new(
                "Set a customer's password with a reset token (a storefront app's token, public scope)",
                Answer::no_content(),
            )
            .scope(domain::Scope::Public)
            .json_body::<NewPassword>()
            .rel(&rels::ACCOUNT_NEW_PASSWORD),
        )
        .delete(
            SESSION,
            super::sign_out,
            own("Sign the customer out", Answer::no_content()).rel(&rels::ACCOUNT_SIGN_OUT),
        )
        .get(
            PROFILE,
            super::show,
            own(
                "Show the signed-in customer",
                Answer::resource::<Customer>(),
            )
            .rel(&rels::ACCOUNT_CUSTOMER),
        )
        .put(
            PROFILE,
            super::update,
            own(
                "Update the signed-in customer",
                Answer::resource::<Customer>(),
            )
            .json_body::<OwnChanges>()
            .rel(&rels::ACCOUNT_UPDATE),
        )
        .put(
            PASSWORD,
            super::change_password,
            own(
                "Change the signed-in customer's password",
                Answer::no_content(),
            )
            .json_body::<PasswordChange>()
            .rel(&rels::ACCOUNT_PASSWORD),
        )
        .get(
            ADDRESSES,
            super::addresses,
            own(
                "List the signed-in customer's addresses",
                Answer::list::<Address>(),
            )
            .list(&ADDRESS_LIST)
            .rel(&rels::ACCOUNT_ADDRESSES),
        )
        .post(
            ADDRESSES,
            super::create_address,
            own(
                "Add an address to the signed-in customer",
                Answer::created::<Address>(),
            )
            .json_body::<NewAddress>()
            .rel(&rels::ACCOUNT_CREATE_ADDRESS),
        )
        .get(
            ADDRESS,
            super::show_address,
            own(
                "Show one of the signed-in customer's addresses",
                Answer::resource::<Address>(),
            )
            .rel(&rels::ACCOUNT_ADDRESS),
        )
        .put(
            ADDRESS,
            super::update_address,
            own(
                "Update one of the signed-in customer's addresses",
                Answer::resource::<Address>(),
            )
            .json_body::<AddressChanges>()
            .rel(&rels::ACCOUNT_UPDATE_ADDRESS),
        )
        .delete(
            ADDRESS,
            super::delete_address,
            own(
                "Delete one of the signed-in customer's addresses",
                Answer::resource::<Address>(),
            )
            .rel(&rels::ACCOUNT_DELETE_ADDRESS),
        )
        .get(
            ORDERS,
            super::orders,
            own(
                "List the signed-in customer's orders",
                Answer::list::<Order>(),
            )
            .list(&ORDER_LIST)
            .rel(&rels::ACCOUNT_ORDERS),
        )
        .get(
            ORDER,
            super::order,
            own(
                "Show one of the signed-in customer's orders",
                Answer::resource::<Order>(),
            )
            .rel(&rels::ACCOUNT_ORDER),
        );
}

impl Urls {
    pub fn customer_sessions(&self, shop_id: i64) -> String {
        self.at(SESSIONS, &[shop_id])
    }

    pub fn own_session(&self) -> String {
        self.at(SESSION, &[])
    }

    pub fn own_profile(&self) -> String {
        self.at(PROFILE, &[])
    }

    pub fn own_password(&self) -> String {
        self.at(PASSWORD, &[])
    }

    /// The signed-in customer's addresses, as a list template.
    pub fn own_addresses(&self) -> String {
        self.list_template(ADDRESSES.pattern(), &ADDRESS_LIST)
    }

    pub fn own_new_address(&self) -> String {
        self.at(ADDRESSES, &[])
    }

    pub fn own_address(&self, id: i64) -> String {
        self.at(ADDRESS, &[id])
    }

    /// The signed-in customer's orders, as a list template.
    pub fn own_orders(&self) -> String {
        self.list_template(ORDERS.pattern(), &ORDER_LIST)
    }

    pub fn own_order(&self, id: i64) -> String {
        self.at(ORDER, &[id])
    }
}
