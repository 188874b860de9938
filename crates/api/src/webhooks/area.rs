//! The webhooks area as the toolkit gathers it: paths, routes, root links, URL builders.

use axum::Router;
use axum::routing::{get, post, put};
use domain::Scope;

use super::{SUBSCRIPTION_LIST, WEBHOOK_LIST};
use crate::area::{Access, Area, Path, RootLink, Routes};
use crate::kernel::state::{ApiConfig, AppState};
use crate::kernel::urls::Urls;
use crate::rels;

/// A shop's subscriptions in the hub (the Bootic-compatible form).
pub const HUB_SUBSCRIPTIONS: Path = Path::new("/hub/{id}/subscriptions");
pub const HUB_SUBSCRIPTION: Path = Path::new("/hub/{id}/subscriptions/{subscription_id}");
pub const WEBHOOKS: Path = Path::new("/webhooks");
pub const TOPICS: Path = Path::new("/webhooks/topics");
pub const WEBHOOK: Path = Path::new("/webhooks/{id}");
pub const REACTIVATE: Path = Path::new("/webhooks/{id}/reactivate");
pub const DISABLE: Path = Path::new("/webhooks/{id}/disable");
pub const SECRET: Path = Path::new("/webhooks/{id}/secret");
pub const DELIVERIES: Path = Path::new("/webhooks/{id}/deliveries");
pub const REDELIVER: Path = Path::new("/webhooks/{id}/deliveries/{delivery_id}/redeliver");
pub const REPLAYS: Path = Path::new("/webhooks/{id}/replays");
pub const REPLAY: Path = Path::new("/webhooks/{id}/replays/{replay_id}");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[
        RootLink {
            rel: &rels::WEBHOOKS_WEBHOOKS,
            shown: reader,
            href: |urls| urls.list_template(WEBHOOKS.pattern(), &WEBHOOK_LIST),
        },
        RootLink {
            rel: &rels::WEBHOOKS_WEBHOOK,
            shown: reader,
            href: |urls| urls.template(WEBHOOK),
        },
        RootLink {
            rel: &rels::WEBHOOKS_CREATE_WEBHOOK,
            shown: |access| access.tenant_has(Scope::HubWrite),
            href: |urls| urls.template(WEBHOOKS),
        },
        RootLink {
            rel: &rels::WEBHOOKS_TOPICS,
            shown: |access| access.has(Scope::HubRead),
            href: |urls| urls.template(TOPICS),
        },
    ],
};

fn routes(routes: &mut Routes, config: &ApiConfig) {
    routes.undocumented(plain_routes(config));
}

fn plain_routes(_: &ApiConfig) -> Router<AppState> {
    Router::new()
        .route(
            HUB_SUBSCRIPTIONS.pattern(),
            get(super::hub_list).post(super::hub_create),
        )
        .route(
            HUB_SUBSCRIPTION.pattern(),
            get(super::hub_show).delete(super::hub_delete),
        )
        .route(WEBHOOKS.pattern(), get(super::list).post(super::create))
        .route(TOPICS.pattern(), get(super::topics))
        .route(
            WEBHOOK.pattern(),
            get(super::show).put(super::update).delete(super::remove),
        )
        .route(REACTIVATE.pattern(), put(super::reactivate))
        .route(DISABLE.pattern(), put(super::disable))
        .route(SECRET.pattern(), post(super::rotate_secret))
        .route(DELIVERIES.pattern(), get(super::deliveries))
        .route(REDELIVER.pattern(), post(super::redeliver))
        .route(REPLAYS.pattern(), post(super::replay))
        .route(REPLAY.pattern(), get(super::replay_status))
}

fn reader(access: &Access<'_>) -> bool {
    access.tenant_has(Scope::HubRead)
}

impl Urls {
    pub fn webhook(&self, id: i64) -> String {
        self.at(WEBHOOK, &[id])
    }

    pub fn subscription(&self, shop_id: i64, id: i64) -> String {
        self.at(HUB_SUBSCRIPTION, &[shop_id, id])
    }

    /// A shop's subscriptions in the hub (where one is created).
    pub fn shop_subscriptions(&self, shop_id: i64) -> String {
        self.at(HUB_SUBSCRIPTIONS, &[shop_id])
    }

    /// A shop's subscriptions, as a list template.
    pub fn shop_subscriptions_template(&self, shop_id: i64) -> String {
        self.list_template(&HUB_SUBSCRIPTIONS.with(&[shop_id]), &SUBSCRIPTION_LIST)
    }
}
