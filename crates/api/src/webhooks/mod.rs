//! Webhooks: a shop's subscriptions under `/hub/{shop_id}/subscriptions`, the same rows by
//! id under `/webhooks` (with reactivation, manual disabling and secret rotation), the
//! topics they may name, and each one's delivery history, redelivery and replays. Sending
//! is the `delivery` crate's dispatcher.

pub mod area;
mod input;
pub mod rels;
mod representation;

use std::collections::HashMap;

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use delivery::signature::WebhookSecret;
use domain::limits::IntRange;
use domain::webhook::{DeliveryStatus, SubscriptionStatus};
use domain::{FieldErrors, Scope, Timestamp, topic};
use hal::{Link, Resource};
use serde::Deserialize;
use storage::shops::{self, Shop};
use storage::sql::Direction;
use storage::webhook_deliveries::{self, DeliveryFilter};
use storage::webhooks::{self, NewWebhook, Webhook, WebhookFilter, WebhookSettings};
use storage::{ScopedExt, Tenant, Tx, tenant_rows};

use crate::kernel::auth::Auth;
use crate::kernel::conditional::check_preconditions;
use crate::kernel::error::{ApiError, ApiResult};
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, NestedIds, ResourceId};
use crate::kernel::list::{ListRequest, ListSpec};
use crate::kernel::query::QueryParams;
use crate::kernel::state::AppState;

pub use representation::{subscription_resource, webhook_resource};

use input::{Checked, NewSubscription, SubscriptionChanges};
use representation::{delivery_resource, replay_resource};

/// How long a rotated-out secret keeps signing by default, and at most.
const GRACE_DEFAULT_SECS: i64 = 86_400;
/// How long a rotated-out secret may keep signing: up to a week.
const GRACE_PERIOD_SECS: IntRange = IntRange::new(0, 7 * 86_400);

pub static SUBSCRIPTION_LIST: ListSpec = ListSpec {
    name: "subscriptions",
    default_per_page: 50,
    sort_fields: webhooks::SORT_FIELDS,
    default_sort: ("id", Direction::Asc),
    filters: &["status"],
};

pub static WEBHOOK_LIST: ListSpec = ListSpec {
    name: "webhooks",
    default_per_page: 20,
    sort_fields: webhooks::SORT_FIELDS,
    default_sort: ("id", Direction::Asc),
    filters: &["status", "topic", "shop_id"],
};

pub static DELIVERY_LIST: ListSpec = ListSpec {
    name: "deliveries",
    default_per_page: 20,
    sort_fields: webhook_deliveries::SORT_FIELDS,
    default_sort: ("id", Direction::Desc),
    filters: &["status", "topic", "since"],
};

/// The tenant's shop, or 404.
async fn own_shop(state: &AppState, tenant: Tenant, id: i64) -> ApiResult<Shop> {
    shops::find(&state.db, tenant, id)
        .await?
        .ok_or_else(ApiError::not_found)
}

async fn hub_list(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(shop_id): ResourceId,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::HubRead)?;
    let shop = own_shop(&state, auth.own_tenant()?, shop_id).await?;
    let mut errors = FieldErrors::new();
    let request = ListRequest::parse(
        &SUBSCRIPTION_LIST,
        QueryParams::parse(query.as_deref()),
        &mut errors,
    );
    let filter = WebhookFilter {
        shop_ids: Some(vec![shop.id]),
        statuses: statuses(&request.params, &mut errors),
        topics: None,
    };
    errors.into_result()?;
    let (rows, total) = auth
        .tenant_page(|tenant| {
            webhooks::list(&state.db, tenant, &filter, request.sort, request.window())
        })
        .await?;
    let items = rows
        .iter()
        .map(|w| subscription_resource(&state.urls, &auth, w, None))
        .collect();
    let path = format!("/hub/{}/subscriptions", shop.id);
    Ok(request.respond(&SUBSCRIPTION_LIST, &state, &path, total, items))
}

async fn hub_create(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(shop_id): ResourceId,
    JsonBody(input): JsonBody<NewSubscription>,
) -> ApiResult<Hal> {
    auth.require(Scope::HubWrite)?;
    let shop = own_shop(&state, auth.own_tenant()?, shop_id).await?;
    let (webhook, secret) = insert(&state, &auth, &shop, input).await?;
    let doc = subscription_resource(&state.urls, &auth, &webhook, Some(secret.expose_secret()))
        .into_value(state.urls.curies());
    Ok(Hal::created(
        doc,
        state.urls.subscription(shop.id, webhook.id),
        webhook.updated_on,
    ))
}

