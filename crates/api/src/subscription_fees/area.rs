//! The subscription fees area as the toolkit gathers it: paths, routes, root links, URL
//! builders.

use domain::Scope;
use services::subscription_fees::input::{NewSubscriptionFee, SubscriptionFeeChanges};

use super::SUBSCRIPTION_FEE_LIST;
use crate::area::{Area, Path, RootLink, Routes};
use crate::catalog;
use crate::kernel::state::ApiConfig;
use crate::kernel::urls::Urls;
use crate::openapi::{Answer, Op};
use crate::rels;

pub const SUBSCRIPTION_FEES: Path = Path::new("/subscription_fees");
pub const SUBSCRIPTION_FEE: Path = Path::new("/subscription_fees/{id}");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[
        RootLink {
            rel: &rels::SUBSCRIPTIONS_SUBSCRIPTION_FEES,
            shown: catalog::admin,
            href: |urls| urls.list_template(SUBSCRIPTION_FEES.pattern(), &SUBSCRIPTION_FEE_LIST),
        },
        RootLink {
            rel: &rels::SUBSCRIPTIONS_SUBSCRIPTION_FEE,
            shown: catalog::admin,
            href: |urls| urls.template(SUBSCRIPTION_FEE),
        },
        RootLink {
            rel: &rels::SUBSCRIPTIONS_CREATE_SUBSCRIPTION_FEE,
            shown: catalog::writer,
            href: |urls| urls.template(SUBSCRIPTION_FEES),
        },
    ],
};

fn routes(routes: &mut Routes, _: &ApiConfig) {
    type Fields = super::SubscriptionFeeFields;
    routes
        .get(
            SUBSCRIPTION_FEES,
            super::list,
            Op::new("List subscription fees", Answer::list::<Fields>())
                .scope(Scope::ProductsRead)
                .list(&SUBSCRIPTION_FEE_LIST)
                .rel(&rels::SUBSCRIPTIONS_SUBSCRIPTION_FEES),
        )
        .post(
            SUBSCRIPTION_FEES,
            super::create,
            Op::new("Create a subscription fee", Answer::created::<Fields>())
                .scope(Scope::ProductsWrite)
                .json_body::<NewSubscriptionFee>()
                .rel(&rels::SUBSCRIPTIONS_CREATE_SUBSCRIPTION_FEE),
        )
        .get(
            SUBSCRIPTION_FEE,
            super::show,
            Op::new("Show a subscription fee", Answer::resource::<Fields>())
                .scope(Scope::ProductsRead)
                .rel(&rels::SUBSCRIPTIONS_SUBSCRIPTION_FEE),
        )
        .put(
            SUBSCRIPTION_FEE,
            super::update,
            Op::new("Update a subscription fee", Answer::resource::<Fields>())
                .scope(Scope::ProductsWrite)
                .json_body::<SubscriptionFeeChanges>()
                .if_match()
                .rel(&rels::SUBSCRIPTIONS_UPDATE_SUBSCRIPTION_FEE),
        )
        .delete(
            SUBSCRIPTION_FEE,
            super::delete,
            Op::new("Delete a subscription fee", Answer::resource::<Fields>())
                .scope(Scope::ProductsWrite)
                .if_match()
                .rel(&rels::SUBSCRIPTIONS_DELETE_SUBSCRIPTION_FEE),
        );
}

impl Urls {
    pub fn subscription_fee(&self, id: i64) -> String {
        self.at(SUBSCRIPTION_FEE, &[id])
    }
}
