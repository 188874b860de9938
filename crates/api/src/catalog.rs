//! What the catalog's areas (products, variants, images, collections, types, price lists)
//! share at the HTTP edge: whose catalog a request reads, and which tokens manage it.
//!
//! Whose catalog a request reads. A token bound to an account (with `products.read`) sees
//! its sellers' products; any other token that may read the catalog (`products.read` or
//! `public`) must name shops in `shop_subdomains` and sees their visible products.

use domain::{FieldErrors, Scope};
use storage::Tenant;
use storage::products::{self, CatalogScope, ShopRef};

use crate::area::Access;
use crate::kernel::auth::Auth;
use crate::kernel::error::{ApiError, ApiResult};
use crate::kernel::query::QueryParams;
use crate::kernel::revalidation::AccountData;
use crate::kernel::state::AppState;

/// The scopes [`CatalogView::resolve`] accepts (either of them), for the OpenAPI document.
pub const READ_SCOPES: &[Scope] = &[Scope::ProductsRead, Scope::Public];

pub enum CatalogView {
    Admin(Tenant),
    Public {
        shops: Vec<ShopRef>,
        /// `?shop_subdomains=…` as the request named them, for links that must name them
        /// again.
        query: String,
        /// Every subdomain named a shop (a name that names none could come to).
        all_found: bool,
    },
}

impl CatalogView {
    pub async fn resolve(state: &AppState, auth: &Auth, params: &QueryParams) -> ApiResult<Self> {
        if auth.has(Scope::ProductsRead)
            && let Some(tenant) = auth.tenant()
        {
            return Ok(CatalogView::Admin(tenant));
        }
        if !auth.has(Scope::ProductsRead) && !auth.has(Scope::Public) {
            return Err(ApiError::insufficient_scope(Scope::ProductsRead));
        }
        let Some(subdomains) = params.list("shop_subdomains") else {
            return Err(FieldErrors::single(
                "shop_subdomains",
                "is required for tokens not bound to an account",
            )
            .into());
        };
        let shops = products::shops_by_subdomain(&state.db, None, &subdomains).await?;
        let query = form_urlencoded::Serializer::for_suffix(String::from("?"), 1)
            .append_pair("shop_subdomains", &subdomains.join(","))
            .finish();
        let mut named = subdomains.clone();
        named.sort_unstable();
        named.dedup();
        let all_found = shops.len() == named.len();
        Ok(CatalogView::Public {
            shops,
            query,
            all_found,
        })
    }

    /// A product this view shows; 404 when it shows none with that id.
    pub async fn product(&self, state: &AppState, id: i64) -> ApiResult<products::Product> {
        products::find(&state.db, &self.scope(), id)
            .await?
            .ok_or_else(ApiError::not_found)
    }

    /// As `product`, with what its representation embeds.
    pub async fn full_product(
        &self,
        state: &AppState,
        id: i64,
    ) -> ApiResult<(products::Product, products::Embedded)> {
        products::find_full(&state.db, &self.scope(), id)
            .await?
            .ok_or_else(ApiError::not_found)
    }

    pub fn scope(&self) -> CatalogScope {
        match self {
            CatalogView::Admin(tenant) => CatalogScope::Tenant(*tenant),
            CatalogView::Public { shops, .. } => CatalogScope::Public(shops.clone()),
        }
    }

    /// Whose data this view shows, for the revalidation shortcut; `None` when it could
    /// come to show another's.
    pub fn shows(&self) -> Option<AccountData> {
        match self {
            CatalogView::Admin(tenant) => Some(AccountData::of([tenant.account_id])),
            CatalogView::Public {
                shops, all_found, ..
            } => all_found.then(|| AccountData::of(shops.iter().map(|shop| shop.account_id))),
        }
    }

    pub fn tenant(&self) -> Option<Tenant> {
        match self {
            CatalogView::Admin(tenant) => Some(*tenant),
            CatalogView::Public { .. } => None,
        }
    }

    /// `href` with the query a public reader must send again.
    pub fn href(&self, href: String) -> String {
        match self {
            CatalogView::Admin(_) => href,
            CatalogView::Public { query, .. } => href + query,
        }
    }
}

/// Tokens that may read a catalog: an account's own, or (`public`) named shops'.
pub fn reader(access: &Access<'_>) -> bool {
    access.has(Scope::ProductsRead) || access.has(Scope::Public)
}

/// Tokens that manage an account's catalog (its collections, types and price lists too).
pub fn admin(access: &Access<'_>) -> bool {
    access.tenant_has(Scope::ProductsRead)
}

/// Tokens that change an account's catalog.
pub fn writer(access: &Access<'_>) -> bool {
    access.tenant_has(Scope::ProductsWrite)
}
