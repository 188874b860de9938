//! What a client may send to invite a shop admin or change one's role, and the checks that
//! need no database.

use domain::validation::{self, FieldErrors};
use domain::{Patch, Role};
use schemars::JsonSchema;
use serde::Deserialize;

/// Longest name a new user may be given.
const NAME_MAX: usize = 200;

/// An invitation: a user of the account, or a new one, by email.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NewAdmin {
    /// A user of the account (added at once) or a new address (invited by mail).
    email: String,
    #[schemars(with = "Role")]
    role: String,
    /// The name of a new user (by default the address's local part); an existing user
    /// keeps theirs.
    #[serde(default)]
    name: Option<String>,
}

/// A checked invitation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invitee {
    /// Trimmed and lower-cased, as users' addresses are stored.
    pub email: String,
    pub role: Role,
    pub name: Option<String>,
}

impl Invitee {
    /// The name a new user is given: the one sent, or the address's local part.
    pub fn new_user_name(&self) -> &str {
        self.name
            .as_deref()
            .unwrap_or_else(|| self.email.split('@').next().unwrap_or(&self.email))
    }
}

impl NewAdmin {
    /// The invitation, or every problem found.
    pub fn validate(self) -> Result<Invitee, FieldErrors> {
        let mut errors = FieldErrors::new();
        let email = storage::users::normalize_email(&self.email);
        errors.check("email", validation::email(&email));
        let role = parse_role(&self.role, &mut errors);
        let name = self
            .name
            .map(|n| n.trim().to_owned())
            .filter(|n| !n.is_empty());
        if let Some(name) = &name {
            errors.check("name", validation::text(name, NAME_MAX));
        }
        errors.into_result()?;
        Ok(Invitee {
            email,
            role: role.expect("a role when no problem was found"),
            name,
        })
    }
}

/// A change of an admin's role (the only thing about an admin that is the shop's: their
/// email and name are the user's own).
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct AdminChanges {
    #[serde(default)]
    #[schemars(with = "Patch<Role>")]
    role: Patch<String>,
}

impl AdminChanges {
    /// The new role (`None`: none asked for), or the problem with it.
    pub fn validate(self) -> Result<Option<Role>, FieldErrors> {
        let mut errors = FieldErrors::new();
        let role = match self.role {
            Patch::Absent => None,
            Patch::Null => {
                errors.add("role", "can't be null");
                None
            }
            Patch::Value(role) => parse_role(&role, &mut errors),
        };
        errors.into_result().map(|()| role)
    }
}

fn parse_role(value: &str, errors: &mut FieldErrors) -> Option<Role> {
    match value.parse::<Role>() {
        Ok(role) => Some(role),
        Err(_) => {
            errors.add("role", "must be one of: owner, admin, staff, readonly");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn new_admin(body: serde_json::Value) -> NewAdmin {
        serde_json::from_value(body).unwrap()
    }

    #[test]
    fn an_invitation_names_every_bad_field() {
        let errors = new_admin(json!({"email": "nope", "role": "root", "name": " "}))
            .validate()
            .unwrap_err();
        let fields: Vec<&str> = errors.errors().iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["email", "role"]);
        let long = "x".repeat(NAME_MAX + 1);
        let errors = new_admin(json!({"email": "a@b.co", "role": "staff", "name": long}))
            .validate()
            .unwrap_err();
        assert!(errors.has("name"));
    }

    #[test]
    fn an_invitation_is_normalised() {
        let invitee = new_admin(json!({"email": " Ada@Example.COM ", "role": "owner"}))
            .validate()
            .unwrap();
        assert_eq!(invitee.email, "ada@example.com");
        assert_eq!(invitee.role, Role::Owner);
        assert_eq!(invitee.new_user_name(), "ada");
    }

    #[test]
    fn a_change_takes_a_role_or_nothing() {
        let change = |body| {
            serde_json::from_value::<AdminChanges>(body)
                .unwrap()
                .validate()
        };
        assert_eq!(change(json!({})), Ok(None));
        assert_eq!(change(json!({"role": "admin"})), Ok(Some(Role::Admin)));
        assert!(change(json!({"role": null})).unwrap_err().has("role"));
        assert!(change(json!({"role": "boss"})).unwrap_err().has("role"));
    }
}
