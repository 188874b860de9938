//! Invitations of new users to shops' rosters: a random code, kept only as its SHA-256,
//! mailed through the outbox in the inviting write's transaction as a link to the
//! authorization service's invitation page, good once for a week. Accepting it sets the
//! user's password (and name), makes every invitation of theirs active at once (each
//! recorded as `shops.admins.updated`, caused by the user), and voids their other codes.

use domain::role::app_ceiling;
use domain::shop_admin::INVITATION_LIFETIME_SECS;
use domain::{Role, Timestamp, topic};
use storage::events::Actor as EventActor;
use storage::mail_outbox::{self, NewMail};
use storage::secret_box::SecretBox;
use storage::shop_admin_invitations::{self as codes, CodeState, NewInvitation};
use storage::shop_admins as stored;
use storage::shops::{self, Shop};
use storage::users::{self, User};
use storage::{ScopedExt, Tenant, Tx, secrets};

use super::change;
use crate::{Op, ServiceError, ServiceResult, Services, events};

/// What a mail of this kind is recorded as.
pub const PURPOSE: &str = "shop_admin_invitation";

/// How an invitation is mailed: the box that seals mail at rest, and the address of the
/// invitation page (the authorization service's), to which `?code=…` is appended.
pub struct InvitationMail<'a> {
    pub secret_box: &'a SecretBox,
    pub accept_url: &'a str,
}

/// Makes a code for the user and mails it, in the inviting write's transaction.
pub(super) async fn send(
    tx: &mut Tx,
    op: Op<'_>,
    mail: &InvitationMail<'_>,
    shop: &Shop,
    user: &User,
    role: Role,
) -> ServiceResult<()> {
    let code = secrets::random_token(32);
    let expires_on = op.now.plus_secs(INVITATION_LIFETIME_SECS);
    let invitation = NewInvitation {
        digest: &secrets::sha256(code.as_bytes()),
        user_id: user.id,
        account_id: user.account_id,
        expires_on,
    };
    codes::insert(tx, &invitation, op.now).await?;
    let link = format!("{}?code={code}", mail.accept_url);
    let text = invitation_text(shop, role, &link, expires_on);
    let message = NewMail {
        account_id: Some(user.account_id),
        purpose: PURPOSE,
        to: &user.email,
        subject: &format!("You are invited to manage {}", shop.name),
        text: &text,
    };
    mail_outbox::enqueue(tx, mail.secret_box, &message, op.now).await?;
    Ok(())
}

/// The mail's text: what the invitation is, the link, and until when it works.
fn invitation_text(shop: &Shop, role: Role, link: &str, expires_on: Timestamp) -> String {
    format!(
        "You are invited to manage the shop {name} ({subdomain}) as {article} {role}.\n\n\
         To accept, open this link and choose your password:\n\n\
         {link}\n\n\
         It works once, until {expires} (UTC). If you did not expect this invitation, \
         ignore this message.\n",
        name = shop.name,
        subdomain = shop.subdomain,
        article = if role == Role::Owner || role == Role::Admin {
            "an"
        } else {
            "a"
        },
        expires = expires_on.to_rfc3339(),
    )
}

/// Voids a user's codes: nothing invites them any more.
pub(super) async fn withdraw(tx: &mut Tx, user_id: i64, now: Timestamp) -> ServiceResult<()> {
    Ok(codes::void_all(tx, user_id, now).await?)
}

/// An invitation as its page shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invitation {
    pub email: String,
    pub name: String,
    /// The names of the shops it is for.
    pub shops: Vec<String>,
}

/// What a code from an invitation link is worth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// It can be accepted.
    Open(Invitation),
    /// Used, voided or expired.
    Spent,
    /// No invitation has this code.
    Unknown,
}

/// The invitation a code opens, without using it.
pub async fn look_up(services: &Services, code: &str) -> ServiceResult<Lookup> {
    let db = services.db();
    let digest = secrets::sha256(code.as_bytes());
    let user_id = match codes::state(db, &digest, services.now()).await? {
        CodeState::Usable { user_id } => user_id,
        CodeState::Spent => return Ok(Lookup::Spent),
        CodeState::Unknown => return Ok(Lookup::Unknown),
    };
    let Some(user) = users::find(db, user_id).await? else {
        return Ok(Lookup::Unknown);
    };
    if user.has_password() {
        return Ok(Lookup::Spent);
    }
    let pending = stored::pending_of(db, user.id).await?;
    if pending.is_empty() {
        // Nothing invites them any more.
        return Ok(Lookup::Spent);
    }
    let shop_ids: Vec<i64> = pending.iter().map(|a| a.shop_id).collect();
    let shops = shops::by_ids(db, &shop_ids)
        .await?
        .into_iter()
        .map(|s| s.name)
        .collect();
    Ok(Lookup::Open(Invitation {
        email: user.email,
        name: user.name,
        shops,
    }))
}

/// Accepts the invitation a code opens: sets the user's password (an argon2id hash the
/// caller made of a password that met the rules) and their name when one is given, makes
/// every invitation of theirs active, and voids their other codes. `None` when the code
/// opens nothing (any more): nothing is written.
pub async fn accept(
    services: &Services,
    code: &str,
    name: Option<&str>,
    password_hash: &str,
) -> ServiceResult<Option<User>> {
    let now = services.now();
    let digest = secrets::sha256(code.as_bytes());
    let digest = &digest;
    services
        .write(|tx| {
            async move {
                let Some(user_id) = codes::take(tx, digest, now).await? else {
                    return Ok(None);
                };
                let user = users::find(&mut *tx, user_id)
                    .await?
                    .ok_or_else(|| ServiceError::internal("an invitation's user is gone"))?;
                if user.has_password() {
                    // Codes go only to users without one, and are voided once one is set.
                    return Err(ServiceError::internal("an invited user has a password"));
                }
                if stored::pending_of(&mut *tx, user.id).await?.is_empty() {
                    // Nothing invites them any more: the code is used up, nothing else.
                    return Ok(None);
                }
                let user = users::set_password(tx, user.id, password_hash, name, now).await?;
                let accepted = stored::accept_pending(tx, user.id, now).await?;
                record_accepted(tx, services, &user, &accepted, now).await?;
                codes::void_all(tx, user.id, now).await?;
                Ok(Some(user))
            }
            .scoped()
        })
        .await
}

/// Records each admin the user became, as an owner's GET shows it, caused by the user.
async fn record_accepted(
    tx: &mut Tx,
    services: &Services,
    user: &User,
    accepted: &[stored::ShopAdmin],
    now: Timestamp,
) -> ServiceResult<()> {
    let tenant = Tenant {
        account_id: user.account_id,
        seller_id: None,
    };
    let cause = EventActor {
        user_id: Some(user.id),
        user_name: Some(&user.name),
        app_id: None,
    };
    for admin in accepted {
        let shop = shops::find(&mut *tx, tenant, admin.shop_id)
            .await?
            .ok_or_else(|| ServiceError::internal("an admin's shop is gone"))?;
        let doc = services.present.shop_admin(app_ceiling(), admin);
        let change = change(topic::SHOP_ADMINS_UPDATED, &shop, admin, &doc);
        events::record(tx, cause, change, now).await?;
    }
    Ok(())
}
