//! Customer passwords set through a reset: asked for by email at a shop (answered alike
//! whether or not the email is a customer's), mailed as a single-use token kept only as a
//! digest, and completed with a new password, which ends the customer's sessions.

use domain::customer::CustomerStatus;
use domain::{FieldErrors, Timestamp};
use storage::customer_password_resets::{self as resets, NewReset};
use storage::customers as stored;
use storage::mail_outbox::{self, NewMail};
use storage::secret_box::SecretBox;
use storage::secrets;
use storage::shops::Shop;
use storage::{ScopedExt, Tenant};

use super::input::checked_password;
use super::{Hasher, PasswordHash, hash_given, record, reload};
use crate::{Actor, Op, ServiceResult, Services};

/// How long a reset token holds.
pub const RESET_LIFETIME_SECS: i64 = 60 * 60;

/// What a mail of this kind is recorded as.
pub const PURPOSE: &str = "customer_password_reset";

/// Asks for a reset of the password of the shop's seller's customer with this email: when
/// there is one who may sign in and has an email, a token is kept (as its digest) and
/// mailed to them, in one transaction. Nothing is told of whether there was.
pub async fn request_reset(
    services: &Services,
    secret_box: &SecretBox,
    shop: &Shop,
    email: &str,
) -> ServiceResult<()> {
    let now = services.now();
    let (shop, email) = (shop, email.trim());
    services
        .write(|tx| {
            async move {
                let Some(customer) = stored::find_by_email(tx, shop.seller_id, email).await? else {
                    return Ok(());
                };
                let Some(to) = customer
                    .email
                    .as_deref()
                    .filter(|_| customer.status.may_sign_in())
                else {
                    return Ok(());
                };
                let token = secrets::random_token(32);
                let expires_on = now.plus_secs(RESET_LIFETIME_SECS);
                resets::insert(
                    tx,
                    &NewReset {
                        digest: &secrets::sha256(token.as_bytes()),
                        customer_id: customer.id,
                        account_id: customer.account_id,
                        expires_on,
                    },
                    now,
                )
                .await?;
                let text = reset_mail(shop, &token, expires_on);
                let mail = NewMail {
                    account_id: Some(customer.account_id),
                    purpose: PURPOSE,
                    to,
                    subject: &format!("Reset your password at {}", shop.name),
                    text: &text,
                };
                mail_outbox::enqueue(tx, secret_box, &mail, now).await?;
                Ok(())
            }
            .scoped()
        })
        .await
}

/// The mail's text: the token, what it is for, and until when.
fn reset_mail(shop: &Shop, token: &str, expires_on: Timestamp) -> String {
    format!(
        "Someone asked to reset the password of your account at {name}.\n\n\
         To choose a new password, enter this code where you asked for it:\n\n\
         {token}\n\n\
         It works once, until {expires} (UTC). If you did not ask for it, ignore this \
         message: your password stays as it is.\n",
        name = shop.name,
        expires = expires_on.to_rfc3339(),
    )
}

/// Sets a new password with a reset token given at the shop: the token must be unused,
/// unexpired and a customer's of the shop's seller. An invited customer becomes active;
/// every other token of theirs is voided and every session ended. A bad password and a
/// bad token are named together; the token is used only when the password is set.
pub async fn complete_reset(
    services: &Services,
    actor: &Actor,
    shop: &Shop,
    token: &str,
    password: String,
    hasher: Hasher,
) -> ServiceResult<()> {
    let mut found = FieldErrors::new();
    let checked = checked_password(Some(password), &mut found);
    let password = hash_given(checked, hasher).await;
    let op = Op::new(services, actor);
    let now = op.now;
    let digest = secrets::sha256(token.trim().as_bytes());
    let (shop, digest, password, found) = (shop, &digest, &password, &found);
    services
        .write(|tx| {
            async move {
                let mut errors = found.clone();
                let tenant = Tenant {
                    account_id: shop.account_id,
                    seller_id: Some(shop.seller_id),
                };
                let customer = match resets::take(tx, digest, now).await? {
                    Some(id) => stored::find_for_update(tx, tenant, id)
                        .await?
                        .filter(|c| c.status.may_sign_in()),
                    None => None,
                };
                if customer.is_none() {
                    errors.add(
                        "reset_token",
                        "is not a valid reset token (unknown, used or expired)",
                    );
                }
                // Both are there exactly when no problem was found.
                let (Some(customer), Some(PasswordHash(hash))) = (customer, password) else {
                    return Err(errors.into());
                };
                stored::set_password(tx, customer.id, Some(hash)).await?;
                if customer.status == CustomerStatus::Invited {
                    let mut data = customer.data();
                    data.status = Some(CustomerStatus::Active);
                    stored::update(tx, &customer, &data, now).await?;
                    let full = reload(tx, tenant, customer.id).await?;
                    record(tx, op, domain::topic::CUSTOMERS_UPDATED, &full).await?;
                }
                resets::void_all(tx, customer.id, now).await?;
                storage::tokens::revoke_customer(tx, customer.id, None, now).await?;
                Ok(())
            }
            .scoped()
        })
        .await
}
