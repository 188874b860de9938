//! Webhooks: a shop's subscriptions under `/hub/{shop_id}/subscriptions`, the same rows by
//! id under `/webhooks` (with reactivation, manual disabling and secret rotation), the
//! topics they may name, and each one's delivery history, redelivery and replays. Sending
//! is the `delivery` crate's dispatcher.

pub mod area;
pub mod rels;
mod representation;

use std::collections::HashMap;

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use domain::webhook::DeliveryStatus;
use domain::{Scope, Timestamp, topic};
use hal::{Link, Resource};
use schemars::JsonSchema;
use serde::Serialize;
use services::webhooks::input::{NewSubscription, ReplayInput, Rotation, SubscriptionChanges};
use services::webhooks::{self as operations, Config};
use storage::shops::{self};
use storage::sql::Direction;
use storage::webhook_deliveries::{self, DeliveryFilter};
use storage::webhooks::{self, Webhook, WebhookFilter};

use crate::kernel::auth::Auth;
use crate::kernel::conditional::IfMatch;
use crate::kernel::error::{ApiError, ApiResult};
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, NestedIds, ResourceId};
use crate::kernel::list::ListSpec;
use crate::kernel::state::AppState;

pub use representation::{
    DeliveryFields, ReplayFields, SubscriptionFields, WebhookFields, subscription_resource,
    webhook_resource,
};

use representation::{delivery_resource, replay_resource};

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

async fn hub_list(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(shop_id): ResourceId,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::HubRead)?;
    let shop = auth
        .find(|tenant| shops::find(&state.db, tenant, shop_id))
        .await?;
    let (request, filter) =
        SUBSCRIPTION_LIST.read(query.as_deref(), |params, errors| WebhookFilter {
            shop_ids: Some(vec![shop.id]),
            statuses: params.parsed_list("status", errors),
            topics: None,
        })?;
    let page = auth
        .tenant_page(|tenant| {
            webhooks::list(&state.db, tenant, &filter, request.sort, request.window())
        })
        .await?;
    let path = area::HUB_SUBSCRIPTIONS.with(&[shop.id]);
    Ok(request.respond(&state, &path, page, |w| {
        subscription_resource(&state.urls, auth.scopes, w, None)
    }))
}

