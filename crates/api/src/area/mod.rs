//! The area toolkit: what an area declares in its own folder (`<area>/area.rs`) — its
//! route paths, each written once as a [`Path`], its routes, the links it adds to the
//! root, and its URL builders (`impl Urls` blocks beside its paths) — and the one list
//! of areas ([`AREAS`]) the router and the root gather them from.

mod path;

use axum::Router;
use domain::{Role, Scope};
use oauth::Principal;

pub use path::Path;

use crate::state::{ApiConfig, AppState};
use crate::urls::Urls;

/// One area of the API, as the router and the root see it.
pub struct Area {
    /// Its routes under `/v2`.
    pub routes: fn(&ApiConfig) -> Router<AppState>,
    /// The links it adds to the root, in the order the root shows them.
    pub root_links: &'static [RootLink],
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

/// Every area, in the order the root lists their links: adding an area is one line here.
pub static AREAS: &[&Area] = &[
    &crate::sellers::area::AREA,
    &crate::shops::area::AREA,
    &crate::products::area::AREA,
    &crate::variants::area::AREA,
    &crate::assets::area::AREA,
    &crate::collections::area::AREA,
    &crate::product_types::area::AREA,
    &crate::price_lists::area::AREA,
    &crate::orders::area::AREA,
    &crate::webhooks::area::AREA,
    &crate::credentials::area::AREA,
];
