//! Shop admins: the people who manage a shop, each with a role (`domain::Role`, the same
//! vocabulary as account roles), and the roster's rules that need no database.

use crate::Role;
use crate::text_enum;

text_enum! {
    /// Where an admin stands: invited (a new user who has not set a password yet) until
    /// they accept, then active.
    pub enum AdminStatus {
        Invited => "invited",
        Active => "active",
    }
}

impl AdminStatus {
    /// The status of a roster row accepted (or not) yet.
    pub const fn of(accepted: bool) -> Self {
        if accepted {
            AdminStatus::Active
        } else {
            AdminStatus::Invited
        }
    }
}

/// How long an invitation's code can be used: a week, as platforms' staff invitations.
pub const INVITATION_LIFETIME_SECS: i64 = 7 * 86_400;

/// The account role of a user a shop invitation brings into the account: the shop role,
/// except that an invitation never makes anyone an owner of the whole account.
pub const fn account_role_of_invitee(shop_role: Role) -> Role {
    match shop_role {
        Role::Owner => Role::Admin,
        other => other,
    }
}

/// Whether a user may change a shop's settings and roster: an owner of the account, or an
/// active owner or admin of the shop. `shop_role` is the user's row on the shop's roster
/// and whether it was accepted.
pub const fn may_manage(account_role: Role, shop_role: Option<(Role, bool)>) -> bool {
    matches!(account_role, Role::Owner)
        || matches!(shop_role, Some((Role::Owner | Role::Admin, true)))
}

/// Whether a user may make or unmake the shop's owners (grant the owner role, or change or
/// remove an owner's row): an owner of the account, or an active owner of the shop. A
/// shop admin manages everyone else but cannot take over the shop.
pub const fn may_manage_owners(account_role: Role, shop_role: Option<(Role, bool)>) -> bool {
    matches!(account_role, Role::Owner) || matches!(shop_role, Some((Role::Owner, true)))
}

/// Whether changing an admin (an active owner or not, `role` before) to `next` (`None`:
/// removing them) keeps at least one active owner on a shop that has `active_owners`.
/// Only active owners count: an invitation nobody accepted manages nothing.
pub const fn keeps_an_owner(
    active_owners: i64,
    role: Role,
    accepted: bool,
    next: Option<Role>,
) -> bool {
    let loses_one = matches!(role, Role::Owner) && accepted && !matches!(next, Some(Role::Owner));
    !loses_one || active_owners > 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invitation_never_grants_account_ownership() {
        assert_eq!(account_role_of_invitee(Role::Owner), Role::Admin);
        for role in [Role::Admin, Role::Staff, Role::Readonly] {
            assert_eq!(account_role_of_invitee(role), role);
        }
    }

    #[test]
    fn managers_are_account_owners_and_active_shop_owners_or_admins() {
        assert!(may_manage(Role::Owner, None));
        assert!(may_manage(Role::Staff, Some((Role::Admin, true))));
        assert!(may_manage(Role::Admin, Some((Role::Owner, true))));
        assert!(!may_manage(Role::Admin, None));
        assert!(!may_manage(Role::Admin, Some((Role::Owner, false))));
        assert!(!may_manage(Role::Admin, Some((Role::Staff, true))));
        assert!(!may_manage(Role::Admin, Some((Role::Readonly, true))));
        assert!(may_manage_owners(Role::Owner, None));
        assert!(may_manage_owners(Role::Staff, Some((Role::Owner, true))));
        assert!(!may_manage_owners(Role::Admin, Some((Role::Admin, true))));
        assert!(!may_manage_owners(Role::Admin, Some((Role::Owner, false))));
    }

    #[test]
    fn the_last_active_owner_stays() {
        assert!(!keeps_an_owner(1, Role::Owner, true, Some(Role::Admin)));
        assert!(!keeps_an_owner(1, Role::Owner, true, None));
        assert!(keeps_an_owner(1, Role::Owner, true, Some(Role::Owner)));
        assert!(keeps_an_owner(2, Role::Owner, true, None));
        // A pending owner, or anyone else, goes freely.
        assert!(keeps_an_owner(1, Role::Owner, false, None));
        assert!(keeps_an_owner(1, Role::Admin, true, None));
        assert!(keeps_an_owner(0, Role::Staff, true, Some(Role::Readonly)));
    }

    #[test]
    fn status_follows_acceptance() {
        assert_eq!(AdminStatus::of(true), AdminStatus::Active);
        assert_eq!(AdminStatus::of(false).as_str(), "invited");
    }
}
