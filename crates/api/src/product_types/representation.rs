//! How a product type looks to a client.

use domain::catalog::attributes::AttributeDef;
use domain::{Scope, ScopeSet, Timestamp};
use hal::{Link, Resource};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use storage::product_types::ProductType;

use crate::kernel::present::Presenter;
use crate::kernel::urls::Urls;
use crate::rels;

#[derive(Serialize, JsonSchema)]
pub struct ProductTypeFields<'a> {
    id: i64,
    seller_id: i64,
    name: &'a str,
    attributes: &'a [AttributeDef],
    products_count: i64,
    created_on: Timestamp,
    updated_on: Timestamp,
}

pub fn product_type_resource(
    urls: &Urls,
    viewer: ScopeSet,
    product_type: &ProductType,
) -> Resource {
    let fields = ProductTypeFields {
        id: product_type.id,
        seller_id: product_type.seller_id,
        name: &product_type.name,
        attributes: &product_type.attributes.0,
        products_count: product_type.products_count,
        created_on: product_type.created_on,
        updated_on: product_type.updated_on,
    };
    let href = urls.product_type(product_type.id);
    let write = viewer.contains(Scope::ProductsWrite);
    Resource::new(["product_type"])
        .with_properties(&fields)
        .link("self", Link::get(href.clone()))
        .rel_if(write, &rels::PRODUCT_TYPES_UPDATE, || href.clone())
        .rel_if(
            write && product_type.products_count == 0,
            &rels::PRODUCT_TYPES_DELETE,
            || href.clone(),
        )
        .rel(
            &rels::PRODUCT_TYPES_PRODUCTS,
            urls.products_where("type_ids", product_type.id),
        )
}

impl services::product_types::Present for Presenter {
    fn product_type(&self, viewer: ScopeSet, product_type: &ProductType) -> Value {
        product_type_resource(&self.urls, viewer, product_type).into_value(self.urls.curies())
    }
}
