//! How a variant looks to a client.

use domain::catalog::product::discount_percentage;
use domain::{Scope, ScopeSet, Timestamp};
use hal::{Link, Resource};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};
use storage::Tenant;
use storage::variants::Variant;

use crate::catalog::CatalogView;
use crate::kernel::present::Presenter;
use crate::kernel::urls::Urls;
use crate::rels;

#[derive(Serialize, JsonSchema)]
pub struct VariantFields<'a> {
    id: i64,
    product_id: i64,
    sku: Option<&'a str>,
    title: &'a str,
    #[schemars(with = "std::collections::BTreeMap<String, String>")]
    options: &'a Map<String, Value>,
    price: i64,
    price_comparison: Option<i64>,
    discount_percentage: i64,
    stock: i64,
    available_if_no_stock: bool,
    weight_in_grams: Option<i64>,
    barcode: Option<&'a str>,
    position: i64,
    image_ids: &'a [i64],
    created_on: Timestamp,
    updated_on: Timestamp,
}

pub fn variant_resource(
    urls: &Urls,
    viewer: ScopeSet,
    view: &CatalogView,
    variant: &Variant,
) -> Resource {
    let fields = VariantFields {
        id: variant.id,
        product_id: variant.product_id,
        sku: variant.sku.as_deref(),
        title: &variant.title,
        options: &variant.options.0,
        price: variant.price,
        price_comparison: variant.price_comparison,
        discount_percentage: discount_percentage(variant.price, variant.price_comparison),
        stock: variant.stock,
        available_if_no_stock: variant.available_if_no_stock,
        weight_in_grams: variant.weight_in_grams,
        barcode: variant.barcode.as_deref(),
        position: variant.position,
        image_ids: &variant.image_ids.0,
        created_on: variant.created_on,
        updated_on: variant.updated_on,
    };
    let href = urls.variant(variant.product_id, variant.id);
    let admin = view.tenant().is_some();
    let write = admin && viewer.contains(Scope::ProductsWrite);
    Resource::new(["variant"])
        .with_properties(&fields)
        .link("self", Link::get(view.href(href.clone())))
        .rel_if(write, &rels::VARIANTS_UPDATE, || href.clone())
        .rel_if(write, &rels::VARIANTS_DELETE, || href.clone())
        .rel_if(write, &rels::VARIANTS_ADJUST_STOCK, || {
            format!("{href}/stock_adjustments")
        })
        .rel(
            &rels::PRODUCTS_PRODUCT,
            view.href(urls.product(variant.product_id)),
        )
}

impl services::variants::Present for Presenter {
    fn variant(&self, viewer: ScopeSet, tenant: Tenant, variant: &Variant) -> Value {
        variant_resource(&self.urls, viewer, &CatalogView::Admin(tenant), variant)
            .into_value(self.urls.curies())
    }
}
