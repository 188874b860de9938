//! Shop admins: a shop's roster of the account's users, each with a role (owner, admin,
//! staff, readonly). Inviting an address adds its user at once when they are already a
//! user of the account, or makes a new user and mails them an invitation
//! (`invitations`); roles change and admins leave, but a shop always keeps an active
//! owner.
//!
//! The roster decides who manages a shop: [`require_manager`] is the one check every write
//! to a shop's settings (its settings, its admins, and the areas that belong to the shop)
//! makes for a user. Apps acting for themselves and the service itself are not people on a
//! roster and pass.
//!
//! Roster writes hold the shop's row (level 3 of `storage::locks`) before they read the
//! roster, so that two writes cannot both see the other owner and both leave.

pub mod input;
pub mod invitations;

use domain::shop_admin::{self, keeps_an_owner};
use domain::{Role, ScopeSet, topic};
use serde_json::Value;
use storage::shop_admins::{self as stored, NewShopAdmin, ShopAdmin};
use storage::shops::{self, Shop};
use storage::{ScopedExt, Tx, UniqueIndex, users};

use self::input::{AdminChanges, Invitee, NewAdmin};
use self::invitations::InvitationMail;
use crate::events::Change;
use crate::{Actor, Op, Precondition, ServiceError, ServiceResult, Services, Shown, Who};

/// How an admin looks to a reader with `viewer`'s scopes (its GET).
pub trait Present {
    fn shop_admin(&self, viewer: ScopeSet, admin: &ShopAdmin) -> Value;
}

/// Why a user may not change a shop (403 `role_forbidden`).
const NOT_A_MANAGER: &str =
    "only the account's owners and the shop's owners and admins may change the shop";
/// Why a shop admin may not make or unmake owners.
const NOT_AN_OWNER: &str =
    "only the account's owners and the shop's owners may make or unmake the shop's owners";
/// An address that cannot join this shop's roster (another account's user). Addresses are
/// unique across the service, so the refusal necessarily tells that the address is taken,
/// as any sign-up form would; it never tells by whom (no account, name or id), it is the
/// same words whatever the reason, and only those who manage a shop get as far as asking.
pub const CANNOT_INVITE: &str = "belongs to a user who cannot be invited";
/// A user already on the roster (invited or active): a 422 on `email`, the field the client
/// fixes, as a taken unique value is everywhere; to mail a pending admin a fresh link, remove
/// and invite them again.
const ALREADY_ADMIN: &str = "is already an admin of this shop";
/// Demoting or removing the last active owner: a 422 on `role` for both (the role is what
/// would be lost; no 409 code of the kernel means "not in this state").
const LAST_OWNER: &str = "the shop's last active owner cannot be demoted or removed; make \
     another admin an owner first";

/// Where a user stands: their account role and their row on the shop's roster (role,
/// accepted). `None` for an actor that is no person on a roster (an app, the service).
struct Standing {
    account_role: Role,
    shop_role: Option<(Role, bool)>,
}

async fn standing(tx: &mut Tx, actor: &Actor, shop_id: i64) -> ServiceResult<Option<Standing>> {
    match actor.who {
        Who::User { id, .. } => {
            let user = users::find(&mut *tx, id)
                .await?
                .filter(|u| u.account_id == actor.tenant.account_id)
                .ok_or(ServiceError::Forbidden(NOT_A_MANAGER))?;
            let shop_role = stored::role_of(tx, shop_id, id).await?;
            Ok(Some(Standing {
                account_role: user.role,
                shop_role,
            }))
        }
        Who::App { .. } | Who::System { .. } => Ok(None),
        Who::Customer { .. } => Err(ServiceError::Forbidden(NOT_A_MANAGER)),
    }
}

/// The check every write to a shop's settings makes, in its transaction: a user passes
/// when they own the account or are an active owner or admin of the shop; an app acting
/// for itself and the service itself pass. Otherwise `ServiceError::Forbidden` (403
/// `role_forbidden`). Call it holding the shop's row (level 3: `managed_shop` takes it), so
/// that no roster change slips between the check and the write. The shop is the caller's
/// to have found within the actor's tenant (another account's shop is not found, 404,
/// before anyone is refused).
pub async fn require_manager(tx: &mut Tx, actor: &Actor, shop_id: i64) -> ServiceResult<()> {
    match standing(tx, actor, shop_id).await? {
        Some(s) if !shop_admin::may_manage(s.account_role, s.shop_role) => {
            Err(ServiceError::Forbidden(NOT_A_MANAGER))
        }
        _ => Ok(()),
    }
}

