//! How a price list, its items and its price previews look to a client.

use domain::catalog::pricing::{PriceListKind, PriceListStatus, Tier};
use domain::{Scope, ScopeSet, Timestamp};
use hal::{Link, Resource};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use storage::price_lists::{PriceList, PriceListItem};

use crate::kernel::present::Presenter;
use crate::kernel::urls::Urls;
use crate::rels;

#[derive(Serialize, JsonSchema)]
pub struct PriceListFields<'a> {
    id: i64,
    seller_id: i64,
    name: &'a str,
    description: &'a str,
    status: PriceListStatus,
    kind: PriceListKind,
    currency_code: &'a str,
    starts_on: Option<Timestamp>,
    ends_on: Option<Timestamp>,
    priority: i64,
    contact_ids: &'a [i64],
    items_count: i64,
    created_on: Timestamp,
    updated_on: Timestamp,
}

/// The parameters of `price_lists:prices`, in the order its template declares them.
const PRICES_PARAMS: &[&str] = &[
    "variant_ids",
    "quantity",
    "currency_code",
    "contact_id",
    "at",
];

pub fn price_list_resource(urls: &Urls, viewer: ScopeSet, list: &PriceList) -> Resource {
    let fields = PriceListFields {
        id: list.id,
        seller_id: list.seller_id,
        name: &list.name,
        description: &list.description,
        status: list.status,
        kind: list.kind,
        currency_code: &list.currency_code,
        starts_on: list.starts_on,
        ends_on: list.ends_on,
        priority: list.priority,
        contact_ids: &list.contact_ids.0,
        items_count: list.items_count,
        created_on: list.created_on,
        updated_on: list.updated_on,
    };
    let href = urls.price_list(list.id);
    let items = format!("{href}/items");
    let write = viewer.contains(Scope::ProductsWrite);
    Resource::new(["price_list"])
        .with_properties(&fields)
        .link("self", Link::get(href.clone()))
        .rel_if(write, &rels::PRICE_LISTS_UPDATE, || href.clone())
        .rel_if(write, &rels::PRICE_LISTS_DELETE, || href.clone())
        .rel(&rels::PRICE_LISTS_ITEMS, urls.price_list_items(list.id))
        .rel_if(write, &rels::PRICE_LISTS_UPSERT_ITEMS, || items.clone())
        .rel_if(write, &rels::PRICE_LISTS_DELETE_ITEM, || {
            format!("{items}/{{item_id}}")
        })
        .rel(
            &rels::PRICE_LISTS_PRICES,
            format!("{href}/prices{{?{}}}", PRICES_PARAMS.join(",")),
        )
        .rel_if(
            viewer.contains(Scope::SellersRead),
            &rels::SELLERS_SELLER,
            || urls.seller(list.seller_id),
        )
}

/// The list with some of its items embedded under `items` (for item writes and their
/// events).
pub fn list_with_items(
    urls: &Urls,
    viewer: ScopeSet,
    list: &PriceList,
    items: &[PriceListItem],
) -> Resource {
    price_list_resource(urls, viewer, list).embed_all(
        "items",
        items.iter().map(|i| item_resource(urls, viewer, list, i)),
    )
}

#[derive(Serialize, JsonSchema)]
#[schemars(rename = "PriceListItemFields")]
pub struct ItemFields<'a> {
    id: i64,
    price_list_id: i64,
    variant_id: i64,
    product_id: i64,
    min_quantity: i64,
    price: i64,
    price_comparison: Option<i64>,
    currency_code: &'a str,
    created_on: Timestamp,
    updated_on: Timestamp,
}

pub fn item_resource(
    urls: &Urls,
    viewer: ScopeSet,
    list: &PriceList,
    item: &PriceListItem,
) -> Resource {
    let fields = ItemFields {
        id: item.id,
        price_list_id: item.price_list_id,
        variant_id: item.variant_id,
        product_id: item.product_id,
        min_quantity: item.min_quantity,
        price: item.price,
        price_comparison: item.price_comparison,
        currency_code: &list.currency_code,
        created_on: item.created_on,
        updated_on: item.updated_on,
    };
    let href = format!("{}/items/{}", urls.price_list(list.id), item.id);
    Resource::new(["price_list_item"])
        .with_properties(&fields)
        .link("self", Link::get(href.clone()))
        .rel_if(
            viewer.contains(Scope::ProductsWrite),
            &rels::PRICE_LISTS_DELETE_ITEM,
            || href.clone(),
        )
        .rel(&rels::PRICE_LISTS_PRICE_LIST, urls.price_list(list.id))
        .rel(&rels::PRODUCTS_PRODUCT, urls.product(item.product_id))
}

/// What `price_lists:prices` answers for one variant.
#[derive(Serialize)]
pub struct VariantPrice {
    pub variant_id: i64,
    pub product_id: i64,
    pub base_price: i64,
    pub base_price_comparison: Option<i64>,
    /// What a buyer pays per unit under the request's conditions with this list alone.
    pub price: i64,
    pub price_comparison: Option<i64>,
    /// Whether the list set `price`.
    pub applied: bool,
    /// `applied`, `no_tier` (no tier starts at or below the quantity), `not_lower` (a sale
    /// tier not below the base price) or `list_not_applicable`.
    pub outcome: &'static str,
    /// The list's tier for the quantity, whether or not it applied.
    pub tier: Option<TierFields>,
}

#[derive(Serialize)]
pub struct TierFields {
    pub item_id: i64,
    pub min_quantity: i64,
    pub price: i64,
    pub price_comparison: Option<i64>,
}

impl From<&Tier> for TierFields {
    fn from(tier: &Tier) -> Self {
        Self {
            item_id: tier.item_id,
            min_quantity: tier.min_quantity,
            price: tier.price,
            price_comparison: tier.price_comparison,
        }
    }
}

pub fn variant_price_resource(urls: &Urls, price: &VariantPrice) -> Resource {
    Resource::new(["variant_price"])
        .with_properties(price)
        .link(
            "self",
            Link::get(urls.variant(price.product_id, price.variant_id)),
        )
        .rel(&rels::PRODUCTS_PRODUCT, urls.product(price.product_id))
}

impl services::price_lists::Present for Presenter {
    fn price_list(&self, viewer: ScopeSet, list: &PriceList) -> Value {
        price_list_resource(&self.urls, viewer, list).into_value(self.urls.curies())
    }

    fn price_list_with_items(
        &self,
        viewer: ScopeSet,
        list: &PriceList,
        items: &[PriceListItem],
    ) -> Value {
        list_with_items(&self.urls, viewer, list, items).into_value(self.urls.curies())
    }

    fn price_list_item(&self, viewer: ScopeSet, list: &PriceList, item: &PriceListItem) -> Value {
        item_resource(&self.urls, viewer, list, item).into_value(self.urls.curies())
    }
}
