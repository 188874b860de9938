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
    /// do not change shop settings; read-only users change nothing, so of the credentials
    /// scopes they hold only `credentials.read` (their credentials page still works through
    /// the signed-in session). A ceiling only bounds: the credentials scopes reach a token
    /// only where they are named.
    pub fn ceiling(self) -> ScopeSet {
        let all = ScopeSet::all();
        match self {
            Role::Owner | Role::Admin => all,
            Role::Staff => all.without(Scope::ShopsWrite),
            Role::Readonly => all.iter().filter(|s| s.implied_read().is_none()).collect(),
        }
    }
}

/// The most a token of an app acting for itself (client credentials) may do: every scope
/// but the credentials scopes, since credentials belong to users.
pub fn app_ceiling() -> ScopeSet {
    ScopeSet::all().difference(ScopeSet::CREDENTIALS)
}

/// Described as the string enum it travels as (shop admins' roles are account roles).
impl schemars::JsonSchema for Role {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Role".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<&str> = Role::ALL.iter().map(|r| r.as_str()).collect();
        schemars::json_schema!({ "type": "string", "enum": names })
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
    fn credentials_scopes_by_role() {
        for role in [Role::Owner, Role::Admin, Role::Staff] {
            assert!(
                ScopeSet::CREDENTIALS.is_subset_of(role.ceiling()),
                "{role} may hold both credentials scopes"
            );
        }
        let readonly = Role::Readonly.ceiling();
        assert!(readonly.contains(Scope::CredentialsRead));
        assert!(!readonly.contains(Scope::CredentialsWrite));
        // Within a ceiling, `admin` still brings no credentials scope.
        for role in Role::ALL {
            let admin = ScopeSet::parse("admin").unwrap().effective(role.ceiling());
            assert!(!admin.intersects(ScopeSet::CREDENTIALS), "{role}");
        }
        let named = ScopeSet::parse("admin,credentials.write").unwrap();
        assert_eq!(
            named
                .effective(Role::Readonly.ceiling())
                .intersection(ScopeSet::CREDENTIALS),
            ScopeSet::EMPTY.with(Scope::CredentialsRead),
            "a read-only user's token reads its credentials at most"
        );
    }

    #[test]
    fn apps_acting_for_themselves_hold_no_credentials_scope() {
        assert!(!app_ceiling().intersects(ScopeSet::CREDENTIALS));
        assert!(ScopeSet::all_area_scopes().is_subset_of(app_ceiling()));
        assert!(app_ceiling().contains(Scope::Admin) && app_ceiling().contains(Scope::Public));
    }

    #[test]
    fn staff_cannot_change_shop_settings() {
        assert!(!Role::Staff.ceiling().contains(Scope::ShopsWrite));
        assert!(Role::Staff.ceiling().contains(Scope::ProductsWrite));
        assert_eq!("staff".parse::<Role>().unwrap(), Role::Staff);
        assert!("root".parse::<Role>().is_err());
    }
}