/// The actor's shop with this id, held (level 3) for a write to its settings, once the
/// actor is found to manage it ([`require_manager`]): what a write of another area that
/// belongs to a shop (its payment methods, shipping tables, …) opens with. 404 when the
/// tenant has no such shop, 403 when the actor does not manage it.
pub async fn managed_shop(tx: &mut Tx, actor: &Actor, shop_id: i64) -> ServiceResult<Shop> {
    let shop = shops::find_for_roster(tx, actor.tenant, shop_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    require_manager(tx, actor, shop.id).await?;
    Ok(shop)
}

/// Refuses a shop admin who would make or unmake an owner (only the account's owners and
/// the shop's active owners may).
async fn require_owner_manager(tx: &mut Tx, actor: &Actor, shop_id: i64) -> ServiceResult<()> {
    match standing(tx, actor, shop_id).await? {
        Some(s) if !shop_admin::may_manage_owners(s.account_role, s.shop_role) => {
            Err(ServiceError::Forbidden(NOT_AN_OWNER))
        }
        _ => Ok(()),
    }
}

/// Makes a new shop's first owners, in its creation's transaction: the user who made it,
/// or, when an app or the service made it, the account's owner users.
pub(crate) async fn add_first_owners(tx: &mut Tx, op: Op<'_>, shop: &Shop) -> ServiceResult<()> {
    let ids = match op.actor.who {
        Who::User { id, .. } => {
            let admin = NewShopAdmin {
                account_id: shop.account_id,
                shop_id: shop.id,
                user_id: id,
                role: Role::Owner,
                accepted: true,
            };
            vec![stored::insert(tx, &admin, op.now).await?]
        }
        _ => stored::add_account_owners(tx, shop.id, op.now).await?,
    };
    for admin in stored::by_ids(storage::Exec::Tx(tx), &ids).await? {
        record(tx, op, topic::SHOP_ADMINS_CREATED, shop, &admin).await?;
    }
    Ok(())
}

/// Adds someone to the shop's roster by email: a user of the account at once (invited
/// still, with a fresh invitation mailed, if they have not accepted an earlier one); an
/// address no user has becomes a new user of the account, invited by mail. An address of
/// another account's user is refused exactly as any address that cannot be invited.
pub async fn invite(
    services: &Services,
    actor: &Actor,
    shop_id: i64,
    input: NewAdmin,
    mail: &InvitationMail<'_>,
) -> ServiceResult<Shown<ShopAdmin>> {
    let invitee = input.validate()?;
    let op = Op::new(services, actor);
    let invitee = &invitee;
    services
        .write(|tx| {
            async move {
                let shop = managed_shop(tx, op.actor, shop_id).await?;
                if invitee.role == Role::Owner {
                    require_owner_manager(tx, op.actor, shop.id).await?;
                }
                let user = match users::find_by_email(&mut *tx, &invitee.email).await? {
                    Some(user) if user.account_id != shop.account_id => {
                        return Err(ServiceError::invalid_field("email", CANNOT_INVITE));
                    }
                    Some(user) => user,
                    None => new_user(tx, op, &shop, invitee).await?,
                };
                if stored::role_of(tx, shop.id, user.id).await?.is_some() {
                    return Err(ServiceError::invalid_field("email", ALREADY_ADMIN));
                }
                let invited = !user.has_password();
                let row = NewShopAdmin {
                    account_id: shop.account_id,
                    shop_id: shop.id,
                    user_id: user.id,
                    role: invitee.role,
                    accepted: !invited,
                };
                let id = stored::insert(tx, &row, op.now).await?;
                if invited {
                    invitations::send(tx, op, mail, &shop, &user, invitee.role).await?;
                }
                let admin = reload(tx, &shop, id).await?;
                let shown = record(tx, op, topic::SHOP_ADMINS_CREATED, &shop, &admin).await?;
                Ok(Shown::new(admin, shown))
            }
            .scoped()
        })
        .await
}

/// A new user of the shop's account for an invited address: no password until they
/// accept, and the shop role as their account role, but never the account's ownership.
async fn new_user(
    tx: &mut Tx,
    op: Op<'_>,
    shop: &Shop,
    invitee: &Invitee,
) -> ServiceResult<users::User> {
    let user = users::NewUser {
        account_id: shop.account_id,
        email: &invitee.email,
        name: invitee.new_user_name(),
        password_hash: users::NO_PASSWORD,
        role: shop_admin::account_role_of_invitee(invitee.role),
    };
    // Another account's user may take the address meanwhile: run again to find them.
    users::insert(tx, &user, op.now)
        .await
        .map_err(|e| ServiceError::from(e).derived(UniqueIndex::UsersEmail))
}

/// Changes an admin's role. The shop's last active owner keeps theirs (422 on `role`);
/// only owners make or unmake owners.
pub async fn update(
    services: &Services,
    actor: &Actor,
    shop_id: i64,
    id: i64,
    expect: &dyn Precondition,
    changes: AdminChanges,
) -> ServiceResult<Shown<ShopAdmin>> {
    let role = changes.validate()?;
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                let (shop, current) = locked(tx, op, shop_id, id, expect).await?;
                let Some(role) = role.filter(|r| *r != current.role) else {
                    let shown = show(op, &current);
                    return Ok(Shown::new(current, shown));
                };
                leaving_owner(tx, op, &shop, &current, Some(role)).await?;
                if role == Role::Owner {
                    require_owner_manager(tx, op.actor, shop.id).await?;
                }
                stored::set_role(tx, current.id, role, op.now).await?;
                let admin = reload(tx, &shop, current.id).await?;
                let shown = record(tx, op, topic::SHOP_ADMINS_UPDATED, &shop, &admin).await?;
                Ok(Shown::new(admin, shown))
            }
            .scoped()
        })
        .await
}

