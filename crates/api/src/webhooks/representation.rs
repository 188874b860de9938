//! How subscriptions (the hub's view), webhooks (the same rows, by id) and their
//! deliveries look to a client. Passwords and secrets never appear, except a secret in
//! the answer that created or rotated it.

use domain::webhook::{AuthType, DeliveryStatus, Ordering, SubscriptionStatus, Trigger};
use domain::{Scope, ScopeSet, Timestamp};
use hal::{Link, Resource};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use storage::webhook_deliveries::{Attempt, Delivery, Progress, Replay};
use storage::webhooks::Webhook;

use crate::kernel::present::Presenter;
use crate::kernel::urls::Urls;
use crate::rels;

/// How deliveries authenticate to the target (never the password).
#[derive(Serialize, JsonSchema)]
#[schemars(rename = "WebhookAuth")]
struct Auth<'a> {
    #[serde(rename = "type")]
    kind: AuthType,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    username: Option<&'a str>,
}

fn auth(webhook: &Webhook) -> Auth<'_> {
    Auth {
        kind: webhook.auth_type,
        username: webhook.auth_username.as_deref(),
    }
}

#[derive(Serialize, JsonSchema)]
pub struct SubscriptionFields<'a> {
    id: i64,
    shop_id: i64,
    status: SubscriptionStatus,
    topic: &'a str,
    url: &'a str,
    notify_origin: bool,
    auth: Auth<'a>,
    ordering: Ordering,
    error_count: i64,
    last_error: Option<&'a str>,
    /// The signing secret, only in the answer that created or rotated it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    secret: Option<&'a str>,
    created_on: Timestamp,
    updated_on: Timestamp,
}

/// A subscription as the hub of its shop shows it.
pub fn subscription_resource(
    urls: &Urls,
    viewer: ScopeSet,
    webhook: &Webhook,
    secret: Option<&str>,
) -> Resource {
    let fields = SubscriptionFields {
        id: webhook.id,
        shop_id: webhook.shop_id,
        status: webhook.status,
        topic: &webhook.topic,
        url: &webhook.url,
        notify_origin: webhook.notify_origin,
        auth: auth(webhook),
        ordering: webhook.ordering,
        error_count: webhook.error_count,
        last_error: webhook.last_error.as_deref(),
        secret,
        created_on: webhook.created_on,
        updated_on: webhook.updated_on,
    };
    Resource::new(["subscription"])
        .with_properties(&fields)
        .link(
            "self",
            Link::get(urls.subscription(webhook.shop_id, webhook.id)),
        )
        .rel(&rels::WEBHOOKS_WEBHOOK, urls.webhook(webhook.id))
        .rel_if(
            viewer.contains(Scope::HubWrite),
            &rels::WEBHOOKS_DELETE_SUBSCRIPTION,
            || urls.subscription(webhook.shop_id, webhook.id),
        )
        .rel_if(
            viewer.contains(Scope::HubWrite) && webhook.status.can_reactivate(),
            &rels::WEBHOOKS_REACTIVATE,
            || format!("{}/reactivate", urls.webhook(webhook.id)),
        )
}

#[derive(Serialize, JsonSchema)]
pub struct WebhookFields<'a> {
    id: i64,
    channel_id: i64,
    topic: &'a str,
    url: &'a str,
    status: SubscriptionStatus,
    auth: Auth<'a>,
    notify_origin: bool,
    ordering: Ordering,
    app_id: Option<i64>,
    error_count: i64,
    last_error: Option<&'a str>,
    last_error_on: Option<Timestamp>,
    /// The signing secret, only in the answer that created or rotated it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    secret: Option<&'a str>,
    created_on: Timestamp,
    updated_on: Timestamp,
}

/// A webhook (a subscription read by id), with the actions its status allows.
pub fn webhook_resource(
    urls: &Urls,
    viewer: ScopeSet,
    webhook: &Webhook,
    secret: Option<&str>,
) -> Resource {
    let fields = WebhookFields {
        id: webhook.id,
        channel_id: webhook.shop_id,
        topic: &webhook.topic,
        url: &webhook.url,
        status: webhook.status,
        auth: auth(webhook),
        notify_origin: webhook.notify_origin,
        ordering: webhook.ordering,
        app_id: webhook.app_id,
        error_count: webhook.error_count,
        last_error: webhook.last_error.as_deref(),
        last_error_on: webhook.last_error_on,
        secret,
        created_on: webhook.created_on,
        updated_on: webhook.updated_on,
    };
    let href = urls.webhook(webhook.id);
    let write = viewer.contains(Scope::HubWrite);
    Resource::new(["webhook"])
        .with_properties(&fields)
        .link("self", Link::get(href.clone()))
        .rel_if(write, &rels::WEBHOOKS_UPDATE, || href.clone())
        .rel_if(write, &rels::WEBHOOKS_DELETE, || href.clone())
        .rel_if(
            write && webhook.status.can_reactivate(),
            &rels::WEBHOOKS_REACTIVATE,
            || format!("{href}/reactivate"),
        )
        .rel_if(
            write && webhook.status.can_disable(),
            &rels::WEBHOOKS_DISABLE,
            || format!("{href}/disable"),
        )
        .rel_if(write, &rels::WEBHOOKS_ROTATE_SECRET, || {
            format!("{href}/secret")
        })
        .rel(
            &rels::WEBHOOKS_DELIVERIES,
            format!("{href}/deliveries{{?status,topic,since,sort,page,per_page}}"),
        )
        .rel_if(write, &rels::WEBHOOKS_REPLAY, || format!("{href}/replays"))
        .rel(&rels::SHOPS_SHOP, urls.shop(webhook.shop_id))
}

