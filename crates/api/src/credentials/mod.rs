//! Developer credentials for scripts, the JSON twin of the credentials page: a user's
//! personal access tokens (list, create with the raw token shown once, revoke at once) and
//! the account's OAuth apps (list, register with the secret shown once).
//!
//! Unlike the page, these answer to bearer tokens, which third-party apps hold too. A
//! token that can mint never-expiring tokens outlives any revocation of the app that held
//! it, so reading needs `credentials.read` and every change `credentials.write`, scopes
//! that `admin` does not imply.

pub mod area;
pub mod rels;
mod representation;

use axum::extract::{RawQuery, State};
use domain::{FieldErrors, Scope, ScopeSet};
use oauth::apps::{AppRegistration, UserRegistration, register_for_user};
use oauth::grant::GrantType;
use oauth::personal_tokens::{Expiry, PersonalTokenRequest};
use schemars::JsonSchema;
use serde::Deserialize;
use storage::sql::Direction;
use storage::users::{self, User};

use crate::kernel::auth::Auth;
use crate::kernel::error::{ApiError, ApiResult, ErrorCode};
use crate::kernel::hal_response::Hal;
use crate::kernel::input::{JsonBody, ResourceId};
use crate::kernel::list::{ListRequest, ListSpec};
use crate::kernel::state::AppState;

pub use representation::{AppFields, TokenFields};

use representation::{app_resource, token_resource};

pub static TOKEN_LIST: ListSpec = ListSpec {
    name: "personal_access_tokens",
    default_per_page: 20,
    sort_fields: &["id"],
    default_sort: ("id", Direction::Desc),
    filters: &[],
};

pub static APP_LIST: ListSpec = ListSpec {
    name: "apps",
    default_per_page: 20,
    sort_fields: &["id"],
    default_sort: ("id", Direction::Desc),
    filters: &[],
};

/// The user behind the token, when the token holds `needed`: credentials belong to
/// people, not apps.
async fn user_of(state: &AppState, auth: &Auth, needed: Scope) -> ApiResult<User> {
    let id = auth.user_id().ok_or_else(|| {
        ApiError::new(
            ErrorCode::UserTokenRequired,
            "developer credentials belong to users: use a token issued to a user",
        )
    })?;
    auth.require(needed)?;
    users::find(&state.db, id)
        .await?
        .ok_or_else(|| ApiError::invalid_token("the token's user no longer exists"))
}

/// One page of an in-memory list, newest first (these lists are a user's own, and short).
fn page_of<T>(request: &ListRequest, items: Vec<T>) -> (Vec<T>, u64) {
    let total = items.len() as u64;
    let window = request.window();
    let offset = usize::try_from(window.offset).unwrap_or(usize::MAX);
    let limit = usize::try_from(window.limit).unwrap_or(usize::MAX);
    let mut items = items;
    if request.sort.direction == Direction::Asc {
        items.reverse();
    }
    (items.into_iter().skip(offset).take(limit).collect(), total)
}

async fn list_tokens(
    State(state): State<AppState>,
    auth: Auth,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    let user = user_of(&state, &auth, Scope::CredentialsRead).await?;
    let (request, ()) = TOKEN_LIST.read(query.as_deref(), |_, _| ())?;
    let tokens = state.auth.personal_tokens(user.id).await?;
    let now = state.clock.now();
    Ok(request.respond(
        &state,
        area::TOKENS.pattern(),
        page_of(&request, tokens),
        |t| token_resource(&state.urls, &auth, t, now, None),
    ))
}

async fn show_token(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    let user = user_of(&state, &auth, Scope::CredentialsRead).await?;
    let token = state
        .auth
        .personal_tokens(user.id)
        .await?
        .into_iter()
        .find(|t| t.id == id)
        .ok_or_else(ApiError::not_found)?;
    let doc = token_resource(&state.urls, &auth, &token, state.clock.now(), None)
        .into_value(state.urls.curies());
    Ok(Hal::ok(doc, token.created_on))
}

#[derive(Deserialize, JsonSchema)]
pub struct NewToken {
    name: String,
    #[schemars(with = "Expiry")]
    expires: String,
    /// Comma- or space-separated, within the token making the request and the user's role.
    scopes: String,
}

