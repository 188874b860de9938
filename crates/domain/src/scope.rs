//! OAuth scopes: `{namespace}.read|write` per area, plus `admin` (every area scope the
//! principal's role allows) and `public` (read-only public catalog), and the credentials
//! scopes `credentials.read|write` (a user's personal access tokens and the account's apps).
//!
//! The credentials scopes stand apart: a token holding `credentials.write` can mint a
//! never-expiring token and register apps with secrets, so one leaked to a third-party app
//! would outlive every revocation of that app's grant. Hence `admin` does not imply them;
//! they are granted only where they are named, and only operators name them for an app.

use std::fmt;
use std::str::FromStr;

use serde::{Serialize, Serializer};

macro_rules! scopes {
    ($($variant:ident => $name:literal,)+) => {
        /// One scope. The declaration order is the canonical output order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Scope { $($variant,)+ }

        impl Scope {
            pub const ALL: &'static [Scope] = &[$(Scope::$variant,)+];

            pub const fn as_str(self) -> &'static str {
                match self { $(Scope::$variant => $name,)+ }
            }
        }

        impl FromStr for Scope {
            type Err = UnknownScope;
            fn from_str(s: &str) -> Result<Self, UnknownScope> {
                match s {
                    $($name => Ok(Scope::$variant),)+
                    other => Err(UnknownScope(other.to_owned())),
                }
            }
        }
    };
}

scopes! {
    ProductsRead => "products.read",
    ProductsWrite => "products.write",
    OrdersRead => "orders.read",
    OrdersWrite => "orders.write",
    CustomersRead => "customers.read",
    CustomersWrite => "customers.write",
    ShopsRead => "shops.read",
    ShopsWrite => "shops.write",
    HubRead => "hub.read",
    HubWrite => "hub.write",
    StoreRead => "store.read",
    StoreWrite => "store.write",
    SellersRead => "sellers.read",
    BatchesRead => "batches.read",
    BatchesWrite => "batches.write",
    Admin => "admin",
    Public => "public",
    CredentialsRead => "credentials.read",
    CredentialsWrite => "credentials.write",
}

impl Scope {
    /// The read scope a write scope implies.
    pub const fn implied_read(self) -> Option<Scope> {
        match self {
            Scope::ProductsWrite => Some(Scope::ProductsRead),
            Scope::OrdersWrite => Some(Scope::OrdersRead),
            Scope::CustomersWrite => Some(Scope::CustomersRead),
            Scope::ShopsWrite => Some(Scope::ShopsRead),
            Scope::HubWrite => Some(Scope::HubRead),
            Scope::StoreWrite => Some(Scope::StoreRead),
            Scope::BatchesWrite => Some(Scope::BatchesRead),
            Scope::CredentialsWrite => Some(Scope::CredentialsRead),
            _ => None,
        }
    }

    /// What the scope lets an app do, in words, for the consent page.
    pub const fn description(self) -> &'static str {
        match self {
            Scope::ProductsRead => {
                "See products, variants, collections, product types, price lists and discounts"
            }
            Scope::ProductsWrite => {
                "Change products, variants, collections, product types, price lists and discounts"
            }
            Scope::OrdersRead => "See orders, their documents, tracking and subscription purchases",
            Scope::OrdersWrite => {
                "Change orders, their documents, tracking and subscription purchases"
            }
            Scope::CustomersRead => "See customers and their wallets",
            Scope::CustomersWrite => "Change customers and their wallets",
            Scope::ShopsRead => {
                "See shop settings, admins, shipping, payment methods and exchange rates"
            }
            Scope::ShopsWrite => {
                "Change shop settings, admins, shipping, payment methods and exchange rates"
            }
            Scope::HubRead => "See webhooks and storefront content",
            Scope::HubWrite => "Manage webhooks and storefront content",
            Scope::StoreRead => "See storefront themes and assets",
            Scope::StoreWrite => "Change storefront themes and assets",
            Scope::SellersRead => "See the account's sellers",
            Scope::BatchesRead => "See batch jobs",
            Scope::BatchesWrite => "Run batch jobs",
            Scope::Admin => {
                "Everything your role allows, except managing your access tokens and apps"
            }
            Scope::Public => "See the public catalog",
            Scope::CredentialsRead => "See your personal access tokens and the account's apps",
            Scope::CredentialsWrite => {
                "Create and revoke your personal access tokens and register apps for the account"
            }
        }
    }

    /// Whether the scope manages credentials, which `admin` never implies.
    pub const fn is_credentials(self) -> bool {
        matches!(self, Scope::CredentialsRead | Scope::CredentialsWrite)
    }

    const fn bit(self) -> u32 {
        1 << self as u8
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown scope `{0}`")]
pub struct UnknownScope(pub String);

/// A set of scopes. Displays comma-separated in canonical order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ScopeSet(u32);

impl ScopeSet {
    pub const EMPTY: ScopeSet = ScopeSet(0);

    /// `credentials.read` and `credentials.write`: granted only where named.
    pub const CREDENTIALS: ScopeSet =
        ScopeSet(Scope::CredentialsRead.bit() | Scope::CredentialsWrite.bit());

    /// Every scope, the credentials scopes included.
    pub fn all() -> Self {
        Scope::ALL.iter().copied().collect()
    }

    /// Every area scope: all but the meta scopes `admin` and `public` and the credentials
    /// scopes.
    pub fn all_area_scopes() -> Self {
        Self::admin_grants()
            .without(Scope::Admin)
            .without(Scope::Public)
    }

    /// What `admin` stands for: every scope but the credentials scopes.
    pub fn admin_grants() -> Self {
        Self::all().difference(Self::CREDENTIALS)
    }

    /// Parses scopes separated by commas and/or whitespace; empty input is the empty set.
    pub fn parse(input: &str) -> Result<Self, UnknownScope> {
        input
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty())
            .map(Scope::from_str)
            .collect()
    }

    pub fn contains(self, scope: Scope) -> bool {
        self.0 & scope.bit() != 0
    }

    pub fn with(self, scope: Scope) -> Self {
        Self(self.0 | scope.bit())
    }

    pub fn without(self, scope: Scope) -> Self {
        Self(self.0 & !scope.bit())
    }

    pub fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    pub fn intersection(self, other: Self) -> Self {
        Self(self.0 & other.0)
    }

    pub fn difference(self, other: Self) -> Self {
        Self(self.0 & !other.0)
    }

    pub fn intersects(self, other: Self) -> bool {
        self.0 & other.0 != 0
    }

    pub fn is_subset_of(self, other: Self) -> bool {
        self.0 & !other.0 == 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn iter(self) -> impl Iterator<Item = Scope> {
        Scope::ALL
            .iter()
            .copied()
            .filter(move |s| self.contains(*s))
    }

    /// Everything these scopes grant: `admin` grants every scope but the credentials
    /// scopes (which count only when named), a write scope its read.
    pub fn closure(self) -> Self {
        let named = if self.contains(Scope::Admin) {
            self.union(Self::admin_grants())
        } else {
            self
        };
        named.iter().fold(named, |acc, s| {
            s.implied_read().map_or(acc, |r| acc.with(r))
        })
    }

    /// What a token holding `self` may do when its principal may do at most `ceiling`
    /// (an explicit set, such as a role's, that is not itself expanded).
    pub fn effective(self, ceiling: Self) -> Self {
        self.closure().intersection(ceiling)
    }

    /// Whether a request for `self` stays within what `allowed` grants.
    pub fn within(self, allowed: Self) -> bool {
        self.is_subset_of(allowed.closure())
    }
}

impl TryFrom<String> for ScopeSet {
    type Error = UnknownScope;
    fn try_from(s: String) -> Result<Self, UnknownScope> {
        Self::parse(&s)
    }
}

impl FromIterator<Scope> for ScopeSet {
    fn from_iter<I: IntoIterator<Item = Scope>>(iter: I) -> Self {
        iter.into_iter().fold(Self::EMPTY, Self::with)
    }
}

impl fmt::Display for ScopeSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, scope) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            f.write_str(scope.as_str())?;
        }
        Ok(())
    }
}

