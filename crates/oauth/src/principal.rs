//! The principal a verified token speaks for.

use domain::{Role, Scope, ScopeSet, Timestamp};
use storage::Tenant;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    /// A person signed in through the password, code or implicit grant, or a personal token.
    User { id: i64, role: Role },
    /// An app acting for itself (client credentials).
    App,
    /// A shop's customer signed in through a storefront app (a customer session). Such a
    /// token holds no scope: it reaches only the customer's own profile, addresses and
    /// orders, through the routes made for them.
    Customer { id: i64 },
}

impl Subject {
    /// The most a token of this subject may do, whatever it was granted: the user's role's
    /// ceiling, or, for an app acting for itself, everything but the credentials scopes.
    pub fn ceiling(&self) -> ScopeSet {
        match self {
            Subject::User { role, .. } => role.ceiling(),
            Subject::App => domain::role::app_ceiling(),
            Subject::Customer { .. } => ScopeSet::EMPTY,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Principal {
    pub subject: Subject,
    pub user_name: Option<String>,
    pub app_id: i64,
    pub client_id: String,
    pub account_id: Option<i64>,
    pub seller_id: Option<i64>,
    /// The scopes as granted (what the token shows).
    pub granted: ScopeSet,
    /// What the token may actually do: the grant expanded and bounded by the user's role.
    pub scopes: ScopeSet,
    pub token_id: String,
    /// `None` for personal tokens that never expire.
    pub expires_at: Option<Timestamp>,
    /// A personal access token (its uses are recorded).
    pub personal: bool,
}

impl Principal {
    pub fn has(&self, scope: Scope) -> bool {
        self.scopes.contains(scope)
    }

    /// The data this principal may see; `None` for tokens bound to no account, and for
    /// customers, who see only their own (`customer`).
    pub fn tenant(&self) -> Option<Tenant> {
        if matches!(self.subject, Subject::Customer { .. }) {
            return None;
        }
        self.account_id.map(|account_id| Tenant {
            account_id,
            seller_id: self.seller_id,
        })
    }

    /// The signed-in customer a customer session's token speaks for.
    pub fn customer(&self) -> Option<SignedInCustomer> {
        match (self.subject.clone(), self.account_id, self.seller_id) {
            (Subject::Customer { id }, Some(account_id), Some(seller_id)) => {
                Some(SignedInCustomer {
                    id,
                    tenant: Tenant {
                        account_id,
                        seller_id: Some(seller_id),
                    },
                })
            }
            _ => None,
        }
    }

    pub fn user_id(&self) -> Option<i64> {
        match self.subject {
            Subject::User { id, .. } => Some(id),
            Subject::App | Subject::Customer { .. } => None,
        }
    }

    pub fn role(&self) -> Option<Role> {
        match self.subject {
            Subject::User { role, .. } => Some(role),
            Subject::App | Subject::Customer { .. } => None,
        }
    }

    /// Identifies the credential holder across tokens (a user through an app, or an app),
    /// for per-caller state such as idempotency keys.
    pub fn caller_key(&self) -> String {
        match self.subject {
            Subject::User { id, .. } => format!("user:{id}/app:{}", self.app_id),
            Subject::App => format!("app:{}", self.app_id),
            Subject::Customer { id } => format!("customer:{id}/app:{}", self.app_id),
        }
    }
}

/// A customer signed in: who, and the seller's data they belong to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignedInCustomer {
    pub id: i64,
    /// The customer's account and seller.
    pub tenant: Tenant,
}