async fn create_token(
    State(state): State<AppState>,
    auth: Auth,
    JsonBody(input): JsonBody<NewToken>,
) -> ApiResult<Hal> {
    let user = user_of(&state, &auth, Scope::CredentialsWrite).await?;
    let request = PersonalTokenRequest {
        name: &input.name,
        expiry: &input.expires,
        scopes: &input.scopes,
        // A script's token cannot make a token stronger than itself.
        ceiling: Some(auth.scopes),
    };
    let created = state.auth.create_personal_token(&user, &request).await??;
    let doc = token_resource(
        &state.urls,
        &auth,
        &created.record,
        state.clock.now(),
        Some(&created.token),
    )
    .into_value(state.urls.curies());
    let location = state.urls.at(area::TOKEN, &[created.record.id]);
    Ok(Hal::created(doc, location, created.record.created_on))
}

async fn revoke_token(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    let user = user_of(&state, &auth, Scope::CredentialsWrite).await?;
    if !state.auth.revoke_personal_token(user.id, id).await? {
        return Err(ApiError::not_found());
    }
    let token = state
        .auth
        .personal_tokens(user.id)
        .await?
        .into_iter()
        .find(|t| t.id == id)
        .ok_or_else(ApiError::not_found)?;
    let doc = token_resource(&state.urls, &auth, &token, state.clock.now(), None)
        .into_value(state.urls.curies());
    Ok(Hal::ok(doc, token.created_on))
}

async fn list_apps(
    State(state): State<AppState>,
    auth: Auth,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    let user = user_of(&state, &auth, Scope::CredentialsRead).await?;
    let (request, ()) = APP_LIST.read(query.as_deref(), |_, _| ())?;
    let apps = storage::apps::of_account(&state.db, user.account_id).await?;
    Ok(
        request.respond(&state, area::APPS.pattern(), page_of(&request, apps), |a| {
            app_resource(&state.urls, a, None)
        }),
    )
}

async fn show_app(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    let user = user_of(&state, &auth, Scope::CredentialsRead).await?;
    let app = storage::apps::find(&state.db, id)
        .await?
        .filter(|app| app.account_id == Some(user.account_id) && app.system_role.is_none())
        .ok_or_else(ApiError::not_found)?;
    let doc = app_resource(&state.urls, &app, None).into_value(state.urls.curies());
    Ok(Hal::ok(doc, app.updated_on))
}

#[derive(Deserialize, JsonSchema)]
pub struct NewApp {
    name: String,
    #[serde(default)]
    redirect_uris: Vec<String>,
    /// Comma- or space-separated, within the token making the request.
    scopes: String,
    /// Grant types (`jwt_bearer` stands for the JWT bearer grant's URN).
    grants: Vec<String>,
    #[serde(default)]
    public: bool,
}

async fn register_app(
    State(state): State<AppState>,
    auth: Auth,
    JsonBody(input): JsonBody<NewApp>,
) -> ApiResult<Hal> {
    let user = user_of(&state, &auth, Scope::CredentialsWrite).await?;
    let mut errors = FieldErrors::new();
    let scopes = ScopeSet::parse(&input.scopes)
        .map_err(|e| errors.add("scopes", e.to_string()))
        .unwrap_or_default();
    if !scopes.within(auth.scopes) {
        errors.add(
            "scopes",
            "must be within the scopes of the token making the request",
        );
    }
    let grants: Vec<GrantType> = input
        .grants
        .iter()
        .filter_map(|g| match GrantType::parse_list(g) {
            Ok(list) => list.into_iter().next(),
            Err(message) => {
                errors.add("grants", message);
                None
            }
        })
        .collect();
    errors.into_result()?;
    let registration = AppRegistration {
        name: input.name.trim().to_owned(),
        account_id: Some(user.account_id),
        scopes,
        grants,
        redirect_uris: input.redirect_uris,
        trusted: false,
        public: input.public,
    };
    let secret_box = state.auth.secret_box();
    match register_for_user(
        &state.db,
        secret_box,
        &user,
        registration,
        state.clock.now(),
    )
    .await?
    {
        UserRegistration::Registered(registered) => {
            let doc = app_resource(
                &state.urls,
                &registered.app,
                registered.client_secret.as_deref(),
            )
            .into_value(state.urls.curies());
            let location = state.urls.at(area::APP, &[registered.app.id]);
            Ok(Hal::created(doc, location, registered.app.updated_on))
        }
        UserRegistration::Invalid(errors) => Err(errors.into()),
        UserRegistration::NotAllowed => Err(ApiError::new(
            ErrorCode::RoleForbidden,
            "only owners and admins register apps",
        )),
    }
}
