//! How a seller looks to a client.

use domain::Scope;
use hal::{Link, Resource};
use oauth::Principal;
use schemars::JsonSchema;
use serde::Serialize;
use storage::sellers::Seller;
use storage::shops::Shop;

use crate::kernel::urls::Urls;
use crate::rels;
use crate::shops::shop_resource;

#[derive(Serialize, JsonSchema)]
pub struct SellerFields<'a> {
    id: i64,
    account_id: i64,
    name: &'a str,
    slug: &'a str,
    status: &'a str,
    default_currency_code: &'a str,
    country_code: Option<&'a str>,
    created_on: domain::Timestamp,
    updated_on: domain::Timestamp,
}

/// A seller with its links; with `shops`, those shops embedded.
pub fn seller_resource<'a>(
    urls: &Urls,
    principal: &Principal,
    seller: &Seller,
    shops: Option<impl Iterator<Item = &'a Shop>>,
) -> Resource {
    let fields = SellerFields {
        id: seller.id,
        account_id: seller.account_id,
        name: &seller.name,
        slug: &seller.slug,
        status: &seller.status,
        default_currency_code: &seller.default_currency_code,
        country_code: seller.country_code.as_deref(),
        created_on: seller.created_on,
        updated_on: seller.updated_on,
    };
    let can_read_shops = principal.has(Scope::ShopsRead);
    let mut resource = Resource::new(["seller"])
        .with_properties(&fields)
        .link("self", Link::get(urls.seller(seller.id)))
        .rel_if(can_read_shops, &rels::SELLERS_SHOPS, || {
            urls.shops_of_seller(seller.id)
        })
        .rel_if(
            principal.has(Scope::ShopsWrite),
            &rels::SHOPS_CREATE_SHOP,
            || urls.seller_shops(seller.id),
        );
    if let Some(shops) = shops.filter(|_| can_read_shops) {
        resource = resource.embed_all(
            "shops",
            shops.map(|shop| shop_resource(urls, principal.scopes, shop)),
        );
    }
    resource
}