#[derive(Serialize)]
struct AttemptFields<'a> {
    number: i64,
    trigger: Trigger,
    url: &'a str,
    status_code: Option<i64>,
    duration_ms: i64,
    error_class: Option<&'a str>,
    error: Option<&'a str>,
    created_on: Timestamp,
}

#[derive(Serialize, JsonSchema)]
pub struct DeliveryFields<'a> {
    id: i64,
    webhook_id: i64,
    sequence: i64,
    topic: &'a str,
    status: DeliveryStatus,
    trigger: Trigger,
    attempts: i64,
    next_attempt_on: Option<Timestamp>,
    last_status_code: Option<i64>,
    last_error: Option<&'a str>,
    created_on: Timestamp,
    updated_on: Timestamp,
}

/// A delivery with every attempt made at it.
pub fn delivery_resource(
    urls: &Urls,
    viewer: ScopeSet,
    delivery: &Delivery,
    attempts: &[&Attempt],
) -> Resource {
    let fields = DeliveryFields {
        id: delivery.id,
        webhook_id: delivery.webhook_id,
        sequence: delivery.event_id,
        topic: &delivery.topic,
        status: delivery.status,
        trigger: delivery.trigger,
        attempts: delivery.attempts,
        // None while parked: it waits for the webhook's reactivation, not for a time.
        next_attempt_on: (delivery.status == DeliveryStatus::Pending && !delivery.is_parked())
            .then_some(delivery.next_attempt_on),
        last_status_code: delivery.last_status_code,
        last_error: delivery.last_error.as_deref(),
        created_on: delivery.created_on,
        updated_on: delivery.updated_on,
    };
    let href = format!(
        "{}/deliveries/{}",
        urls.webhook(delivery.webhook_id),
        delivery.id
    );
    Resource::new(["delivery"])
        .with_properties(&fields)
        .link("self", Link::get(href.clone()))
        .rel_if(
            viewer.contains(Scope::HubWrite),
            &rels::WEBHOOKS_REDELIVER,
            || format!("{href}/redeliver"),
        )
        .embed_all(
            "attempts",
            attempts.iter().map(|a| {
                Resource::new(["attempt"]).with_properties(&AttemptFields {
                    number: a.number,
                    trigger: a.trigger,
                    url: &a.url,
                    status_code: a.status_code,
                    duration_ms: a.duration_ms,
                    error_class: a.error_class.as_deref(),
                    error: a.error.as_deref(),
                    created_on: a.created_on,
                })
            }),
        )
}

#[derive(Serialize, JsonSchema)]
pub struct ReplayFields {
    id: i64,
    webhook_id: i64,
    since: Timestamp,
    until: Timestamp,
    deliveries: i64,
    pending: i64,
    succeeded: i64,
    failed: i64,
    done: bool,
    created_on: Timestamp,
}

/// A replay and how far it got.
pub fn replay_resource(urls: &Urls, replay: &Replay, progress: Progress) -> Resource {
    let fields = ReplayFields {
        id: replay.id,
        webhook_id: replay.webhook_id,
        since: replay.since_on,
        until: replay.until_on,
        deliveries: replay.deliveries,
        pending: progress.pending,
        succeeded: progress.succeeded,
        failed: progress.failed,
        done: progress.pending == 0,
        created_on: replay.created_on,
    };
    Resource::new(["replay"])
        .with_properties(&fields)
        .link(
            "self",
            Link::get(format!(
                "{}/replays/{}",
                urls.webhook(replay.webhook_id),
                replay.id
            )),
        )
        .rel(&rels::WEBHOOKS_WEBHOOK, urls.webhook(replay.webhook_id))
}

impl services::webhooks::Present for Presenter {
    fn webhook(&self, viewer: ScopeSet, webhook: &Webhook) -> Value {
        webhook_resource(&self.urls, viewer, webhook, None).into_value(self.urls.curies())
    }

    fn subscription(&self, viewer: ScopeSet, webhook: &Webhook) -> Value {
        subscription_resource(&self.urls, viewer, webhook, None).into_value(self.urls.curies())
    }
}
