//! The signed-in customer: signing in through a storefront app, and the customer's own
//! profile, password, addresses and orders, reached with a customer session's token
//! alone (it holds no scope, so every other route refuses it).

pub mod area;
pub mod rels;

use std::net::IpAddr;

use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use domain::ScopeSet;
use domain::validation::FieldErrors;
use hal::{Link, Resource};
use oauth::customer_sessions::Storefront;
use oauth::{SignInError, SignedInCustomer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use services::customers::input::{AddressChanges, NewAddress, OwnChanges};
use services::customers::{self as operations, FullCustomer, PasswordHash, passwords};
use services::{Actor, Who};
use storage::customers;
use storage::orders;
use storage::shops;

use crate::customers::{View, address_document, address_in_view, customer_in_view, hash_password};
use crate::kernel::auth::Auth;
use crate::kernel::error::{ApiError, ApiResult, ErrorCode};
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{ClientAddress, JsonBody, ResourceId};
use crate::kernel::revalidation::AccountData;
use crate::kernel::state::AppState;
use crate::orders::{Whose, own_order_resource};

/// A customer's credentials.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SignIn {
    email: String,
    password: String,
}

/// A new session.
#[derive(Serialize, JsonSchema)]
pub struct SessionAnswer {
    /// The customer session's bearer token: it reaches the customer's own routes only.
    access_token: String,
    #[schemars(extend("const" = "bearer"))]
    token_type: &'static str,
    /// Seconds the token lives.
    expires_in: u64,
    customer_id: i64,
}

/// Whose password to reset.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ResetRequest {
    email: String,
}

/// A new password, with the token the reset mail carried.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NewPassword {
    reset_token: String,
    /// At least 10 characters.
    password: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct PasswordChange {
    current_password: String,
    /// At least 10 characters.
    password: String,
}

/// Asks for a password reset for the shop's seller's customer with this email: 202
/// whether or not there is one (the mail goes only to a customer's address).
async fn request_reset(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(shop_id): ResourceId,
    ClientAddress(ip): ClientAddress,
    JsonBody(input): JsonBody<ResetRequest>,
) -> ApiResult<impl IntoResponse> {
    let shop = storefront_shop(&state, &auth, shop_id).await?;
    let mut errors = FieldErrors::new();
    errors.check("email", domain::validation::email(input.email.trim()));
    errors.into_result()?;
    state
        .auth
        .count_reset_request(shop.seller_id, &input.email, ip)
        .await
        .map_err(sign_in_error)?;
    passwords::request_reset(
        &state.services,
        state.auth.secret_box(),
        &shop,
        &input.email,
    )
    .await?;
    Ok(StatusCode::ACCEPTED)
}

/// Sets a new password with the token a reset mail carried; ends the customer's sessions.
async fn complete_reset(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(shop_id): ResourceId,
    JsonBody(input): JsonBody<NewPassword>,
) -> ApiResult<impl IntoResponse> {
    let shop = storefront_shop(&state, &auth, shop_id).await?;
    let actor = Actor {
        who: Who::App {
            app_id: auth.app_id,
        },
        tenant: storage::Tenant {
            account_id: shop.account_id,
            seller_id: Some(shop.seller_id),
        },
        scopes: ScopeSet::EMPTY,
    };
    passwords::complete_reset(
        &state.services,
        &actor,
        &shop,
        &input.reset_token,
        input.password,
        hash_password,
    )
    .await?;
    state.auth.refresh_revocations().await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The shop a storefront app's token names (public scope; not a customer's session).
async fn storefront_shop(state: &AppState, auth: &Auth, shop_id: i64) -> ApiResult<shops::Shop> {
    // A customer's token holds no scope, so it never gets past this.
    auth.require(domain::Scope::Public)?;
    shops::by_ids(&state.db, &[shop_id])
        .await?
        .into_iter()
        .next()
        .ok_or_else(ApiError::not_found)
}

fn sign_in_error(err: SignInError) -> ApiError {
    match err {
        SignInError::Throttled(secs) => ApiError::too_many_requests(secs),
        SignInError::Wrong => ApiError::new(
            ErrorCode::InvalidCredentials,
            "the email or password is wrong",
        ),
        SignInError::Storage(err) => err.into(),
    }
}