async fn hub_show(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(shop_id, id): NestedIds,
) -> ApiResult<Hal> {
    auth.require(Scope::HubRead)?;
    let webhook = webhooks::find(&state.db, auth.own_tenant()?, id)
        .await?
        .filter(|w| w.shop_id == shop_id)
        .ok_or_else(ApiError::not_found)?;
    let doc =
        subscription_resource(&state.urls, &auth, &webhook, None).into_value(state.urls.curies());
    Ok(Hal::ok(doc, webhook.updated_on))
}

async fn hub_delete(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(shop_id, id): NestedIds,
    headers: HeaderMap,
) -> ApiResult<Hal> {
    auth.require(Scope::HubWrite)?;
    let tenant = auth.own_tenant()?;
    let (headers, urls, auth) = (&headers, &state.urls, &auth);
    let doc = state
        .write(|tx| {
            async move {
                let webhook = locked(tx, tenant, id).await?;
                if webhook.shop_id != shop_id {
                    return Err(ApiError::not_found());
                }
                let doc =
                    subscription_resource(urls, auth, &webhook, None).into_value(urls.curies());
                check_preconditions(headers, &doc, webhook.updated_on)?;
                tenant_rows::delete(tx, webhooks::TABLE, tenant, id).await?;
                Ok(doc)
            }
            .scoped()
        })
        .await?;
    Ok(Hal::ok(doc, state.clock.now()))
}

async fn list(
    State(state): State<AppState>,
    auth: Auth,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::HubRead)?;
    let mut errors = FieldErrors::new();
    let request = ListRequest::parse(
        &WEBHOOK_LIST,
        QueryParams::parse(query.as_deref()),
        &mut errors,
    );
    let params = &request.params;
    let filter = WebhookFilter {
        shop_ids: params.id_list("shop_id", &mut errors),
        statuses: statuses(params, &mut errors),
        topics: params.list("topic"),
    };
    errors.into_result()?;
    let (rows, total) = auth
        .tenant_page(|tenant| {
            webhooks::list(&state.db, tenant, &filter, request.sort, request.window())
        })
        .await?;
    let items = rows
        .iter()
        .map(|w| webhook_resource(&state.urls, &auth, w, None))
        .collect();
    Ok(request.respond(&WEBHOOK_LIST, &state, "/webhooks", total, items))
}

fn statuses(params: &QueryParams, errors: &mut FieldErrors) -> Option<Vec<SubscriptionStatus>> {
    let names = params.list("status")?;
    let mut statuses = Vec::with_capacity(names.len());
    for name in names {
        match name.parse() {
            Ok(status) => statuses.push(status),
            Err(e) => errors.add("status", format!("`{name}`: {e}")),
        }
    }
    Some(statuses)
}

async fn create(
    State(state): State<AppState>,
    auth: Auth,
    JsonBody(input): JsonBody<NewSubscription>,
) -> ApiResult<Hal> {
    auth.require(Scope::HubWrite)?;
    let tenant = auth.own_tenant()?;
    let shop = match input.shop_id {
        Some(id) => shops::find(&state.db, tenant, id)
            .await?
            .ok_or_else(|| ApiError::invalid_field("shop_id", "is not a shop of the account"))?,
        None => return Err(ApiError::invalid_field("shop_id", "can't be blank")),
    };
    let (webhook, secret) = insert(&state, &auth, &shop, input).await?;
    let doc = webhook_resource(&state.urls, &auth, &webhook, Some(secret.expose_secret()))
        .into_value(state.urls.curies());
    Ok(Hal::created(
        doc,
        state.urls.webhook(webhook.id),
        webhook.updated_on,
    ))
}

/// Creates a pending subscription with a new signing secret; the dispatcher sends its
/// verification ping.
async fn insert(
    state: &AppState,
    auth: &Auth,
    shop: &Shop,
    input: NewSubscription,
) -> ApiResult<(Webhook, WebhookSecret)> {
    let checked = input.validate(&state.config.webhook_guard)?;
    let secret = WebhookSecret::generate();
    let sealer = state.auth.secret_box();
    let settings = settings(state, &checked, None);
    let secret_sealed = sealer.seal(secret.expose_secret().as_bytes());
    let new = NewWebhook {
        account_id: shop.account_id,
        seller_id: shop.seller_id,
        shop_id: shop.id,
        app_id: Some(auth.app_id),
        settings: &settings,
        secret_sealed: &secret_sealed,
    };
    let (new, now) = (&new, state.clock.now());
    let webhook = state
        .write(|tx| async move { Ok(webhooks::insert(tx, new, now).await?) }.scoped())
        .await?;
    Ok((webhook, secret))
}

