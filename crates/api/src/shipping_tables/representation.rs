//! How a shipping table looks to a client.

use domain::shipping::{Rate, ShippingMethod, ZoneCountry};
use domain::{Scope, ScopeSet, Timestamp};
use hal::{Link, Resource};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use storage::shipping_tables::ShippingTable;

use crate::kernel::present::Presenter;
use crate::kernel::urls::Urls;
use crate::rels;

#[derive(Serialize, JsonSchema)]
pub struct ShippingTableFields<'a> {
    id: i64,
    shop_id: i64,
    name: &'a str,
    method: ShippingMethod,
    zone: &'a [ZoneCountry],
    rates: &'a [Rate],
    free_over: Option<i64>,
    enabled: bool,
    position: i64,
    created_on: Timestamp,
    updated_on: Timestamp,
}

pub fn shipping_table_resource(urls: &Urls, viewer: ScopeSet, table: &ShippingTable) -> Resource {
    let fields = ShippingTableFields {
        id: table.id,
        shop_id: table.shop_id,
        name: &table.name,
        method: table.method,
        zone: &table.zone.0,
        rates: &table.rates.0,
        free_over: table.free_over,
        enabled: table.enabled,
        position: table.position,
        created_on: table.created_on,
        updated_on: table.updated_on,
    };
    let href = urls.shipping_table(table.shop_id, table.id);
    let write = viewer.contains(Scope::ShopsWrite);
    Resource::new(["shipping_table"])
        .with_properties(&fields)
        .link("self", Link::get(href.clone()))
        .rel_if(write, &rels::SHOPS_UPDATE_SHIPPING_TABLE, || href.clone())
        .rel_if(write, &rels::SHOPS_DELETE_SHIPPING_TABLE, || href.clone())
        .rel(&rels::SHOPS_SHOP, urls.shop(table.shop_id))
}

impl services::shipping_tables::Present for Presenter {
    fn shipping_table(&self, viewer: ScopeSet, table: &ShippingTable) -> Value {
        shipping_table_resource(&self.urls, viewer, table).into_value(self.urls.curies())
    }
}