/// Signs one of the shop's seller's customers in, for a storefront app's token.
async fn sign_in(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(shop_id): ResourceId,
    ClientAddress(ip): ClientAddress,
    JsonBody(input): JsonBody<SignIn>,
) -> ApiResult<Hal> {
    let shop = storefront_shop(&state, &auth, shop_id).await?;
    let customer = signed_in(&state, shop.seller_id, &input.email, &input.password, ip).await?;
    let through = Storefront {
        app_id: auth.app_id,
        client_id: &auth.client_id,
    };
    let session = state.auth.open_customer_session(&customer, through).await?;
    let answer = SessionAnswer {
        access_token: session.access_token,
        token_type: "bearer",
        expires_in: session.expires_in,
        customer_id: customer.id,
    };
    let urls = &state.urls;
    let doc = Resource::new(["customer_session"])
        .with_properties(&answer)
        .link("self", Link::get(urls.own_session()))
        .rel(&crate::rels::ACCOUNT_CUSTOMER, urls.own_profile())
        .rel(&crate::rels::ACCOUNT_SIGN_OUT, urls.own_session())
        .into_value(urls.curies());
    Ok(Hal::created(doc, urls.own_profile(), state.clock.now()).no_store())
}

/// The customer whose credentials these are, or why not.
async fn signed_in(
    state: &AppState,
    seller_id: i64,
    email: &str,
    password: &str,
    ip: Option<IpAddr>,
) -> ApiResult<customers::Customer> {
    state
        .auth
        .sign_in_customer(seller_id, email, password, ip)
        .await
        .map_err(sign_in_error)
}

