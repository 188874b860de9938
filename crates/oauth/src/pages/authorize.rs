//! `/oauth/authorize` (RFC 6749 section 4.1 and 4.2): checks the request, has the user sign
//! in, asks for consent, and sends the browser back with a code (in the query) or, for
//! clients allowed the implicit grant, a token (in the fragment). Nothing is ever sent to
//! a redirect URI the client did not register; other errors go back to the client with
//! `state`.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use domain::{Scope, ScopeSet};
use storage::apps::{self, App};
use storage::authorization_codes::{self, NewCode};
use storage::users::User;

use super::html::{error_page, escape, hidden_fields, page, see_other};
use super::login::storage_failure;
use super::session::{self, Csrf};
use super::{Params, sign_in_then};
use crate::description::Description;
use crate::error::OAuthCode;
use crate::grant::GrantType;
use crate::issue::new_family_id;
use crate::paths::{AUTHORIZE, LOGOUT};
use crate::principal::Subject;
use crate::service::AuthService;
use crate::tokens::TokenGrant;
use crate::{pkce, scope_policy, secrets};

const MAX_FORM_BYTES: usize = 16 * 1024;
/// The parameters of an authorization request, carried through the consent form.
const REQUEST_PARAMS: [&str; 7] = [
    "response_type",
    "client_id",
    "redirect_uri",
    "scope",
    "state",
    "code_challenge",
    "code_challenge_method",
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum ResponseType {
    Code,
    Token,
}

struct AuthorizationRequest {
    app: App,
    response_type: ResponseType,
    redirect_uri: String,
    redirect_uri_given: bool,
    requested: Option<ScopeSet>,
    state: Option<String>,
    code_challenge: Option<String>,
}

/// Why a request does not go on: shown to the user, or reported to the client.
enum Refusal {
    Page(StatusCode, String),
    Redirect {
        uri: String,
        fragment: bool,
        error: OAuthCode,
        description: Description,
        state: Option<String>,
    },
    Storage(storage::Error),
}

impl From<storage::Error> for Refusal {
    fn from(err: storage::Error) -> Self {
        Refusal::Storage(err)
    }
}

impl Refusal {
    fn into_response(self) -> Response {
        match self {
            Refusal::Page(status, message) => error_page(status, &message),
            Refusal::Redirect {
                uri,
                fragment,
                error,
                description,
                state,
            } => {
                let mut params = vec![
                    ("error", error.as_str()),
                    ("error_description", description.as_str()),
                ];
                if let Some(state) = &state {
                    params.push(("state", state));
                }
                see_other(&with_params(&uri, &params, fragment))
            }
            Refusal::Storage(err) => storage_failure(err),
        }
    }
}

/// Why a request naming `name` twice is refused: an authorization request's own
/// parameters are named, any other name is not (it is the client's text).
fn repeated(name: &str) -> Description {
    match REQUEST_PARAMS.iter().find(|known| **known == name) {
        Some(known) => Description::of(&["the parameter ", known, " is repeated"]),
        None => Description::from("a parameter is repeated"),
    }
}

/// `uri` with `params` added to its query (keeping what it has) or as its fragment.
fn with_params(uri: &str, params: &[(&str, &str)], fragment: bool) -> String {
    let mut encoded = form_urlencoded::Serializer::new(String::new());
    for (name, value) in params {
        encoded.append_pair(name, value);
    }
    let encoded = encoded.finish();
    if fragment {
        format!("{uri}#{encoded}")
    } else if uri.contains('?') {
        format!("{uri}&{encoded}")
    } else {
        format!("{uri}?{encoded}")
    }
}

impl AuthorizationRequest {
    async fn read(auth: &AuthService, params: &Params) -> Result<Self, Refusal> {
        let page = |message: &str| Refusal::Page(StatusCode::BAD_REQUEST, message.to_owned());
        for name in ["client_id", "redirect_uri"] {
            if params.is_repeated(name) {
                return Err(page(&format!("The parameter {name} is repeated.")));
            }
        }
        let client_id = params
            .get("client_id")
            .ok_or_else(|| page("The request names no client (client_id)."))?;
        let app = apps::find_by_client_id(&auth.db, client_id)
            .await?
            .filter(|app| app.system_role.is_none())
            .ok_or_else(|| page("The request names an unknown client."))?;
        let registered: Vec<&str> = app.redirect_uri_list().collect();
        let (redirect_uri, redirect_uri_given) = match params.get("redirect_uri") {
            Some(uri) if registered.contains(&uri) => (uri.to_owned(), true),
            Some(_) => return Err(page("The redirect_uri is not one this client registered.")),
            None if registered.len() == 1 => (registered[0].to_owned(), false),
            None => return Err(page("The request must name its redirect_uri.")),
        };
        // From here on the redirect URI is safe: errors go back to the client.
        let state = params.get("state").map(str::to_owned);
        let fragment = params.get("response_type") == Some("token");
        let refuse = |error: OAuthCode, description: Description| Refusal::Redirect {
            uri: redirect_uri.clone(),
            fragment,
            error,
            description,
            state: state.clone(),
        };
        if let Some(name) = params.first_repeated() {
            return Err(refuse(OAuthCode::InvalidRequest, repeated(name)));
        }
        let response_type = match params.get("response_type") {
            None => {
                return Err(refuse(
                    OAuthCode::InvalidRequest,
                    "response_type is required".into(),
                ));
            }
            Some("code") => ResponseType::Code,
            Some("token") => ResponseType::Token,
            Some(_) => {
                return Err(refuse(
                    OAuthCode::UnsupportedResponseType,
                    "response_type must be code or token".into(),
                ));
            }
        };
        let grant = match response_type {
            ResponseType::Code => GrantType::AuthorizationCode,
            ResponseType::Token => GrantType::Implicit,
        };
        if !app.allows_grant(grant.as_str()) {
            return Err(refuse(
                OAuthCode::UnauthorizedClient,
                Description::of(&["this client may not use the ", grant.as_str(), " grant"]),
            ));
        }
        let requested = scope_policy::parse_requested(params.get("scope"))
            .map_err(|e| refuse(OAuthCode::InvalidScope, e.description))?;
        if let Some(requested) = requested
            && !requested.within(
                scope_policy::app_scopes(&app)
                    .map_err(|e| refuse(OAuthCode::ServerError, e.description))?,
            )
        {
            return Err(refuse(
                OAuthCode::InvalidScope,
                "the scope exceeds what this client may ask for".into(),
            ));
        }
        let code_challenge = match (
            params.get("code_challenge"),
            params.get("code_challenge_method"),
        ) {
            (Some(challenge), None | Some("S256")) if pkce::valid_challenge(challenge) => {
                Some(challenge.to_owned())
            }
            (Some(_), None | Some("S256")) => {
                return Err(refuse(
                    OAuthCode::InvalidRequest,
                    "the code_challenge is malformed".into(),
                ));
            }
            (Some(_), Some(_)) => {
                return Err(refuse(
                    OAuthCode::InvalidRequest,
                    "transform algorithm not supported: use S256".into(),
                ));
            }
            (None, Some(_)) => {
                return Err(refuse(
                    OAuthCode::InvalidRequest,
                    "code_challenge_method without code_challenge".into(),
                ));
            }
            (None, None) if app.public && response_type == ResponseType::Code => {
                return Err(refuse(
                    OAuthCode::InvalidRequest,
                    "code challenge required: public clients must use PKCE".into(),
                ));
            }
            (None, None) => None,
        };
        Ok(Self {
            app,
            response_type,
            redirect_uri,
            redirect_uri_given,
            requested,
            state,
            code_challenge,
        })
    }

    fn refuse(&self, error: OAuthCode, description: impl Into<Description>) -> Refusal {
        Refusal::Redirect {
            uri: self.redirect_uri.clone(),
            fragment: self.response_type == ResponseType::Token,
            error,
            description: description.into(),
            state: self.state.clone(),
        }
    }

    /// What `user` would grant: within the app's and the role's scopes, and only for an
    /// app of the user's account (or of none).
    fn scopes_for(&self, user: &User) -> Result<ScopeSet, Refusal> {
        if self.app.account_id.is_some_and(|a| a != user.account_id) {
            return Err(self.refuse(
                OAuthCode::AccessDenied,
                "this app belongs to another account",
            ));
        }
        scope_policy::for_user(&self.app, user.role, self.requested)
            .map_err(|e| self.refuse(e.code, e.description))
    }
}

/// `GET /oauth/authorize`: the consent page, after sign-in.
pub async fn show(State(auth): State<Arc<AuthService>>, request: Request) -> Response {
    let query = request.uri().query().unwrap_or("").to_owned();
    let params = match Params::parse(query.as_bytes()) {
        Ok(params) => params,
        Err(refused) => return refused.into_response(),
    };
    let authorization = match AuthorizationRequest::read(&auth, &params).await {
        Ok(r) => r,
        Err(refusal) => return refusal.into_response(),
    };
    let user = match session::current_user(&auth, request.headers()).await {
        Ok(Some(user)) => user,
        Ok(None) => {
            return see_other(&sign_in_then(&format!("{AUTHORIZE}?{query}")));
        }
        Err(err) => return storage_failure(err),
    };
    match authorization.scopes_for(&user) {
        Ok(scopes) => consent_page(
            &auth,
            request.headers(),
            &params,
            &authorization,
            &user,
            scopes,
        ),
        Err(refusal) => refusal.into_response(),
    }
}

fn consent_page(
    auth: &AuthService,
    headers: &axum::http::HeaderMap,
    params: &Params,
    authorization: &AuthorizationRequest,
    user: &User,
    scopes: ScopeSet,
) -> Response {
    let csrf = Csrf::for_request(headers);
    let abilities: String = describe(scopes)
        .iter()
        .map(|line| format!("<li>{}</li>", escape(line)))
        .collect();
    let carried: Vec<(&str, &str)> = REQUEST_PARAMS
        .iter()
        .filter_map(|name| params.get(name).map(|value| (*name, value)))
        .chain([("csrf", csrf.token.as_str())])
        .collect();
    let body = format!(
        "<h1>Allow {app}?</h1><p><strong>{app}</strong> asks to act for you in your account. It will be able to:</p>\
         <ul id=\"scopes\">{abilities}</ul>\
         <form method=\"post\" action=\"{AUTHORIZE}\">{hidden}\
         <button type=\"submit\" name=\"decision\" value=\"approve\" id=\"approve\">Allow</button>\
         <button type=\"submit\" name=\"decision\" value=\"deny\" id=\"deny\">Deny</button></form>\
         <p class=\"muted\">Signed in as {email}. You will return to {target}.</p>\
         <form method=\"post\" action=\"{LOGOUT}\">{logout}<button type=\"submit\">Not you? Sign out</button></form>",
        app = escape(&authorization.app.name),
        hidden = hidden_fields(carried),
        email = escape(&user.email),
        target = escape(
            authorization
                .redirect_uri
                .split(['?', '#'])
                .next()
                .unwrap_or("")
        ),
        logout = hidden_fields([("csrf", csrf.token.as_str())]),
    );
    let mut response = page(StatusCode::OK, "Allow access", &body);
    csrf.set_on(auth, &mut response);
    response
}

/// The abilities a scope set grants, in words: `admin` stands for the scopes it implies,
/// but the credentials scopes, which it does not imply, are always spelt out.
fn describe(scopes: ScopeSet) -> Vec<&'static str> {
    let shown = if scopes.contains(Scope::Admin) {
        scopes.difference(ScopeSet::all_area_scopes())
    } else {
        scopes
    };
    shown.iter().map(Scope::description).collect()
}

