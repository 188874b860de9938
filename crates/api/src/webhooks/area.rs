//! The webhooks area as the toolkit gathers it: paths, routes, root links, URL builders.

use domain::Scope;
use services::webhooks::input::{NewSubscription, ReplayInput, Rotation, SubscriptionChanges};

use super::{DELIVERY_LIST, SUBSCRIPTION_LIST, WEBHOOK_LIST};
use crate::area::{Access, Area, Path, RootLink, Routes};
use crate::kernel::state::ApiConfig;
use crate::kernel::urls::Urls;
use crate::openapi::{Answer, Op};
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

fn routes(routes: &mut Routes, _: &ApiConfig) {
    type Subscription = super::SubscriptionFields<'static>;
    type Webhook = super::WebhookFields<'static>;
    type Delivery = super::DeliveryFields<'static>;
    type Replay = super::ReplayFields;
    routes
        .get(
            HUB_SUBSCRIPTIONS,
            super::hub_list,
            Op::new(
                "List a shop's subscriptions",
                Answer::list::<Subscription>(),
            )
            .scope(Scope::HubRead)
            .list(&SUBSCRIPTION_LIST)
            .rel(&rels::WEBHOOKS_SUBSCRIPTIONS),
        )
        .post(
            HUB_SUBSCRIPTIONS,
            super::hub_create,
            Op::new(
                "Subscribe to a topic of a shop; the secret is shown this once",
                Answer::created::<Subscription>(),
            )
            .scope(Scope::HubWrite)
            .json_body::<NewSubscription>()
            .rel(&rels::WEBHOOKS_CREATE_SUBSCRIPTION),
        )
        .get(
            HUB_SUBSCRIPTION,
            super::hub_show,
            Op::new(
                "Show a shop's subscription",
                Answer::resource::<Subscription>(),
            )
            .scope(Scope::HubRead),
        )
        .delete(
            HUB_SUBSCRIPTION,
            super::hub_delete,
            Op::new(
                "Delete a shop's subscription",
                Answer::resource::<Subscription>(),
            )
            .scope(Scope::HubWrite)
            .if_match()
            .rel(&rels::WEBHOOKS_DELETE_SUBSCRIPTION),
        )
        .get(
            WEBHOOKS,
            super::list,
            Op::new("List webhooks", Answer::list::<Webhook>())
                .scope(Scope::HubRead)
                .list(&WEBHOOK_LIST)
                .rel(&rels::WEBHOOKS_WEBHOOKS),
        )
        .post(
            WEBHOOKS,
            super::create,
            Op::new(
                "Create a webhook of a shop; the secret is shown this once",
                Answer::created::<Webhook>(),
            )
            .scope(Scope::HubWrite)
            .json_body::<NewSubscription>()
            .rel(&rels::WEBHOOKS_CREATE_WEBHOOK),
        )
        .get(
            TOPICS,
            super::topics,
            Op::new(
                "The topics a webhook may name; each covers the topics below it",
                Answer::resource::<super::TopicsFields>(),
            )
            .scope(Scope::HubRead)
            .rel(&rels::WEBHOOKS_TOPICS),
        )
        .get(
            WEBHOOK,
            super::show,
            Op::new("Show a webhook", Answer::resource::<Webhook>())
                .scope(Scope::HubRead)
                .rel(&rels::WEBHOOKS_WEBHOOK),
        )
        .put(
            WEBHOOK,
            super::update,
            Op::new(
                "Change a webhook; a new URL sends it back to pending and pings it",
                Answer::resource::<Webhook>(),
            )
            .scope(Scope::HubWrite)
            .json_body::<SubscriptionChanges>()
            .if_match()
            .rel(&rels::WEBHOOKS_UPDATE),
        )
        .delete(
            WEBHOOK,
            super::remove,
            Op::new("Delete a webhook", Answer::resource::<Webhook>())
                .scope(Scope::HubWrite)
                .if_match()
                .rel(&rels::WEBHOOKS_DELETE),
        )
        .put(
            REACTIVATE,
            super::reactivate,
            Op::new(
                "Reactivate a failed or disabled webhook; its parked deliveries go out",
                Answer::resource::<Webhook>(),
            )
            .scope(Scope::HubWrite)
            .rel(&rels::WEBHOOKS_REACTIVATE),
        )
        .put(
            DISABLE,
            super::disable,
            Op::new(
                "Stop a webhook's deliveries by hand (they are kept until it is reactivated)",
                Answer::resource::<Webhook>(),
            )
            .scope(Scope::HubWrite)
            .rel(&rels::WEBHOOKS_DISABLE),
        )
        .post(
            SECRET,
            super::rotate_secret,
            Op::new(
                "Rotate a webhook's signing secret, shown this once; the old one keeps \
                 signing for the grace period",
                Answer::resource::<Webhook>(),
            )
            .scope(Scope::HubWrite)
            .json_body::<Rotation>()
            .rel(&rels::WEBHOOKS_ROTATE_SECRET),
        )
        .get(
            DELIVERIES,
            super::deliveries,
            Op::new(
                "List a webhook's deliveries, each with its attempts",
                Answer::list::<Delivery>(),
            )
            .scope(Scope::HubRead)
            .list(&DELIVERY_LIST)
            .rel(&rels::WEBHOOKS_DELIVERIES),
        )
        .post(
            REDELIVER,
            super::redeliver,
            Op::new(
                "Send a delivery again at once, as a manual attempt",
                Answer::resource::<Delivery>(),
            )
            .scope(Scope::HubWrite)
            .rel(&rels::WEBHOOKS_REDELIVER),
        )
        .post(
            REPLAYS,
            super::replay,
            Op::new(
                "Send again every failed or skipped delivery created in a window",
                Answer::created::<Replay>(),
            )
            .scope(Scope::HubWrite)
            .json_body::<ReplayInput>()
            .rel(&rels::WEBHOOKS_REPLAY),
        )
        .get(
            REPLAY,
            super::replay_status,
            Op::new("How far a replay got", Answer::resource::<Replay>()).scope(Scope::HubRead),
        );
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
