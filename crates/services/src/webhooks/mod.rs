//! Webhook subscriptions: created (pending, with a new signing secret), changed, deleted,
//! reactivated, disabled by hand, their secret rotated; and their deliveries sent again,
//! one or a window of them. Sending is the `delivery` crate's dispatcher.

pub mod input;

use delivery::signature::WebhookSecret;
use delivery::ssrf::Guard;
use domain::ScopeSet;
use domain::webhook::{AuthType, Health, SubscriptionStatus};
use serde_json::Value;
use storage::secret_box::SecretBox;
use storage::shops::{self, Shop};
use storage::webhook_deliveries::{self, Attempt, Delivery, Replay};
use storage::webhooks::{self as stored, NewWebhook, Webhook, WebhookSettings};
use storage::{ScopedExt, Tx, tenant_rows};

use self::input::{Checked, NewSubscription, ReplayWindow, SubscriptionChanges};
use crate::{Actor, Op, Precondition, ServiceError, ServiceResult, Services};

/// How a webhook looks to a reader with `viewer`'s scopes, by id under `/webhooks` and as
/// its shop's hub shows it (their GETs, which preconditions are checked against).
pub trait Present {
    fn webhook(&self, viewer: ScopeSet, webhook: &Webhook) -> Value;

    fn subscription(&self, viewer: ScopeSet, webhook: &Webhook) -> Value;
}

/// What webhook writes take from the deployment: the targets webhooks may reach, and the
/// box their secrets and passwords are sealed in at rest.
#[derive(Clone, Copy)]
pub struct Config<'a> {
    pub guard: &'a Guard,
    pub secret_box: &'a SecretBox,
}

/// A webhook with its new signing secret, which is shown this once.
pub struct WithSecret {
    pub webhook: Webhook,
    pub secret: WebhookSecret,
}

/// A delivery with its attempts, after it was sent again.
#[derive(Debug)]
pub struct Redelivery {
    pub delivery: Delivery,
    pub attempts: Vec<Attempt>,
}

/// Subscribes the shop the input names to a topic.
pub async fn create(
    services: &Services,
    actor: &Actor,
    config: Config<'_>,
    input: NewSubscription,
) -> ServiceResult<WithSecret> {
    let shop = match input.shop_id {
        Some(id) => shops::find(services.db(), actor.tenant, id)
            .await?
            .ok_or_else(|| {
                ServiceError::invalid_field("shop_id", "is not a shop of the account")
            })?,
        None => return Err(ServiceError::invalid_field("shop_id", "can't be blank")),
    };
    insert(services, actor, config, &shop, input).await
}

/// Subscribes one of the actor's shops (none: not found) to a topic, through its hub.
pub async fn create_in_shop(
    services: &Services,
    actor: &Actor,
    config: Config<'_>,
    shop_id: i64,
    input: NewSubscription,
) -> ServiceResult<WithSecret> {
    let shop = shops::find(services.db(), actor.tenant, shop_id)
        .await?
        .ok_or(ServiceError::NotFound)?;
    insert(services, actor, config, &shop, input).await
}

/// Creates a pending subscription with a new signing secret; the dispatcher sends its
/// verification ping.
async fn insert(
    services: &Services,
    actor: &Actor,
    config: Config<'_>,
    shop: &Shop,
    input: NewSubscription,
) -> ServiceResult<WithSecret> {
    let checked = input.validate(config.guard)?;
    let secret = WebhookSecret::generate();
    let settings = settings(config.secret_box, &checked, None);
    let secret_sealed = config.secret_box.seal(secret.expose_secret().as_bytes());
    let new = NewWebhook {
        account_id: shop.account_id,
        seller_id: shop.seller_id,
        shop_id: shop.id,
        app_id: actor.app_id(),
        settings: &settings,
        secret_sealed: &secret_sealed,
    };
    let op = Op::new(services, actor);
    let new = &new;
    let webhook = services
        .write(|tx| async move { Ok(stored::insert(tx, new, op.now).await?) }.scoped())
        .await?;
    Ok(WithSecret { webhook, secret })
}

/// Settings to store: the password sealed (a new one, or the stored one kept).
fn settings(secret_box: &SecretBox, checked: &Checked, kept: Option<&Webhook>) -> WebhookSettings {
    let sealed = match (&checked.auth_password, kept) {
        (Some(password), _) => Some(secret_box.seal(password.as_bytes())),
        (None, Some(webhook)) if checked.auth_type == webhook.auth_type => {
            webhook.auth_password_sealed.clone()
        }
        _ => None,
    };
    WebhookSettings {
        topic: checked.topic.clone(),
        url: checked.url.clone(),
        notify_origin: checked.notify_origin,
        auth_type: checked.auth_type,
        auth_username: checked.auth_username.clone(),
        auth_password_sealed: sealed.filter(|_| checked.auth_type == AuthType::Basic),
        ordering: checked.ordering,
    }
}

/// Changes a webhook. A new URL must consent again: the webhook goes back to `pending`
/// and is pinged.
pub async fn update(
    services: &Services,
    actor: &Actor,
    config: Config<'_>,
    id: i64,
    expect: &dyn Precondition,
    changes: SubscriptionChanges,
) -> ServiceResult<Webhook> {
    let op = Op::new(services, actor);
    let changes = &changes;
    services
        .write(|tx| {
            async move {
                let current = locked(tx, op, id).await?;
                let shown = || op.present().webhook(op.actor.scopes, &current);
                expect.check(&shown, current.updated_on)?;
                let before = Checked {
                    topic: current.topic.clone(),
                    url: current.url.clone(),
                    notify_origin: current.notify_origin,
                    auth_type: current.auth_type,
                    auth_username: current.auth_username.clone(),
                    auth_password: None,
                    ordering: current.ordering,
                };
                let checked = changes.clone().apply(before.clone(), config.guard)?;
                if checked == before {
                    return Ok(current);
                }
                let settings = settings(config.secret_box, &checked, Some(&current));
                let mut webhook = stored::update_settings(tx, id, &settings, op.now).await?;
                if checked.url != before.url {
                    webhook = stored::await_verification(tx, id, op.now).await?;
                }
                Ok(webhook)
            }
            .scoped()
        })
        .await
}

