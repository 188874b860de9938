//! Shop admins: a shop's roster, listed and read with `shops.read`; admins invited,
//! their roles changed and removed with `shops.write` by those who manage the shop
//! (`services::shops::admins`).

pub mod area;
mod invitations;
pub mod rels;
mod representation;

use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use domain::shop_admin::AdminStatus;
use domain::{Role, Scope};
use services::shops::admins::input::{AdminChanges, NewAdmin};
use services::shops::admins::invitations::InvitationMail;
use services::shops::admins::{self as operations};
use storage::shop_admins::{self, ShopAdmin, ShopAdminFilter};
use storage::sql::Direction;

use crate::kernel::auth::Auth;
use crate::kernel::conditional::IfMatch;
use crate::kernel::error::{ApiError, ApiResult};
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, NestedIds, ResourceId};
use crate::kernel::list::ListSpec;
use crate::kernel::revalidation::AccountData;
use crate::kernel::state::AppState;
use crate::shops::tenant_shop;

pub use invitations::ShopInvitations;
pub use representation::{AdminFields, admin_resource};

pub static ADMIN_LIST: ListSpec = ListSpec {
    name: "shop_admins",
    default_per_page: 20,
    sort_fields: shop_admins::SORT_FIELDS,
    default_sort: ("id", Direction::Asc),
    filters: &["role", "status"],
};

async fn list(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(shop_id): ResourceId,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::ShopsRead)?;
    let (request, filter) =
        ADMIN_LIST.read(query.as_deref(), |params, errors| ShopAdminFilter {
            roles: params.parsed_list::<Role>("role", errors),
            accepted: params
                .parsed::<AdminStatus>("status", errors)
                .map(|s| s == AdminStatus::Active),
        })?;
    let shop = tenant_shop(&state, &auth, shop_id).await?;
    let page = shop_admins::list(
        &state.db,
        shop.account_id,
        shop.id,
        &filter,
        request.sort,
        request.window(),
    )
    .await?;
    let path = area::ADMINS.with(&[shop.id]);
    Ok(request
        .respond(&state, &path, page, |admin| {
            admin_resource(&state.urls, auth.scopes, admin)
        })
        .showing(AccountData::own(&auth)))
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(shop_id, id): NestedIds,
) -> ApiResult<Hal> {
    auth.require(Scope::ShopsRead)?;
    let shop = tenant_shop(&state, &auth, shop_id).await?;
    let admin = shop_admins::find(&state.db, shop.account_id, shop.id, id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    Ok(Hal::ok(document(&state, &auth, &admin), admin.updated_on).showing(AccountData::own(&auth)))
}

async fn create(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(shop_id): ResourceId,
    JsonBody(input): JsonBody<NewAdmin>,
) -> ApiResult<Hal> {
    auth.require(Scope::ShopsWrite)?;
    let accept_url = format!(
        "{}{}",
        state.auth.config().issuer,
        oauth::paths::INVITATIONS
    );
    let mail = InvitationMail {
        secret_box: state.auth.secret_box(),
        accept_url: &accept_url,
    };
    let made = operations::invite(&state.services, &auth.actor()?, shop_id, input, &mail).await?;
    let location = state.urls.shop_admin(shop_id, made.value.id);
    Ok(Hal::created(made.document, location, made.value.updated_on))
}

async fn update(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(shop_id, id): NestedIds,
    headers: HeaderMap,
    JsonBody(changes): JsonBody<AdminChanges>,
) -> ApiResult<Hal> {
    auth.require(Scope::ShopsWrite)?;
    let expect = IfMatch(&headers);
    let changed = operations::update(
        &state.services,
        &auth.actor()?,
        shop_id,
        id,
        &expect,
        changes,
    )
    .await?;
    Ok(Hal::ok(changed.document, changed.value.updated_on))
}

async fn delete(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(shop_id, id): NestedIds,
    headers: HeaderMap,
) -> ApiResult<Hal> {
    auth.require(Scope::ShopsWrite)?;
    let expect = IfMatch(&headers);
    let deleted = operations::delete(&state.services, &auth.actor()?, shop_id, id, &expect).await?;
    Ok(Hal::ok(deleted.document, state.clock.now()))
}

/// The principal's shop with this id (404 when its tenant has none).
/// An admin as the principal's GET shows it.
fn document(state: &AppState, auth: &Auth, admin: &ShopAdmin) -> Vec<u8> {
    admin_resource(&state.urls, auth.scopes, admin).into_json(state.urls.curies())
}
