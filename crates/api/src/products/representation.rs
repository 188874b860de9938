//! How a product looks to a client.

use domain::catalog::product::{ProductStatus, discount_percentage};
use domain::{Scope, ScopeSet, Timestamp};
use hal::{Link, Resource};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};
use storage::Tenant;
use storage::products::{Embedded, Product};

use crate::assets::asset_resource;
use crate::catalog::CatalogView;
use crate::kernel::present::Presenter;
use crate::kernel::urls::Urls;
use crate::rels;
use crate::variants::variant_resource;

#[derive(Serialize, JsonSchema)]
pub struct ProductFields<'a> {
    id: i64,
    seller_id: i64,
    title: &'a str,
    slug: &'a str,
    description: &'a str,
    status: ProductStatus,
    vendor: Option<&'a str>,
    tags: &'a [String],
    price: i64,
    price_comparison: Option<i64>,
    discount_percentage: i64,
    currency_code: &'a str,
    product_type_id: Option<i64>,
    product_type_name: Option<&'a str>,
    collection_ids: &'a [i64],
    all_shops: bool,
    shop_ids: &'a [i64],
    custom_attributes: &'a Map<String, Value>,
    created_on: Timestamp,
    updated_on: Timestamp,
}

/// A product with its variants and images, and the links a holder of `viewer` may follow.
pub fn product_resource(
    urls: &Urls,
    viewer: ScopeSet,
    view: &CatalogView,
    product: &Product,
    embedded: &Embedded,
) -> Resource {
    let fields = ProductFields {
        id: product.id,
        seller_id: product.seller_id,
        title: &product.title,
        slug: &product.slug,
        description: &product.description,
        status: product.status,
        vendor: product.vendor.as_deref(),
        tags: &product.tags.0,
        price: product.price,
        price_comparison: product.price_comparison,
        discount_percentage: discount_percentage(product.price, product.price_comparison),
        currency_code: &product.currency_code,
        product_type_id: product.product_type_id,
        product_type_name: product.product_type_name.as_deref(),
        collection_ids: &embedded.collection_ids,
        all_shops: product.all_shops,
        shop_ids: &embedded.shop_ids,
        custom_attributes: &product.custom_attributes.0,
        created_on: product.created_on,
        updated_on: product.updated_on,
    };
    let id = product.id;
    let admin = view.tenant().is_some();
    let write = admin && viewer.contains(Scope::ProductsWrite);
    Resource::new(["product"])
        .with_properties(&fields)
        .link("self", Link::get(view.href(urls.product(id))))
        .rel_if(write, &rels::PRODUCTS_UPDATE, || urls.product(id))
        .rel_if(write, &rels::PRODUCTS_DELETE, || urls.product(id))
        .rel_if(admin, &rels::PRODUCTS_VARIANTS, || urls.variants_list(id))
        .rel_if(write, &rels::PRODUCTS_CREATE_VARIANT, || urls.variants(id))
        .rel_if(admin, &rels::PRODUCTS_ASSETS, || urls.assets_list(id))
        .rel_if(write, &rels::PRODUCTS_CREATE_ASSET, || urls.assets(id))
        .rel_if(admin, &rels::PRODUCTS_COLLECTIONS, || {
            urls.collections_of_product(id)
        })
        .rel_if(
            admin && product.product_type_id.is_some(),
            &rels::PRODUCT_TYPES_PRODUCT_TYPE,
            || urls.product_type(product.product_type_id.unwrap_or_default()),
        )
        .rel_if(
            admin && viewer.contains(Scope::SellersRead),
            &rels::SELLERS_SELLER,
            || urls.seller(product.seller_id),
        )
        .embed_all(
            "variants",
            embedded
                .variants
                .iter()
                .map(|v| variant_resource(urls, viewer, view, v)),
        )
        .embed_all(
            "images",
            embedded
                .assets
                .iter()
                .map(|a| asset_resource(urls, viewer, view, a)),
        )
}

impl services::products::Present for Presenter {
    fn product(
        &self,
        viewer: ScopeSet,
        tenant: Tenant,
        product: &Product,
        embedded: &Embedded,
    ) -> Value {
        product_resource(
            &self.urls,
            viewer,
            &CatalogView::Admin(tenant),
            product,
            embedded,
        )
        .into_value(self.urls.curies())
    }
}
