//! The developer credentials page: a signed-in user's personal access tokens (create with
//! a name, an expiry and scopes within the role; see them listed without their value;
//! revoke at once) and, for owners and admins, the account's OAuth apps (register one and
//! see its secret once).
//!
//! The page works through the signed-in session, not a token, so it needs no credentials
//! scope; it offers a new token the credentials scopes the role allows, and a new app none
//! (only operators register those).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use domain::{FieldErrors, Role, Scope, ScopeSet, Timestamp, limits};
use storage::users::User;

use super::html::{error_page, escape, hidden_fields, page, see_other};
use super::login::storage_failure;
use super::session::{self, Csrf};
use super::{Params, sign_in_then};
use crate::apps::{AppRegistration, UserRegistration, register_for_user};
use crate::grant::GrantType;
use crate::paths::{
    CREDENTIALS, CREDENTIALS_APPS, CREDENTIALS_REVOKE_TOKEN, CREDENTIALS_TOKENS, LOGOUT,
};
use crate::personal_tokens::{Expiry, PersonalTokenRequest};
use crate::service::AuthService;

const MAX_FORM_BYTES: usize = 16 * 1024;
/// The grants a user may pick for an app (the password grant is an operator's decision).
pub(crate) const OFFERED_GRANTS: [GrantType; 5] = [
    GrantType::AuthorizationCode,
    GrantType::RefreshToken,
    GrantType::Implicit,
    GrantType::ClientCredentials,
    GrantType::JwtBearer,
];

/// What to show above the lists after an action.
#[derive(Default)]
struct Outcome {
    notice: String,
    errors: Option<FieldErrors>,
}

pub async fn show(State(auth): State<Arc<AuthService>>, request: Request) -> Response {
    match session::current_user(&auth, request.headers()).await {
        Ok(Some(user)) => {
            render(
                &auth,
                request.headers(),
                &user,
                StatusCode::OK,
                Outcome::default(),
            )
            .await
        }
        Ok(None) => see_other(&sign_in_then(CREDENTIALS)),
        Err(err) => storage_failure(err),
    }
}

/// The signed-in user and the form of a POST, or the page to answer with.
async fn form_post(
    auth: &AuthService,
    request: Request,
) -> Result<(HeaderMap, User, Params), Response> {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, MAX_FORM_BYTES)
        .await
        .map_err(|_| error_page(StatusCode::PAYLOAD_TOO_LARGE, "The form is too large."))?;
    let params = Params::parse(&body).map_err(IntoResponse::into_response)?;
    if !Csrf::verify(&parts.headers, params.get("csrf")) {
        return Err(error_page(
            StatusCode::FORBIDDEN,
            "The form expired. Go back, reload the page and try again.",
        ));
    }
    match session::current_user(auth, &parts.headers).await {
        Ok(Some(user)) => Ok((parts.headers, user, params)),
        Ok(None) => Err(see_other(&sign_in_then(CREDENTIALS))),
        Err(err) => Err(storage_failure(err)),
    }
}

fn scopes_of(params: &Params, errors: &mut FieldErrors) -> ScopeSet {
    params
        .all("scope")
        .filter_map(|s| match s.parse::<Scope>() {
            Ok(scope) => Some(scope),
            Err(e) => {
                errors.add("scopes", e.to_string());
                None
            }
        })
        .collect()
}

pub async fn create_token(State(auth): State<Arc<AuthService>>, request: Request) -> Response {
    let (headers, user, params) = match form_post(&auth, request).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let name = params.get("name").unwrap_or("");
    let scopes: Vec<&str> = params.all("scope").collect();
    let request = PersonalTokenRequest {
        name,
        expiry: params.get("expires").unwrap_or(""),
        scopes: &scopes.join(","),
        ceiling: None,
    };
    let created = match auth.create_personal_token(&user, &request).await {
        Ok(created) => created,
        Err(err) => return storage_failure(err),
    };
    let (status, outcome) = match created {
        Ok(created) => (
            StatusCode::CREATED,
            Outcome {
                notice: format!(
                    "<p role=\"status\">Your new token <strong>{}</strong>. Copy it now: it is not shown again.</p>\
                     <p><code id=\"new-token\">{}</code></p>",
                    escape(name),
                    escape(&created.token)
                ),
                errors: None,
            },
        ),
        Err(errors) => (
            StatusCode::UNPROCESSABLE_ENTITY,
            Outcome {
                notice: String::new(),
                errors: Some(errors),
            },
        ),
    };
    render(&auth, &headers, &user, status, outcome).await
}