/// `POST /oauth/authorize`: the user's decision on the consent page.
pub async fn decide(State(auth): State<Arc<AuthService>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let Ok(body) = axum::body::to_bytes(body, MAX_FORM_BYTES).await else {
        return error_page(StatusCode::PAYLOAD_TOO_LARGE, "The form is too large.");
    };
    let params = match Params::parse(&body) {
        Ok(params) => params,
        Err(refused) => return refused.into_response(),
    };
    if !Csrf::verify(&parts.headers, params.get("csrf")) {
        return error_page(
            StatusCode::FORBIDDEN,
            "The form expired. Go back, reload the page and try again.",
        );
    }
    let user = match session::current_user(&auth, &parts.headers).await {
        Ok(Some(user)) => user,
        Ok(None) => {
            return error_page(
                StatusCode::FORBIDDEN,
                "Your session ended. Start again from the app.",
            );
        }
        Err(err) => return storage_failure(err),
    };
    let authorization = match AuthorizationRequest::read(&auth, &params).await {
        Ok(r) => r,
        Err(refusal) => return refusal.into_response(),
    };
    let scopes = match authorization.scopes_for(&user) {
        Ok(scopes) => scopes,
        Err(refusal) => return refusal.into_response(),
    };
    if params.get("decision") != Some("approve") {
        return authorization
            .refuse(OAuthCode::AccessDenied, "the user denied the request")
            .into_response();
    }
    match grant(&auth, &authorization, &user, scopes).await {
        Ok(location) => see_other(&location),
        Err(err) => storage_failure(err),
    }
}

