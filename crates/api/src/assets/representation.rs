//! How a product image looks to a client.

use domain::{Scope, ScopeSet, Timestamp};
use hal::{Link, Resource};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use storage::Tenant;
use storage::product_assets::Asset;

use crate::catalog::CatalogView;
use crate::kernel::present::Presenter;
use crate::kernel::urls::Urls;
use crate::rels;

#[derive(Serialize, JsonSchema)]
pub struct AssetFields<'a> {
    id: i64,
    product_id: i64,
    file_name: &'a str,
    content_type: &'a str,
    byte_size: i64,
    width: Option<i64>,
    height: Option<i64>,
    position: i64,
    url: String,
    created_on: Timestamp,
    updated_on: Timestamp,
}

pub fn asset_resource(
    urls: &Urls,
    viewer: ScopeSet,
    view: &CatalogView,
    asset: &Asset,
) -> Resource {
    let url = urls.asset_file(asset.id, &asset.digest, &asset.file_name);
    let fields = AssetFields {
        id: asset.id,
        product_id: asset.product_id,
        file_name: &asset.file_name,
        content_type: &asset.content_type,
        byte_size: asset.byte_size,
        width: asset.width,
        height: asset.height,
        position: asset.position,
        url: url.clone(),
        created_on: asset.created_on,
        updated_on: asset.updated_on,
    };
    let href = urls.asset(asset.product_id, asset.id);
    let write = view.tenant().is_some() && viewer.contains(Scope::ProductsWrite);
    Resource::new(["asset"])
        .with_properties(&fields)
        .link("self", Link::get(view.href(href.clone())))
        .link(
            "enclosure",
            Link::get(url).with_type(asset.content_type.clone()),
        )
        .rel_if(write, &rels::PRODUCTS_DELETE_ASSET, || href)
}

impl services::assets::Present for Presenter {
    fn asset(&self, viewer: ScopeSet, tenant: Tenant, asset: &Asset) -> Value {
        asset_resource(&self.urls, viewer, &CatalogView::Admin(tenant), asset)
            .into_value(self.urls.curies())
    }
}