async fn hub_create(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(shop_id): ResourceId,
    JsonBody(input): JsonBody<NewSubscription>,
) -> ApiResult<Hal> {
    auth.require(Scope::HubWrite)?;
    let actor = auth.actor()?;
    let made =
        operations::create_in_shop(&state.services, &actor, config(&state), shop_id, input).await?;
    let webhook = &made.webhook;
    let secret = Some(made.secret.expose_secret());
    let doc = subscription_resource(&state.urls, auth.scopes, webhook, secret)
        .into_value(state.urls.curies());
    Ok(Hal::created(
        doc,
        state.urls.subscription(webhook.shop_id, webhook.id),
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
    let doc = subscription_resource(&state.urls, auth.scopes, &webhook, None)
        .into_value(state.urls.curies());
    Ok(Hal::ok(doc, webhook.updated_on))
}

async fn hub_delete(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(shop_id, id): NestedIds,
    headers: HeaderMap,
) -> ApiResult<Hal> {
    auth.require(Scope::HubWrite)?;
    let expect = IfMatch(&headers);
    let actor = auth.actor()?;
    let removed =
        operations::remove_from_shop(&state.services, &actor, shop_id, id, &expect).await?;
    let doc = subscription_resource(&state.urls, auth.scopes, &removed, None)
        .into_value(state.urls.curies());
    Ok(Hal::ok(doc, state.clock.now()))
}

async fn list(
    State(state): State<AppState>,
    auth: Auth,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::HubRead)?;
    let (request, filter) =
        WEBHOOK_LIST.read(query.as_deref(), |params, errors| WebhookFilter {
            shop_ids: params.id_list("shop_id", errors),
            statuses: params.parsed_list("status", errors),
            topics: params.list("topic"),
        })?;
    let page = auth
        .tenant_page(|tenant| {
            webhooks::list(&state.db, tenant, &filter, request.sort, request.window())
        })
        .await?;
    Ok(
        request.respond(&state, area::WEBHOOKS.pattern(), page, |w| {
            webhook_resource(&state.urls, auth.scopes, w, None)
        }),
    )
}

async fn create(
    State(state): State<AppState>,
    auth: Auth,
    JsonBody(input): JsonBody<NewSubscription>,
) -> ApiResult<Hal> {
    auth.require(Scope::HubWrite)?;
    let actor = auth.actor()?;
    let made = operations::create(&state.services, &actor, config(&state), input).await?;
    let doc = webhook_resource(
        &state.urls,
        auth.scopes,
        &made.webhook,
        Some(made.secret.expose_secret()),
    )
    .into_value(state.urls.curies());
    Ok(Hal::created(
        doc,
        state.urls.webhook(made.webhook.id),
        made.webhook.updated_on,
    ))
}

/// What webhook writes take from this deployment's configuration.
fn config(state: &AppState) -> Config<'_> {
    Config {
        guard: &state.config.webhook_guard,
        secret_box: state.auth.secret_box(),
    }
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    auth.require(Scope::HubRead)?;
    let webhook = auth
        .find(|tenant| webhooks::find(&state.db, tenant, id))
        .await?;
    Ok(Hal::ok(
        document(&state, &auth, &webhook),
        webhook.updated_on,
    ))
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
    let expect = IfMatch(&headers);
    let actor = auth.actor()?;
    let webhook = operations::update(
        &state.services,
        &actor,
        config(&state),
        id,
        &expect,
        changes,
    )
    .await?;
    Ok(Hal::ok(
        document(&state, &auth, &webhook),
        webhook.updated_on,
    ))
}

async fn remove(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    headers: HeaderMap,
) -> ApiResult<Hal> {
    auth.require(Scope::HubWrite)?;
    let expect = IfMatch(&headers);
    let removed = operations::remove(&state.services, &auth.actor()?, id, &expect).await?;
    Ok(Hal::ok(
        document(&state, &auth, &removed),
        state.clock.now(),
    ))
}

/// `failed` or `disabled` → `active`, counters reset; its parked deliveries go out.
async fn reactivate(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    auth.require(Scope::HubWrite)?;
    let webhook = operations::reactivate(&state.services, &auth.actor()?, id).await?;
    Ok(Hal::ok(
        document(&state, &auth, &webhook),
        webhook.updated_on,
    ))
}

/// Stops deliveries by hand (they are kept, and go out after a reactivation).
async fn disable(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    auth.require(Scope::HubWrite)?;
    let webhook = operations::disable(&state.services, &auth.actor()?, id).await?;
    Ok(Hal::ok(
        document(&state, &auth, &webhook),
        webhook.updated_on,
    ))
}

/// A new signing secret, shown this once; the old one keeps signing for the grace period.
async fn rotate_secret(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    JsonBody(input): JsonBody<Rotation>,
) -> ApiResult<Hal> {
    auth.require(Scope::HubWrite)?;
    let grace_secs = input.grace_secs()?;
    let actor = auth.actor()?;
    let secret_box = state.auth.secret_box();
    let rotated =
        operations::rotate_secret(&state.services, &actor, secret_box, id, grace_secs).await?;
    let doc = webhook_resource(
        &state.urls,
        auth.scopes,
        &rotated.webhook,
        Some(rotated.secret.expose_secret()),
    )
    .into_value(state.urls.curies());
    Ok(Hal::ok(doc, rotated.webhook.updated_on))
}

/// A webhook as the principal's GET shows it.
fn document(state: &AppState, auth: &Auth, webhook: &Webhook) -> Vec<u8> {
    webhook_resource(&state.urls, auth.scopes, webhook, None).into_json(state.urls.curies())
}

