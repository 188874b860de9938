//! The roles of account users and the scopes each role may hold.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::scope::{Scope, ScopeSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Owner,
    Admin,
    Staff,
    Readonly,
}

impl Role {
    pub const ALL: [Role; 4] = [Role::Owner, Role::Admin, Role::Staff, Role::Readonly];

    pub const fn as_str(self) -> &'static str {
        match self {
            Role::Owner => "owner",
            Role::Admin => "admin",
            Role::Staff => "staff",
            Role::Readonly => "readonly",
        }
    }

    /// The most a token of a user with this role may do. Staff run the shop day to day but
    /// do not change shop settings; read-only users change nothing.
    pub fn ceiling(self) -> ScopeSet {
        let all = ScopeSet::all();
        match self {
            Role::Owner | Role::Admin => all,
            Role::Staff => all.without(Scope::ShopsWrite),
            Role::Readonly => all.iter().filter(|s| s.implied_read().is_none()).collect(),
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown role `{0}` (expected owner, admin, staff or readonly)")]
pub struct UnknownRole(pub String);

impl FromStr for Role {
    type Err = UnknownRole;
    fn from_str(s: &str) -> Result<Self, UnknownRole> {
        Role::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| UnknownRole(s.to_owned()))
    }
}

impl TryFrom<String> for Role {
    type Error = UnknownRole;
    fn try_from(s: String) -> Result<Self, UnknownRole> {
        s.parse()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readonly_holds_no_write_scope() {
        let ceiling = Role::Readonly.ceiling();
        assert!(ceiling.contains(Scope::ProductsRead));
        assert!(ceiling.iter().all(|s| s.implied_read().is_none()));
        let admin_token = ScopeSet::parse("admin").unwrap().effective(ceiling);
        assert!(!admin_token.contains(Scope::ShopsWrite));
    }

    #[test]
    fn staff_cannot_change_shop_settings() {
        assert!(!Role::Staff.ceiling().contains(Scope::ShopsWrite));
        assert!(Role::Staff.ceiling().contains(Scope::ProductsWrite));
        assert_eq!("staff".parse::<Role>().unwrap(), Role::Staff);
        assert!("root".parse::<Role>().is_err());
    }
}
