//! `GET /v2`: who the token speaks for, the sellers and shops it may see, and a link to
//! every area the token may use.

use axum::extract::State;
use domain::{Role, Scope};
use hal::{Link, Resource};
use serde::Serialize;
use storage::{sellers, shops, users};

use crate::collections::COLLECTION_LIST;
use crate::credentials::{APP_LIST, TOKEN_LIST};
use crate::kernel::auth::Auth;
use crate::kernel::error::ApiResult;
use crate::kernel::hal_response::Hal;
use crate::orders::ORDER_LIST;
use crate::price_lists::PRICE_LIST_LIST;
use crate::product_types::PRODUCT_TYPE_LIST;
use crate::products::PRODUCT_LIST;
use crate::rels;
use crate::sellers::{SELLER_LIST, seller_resource};
use crate::shops::{SHOP_LIST, shop_resource};
use crate::state::AppState;
use crate::webhooks::WEBHOOK_LIST;

/// How many sellers and shops the root embeds; the lists hold the rest.
const EMBEDDED_LIMIT: i64 = 200;

#[derive(Serialize)]
struct RootFields {
    user_name: Option<String>,
    email: Option<String>,
    uid: Option<i64>,
    account_id: Option<i64>,
    seller_id: Option<i64>,
    role: Option<&'static str>,
    client_id: String,
    scopes: String,
    last_logged_on: Option<domain::Timestamp>,
}