/// The properties of the list of topics.
#[derive(Serialize, JsonSchema)]
pub struct TopicsFields {
    /// Every topic, each before the narrower ones it covers.
    topics: &'static [&'static str],
}

/// The topics a subscription may name; each covers the topics below it.
async fn topics(State(state): State<AppState>, auth: Auth) -> ApiResult<Hal> {
    auth.require(Scope::HubRead)?;
    let doc = Resource::new(["topics"])
        .with_properties(&TopicsFields {
            topics: topic::TOPICS,
        })
        .link("self", Link::get(state.urls.at(area::TOPICS, &[])))
        .rel(
            &crate::rels::WEBHOOKS_WEBHOOKS,
            state
                .urls
                .list_template(area::WEBHOOKS.pattern(), &WEBHOOK_LIST),
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
    let webhook = auth
        .find(|tenant| webhooks::find(&state.db, tenant, id))
        .await?;
    let (request, filter) = DELIVERY_LIST.read(query.as_deref(), |params, errors| {
        let since = params.get("since").and_then(|v| {
            let parsed = Timestamp::parse(v);
            if parsed.is_none() {
                errors.add("since", Timestamp::MESSAGE);
            }
            parsed
        });
        DeliveryFilter {
            statuses: params.parsed_list::<DeliveryStatus>("status", errors),
            topics: params.list("topic"),
            since,
        }
    })?;
    let page = webhook_deliveries::list(
        &state.db,
        webhook.id,
        &filter,
        request.sort,
        request.window(),
    )
    .await?;
    let ids: Vec<i64> = page.0.iter().map(|d| d.id).collect();
    let attempts = webhook_deliveries::attempts_of(&state.db, &ids).await?;
    let mut by_delivery: HashMap<i64, Vec<_>> = HashMap::new();
    for attempt in &attempts {
        by_delivery
            .entry(attempt.delivery_id)
            .or_default()
            .push(attempt);
    }
    let path = area::DELIVERIES.with(&[id]);
    Ok(request.respond(&state, &path, page, |d| {
        let attempts = by_delivery.get(&d.id).map_or(&[][..], Vec::as_slice);
        delivery_resource(&state.urls, auth.scopes, d, attempts)
    }))
}

/// Sends a delivery again at once, as a manual attempt.
async fn redeliver(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(id, delivery_id): NestedIds,
) -> ApiResult<Hal> {
    auth.require(Scope::HubWrite)?;
    let actor = auth.actor()?;
    let sent = operations::redeliver(&state.services, &actor, id, delivery_id).await?;
    let attempts: Vec<_> = sent.attempts.iter().collect();
    let doc = delivery_resource(&state.urls, auth.scopes, &sent.delivery, &attempts)
        .into_value(state.urls.curies());
    Ok(Hal::ok(doc, sent.delivery.updated_on))
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
    let window = input.validate(state.clock.now())?;
    let replay = operations::replay(&state.services, &auth.actor()?, id, window).await?;
    let progress = webhook_deliveries::Progress {
        pending: replay.deliveries,
        ..Default::default()
    };
    let doc = replay_resource(&state.urls, &replay, progress).into_value(state.urls.curies());
    let location = format!("{}/replays/{}", state.urls.webhook(id), replay.id);
    Ok(Hal::created(doc, location, replay.created_on))
}

async fn replay_status(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(id, replay_id): NestedIds,
) -> ApiResult<Hal> {
    auth.require(Scope::HubRead)?;
    let webhook = auth
        .find(|tenant| webhooks::find(&state.db, tenant, id))
        .await?;
    let (replay, progress) = webhook_deliveries::replay_progress(&state.db, webhook.id, replay_id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let doc = replay_resource(&state.urls, &replay, progress).into_value(state.urls.curies());
    Ok(Hal::ok(doc, state.clock.now()))
}
