//! How a collection looks to a client.

use domain::catalog::collection::{CollectionKind, Rule, RuleMatch, SortOrder};
use domain::{Scope, ScopeSet, Timestamp};
use hal::{Link, Resource};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use services::collections::Membership;
use storage::Tenant;
use storage::collections::Collection;

use crate::catalog::CatalogView;
use crate::kernel::present::Presenter;
use crate::kernel::urls::Urls;
use crate::products::product_resource;
use crate::rels;

#[derive(Serialize, JsonSchema)]
pub struct CollectionFields<'a> {
    id: i64,
    seller_id: i64,
    title: &'a str,
    slug: &'a str,
    description: &'a str,
    kind: CollectionKind,
    rules: &'a [Rule],
    rule_match: RuleMatch,
    sort_order: SortOrder,
    products_count: i64,
    created_on: Timestamp,
    updated_on: Timestamp,
}

pub fn collection_resource(urls: &Urls, viewer: ScopeSet, collection: &Collection) -> Resource {
    let fields = CollectionFields {
        id: collection.id,
        seller_id: collection.seller_id,
        title: &collection.title,
        slug: &collection.slug,
        description: &collection.description,
        kind: collection.kind,
        rules: &collection.rules.0,
        rule_match: collection.rule_match,
        sort_order: collection.sort_order,
        products_count: collection.products_count,
        created_on: collection.created_on,
        updated_on: collection.updated_on,
    };
    let id = collection.id;
    let href = urls.collection(id);
    let members = format!("{href}/products");
    let write = viewer.contains(Scope::ProductsWrite);
    let curated = write && collection.kind == CollectionKind::Manual;
    Resource::new(["collection"])
        .with_properties(&fields)
        .link("self", Link::get(href.clone()))
        .rel_if(write, &rels::COLLECTIONS_UPDATE, || href.clone())
        .rel_if(write, &rels::COLLECTIONS_DELETE, || href.clone())
        .rel(&rels::COLLECTIONS_PRODUCTS, urls.collection_members(id))
        .rel_if(curated, &rels::COLLECTIONS_ADD_PRODUCT, || members.clone())
        .rel_if(curated, &rels::COLLECTIONS_REORDER_PRODUCTS, || {
            members.clone()
        })
        .rel_if(curated, &rels::COLLECTIONS_REMOVE_PRODUCT, || {
            format!("{members}/{{product_id}}")
        })
        .rel(
            &rels::PRODUCTS_PRODUCTS,
            urls.products_where("collections", id),
        )
}

/// A collection after a product joined or left it, embedding that product as it is now.
pub fn membership_resource(
    urls: &Urls,
    viewer: ScopeSet,
    tenant: Tenant,
    membership: &Membership,
) -> Resource {
    let resource = collection_resource(urls, viewer, &membership.collection);
    match &membership.product {
        Some(product) => resource.embed(
            "product",
            product_resource(
                urls,
                viewer,
                &CatalogView::Admin(tenant),
                &product.product,
                &product.embedded,
            ),
        ),
        None => resource,
    }
}

impl services::collections::Present for Presenter {
    fn collection(&self, viewer: ScopeSet, collection: &Collection) -> Value {
        collection_resource(&self.urls, viewer, collection).into_value(self.urls.curies())
    }

    fn membership(&self, viewer: ScopeSet, tenant: Tenant, membership: &Membership) -> Value {
        membership_resource(&self.urls, viewer, tenant, membership).into_value(self.urls.curies())
    }
}
