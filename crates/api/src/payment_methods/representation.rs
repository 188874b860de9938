//! How a payment method looks to a client: its public settings, and only the names of
//! the secret ones that are set.

use std::collections::BTreeMap;

use domain::payment::MethodType;
use domain::{Scope, ScopeSet, Timestamp};
use hal::{Link, Resource};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use storage::payment_methods::PaymentMethod;

use crate::kernel::present::Presenter;
use crate::kernel::urls::Urls;
use crate::rels;

#[derive(Serialize, JsonSchema)]
pub struct PaymentMethodFields<'a> {
    id: i64,
    shop_id: i64,
    #[serde(rename = "type")]
    method_type: MethodType,
    name: &'a str,
    instructions: &'a str,
    /// Whether new orders may name it.
    enabled: bool,
    position: i64,
    /// The public settings; secret ones are never shown.
    settings: &'a BTreeMap<String, String>,
    /// The names of the secret settings that are set.
    secrets_set: &'a [String],
    created_on: Timestamp,
    updated_on: Timestamp,
}

/// A payment method with the links a reader with `viewer`'s scopes may follow.
pub fn payment_method_resource(urls: &Urls, viewer: ScopeSet, method: &PaymentMethod) -> Resource {
    let fields = PaymentMethodFields {
        id: method.id,
        shop_id: method.shop_id,
        method_type: method.method_type,
        name: &method.name,
        instructions: &method.instructions,
        enabled: method.enabled,
        position: method.position,
        settings: &method.settings.0,
        secrets_set: &method.secrets_set.0,
        created_on: method.created_on,
        updated_on: method.updated_on,
    };
    let href = urls.payment_method(method.shop_id, method.id);
    let write = viewer.contains(Scope::ShopsWrite);
    Resource::new(["payment_method"])
        .with_properties(&fields)
        .link("self", Link::get(href.clone()))
        .rel_if(write, &rels::SHOPS_UPDATE_PAYMENT_METHOD, || href.clone())
        .rel_if(write, &rels::SHOPS_DELETE_PAYMENT_METHOD, || href.clone())
        .rel(&rels::SHOPS_SHOP, urls.shop(method.shop_id))
}

impl services::payment_methods::Present for Presenter {
    fn payment_method(&self, viewer: ScopeSet, method: &PaymentMethod) -> Value {
        payment_method_resource(&self.urls, viewer, method).into_value(self.urls.curies())
    }
}