pub async fn revoke_token(State(auth): State<Arc<AuthService>>, request: Request) -> Response {
    let (_, user, params) = match form_post(&auth, request).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let Some(id) = params.get("id").and_then(|id| limits::ID.parse(id).ok()) else {
        return error_page(StatusCode::BAD_REQUEST, "The form names no token.");
    };
    match auth.revoke_personal_token(user.id, id).await {
        Ok(_) => see_other(CREDENTIALS),
        Err(err) => storage_failure(err),
    }
}

pub async fn register_app(State(auth): State<Arc<AuthService>>, request: Request) -> Response {
    let (headers, user, params) = match form_post(&auth, request).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let mut errors = FieldErrors::new();
    let scopes = scopes_of(&params, &mut errors);
    let grants: Vec<GrantType> = params
        .all("grant")
        .filter_map(|g| {
            OFFERED_GRANTS
                .into_iter()
                .find(|offered| offered.as_str() == g)
        })
        .collect();
    let registration = AppRegistration {
        name: params.get("name").unwrap_or("").trim().to_owned(),
        account_id: Some(user.account_id),
        scopes,
        grants,
        redirect_uris: params
            .get("redirect_uris")
            .unwrap_or("")
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect(),
        trusted: false,
        public: params.get("public") == Some("on"),
    };
    let outcome = if errors.is_empty() {
        match register_for_user(
            &auth.db,
            &auth.secret_box,
            &user,
            registration,
            auth.clock.now(),
        )
        .await
        {
            Ok(outcome) => outcome,
            Err(err) => return storage_failure(err),
        }
    } else {
        UserRegistration::Invalid(errors)
    };
    let (status, outcome) = match outcome {
        UserRegistration::Registered(registered) => {
            let secret = registered.client_secret.as_deref().map_or_else(
                || "<p>A public client: it has no secret and must use PKCE.</p>".to_owned(),
                |secret| {
                    format!(
                        "<p>Client secret (copy it now: it is not shown again): <code id=\"client-secret\">{}</code></p>",
                        escape(secret)
                    )
                },
            );
            (
                StatusCode::CREATED,
                Outcome {
                    notice: format!(
                        "<p role=\"status\">App <strong>{}</strong> registered. Client id: <code id=\"client-id\">{}</code></p>{secret}",
                        escape(&registered.app.name),
                        escape(&registered.app.client_id)
                    ),
                    errors: None,
                },
            )
        }
        UserRegistration::Invalid(errors) => (
            StatusCode::UNPROCESSABLE_ENTITY,
            Outcome {
                notice: String::new(),
                errors: Some(errors),
            },
        ),
        UserRegistration::NotAllowed => {
            return error_page(
                StatusCode::FORBIDDEN,
                "Only owners and admins register apps.",
            );
        }
    };
    render(&auth, &headers, &user, status, outcome).await
}

fn date(at: Option<Timestamp>, none: &str) -> String {
    at.map_or_else(|| none.to_owned(), Timestamp::to_rfc3339)
}

/// A checkbox for each of `scopes`.
fn scope_boxes(scopes: ScopeSet, prefix: &str) -> String {
    scopes
        .iter()
        .map(|scope| {
            format!(
                "<label><input type=\"checkbox\" name=\"scope\" value=\"{s}\" id=\"{prefix}-{s}\"> <code>{s}</code> — {d}</label>",
                s = scope.as_str(),
                d = escape(scope.description()),
            )
        })
        .collect()
}