pub async fn show(State(state): State<AppState>, auth: Auth) -> ApiResult<Hal> {
    // Three independent reads, run side by side on separate connections.
    let user = async {
        match auth.user_id() {
            Some(id) => users::find(&state.db, id).await,
            None => Ok(None),
        }
    };
    let embedded = async {
        match auth.tenant() {
            Some(tenant) => tokio::try_join!(
                sellers::first_of_tenant(&state.db, tenant, EMBEDDED_LIMIT),
                shops::first_of_tenant(&state.db, tenant, EMBEDDED_LIMIT),
            ),
            None => Ok((Vec::new(), Vec::new())),
        }
    };
    let (user, (sellers, shops)) = tokio::try_join!(user, embedded)?;
    let fields = RootFields {
        user_name: user.as_ref().map(|u| u.name.clone()),
        email: user.as_ref().map(|u| u.email.clone()),
        uid: user.as_ref().map(|u| u.id),
        account_id: auth.account_id,
        seller_id: auth.seller_id,
        role: auth.role().map(|r| r.as_str()),
        client_id: auth.client_id.clone(),
        scopes: auth.granted.to_string(),
        last_logged_on: user.as_ref().and_then(|u| u.last_logged_on),
    };
    let urls = &state.urls;
    // Tokens bound to an account manage their catalog; others may read a public one.
    let catalog_admin = auth.tenant().is_some() && auth.has(Scope::ProductsRead);
    let catalog_reader = auth.has(Scope::ProductsRead) || auth.has(Scope::Public);
    let catalog_writer = auth.tenant().is_some() && auth.has(Scope::ProductsWrite);
    let orders_reader = auth.tenant().is_some() && auth.has(Scope::OrdersRead);
    let hub_reader = auth.tenant().is_some() && auth.has(Scope::HubRead);
    let hub_writer = auth.tenant().is_some() && auth.has(Scope::HubWrite);
    // Credentials belong to users, and need their own scopes (`admin` does not imply them).
    let credentials_reader = auth.user_id().is_some() && auth.has(Scope::CredentialsRead);
    let credentials_writer = auth.user_id().is_some() && auth.has(Scope::CredentialsWrite);
    let app_registrar =
        credentials_writer && matches!(auth.role(), Some(Role::Owner | Role::Admin));
    let doc = Resource::new(["root"])
        .with_properties(&fields)
        .link("self", Link::get(urls.root()))
        .rel_if(auth.has(Scope::SellersRead), &rels::SELLERS_SELLERS, || {
            urls.list_template("/sellers", &SELLER_LIST)
        })
        .rel_if(auth.has(Scope::SellersRead), &rels::SELLERS_SELLER, || {
            urls.api("/sellers/{id}")
        })
        .rel_if(auth.has(Scope::ShopsRead), &rels::SHOPS_SHOPS, || {
            urls.list_template("/shops", &SHOP_LIST)
        })
        .rel_if(auth.has(Scope::ShopsRead), &rels::SHOPS_SHOP, || {
            urls.api("/shops/{id}")
        })
        .rel_if(catalog_reader, &rels::PRODUCTS_PRODUCTS, || {
            urls.list_template("/products", &PRODUCT_LIST)
        })
        .rel_if(catalog_reader, &rels::PRODUCTS_PRODUCT, || {
            urls.api("/products/{id}")
        })
        .rel_if(catalog_writer, &rels::PRODUCTS_CREATE_PRODUCT, || {
            urls.api("/products")
        })
        .rel_if(catalog_admin, &rels::COLLECTIONS_COLLECTIONS, || {
            urls.list_template("/collections", &COLLECTION_LIST)
        })
        .rel_if(catalog_admin, &rels::COLLECTIONS_COLLECTION, || {
            urls.api("/collections/{id}")
        })
        .rel_if(catalog_writer, &rels::COLLECTIONS_CREATE_COLLECTION, || {
            urls.api("/collections")
        })
        .rel_if(catalog_admin, &rels::PRODUCT_TYPES_PRODUCT_TYPES, || {
            urls.list_template("/product_types", &PRODUCT_TYPE_LIST)
        })
        .rel_if(catalog_admin, &rels::PRODUCT_TYPES_PRODUCT_TYPE, || {
            urls.api("/product_types/{id}")
        })
        .rel_if(
            catalog_writer,
            &rels::PRODUCT_TYPES_CREATE_PRODUCT_TYPE,
            || urls.api("/product_types"),
        )
        .rel_if(catalog_admin, &rels::PRICE_LISTS_PRICE_LISTS, || {
            urls.list_template("/price_lists", &PRICE_LIST_LIST)
        })
        .rel_if(catalog_admin, &rels::PRICE_LISTS_PRICE_LIST, || {
            urls.api("/price_lists/{id}")
        })
        .rel_if(catalog_writer, &rels::PRICE_LISTS_CREATE_PRICE_LIST, || {
            urls.api("/price_lists")
        })
        .rel_if(orders_reader, &rels::ORDERS_ORDERS, || {
            urls.list_template("/orders", &ORDER_LIST)
        })
        .rel_if(orders_reader, &rels::ORDERS_ORDER, || {
            urls.api("/orders/{id}")
        })
        .rel_if(hub_reader, &rels::WEBHOOKS_WEBHOOKS, || {
            urls.list_template("/webhooks", &WEBHOOK_LIST)
        })
        .rel_if(hub_reader, &rels::WEBHOOKS_WEBHOOK, || {
            urls.api("/webhooks/{id}")
        })
        .rel_if(hub_writer, &rels::WEBHOOKS_CREATE_WEBHOOK, || {
            urls.api("/webhooks")
        })
        .rel_if(auth.has(Scope::HubRead), &rels::WEBHOOKS_TOPICS, || {
            urls.api("/webhooks/topics")
        })
        .rel_if(
            credentials_reader,
            &rels::ROOT_PERSONAL_ACCESS_TOKENS,
            || urls.list_template("/personal_access_tokens", &TOKEN_LIST),
        )
        .rel_if(
            credentials_writer,
            &rels::ROOT_CREATE_PERSONAL_ACCESS_TOKEN,
            || urls.api("/personal_access_tokens"),
        )
        .rel_if(credentials_reader, &rels::ROOT_APPS, || {
            urls.list_template("/apps", &APP_LIST)
        })
        .rel_if(app_registrar, &rels::ROOT_CREATE_APP, || urls.api("/apps"))
        .embed_all(
            "sellers",
            sellers.iter().map(|s| {
                seller_resource(
                    urls,
                    &auth,
                    s,
                    None::<std::slice::Iter<'_, storage::shops::Shop>>,
                )
            }),
        )
        .embed_all(
            "shops",
            shops.iter().map(|s| shop_resource(urls, auth.scopes, s)),
        )
        .into_value(urls.curies());
    Ok(Hal::ok(doc, state.clock.now()))
}