/// Takes an admin off the roster; their user stays in the account. The shop's last active
/// owner stays (422 on `role`). A user whose last invitation this was can no longer accept
/// it: their codes are voided.
pub async fn delete(
    services: &Services,
    actor: &Actor,
    shop_id: i64,
    id: i64,
    expect: &dyn Precondition,
) -> ServiceResult<Shown<ShopAdmin>> {
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                let (shop, current) = locked(tx, op, shop_id, id, expect).await?;
                leaving_owner(tx, op, &shop, &current, None).await?;
                // The codes before the row, as accepting takes them (no deadlock).
                if !current.is_accepted()
                    && !stored::has_other_pending(tx, current.user_id, current.id).await?
                {
                    invitations::withdraw(tx, current.user_id, op.now).await?;
                }
                stored::delete(tx, current.id).await?;
                let shown = record(tx, op, topic::SHOP_ADMINS_DELETED, &shop, &current).await?;
                Ok(Shown::new(current, shown))
            }
            .scoped()
        })
        .await
}

/// The managed shop (held) and its admin with this id, as the caller expects it.
async fn locked(
    tx: &mut Tx,
    op: Op<'_>,
    shop_id: i64,
    id: i64,
    expect: &dyn Precondition,
) -> ServiceResult<(Shop, ShopAdmin)> {
    let shop = managed_shop(tx, op.actor, shop_id).await?;
    let current = stored::find(&mut *tx, shop.account_id, shop.id, id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    expect.check(&|| show(op, &current), current.updated_on)?;
    Ok((shop, current))
}

/// Checks a change of an owner's row (`next`: the new role, `None`: removal): only owners
/// may make it, and the shop keeps an active owner.
async fn leaving_owner(
    tx: &mut Tx,
    op: Op<'_>,
    shop: &Shop,
    current: &ShopAdmin,
    next: Option<Role>,
) -> ServiceResult<()> {
    if current.role != Role::Owner {
        return Ok(());
    }
    require_owner_manager(tx, op.actor, shop.id).await?;
    let owners = if current.is_accepted() {
        stored::active_owners(tx, shop.id).await?
    } else {
        0
    };
    if keeps_an_owner(owners, current.role, current.is_accepted(), next) {
        Ok(())
    } else {
        Err(ServiceError::invalid_field("role", LAST_OWNER))
    }
}

async fn reload(tx: &mut Tx, shop: &Shop, id: i64) -> ServiceResult<ShopAdmin> {
    stored::find(&mut *tx, shop.account_id, shop.id, id)
        .await?
        .ok_or_else(|| ServiceError::internal("a shop admin just written is gone"))
}

/// The admin as a GET by the actor shows it.
fn show(op: Op<'_>, admin: &ShopAdmin) -> Value {
    op.present().shop_admin(op.actor.scopes, admin)
}

/// Records a change of the roster with the admin as a GET by the actor shows it (heard by
/// the shop's subscriptions); returns that document.
async fn record(
    tx: &mut Tx,
    op: Op<'_>,
    topic: &'static str,
    shop: &Shop,
    admin: &ShopAdmin,
) -> ServiceResult<Value> {
    let doc = show(op, admin);
    op.record(tx, change(topic, shop, admin, &doc)).await?;
    Ok(doc)
}

fn change<'a>(
    topic: &'static str,
    shop: &'a Shop,
    admin: &ShopAdmin,
    doc: &'a Value,
) -> Change<'a> {
    Change::in_shop(topic, shop, "shop_admin", admin.id, None, doc)
}
