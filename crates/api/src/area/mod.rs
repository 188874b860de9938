//! The area toolkit: what an area declares in its own folder (`<area>/area.rs`) — its
//! route paths, each written once as a [`Path`], its routes, the links it adds to the
//! root, and its URL builders (`impl Urls` blocks beside its paths) — and the one list
//! of areas ([`AREAS`]) the router and the root gather them from.

mod path;
mod routes;

use domain::{Role, Scope};
use oauth::Principal;

pub use path::Path;
pub use routes::Routes;

use crate::kernel::state::ApiConfig;
use crate::kernel::urls::Urls;

/// One area of the API, as the router and the root see it.
pub struct Area {
    /// Its routes under `/v2`, each with its OpenAPI description.
    pub routes: fn(&mut Routes, &ApiConfig),
    /// The links it adds to the root, in the order the root shows them.
    pub root_links: &'static [RootLink],
    /// Its link relations (`<area>/rels.rs`), documented under `/docs/rels`.
    pub rels: &'static [&'static hal::RelDef],
}

/// A link the root shows to tokens that may follow it.
pub struct RootLink {
    pub rel: &'static hal::RelDef,
    pub shown: fn(&Access<'_>) -> bool,
    pub href: fn(&Urls) -> String,
}

/// What the root knows of the token when it decides which links to show.
pub struct Access<'a>(pub &'a Principal);

impl Access<'_> {
    pub fn has(&self, scope: Scope) -> bool {
        self.0.has(scope)
    }

    /// The signed-in customer, for a customer session's token.
    pub fn customer(&self) -> Option<oauth::SignedInCustomer> {
        self.0.customer()
    }

    /// Bound to an account, and holding `scope` over its data.
    pub fn tenant_has(&self, scope: Scope) -> bool {
        self.0.tenant().is_some() && self.has(scope)
    }

    /// Issued to a user, and holding `scope` (credentials belong to people).
    pub fn user_has(&self, scope: Scope) -> bool {
        self.0.user_id().is_some() && self.has(scope)
    }

    pub fn role(&self) -> Option<Role> {
        self.0.role()
    }
}

/// Registers the areas: `AREAS` for the router, the root and the rel docs, and every
/// area's rels under `crate::rels` (links often point across areas).
macro_rules! areas {
    ($($area:ident),+ $(,)?) => {
        /// Every area, in the order the root lists their links.
        pub static AREAS: &[&Area] = &[$(&crate::$area::area::AREA),+];

        pub mod all_rels {
            // An area may declare no rels of its own (images use the products ones).
            #![allow(unused_imports)]
            $(pub use crate::$area::rels::*;)+
        }
    };
}

// Adding an area is one line here.
areas!(
    sellers,
    shops,
    shipping_tables,
    exchange_rates,
    shop_admins,
    products,
    variants,
    assets,
    collections,
    product_types,
    price_lists,
    subscription_fees,
    subscription_purchases,
    customers,
    customer_account,
    orders,
    order_batches,
    batches,
    order_documents,
    payments,
    payment_methods,
    webhooks,
    credentials,
);