/// Deletes a webhook with its deliveries; answers it as it was.
pub async fn remove(
    services: &Services,
    actor: &Actor,
    id: i64,
    expect: &dyn Precondition,
) -> ServiceResult<Webhook> {
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                let webhook = locked(tx, op, id).await?;
                let shown = || op.present().webhook(op.actor.scopes, &webhook);
                expect.check(&shown, webhook.updated_on)?;
                tenant_rows::delete(tx, stored::TABLE, op.actor.tenant, id).await?;
                Ok(webhook)
            }
            .scoped()
        })
        .await
}

/// As `remove`, through the hub of the webhook's shop (another shop's: not found).
pub async fn remove_from_shop(
    services: &Services,
    actor: &Actor,
    shop_id: i64,
    id: i64,
    expect: &dyn Precondition,
) -> ServiceResult<Webhook> {
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                let webhook = locked(tx, op, id).await?;
                if webhook.shop_id != shop_id {
                    return Err(ServiceError::NotFound);
                }
                let shown = || op.present().subscription(op.actor.scopes, &webhook);
                expect.check(&shown, webhook.updated_on)?;
                tenant_rows::delete(tx, stored::TABLE, op.actor.tenant, id).await?;
                Ok(webhook)
            }
            .scoped()
        })
        .await
}

/// `failed` or `disabled` → `active`, counters reset; its parked deliveries go out.
pub async fn reactivate(services: &Services, actor: &Actor, id: i64) -> ServiceResult<Webhook> {
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                let current = locked(tx, op, id).await?;
                if !current.status.can_reactivate() {
                    return Err(ServiceError::invalid_field(
                        "status",
                        format!(
                            "is {}: only failed or disabled webhooks are reactivated",
                            current.status
                        ),
                    ));
                }
                let health = current.health().reactivated();
                Ok(stored::set_health(tx, id, health, op.now).await?)
            }
            .scoped()
        })
        .await
}

/// Stops deliveries by hand (they are kept, and go out after a reactivation).
pub async fn disable(services: &Services, actor: &Actor, id: i64) -> ServiceResult<Webhook> {
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                let current = locked(tx, op, id).await?;
                Ok(match current.status {
                    SubscriptionStatus::Disabled => current,
                    status if !status.can_disable() => {
                        return Err(ServiceError::invalid_field(
                            "status",
                            format!(
                                "is {status}: only a verified subscription (active or failed) \
                                 is disabled; delete this one, or give it a URL to verify"
                            ),
                        ));
                    }
                    _ => {
                        let health = Health {
                            status: SubscriptionStatus::Disabled,
                            ..current.health()
                        };
                        stored::set_health(tx, id, health, op.now).await?
                    }
                })
            }
            .scoped()
        })
        .await
}

/// A new signing secret; the old one keeps signing for `grace_secs`.
pub async fn rotate_secret(
    services: &Services,
    actor: &Actor,
    secret_box: &SecretBox,
    id: i64,
    grace_secs: i64,
) -> ServiceResult<WithSecret> {
    let secret = WebhookSecret::generate();
    let sealed = secret_box.seal(secret.expose_secret().as_bytes());
    let op = Op::new(services, actor);
    let sealed = &sealed;
    let webhook = services
        .write(|tx| {
            async move {
                let current = locked(tx, op, id).await?;
                let grace_until = op.now.plus_secs(grace_secs);
                let old = &current.secret_sealed;
                Ok(stored::rotate_secret(tx, id, sealed, old, grace_until, op.now).await?)
            }
            .scoped()
        })
        .await?;
    Ok(WithSecret { webhook, secret })
}

/// Sends a delivery of the webhook again at once, as a manual attempt.
pub async fn redeliver(
    services: &Services,
    actor: &Actor,
    id: i64,
    delivery_id: i64,
) -> ServiceResult<Redelivery> {
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                let webhook = locked(tx, op, id).await?;
                webhook_deliveries::find(&mut *tx, webhook.id, delivery_id)
                    .await?
                    .ok_or(ServiceError::NotFound)?;
                let delivery = webhook_deliveries::redeliver(tx, delivery_id, op.now).await?;
                let attempts = webhook_deliveries::attempts_of(&mut *tx, &[delivery_id]).await?;
                Ok(Redelivery { delivery, attempts })
            }
            .scoped()
        })
        .await
}

/// Sends again every failed or skipped delivery of the webhook created in the window.
pub async fn replay(
    services: &Services,
    actor: &Actor,
    id: i64,
    window: ReplayWindow,
) -> ServiceResult<Replay> {
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                let webhook = locked(tx, op, id).await?;
                let ReplayWindow { since, until } = window;
                Ok(webhook_deliveries::replay(tx, webhook.id, since, until, op.now).await?)
            }
            .scoped()
        })
        .await
}

async fn locked(tx: &mut Tx, op: Op<'_>, id: i64) -> ServiceResult<Webhook> {
    stored::find_for_update(tx, op.actor.tenant, id)
        .await?
        .ok_or(ServiceError::NotFound)
}