async fn render(
    auth: &AuthService,
    headers: &HeaderMap,
    user: &User,
    status: StatusCode,
    outcome: Outcome,
) -> Response {
    let tokens = match auth.personal_tokens(user.id).await {
        Ok(tokens) => tokens,
        Err(err) => return storage_failure(err),
    };
    let csrf = Csrf::for_request(headers);
    let csrf_field = hidden_fields([("csrf", csrf.token.as_str())]);
    let now = auth.clock.now();
    let rows: String = tokens
        .iter()
        .map(|t| {
            let state = if t.revoked_on.is_some() {
                "revoked".to_owned()
            } else if t.expires_on.is_some_and(|e| e <= now) {
                "expired".to_owned()
            } else {
                format!(
                    "<form method=\"post\" action=\"{CREDENTIALS_REVOKE_TOKEN}\">{csrf_field}{id}\
                     <button type=\"submit\" id=\"revoke-{n}\">Revoke</button></form>",
                    id = hidden_fields([("id", t.id.to_string().as_str())]),
                    n = t.id,
                )
            };
            format!(
                "<tr class=\"token\"><td>{name}</td><td><code>{scopes}</code></td><td>{created}</td><td>{expires}</td>\
                 <td>{used}</td><td>{state}</td></tr>",
                name = escape(t.name.as_deref().unwrap_or("")),
                scopes = escape(&t.scopes),
                created = t.created_on.to_rfc3339(),
                expires = date(t.expires_on, "never"),
                used = date(t.last_used_on, "never used"),
            )
        })
        .collect();
    let errors = outcome.errors.map_or(String::new(), |errors| {
        let items: String = errors
            .errors()
            .iter()
            .map(|e| {
                format!(
                    "<li>{} {}</li>",
                    escape(&e.field),
                    escape(&e.messages.join(", "))
                )
            })
            .collect();
        format!("<ul class=\"error\" role=\"alert\">{items}</ul>")
    });
    let expiries: String = Expiry::ALL
        .iter()
        .map(|e| format!("<option value=\"{0}\">{0}</option>", e.as_str()))
        .collect();
    let apps = if matches!(user.role, Role::Owner | Role::Admin) {
        apps_section(auth, user, &csrf_field).await
    } else {
        Ok(String::new())
    };
    let apps = match apps {
        Ok(apps) => apps,
        Err(err) => return storage_failure(err),
    };
    let body = format!(
        "<h1>Developer credentials</h1><p class=\"muted\">Signed in as {email} ({role}).</p>\
         {notice}{errors}\
         <h2>Personal access tokens</h2>\
         <table id=\"tokens\"><tr><th>Name</th><th>Scopes</th><th>Created</th><th>Expires</th><th>Last used</th><th></th></tr>{rows}</table>\
         <h3>New token</h3><form method=\"post\" action=\"{CREDENTIALS_TOKENS}\">{csrf_field}\
         <label for=\"token-name\">Name</label><input id=\"token-name\" name=\"name\" type=\"text\" required>\
         <label for=\"token-expires\">Expires</label><select id=\"token-expires\" name=\"expires\">{expiries}</select>\
         <fieldset><legend>Scopes</legend>{scopes}</fieldset>\
         <button type=\"submit\" id=\"create-token\">Create token</button></form>{apps}\
         <form method=\"post\" action=\"{LOGOUT}\">{csrf_field}<button type=\"submit\">Sign out</button></form>",
        email = escape(&user.email),
        role = user.role,
        notice = outcome.notice,
        scopes = scope_boxes(user.role.ceiling(), "token"),
    );
    let mut response = page(status, "Developer credentials", &body);
    csrf.set_on(auth, &mut response);
    response
}

async fn apps_section(
    auth: &AuthService,
    user: &User,
    csrf_field: &str,
) -> storage::Result<String> {
    let apps = storage::apps::of_account(&auth.db, user.account_id).await?;
    let rows: String = apps
        .iter()
        .map(|app| {
            format!(
                "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td><code>{}</code></td><td>{}</td></tr>",
                escape(&app.name),
                escape(&app.client_id),
                escape(&app.redirect_uri_list().collect::<Vec<_>>().join(" ")),
                escape(&app.scopes),
                escape(&app.grants),
            )
        })
        .collect();
    let grants: String = OFFERED_GRANTS
        .iter()
        .map(|g| {
            format!(
                "<label><input type=\"checkbox\" name=\"grant\" value=\"{0}\"> <code>{0}</code></label>",
                g.as_str()
            )
        })
        .collect();
    Ok(format!(
        "<h2>OAuth apps</h2><table id=\"apps\"><tr><th>Name</th><th>Client id</th><th>Redirect URIs</th><th>Scopes</th>\
         <th>Grants</th></tr>{rows}</table>\
         <h3>Register an app</h3><form method=\"post\" action=\"{CREDENTIALS_APPS}\">{csrf_field}\
         <label for=\"app-name\">Name</label><input id=\"app-name\" name=\"name\" type=\"text\" required>\
         <label for=\"app-redirects\">Redirect URIs, one per line</label>\
         <textarea id=\"app-redirects\" name=\"redirect_uris\" rows=\"3\" cols=\"50\"></textarea>\
         <fieldset><legend>Scopes</legend>{scopes}</fieldset><fieldset><legend>Grants</legend>{grants}</fieldset>\
         <label><input type=\"checkbox\" name=\"public\"> A public client (browser or native app: no secret, PKCE)</label>\
         <button type=\"submit\" id=\"register-app\">Register app</button></form>",
        scopes = scope_boxes(user.role.ceiling().difference(ScopeSet::CREDENTIALS), "app"),
    ))
}
