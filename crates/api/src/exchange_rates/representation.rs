//! How an exchange rate looks to a client.

use domain::exchange::ExchangeRate;
use domain::{Scope, ScopeSet, Timestamp};
use hal::{Link, Resource};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use storage::exchange_rates::StoredRate;

use crate::kernel::present::Presenter;
use crate::kernel::urls::Urls;
use crate::rels;

#[derive(Serialize, JsonSchema)]
pub struct ExchangeRateFields<'a> {
    id: i64,
    shop_id: i64,
    from_currency: &'a str,
    to_currency: &'a str,
    /// A decimal string with at most 6 places.
    rate: String,
    created_on: Timestamp,
    updated_on: Timestamp,
}

pub fn exchange_rate_resource(urls: &Urls, viewer: ScopeSet, rate: &StoredRate) -> Resource {
    let shown =
        ExchangeRate::from_millionths(rate.rate).map_or_else(String::new, |r| r.to_string());
    let fields = ExchangeRateFields {
        id: rate.id,
        shop_id: rate.shop_id,
        from_currency: &rate.from_currency,
        to_currency: &rate.to_currency,
        rate: shown,
        created_on: rate.created_on,
        updated_on: rate.updated_on,
    };
    let href = urls.exchange_rate(rate.shop_id, rate.id);
    let write = viewer.contains(Scope::ShopsWrite);
    Resource::new(["exchange_rate"])
        .with_properties(&fields)
        .link("self", Link::get(href.clone()))
        .rel_if(write, &rels::SHOPS_UPDATE_EXCHANGE_RATE, || href.clone())
        .rel_if(write, &rels::SHOPS_DELETE_EXCHANGE_RATE, || href.clone())
        .rel(&rels::SHOPS_SHOP, urls.shop(rate.shop_id))
}

impl services::exchange_rates::Present for Presenter {
    fn exchange_rate(&self, viewer: ScopeSet, rate: &StoredRate) -> Value {
        exchange_rate_resource(&self.urls, viewer, rate).into_value(self.urls.curies())
    }
}
