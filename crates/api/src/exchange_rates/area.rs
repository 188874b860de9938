//! The exchange rates area as the toolkit gathers it: paths, routes, URL builders (the
//! shop links to its rates; the root does not).

use domain::Scope;
use services::exchange_rates::input::{ExchangeRateChanges, NewExchangeRate};

use super::EXCHANGE_RATE_LIST;
use crate::area::{Area, Path, Routes};
use crate::kernel::state::ApiConfig;
use crate::kernel::urls::Urls;
use crate::openapi::{Answer, Op};
use crate::rels;

pub const EXCHANGE_RATES: Path = Path::new("/shops/{id}/exchange_rates");
pub const EXCHANGE_RATE: Path = Path::new("/shops/{id}/exchange_rates/{rate_id}");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[],
};

fn routes(routes: &mut Routes, _: &ApiConfig) {
    type Fields = super::ExchangeRateFields<'static>;
    routes
        .get(
            EXCHANGE_RATES,
            super::list,
            Op::new("List a shop's exchange rates", Answer::list::<Fields>())
                .scope(Scope::ShopsRead)
                .list(&EXCHANGE_RATE_LIST)
                .rel(&rels::SHOPS_EXCHANGE_RATES),
        )
        .post(
            EXCHANGE_RATES,
            super::create,
            Op::new("Create an exchange rate", Answer::created::<Fields>())
                .scope(Scope::ShopsWrite)
                .json_body::<NewExchangeRate>()
                .rel(&rels::SHOPS_CREATE_EXCHANGE_RATE),
        )
        .get(
            EXCHANGE_RATE,
            super::show,
            Op::new("Show an exchange rate", Answer::resource::<Fields>())
                .scope(Scope::ShopsRead)
                .rel(&rels::SHOPS_EXCHANGE_RATE),
        )
        .put(
            EXCHANGE_RATE,
            super::update,
            Op::new("Update an exchange rate", Answer::resource::<Fields>())
                .scope(Scope::ShopsWrite)
                .json_body::<ExchangeRateChanges>()
                .if_match()
                .rel(&rels::SHOPS_UPDATE_EXCHANGE_RATE),
        )
        .delete(
            EXCHANGE_RATE,
            super::delete,
            Op::new("Delete an exchange rate", Answer::resource::<Fields>())
                .scope(Scope::ShopsWrite)
                .if_match()
                .rel(&rels::SHOPS_DELETE_EXCHANGE_RATE),
        );
}

impl Urls {
    /// The shop's list, as a template of its parameters.
    pub fn exchange_rates(&self, shop_id: i64) -> String {
        self.list_template(&EXCHANGE_RATES.with(&[shop_id]), &EXCHANGE_RATE_LIST)
    }

    /// Where one is added to the shop.
    pub fn new_exchange_rate(&self, shop_id: i64) -> String {
        self.at(EXCHANGE_RATES, &[shop_id])
    }

    pub fn exchange_rate(&self, shop_id: i64, id: i64) -> String {
        self.at(EXCHANGE_RATE, &[shop_id, id])
    }
}