/// Issues the code (or, for the implicit grant, the token) and says where to send the
/// browser.
async fn grant(
    auth: &AuthService,
    authorization: &AuthorizationRequest,
    user: &User,
    scopes: ScopeSet,
) -> storage::Result<String> {
    let now = auth.clock.now();
    let state = authorization.state.as_deref();
    let mut tx = auth.db.begin().await?;
    let location = match authorization.response_type {
        ResponseType::Code => {
            let code = secrets::random_token(32);
            let ttl = i64::try_from(auth.config.authorization_code_ttl.as_secs()).unwrap_or(600);
            authorization_codes::insert(
                &mut tx,
                &NewCode {
                    digest: &secrets::sha256(code.as_bytes()),
                    family_id: &new_family_id(),
                    app_id: authorization.app.id,
                    user_id: user.id,
                    account_id: user.account_id,
                    seller_id: None,
                    scopes: &scopes.to_string(),
                    redirect_uri: &authorization.redirect_uri,
                    redirect_uri_given: authorization.redirect_uri_given,
                    code_challenge: authorization.code_challenge.as_deref(),
                    expires_on: now.plus_secs(ttl),
                },
                now,
            )
            .await?;
            let mut params = vec![("code", code.as_str())];
            params.extend(state.map(|s| ("state", s)));
            with_params(&authorization.redirect_uri, &params, false)
        }
        ResponseType::Token => {
            let grant = TokenGrant {
                subject: Subject::User {
                    id: user.id,
                    role: user.role,
                },
                user_name: Some(user.name.clone()),
                app_id: authorization.app.id,
                client_id: authorization.app.client_id.clone(),
                account_id: Some(user.account_id),
                seller_id: None,
                scopes,
                family_id: None,
            };
            let answer = auth
                .issue(&mut tx, &grant, GrantType::Implicit, None, now)
                .await?;
            let expires_in = answer.expires_in.to_string();
            let mut params = vec![
                ("access_token", answer.access_token.as_str()),
                ("token_type", "bearer"),
                ("expires_in", expires_in.as_str()),
                ("scope", answer.scope.as_str()),
            ];
            params.extend(state.map(|s| ("state", s)));
            with_params(&authorization.redirect_uri, &params, true)
        }
    };
    tx.commit().await?;
    Ok(location)
}

#[cfg(test)]
mod tests {
    use super::{describe, with_params};
    use domain::{Scope, ScopeSet};

    #[test]
    fn consent_names_the_credentials_scopes_even_beside_admin() {
        let lines = describe(ScopeSet::parse("admin,public,credentials.write").unwrap());
        assert_eq!(
            lines,
            [
                Scope::Admin.description(),
                Scope::Public.description(),
                Scope::CredentialsWrite.description()
            ]
        );
        assert_eq!(
            describe(ScopeSet::parse("admin,orders.write").unwrap()),
            [Scope::Admin.description()]
        );
        assert_eq!(
            describe(ScopeSet::parse("shops.read").unwrap()),
            [Scope::ShopsRead.description()]
        );
    }

    #[test]
    fn redirect_parameters_keep_the_registered_query() {
        assert_eq!(
            with_params("https://a/cb", &[("code", "x y")], false),
            "https://a/cb?code=x+y"
        );
        assert_eq!(
            with_params("https://a/cb?k=1", &[("code", "c")], false),
            "https://a/cb?k=1&code=c"
        );
        assert_eq!(
            with_params("https://a/cb", &[("access_token", "t")], true),
            "https://a/cb#access_token=t"
        );
    }
}