impl Serialize for ScopeSet {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_commas_and_spaces_and_prints_commas_in_canonical_order() {
        let set = ScopeSet::parse("shops.write, products.read\torders.read,,").unwrap();
        assert_eq!(set.to_string(), "products.read,orders.read,shops.write");
        assert_eq!(ScopeSet::parse("").unwrap(), ScopeSet::EMPTY);
        assert_eq!(ScopeSet::parse("products.read,nope").unwrap_err().0, "nope");
    }

    #[test]
    fn write_implies_read_and_admin_implies_every_other_scope() {
        let set = ScopeSet::parse("shops.write").unwrap().closure();
        assert!(set.contains(Scope::ShopsRead));
        assert!(!set.contains(Scope::ProductsRead));
        let admin = ScopeSet::parse("admin").unwrap().closure();
        assert_eq!(admin, ScopeSet::admin_grants());
        assert!(ScopeSet::all_area_scopes().is_subset_of(admin));
        assert!(admin.contains(Scope::Public) && admin.contains(Scope::Admin));
        assert_eq!(admin.union(ScopeSet::CREDENTIALS), ScopeSet::all());
    }

    #[test]
    fn admin_never_implies_the_credentials_scopes() {
        let admin = ScopeSet::parse("admin").unwrap();
        assert!(!admin.closure().intersects(ScopeSet::CREDENTIALS));
        for scope in ScopeSet::CREDENTIALS.iter() {
            assert!(scope.is_credentials());
            assert!(!ScopeSet::EMPTY.with(scope).within(admin), "{scope}");
        }
        assert!(!ScopeSet::all_area_scopes().intersects(ScopeSet::CREDENTIALS));
        // An `admin` token of a role allowed everything still cannot manage credentials.
        assert!(
            !admin
                .effective(ScopeSet::all())
                .intersects(ScopeSet::CREDENTIALS)
        );
        assert_eq!(
            Scope::ALL.iter().filter(|s| s.is_credentials()).count(),
            2,
            "only the credentials scopes stand apart"
        );
    }

    #[test]
    fn credentials_scopes_count_when_named_and_write_implies_read() {
        let named = ScopeSet::parse("admin,credentials.write").unwrap();
        let closure = named.closure();
        assert!(closure.contains(Scope::CredentialsRead));
        assert!(closure.contains(Scope::CredentialsWrite));
        assert!(closure.contains(Scope::OrdersWrite));
        assert!(ScopeSet::parse("credentials.read").unwrap().within(named));
        let read = ScopeSet::parse("credentials.read,products.read").unwrap();
        assert!(!ScopeSet::parse("credentials.write").unwrap().within(read));
        assert_eq!(
            ScopeSet::parse("credentials.write, credentials.read")
                .unwrap()
                .to_string(),
            "credentials.read,credentials.write"
        );
    }

    #[test]
    fn effective_scopes_are_bounded_by_the_ceiling() {
        let readonly = ScopeSet::parse("products.read,shops.read").unwrap();
        let token = ScopeSet::parse("admin").unwrap();
        assert_eq!(token.effective(readonly), readonly);
        assert!(
            ScopeSet::parse("products.read")
                .unwrap()
                .within(ScopeSet::parse("products.write").unwrap())
        );
        assert!(
            !ScopeSet::parse("admin")
                .unwrap()
                .within(ScopeSet::parse("products.write").unwrap())
        );
    }
}