/// Settings to store: the password sealed (a new one, or the stored one kept).
fn settings(state: &AppState, checked: &Checked, kept: Option<&Webhook>) -> WebhookSettings {
    let sealed = match (&checked.auth_password, kept) {
        (Some(password), _) => Some(state.auth.secret_box().seal(password.as_bytes())),
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
        auth_password_sealed: sealed
            .filter(|_| checked.auth_type == domain::webhook::AuthType::Basic),
        ordering: checked.ordering,
    }
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    auth.require(Scope::HubRead)?;
    let webhook = webhooks::find(&state.db, auth.own_tenant()?, id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let doc = webhook_resource(&state.urls, &auth, &webhook, None).into_value(state.urls.curies());
    Ok(Hal::ok(doc, webhook.updated_on))
}

/// Changes a webhook. A new URL must consent again: the webhook goes back to `pending`
/// and is pinged.
async fn update(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
    JsonBody(changes): JsonBody<SubscriptionChanges>,
) -> ApiResult<Hal> {
    auth.require(Scope::HubWrite)?;
    let tenant = auth.own_tenant()?;
    let now = state.clock.now();
    let (state, auth, headers, changes) = (&state, &auth, &headers, &changes);
    let webhook = state
        .write(|tx| {
            async move {
                let current = locked(tx, tenant, id).await?;
                let current_doc = webhook_resource(&state.urls, auth, &current, None)
                    .into_value(state.urls.curies());
                check_preconditions(headers, &current_doc, current.updated_on)?;
                let before = Checked {
                    topic: current.topic.clone(),
                    url: current.url.clone(),
                    notify_origin: current.notify_origin,
                    auth_type: current.auth_type,
                    auth_username: current.auth_username.clone(),
                    auth_password: None,
                    ordering: current.ordering,
                };
                let checked = changes
                    .clone()
                    .apply(before.clone(), &state.config.webhook_guard)?;
                if checked == before {
                    return Ok(current);
                }
                let mut webhook = webhooks::update_settings(
                    tx,
                    id,
                    &settings(state, &checked, Some(&current)),
                    now,
                )
                .await?;
                if checked.url != before.url {
                    webhook = webhooks::await_verification(tx, id, now).await?;
                }
                Ok(webhook)
            }
            .scoped()
        })
        .await?;
    let doc = webhook_resource(&state.urls, auth, &webhook, None).into_value(state.urls.curies());
    Ok(Hal::ok(doc, webhook.updated_on))
}

async fn remove(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
) -> ApiResult<Hal> {
    auth.require(Scope::HubWrite)?;
    let tenant = auth.own_tenant()?;
    let (headers, urls, auth) = (&headers, &state.urls, &auth);
    let doc = state
        .write(|tx| {
            async move {
                let webhook = locked(tx, tenant, id).await?;
                let doc = webhook_resource(urls, auth, &webhook, None).into_value(urls.curies());
                check_preconditions(headers, &doc, webhook.updated_on)?;
                tenant_rows::delete(tx, webhooks::TABLE, tenant, id).await?;
                Ok(doc)
            }
            .scoped()
        })
        .await?;
    Ok(Hal::ok(doc, state.clock.now()))
}

/// `failed` or `disabled` → `active`, counters reset; its parked deliveries go out.
async fn reactivate(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    auth.require(Scope::HubWrite)?;
    let tenant = auth.own_tenant()?;
    let now = state.clock.now();
    let webhook = state
        .write(|tx| {
            async move {
                let current = locked(tx, tenant, id).await?;
                if !current.status.can_reactivate() {
                    return Err(ApiError::invalid_field(
                        "status",
                        format!(
                            "is {}: only failed or disabled webhooks are reactivated",
                            current.status
                        ),
                    ));
                }
                Ok(webhooks::set_health(tx, id, current.health().reactivated(), now).await?)
            }
            .scoped()
        })
        .await?;
    let doc = webhook_resource(&state.urls, &auth, &webhook, None).into_value(state.urls.curies());
    Ok(Hal::ok(doc, webhook.updated_on))
}

/// Stops deliveries by hand (they are kept, and go out after a reactivation).
async fn disable(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    auth.require(Scope::HubWrite)?;
    let tenant = auth.own_tenant()?;
    let now = state.clock.now();
    let webhook = state
        .write(|tx| {
            async move {
                let current = locked(tx, tenant, id).await?;
                Ok(match current.status {
                    SubscriptionStatus::Disabled => current,
                    status if !status.can_disable() => {
                        return Err(ApiError::invalid_field(
                            "status",
                            format!(
                                "is {status}: only a verified subscription (active or failed) \
                                 is disabled; delete this one, or give it a URL to verify"
                            ),
                        ));
                    }
                    _ => {
                        let health = domain::webhook::Health {
                            status: SubscriptionStatus::Disabled,
                            ..current.health()
                        };
                        webhooks::set_health(tx, id, health, now).await?
                    }
                })
            }
            .scoped()
        })
        .await?;
    let doc = webhook_resource(&state.urls, &auth, &webhook, None).into_value(state.urls.curies());
    Ok(Hal::ok(doc, webhook.updated_on))
}

#[derive(Debug, Default, Deserialize)]
struct Rotation {
    #[serde(default)]
    grace_period_seconds: Option<i64>,
}

/// A new signing secret, shown this once; the old one keeps signing for the grace period.
async fn rotate_secret(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    JsonBody(input): JsonBody<Rotation>,
) -> ApiResult<Hal> {
    auth.require(Scope::HubWrite)?;
    let grace = input.grace_period_seconds.unwrap_or(GRACE_DEFAULT_SECS);
    GRACE_PERIOD_SECS
        .check(grace)
        .map_err(|message| ApiError::invalid_field("grace_period_seconds", message))?;
    let tenant = auth.own_tenant()?;
    let secret = WebhookSecret::generate();
    let sealed = state
        .auth
        .secret_box()
        .seal(secret.expose_secret().as_bytes());
    let now = state.clock.now();
    let sealed = &sealed;
    let webhook = state
        .write(|tx| {
            async move {
                let current = locked(tx, tenant, id).await?;
                let grace_until = now.plus_secs(grace);
                Ok(webhooks::rotate_secret(
                    tx,
                    id,
                    sealed,
                    &current.secret_sealed,
                    grace_until,
                    now,
                )
                .await?)
            }
            .scoped()
        })
        .await?;
    let doc = webhook_resource(&state.urls, &auth, &webhook, Some(secret.expose_secret()))
        .into_value(state.urls.curies());
    Ok(Hal::ok(doc, webhook.updated_on))
}

/// The topics a subscription may name; each covers the topics below it.
async fn topics(State(state): State<AppState>, auth: Auth) -> ApiResult<Hal> {
    auth.require(Scope::HubRead)?;
    let doc = Resource::new(["topics"])
        .property("topics", topic::TOPICS.to_vec())
        .link("self", Link::get(state.urls.api("/webhooks/topics")))
        .rel(
            &rels::WEBHOOKS_WEBHOOKS,
            state.urls.list_template("/webhooks", &WEBHOOK_LIST),
        )
        .into_value(state.urls.curies());
    Ok(Hal::ok(doc, Timestamp::from_secs(0)))
}

async fn deliveries(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::HubRead)?;
    let webhook = webhooks::find(&state.db, auth.own_tenant()?, id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let mut errors = FieldErrors::new();
    let request = ListRequest::parse(
        &DELIVERY_LIST,
        QueryParams::parse(query.as_deref()),
        &mut errors,
    );
    let params = &request.params;
    let statuses = params.list("status").map(|names| {
        names
            .iter()
            .filter_map(|name| match name.parse::<DeliveryStatus>() {
                Ok(status) => Some(status),
                Err(e) => {
                    errors.add("status", format!("`{name}`: {e}"));
                    None
                }
            })
            .collect()
    });
    let since = params.get("since").and_then(|v| {
        let parsed = Timestamp::parse(v);
        if parsed.is_none() {
            errors.add("since", Timestamp::MESSAGE);
        }
        parsed
    });
    let filter = DeliveryFilter {
        statuses,
        topics: params.list("topic"),
        since,
    };
    errors.into_result()?;
    let (rows, total) = webhook_deliveries::list(
        &state.db,
        webhook.id,
        &filter,
        request.sort,
        request.window(),
    )
    .await?;
    let ids: Vec<i64> = rows.iter().map(|d| d.id).collect();
    let attempts = webhook_deliveries::attempts_of(&state.db, &ids).await?;
    let mut by_delivery: HashMap<i64, Vec<_>> = HashMap::new();
    for attempt in &attempts {
        by_delivery
            .entry(attempt.delivery_id)
            .or_default()
            .push(attempt);
    }
    let items = rows
        .iter()
        .map(|d| {
            let attempts = by_delivery.get(&d.id).map_or(&[][..], Vec::as_slice);
            delivery_resource(&state.urls, &auth, d, attempts)
        })
        .collect();
    let path = format!("/webhooks/{id}/deliveries");
    Ok(request.respond(&DELIVERY_LIST, &state, &path, total, items))
}

/// Sends a delivery again at once, as a manual attempt.
async fn redeliver(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(id, delivery_id): NestedIds,
) -> ApiResult<Hal> {
    auth.require(Scope::HubWrite)?;
    let tenant = auth.own_tenant()?;
    let now = state.clock.now();
    let (delivery, attempts) = state
        .write(|tx| {
            async move {
                let webhook = locked(tx, tenant, id).await?;
                webhook_deliveries::find(&mut *tx, webhook.id, delivery_id)
                    .await?
                    .ok_or_else(ApiError::not_found)?;
                let delivery = webhook_deliveries::redeliver(tx, delivery_id, now).await?;
                let attempts = webhook_deliveries::attempts_of(&mut *tx, &[delivery_id]).await?;
                Ok((delivery, attempts))
            }
            .scoped()
        })
        .await?;
    let attempts: Vec<_> = attempts.iter().collect();
    let doc =
        delivery_resource(&state.urls, &auth, &delivery, &attempts).into_value(state.urls.curies());
    Ok(Hal::ok(doc, delivery.updated_on))
}

#[derive(Debug, Deserialize)]
struct ReplayInput {
    since: String,
    #[serde(default)]
    until: Option<String>,
}

/// Sends again every failed or skipped delivery created in `[since, until)`; its progress
/// is at the replay's address.
async fn replay(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    JsonBody(input): JsonBody<ReplayInput>,
) -> ApiResult<Hal> {
    auth.require(Scope::HubWrite)?;
    let now = state.clock.now();
    let mut errors = FieldErrors::new();
    let since = Timestamp::parse(&input.since);
    if since.is_none() {
        errors.add("since", Timestamp::MESSAGE);
    }
    let until = match input.until.as_deref() {
        None => Some(now),
        Some(text) => Timestamp::parse(text),
    };
    if until.is_none() {
        errors.add("until", Timestamp::MESSAGE);
    }
    if let (Some(since), Some(until)) = (since, until)
        && until <= since
    {
        errors.add("until", "must be after since");
    }
    errors.into_result()?;
    let (since, until) = (since.unwrap_or(now), until.unwrap_or(now));
    let tenant = auth.own_tenant()?;
    let (webhook, replay) = state
        .write(|tx| {
            async move {
                let webhook = locked(tx, tenant, id).await?;
                let replay = webhook_deliveries::replay(tx, webhook.id, since, until, now).await?;
                Ok((webhook, replay))
            }
            .scoped()
        })
        .await?;
    let progress = webhook_deliveries::Progress {
        pending: replay.deliveries,
        ..Default::default()
    };
    let doc = replay_resource(&state.urls, &replay, progress).into_value(state.urls.curies());
    let location = format!("{}/replays/{}", state.urls.webhook(webhook.id), replay.id);
    Ok(Hal::created(doc, location, replay.created_on))
}

async fn replay_status(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(id, replay_id): NestedIds,
) -> ApiResult<Hal> {
    auth.require(Scope::HubRead)?;
    let webhook = webhooks::find(&state.db, auth.own_tenant()?, id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let (replay, progress) = webhook_deliveries::replay_progress(&state.db, webhook.id, replay_id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let doc = replay_resource(&state.urls, &replay, progress).into_value(state.urls.curies());
    Ok(Hal::ok(doc, state.clock.now()))
}

async fn locked(tx: &mut Tx, tenant: Tenant, id: i64) -> ApiResult<Webhook> {
    webhooks::find_for_update(tx, tenant, id)
        .await?
        .ok_or_else(ApiError::not_found)
}