/// Ends the session whose token this is.
async fn sign_out(State(state): State<AppState>, auth: Auth) -> ApiResult<impl IntoResponse> {
    session_of(&auth)?;
    state.auth.end_customer_session(&auth.token_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn show(State(state): State<AppState>, auth: Auth) -> ApiResult<Hal> {
    let (customer, full) = current(&state, &auth).await?;
    let doc = customer_in_view(&state.urls, View::Own, &full).into_json(state.urls.curies());
    Ok(Hal::ok(doc, full.customer.updated_on).showing(account_of(customer)))
}

async fn update(
    State(state): State<AppState>,
    auth: Auth,
    JsonBody(changes): JsonBody<OwnChanges>,
) -> ApiResult<Hal> {
    let (customer, _) = current(&state, &auth).await?;
    let actor = actor(&auth, customer);
    let changed = operations::update_own(&state.services, &actor, customer.id, changes).await?;
    let doc =
        customer_in_view(&state.urls, View::Own, &changed.value).into_value(state.urls.curies());
    Ok(Hal::ok(doc, changed.value.customer.updated_on))
}

/// Changes the password once the current one is proven; ends the customer's other
/// sessions.
async fn change_password(
    State(state): State<AppState>,
    auth: Auth,
    ClientAddress(ip): ClientAddress,
    JsonBody(change): JsonBody<PasswordChange>,
) -> ApiResult<impl IntoResponse> {
    let (customer, full) = current(&state, &auth).await?;
    let mut errors = FieldErrors::new();
    errors.check("password", domain::validation::password(&change.password));
    let email = full.customer.email.as_deref().unwrap_or_default();
    let proven = state
        .auth
        .sign_in_customer(full.customer.seller_id, email, &change.current_password, ip)
        .await;
    match proven {
        Ok(found) if found.id == customer.id => {}
        Err(SignInError::Throttled(secs)) => return Err(ApiError::too_many_requests(secs)),
        Err(SignInError::Storage(err)) => return Err(err.into()),
        _ => errors.add("current_password", "is not the customer's password"),
    }
    errors.into_result()?;
    let hash = PasswordHash(hash_password(change.password).await);
    let actor = actor(&auth, customer);
    operations::change_password(
        &state.services,
        &actor,
        customer.id,
        hash,
        Some(&auth.token_id),
    )
    .await?;
    state.auth.refresh_revocations().await?;
    Ok(StatusCode::NO_CONTENT)
}

async fn addresses(
    State(state): State<AppState>,
    auth: Auth,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    let (customer, full) = current(&state, &auth).await?;
    let urls = &state.urls;
    let (request, page) = crate::customers::address_page(query.as_deref(), &full)?;
    Ok(request
        .respond(&state, area::ADDRESSES.pattern(), page, |a| {
            address_in_view(urls, View::Own, &full.customer, a)
        })
        .showing(account_of(customer)))
}

async fn show_address(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    let (customer, full) = current(&state, &auth).await?;
    let (doc, updated_on) = address_document(&state, View::Own, &full, id)?;
    Ok(Hal::ok(doc, updated_on).showing(account_of(customer)))
}

async fn create_address(
    State(state): State<AppState>,
    auth: Auth,
    JsonBody(input): JsonBody<NewAddress>,
) -> ApiResult<Hal> {
    let (customer, _) = current(&state, &auth).await?;
    let actor = actor(&auth, customer);
    let (written, id) =
        operations::create_address(&state.services, &actor, customer.id, input).await?;
    let (doc, updated_on) = address_document(&state, View::Own, &written.value, id)?;
    Ok(Hal::created(doc, state.urls.own_address(id), updated_on))
}

async fn update_address(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    JsonBody(changes): JsonBody<AddressChanges>,
) -> ApiResult<Hal> {
    let (customer, _) = current(&state, &auth).await?;
    let actor = actor(&auth, customer);
    let written =
        operations::update_address(&state.services, &actor, customer.id, id, changes).await?;
    let (doc, updated_on) = address_document(&state, View::Own, &written.value, id)?;
    Ok(Hal::ok(doc, updated_on))
}

async fn delete_address(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    let (customer, _) = current(&state, &auth).await?;
    let actor = actor(&auth, customer);
    let (_, before) = operations::delete_address(&state.services, &actor, customer.id, id).await?;
    let (doc, _) = address_document(&state, View::Own, &before, id)?;
    Ok(Hal::ok(doc, state.clock.now()))
}

async fn orders(
    State(state): State<AppState>,
    auth: Auth,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    let (customer, _) = current(&state, &auth).await?;
    crate::orders::respond_list(
        &state,
        &auth,
        query.as_deref(),
        area::ORDERS.pattern(),
        Whose::Own(customer),
    )
    .await
}

async fn order(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    let (customer, _) = current(&state, &auth).await?;
    let order = orders::find(&state.db, customer.tenant, id)
        .await?
        .filter(|o| o.contact_id == Some(customer.id))
        .ok_or_else(ApiError::not_found)?;
    let lines = orders::lines_of(&state.db, &[id]).await?;
    let doc = own_order_resource(&state.urls, &order, &lines).into_json(state.urls.curies());
    Ok(Hal::ok(doc, order.updated_on).showing(account_of(customer)))
}

/// The customer a customer session's token speaks for, or 403 for any other token.
fn session_of(auth: &Auth) -> ApiResult<SignedInCustomer> {
    auth.customer().ok_or_else(|| {
        ApiError::new(
            ErrorCode::CustomerTokenRequired,
            "these are a signed-in customer's own routes: use a customer session's token",
        )
    })
}

/// The signed-in customer as they are now: a customer since deleted or disabled has no
/// session left, whatever the token says.
async fn current(state: &AppState, auth: &Auth) -> ApiResult<(SignedInCustomer, FullCustomer)> {
    let signed = session_of(auth)?;
    let customer = customers::find(&state.db, signed.tenant, signed.id)
        .await?
        .filter(|c| c.status.may_sign_in())
        .ok_or_else(|| ApiError::invalid_token("the customer's session has ended"))?;
    Ok((signed, FullCustomer::load(&state.db, customer).await?))
}

/// The customer acting on their own data, through the storefront app.
fn actor(auth: &Auth, customer: SignedInCustomer) -> Actor {
    Actor {
        who: Who::Customer {
            id: customer.id,
            app_id: auth.app_id,
        },
        tenant: customer.tenant,
        scopes: ScopeSet::EMPTY,
    }
}

fn account_of(customer: SignedInCustomer) -> Option<AccountData> {
    Some(AccountData::of([customer.tenant.account_id]))
}
