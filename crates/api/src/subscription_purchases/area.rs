//! The subscription purchases area as the toolkit gathers it: paths, routes, root links,
//! URL builders.

use domain::Scope;
use services::subscription_purchases::input::PurchaseChanges;

use super::SUBSCRIPTION_PURCHASE_LIST;
use crate::area::{Access, Area, Path, RootLink, Routes};
use crate::kernel::state::ApiConfig;
use crate::kernel::urls::Urls;
use crate::openapi::{Answer, Op};
use crate::rels;

pub const SUBSCRIPTION_PURCHASES: Path = Path::new("/subscription_purchases");
pub const SUBSCRIPTION_PURCHASE: Path = Path::new("/subscription_purchases/{id}");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[
        RootLink {
            rel: &rels::SUBSCRIPTIONS_SUBSCRIPTION_PURCHASES,
            shown: reader,
            href: |urls| {
                urls.list_template(
                    SUBSCRIPTION_PURCHASES.pattern(),
                    &SUBSCRIPTION_PURCHASE_LIST,
                )
            },
        },
        RootLink {
            rel: &rels::SUBSCRIPTIONS_SUBSCRIPTION_PURCHASE,
            shown: reader,
            href: |urls| urls.template(SUBSCRIPTION_PURCHASE),
        },
    ],
};

fn reader(access: &Access<'_>) -> bool {
    access.tenant_has(Scope::OrdersRead)
}

fn routes(routes: &mut Routes, _: &ApiConfig) {
    type Fields = super::SubscriptionPurchaseFields;
    routes
        .get(
            SUBSCRIPTION_PURCHASES,
            super::list,
            Op::new("List subscription purchases", Answer::list::<Fields>())
                .scope(Scope::OrdersRead)
                .list(&SUBSCRIPTION_PURCHASE_LIST)
                .rel(&rels::SUBSCRIPTIONS_SUBSCRIPTION_PURCHASES),
        )
        .get(
            SUBSCRIPTION_PURCHASE,
            super::show,
            Op::new("Show a subscription purchase", Answer::resource::<Fields>())
                .scope(Scope::OrdersRead)
                .rel(&rels::SUBSCRIPTIONS_SUBSCRIPTION_PURCHASE),
        )
        .put(
            SUBSCRIPTION_PURCHASE,
            super::update,
            Op::new(
                "Update a subscription purchase",
                Answer::resource::<Fields>(),
            )
            .scope(Scope::OrdersWrite)
            .json_body::<PurchaseChanges>()
            .if_match()
            .rel(&rels::SUBSCRIPTIONS_UPDATE_SUBSCRIPTION_PURCHASE),
        );
}

impl Urls {
    pub fn subscription_purchase(&self, id: i64) -> String {
        self.at(SUBSCRIPTION_PURCHASE, &[id])
    }
}
