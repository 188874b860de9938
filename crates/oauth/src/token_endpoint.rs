//! `POST /oauth/token`: form-encoded requests, client authentication by HTTP Basic or by
//! body, and the grants served so far (`client_credentials`, `password`).

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use domain::{ScopeSet, Timestamp};
use serde::Serialize;
use storage::apps::App;
use storage::{Tenant, sellers, tokens, users};

use crate::error::{OAuthError, no_store};
use crate::grant::{GrantType, JWT_BEARER_URN};
use crate::principal::Subject;
use crate::service::AuthService;
use crate::tokens::TokenGrant;
use crate::{apps, password};

pub fn routes(auth: Arc<AuthService>) -> Router {
    Router::new()
        .route("/oauth/token", post(token))
        .with_state(auth)
}

async fn token(
    State(auth): State<Arc<AuthService>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    match issue(&auth, &uri, &headers, &body).await {
        Ok(answer) => {
            let mut response = axum::Json(answer).into_response();
            no_store(&mut response);
            response
        }
        Err(error) => error.into_response(),
    }
}

#[derive(Serialize)]
struct TokenAnswer {
    access_token: String,
    token_type: &'static str,
    expires_in: u64,
    scope: String,
}

/// Form parameters; empty values count as absent (RFC 6749 section 3.2).
struct Form(HashMap<String, String>);

impl Form {
    fn parse(headers: &HeaderMap, body: &[u8]) -> Result<Self, OAuthError> {
        let content_type = headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let media_type = content_type.split(';').next().unwrap_or("").trim();
        if !media_type.eq_ignore_ascii_case("application/x-www-form-urlencoded") {
            return Err(OAuthError::invalid_request(
                "the body must be application/x-www-form-urlencoded",
            ));
        }
        let mut params = HashMap::new();
        for (name, value) in form_urlencoded::parse(body) {
            if value.is_empty() {
                continue;
            }
            if value.contains('\0') || name.contains('\0') {
                return Err(OAuthError::invalid_request(
                    "parameters must not contain NUL characters",
                ));
            }
            if params
                .insert(name.to_string(), value.into_owned())
                .is_some()
            {
                return Err(OAuthError::invalid_request(format!(
                    "parameter {name} is repeated"
                )));
            }
        }
        Ok(Self(params))
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    fn require(&self, name: &str) -> Result<&str, OAuthError> {
        self.get(name)
            .ok_or_else(|| OAuthError::invalid_request(format!("parameter {name} is required")))
    }
}

async fn issue(
    auth: &AuthService,
    uri: &Uri,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<TokenAnswer, OAuthError> {
    if let Some(query) = uri.query() {
        let credentials_in_query = form_urlencoded::parse(query.as_bytes()).any(|(name, _)| {
            matches!(
                &*name,
                "client_secret" | "password" | "assertion" | "refresh_token" | "code"
            )
        });
        if credentials_in_query {
            return Err(OAuthError::invalid_request(
                "credentials must not be sent in the query string",
            ));
        }
    }
    let form = Form::parse(headers, body)?;
    let grant_type = form.require("grant_type")?;
    let grant: GrantType = match grant_type {
        "client_credentials" => GrantType::ClientCredentials,
        "password" => GrantType::Password,
        "authorization_code" | "refresh_token" | JWT_BEARER_URN | "assertion" => {
            return Err(OAuthError::unsupported_grant_type(format!(
                "the {grant_type} grant is not offered by this server yet"
            )));
        }
        other => {
            return Err(OAuthError::unsupported_grant_type(format!(
                "unknown grant type {other}"
            )));
        }
    };
    let app = authenticate_client(auth, headers, &form).await?;
    if !app.allows_grant(grant.as_str()) {
        return Err(OAuthError::unauthorized_client(format!(
            "this client may not use the {grant} grant"
        )));
    }
    let requested = match form.get("scope") {
        Some(scope) => {
            Some(ScopeSet::parse(scope).map_err(|e| OAuthError::invalid_scope(e.to_string()))?)
        }
        None => None,
    };
    let app_scopes = ScopeSet::parse(&app.scopes)?;
    let now = auth.clock.now();
    let token_grant = match grant {
        GrantType::ClientCredentials => {
            let scopes = requested.unwrap_or(app_scopes);
            if !scopes.within(app_scopes) {
                return Err(OAuthError::invalid_scope(
                    "the scope exceeds what this client may ask for",
                ));
            }
            TokenGrant {
                subject: Subject::App,
                user_name: None,
                app_id: app.id,
                client_id: app.client_id.clone(),
                account_id: app.account_id,
                seller_id: seller_binding(auth, &form, app.account_id).await?,
                scopes,
            }
        }
        GrantType::Password => password_grant(auth, &app, &form, requested, app_scopes).await?,
        _ => unreachable!("only the grants matched above reach this point"),
    };
    if token_grant.scopes.is_empty() {
        return Err(OAuthError::invalid_scope("no scope would be granted"));
    }
    record_and_sign(auth, &token_grant, grant, now).await
}

impl From<domain::scope::UnknownScope> for OAuthError {
    fn from(err: domain::scope::UnknownScope) -> Self {
        tracing::error!(error = %err, "an app's registered scopes do not parse");
        OAuthError::server_error()
    }
}

async fn password_grant(
    auth: &AuthService,
    app: &App,
    form: &Form,
    requested: Option<ScopeSet>,
    app_scopes: ScopeSet,
) -> Result<TokenGrant, OAuthError> {
    if !app.trusted {
        return Err(OAuthError::unauthorized_client(
            "only trusted clients may use the password grant",
        ));
    }
    let username = form.require("username")?;
    let secret = form.require("password")?;
    let user = users::find_by_email(&auth.db, username).await?;
    let verified = password::verify(
        secret.to_owned(),
        user.as_ref().map(|u| u.password_hash.clone()),
    )
    .await;
    let user = match user {
        Some(user) if verified && app.account_id.is_none_or(|a| a == user.account_id) => user,
        _ => {
            return Err(OAuthError::invalid_grant(
                "the username or password is wrong",
            ));
        }
    };
    let ceiling = user.role.ceiling();
    let scopes = match requested {
        Some(scopes) => {
            if !scopes.within(app_scopes) {
                return Err(OAuthError::invalid_scope(
                    "the scope exceeds what this client may ask for",
                ));
            }
            if !scopes.is_subset_of(ceiling) {
                return Err(OAuthError::invalid_scope(
                    "the scope exceeds what this user's role allows",
                ));
            }
            scopes
        }
        None => app_scopes.intersection(ceiling),
    };
    Ok(TokenGrant {
        subject: Subject::User {
            id: user.id,
            role: user.role,
        },
        user_name: Some(user.name.clone()),
        app_id: app.id,
        client_id: app.client_id.clone(),
        account_id: Some(user.account_id),
        seller_id: seller_binding(auth, form, Some(user.account_id)).await?,
        scopes,
    })
}

/// The optional `seller_id` parameter narrows a token to one seller of its account.
async fn seller_binding(
    auth: &AuthService,
    form: &Form,
    account_id: Option<i64>,
) -> Result<Option<i64>, OAuthError> {
    let Some(raw) = form.get("seller_id") else {
        return Ok(None);
    };
    let unknown =
        || OAuthError::invalid_request("seller_id does not name a seller of this account");
    let seller_id: i64 = raw.parse().map_err(|_| unknown())?;
    let account_id = account_id.ok_or_else(unknown)?;
    let tenant = Tenant {
        account_id,
        seller_id: None,
    };
    match sellers::find(&auth.db, tenant, seller_id).await? {
        Some(_) => Ok(Some(seller_id)),
        None => Err(unknown()),
    }
}

async fn record_and_sign(
    auth: &AuthService,
    grant: &TokenGrant,
    grant_type: GrantType,
    now: Timestamp,
) -> Result<TokenAnswer, OAuthError> {
    let issued = auth.sign_access_token(grant, now);
    let user_id = match grant.subject {
        Subject::User { id, .. } => Some(id),
        Subject::App => None,
    };
    let mut tx = auth.db.begin().await?;
    tokens::insert(
        &mut tx,
        &tokens::NewAccessToken {
            jti: &issued.claims.jti,
            app_id: grant.app_id,
            user_id,
            account_id: grant.account_id,
            seller_id: grant.seller_id,
            grant_type: grant_type.as_str(),
            scopes: &issued.claims.scope,
            expires_on: Some(Timestamp::from_secs(issued.claims.exp)),
        },
        now,
    )
    .await?;
    if let Some(user_id) = user_id {
        users::record_login(&mut tx, user_id, now).await?;
    }
    tx.commit().await?;
    Ok(TokenAnswer {
        access_token: issued.token,
        token_type: "bearer",
        expires_in: auth.config.access_token_ttl.as_secs(),
        scope: issued.claims.scope,
    })
}

/// Client authentication by HTTP Basic (id and secret form-encoded, then base64) or by
/// `client_id` and `client_secret` in the body; never both.
async fn authenticate_client(
    auth: &AuthService,
    headers: &HeaderMap,
    form: &Form,
) -> Result<App, OAuthError> {
    let basic = basic_credentials(headers)?;
    let (client_id, client_secret, used_basic) = match basic {
        Some((id, secret)) => {
            if form.get("client_secret").is_some()
                || form.get("client_id").is_some_and(|body_id| body_id != id)
            {
                return Err(OAuthError::invalid_request(
                    "use one client authentication method, not two",
                ));
            }
            (id, secret, true)
        }
        None => match (form.get("client_id"), form.get("client_secret")) {
            (Some(id), Some(secret)) => (id.to_owned(), secret.to_owned(), false),
            _ => {
                return Err(OAuthError::invalid_client(
                    "client authentication is required",
                    false,
                ));
            }
        },
    };
    apps::authenticate(&auth.db, &client_id, &client_secret)
        .await?
        .ok_or_else(|| OAuthError::invalid_client("client authentication failed", used_basic))
}

fn basic_credentials(headers: &HeaderMap) -> Result<Option<(String, String)>, OAuthError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let malformed = || OAuthError::invalid_client("malformed Basic credentials", true);
    let value = value.to_str().map_err(|_| malformed())?;
    let Some((scheme, encoded)) = value.split_once(' ') else {
        return Err(malformed());
    };
    if !scheme.eq_ignore_ascii_case("basic") {
        return Err(OAuthError::invalid_request(
            "client authentication uses the Basic scheme",
        ));
    }
    let decoded = STANDARD.decode(encoded.trim()).map_err(|_| malformed())?;
    let decoded = String::from_utf8(decoded).map_err(|_| malformed())?;
    let (id, secret) = decoded.split_once(':').ok_or_else(malformed)?;
    // RFC 6749 section 2.3.1: both parts are form-encoded before being joined.
    let (id, secret) = (form_unescape(id), form_unescape(secret));
    if id.contains('\0') || secret.contains('\0') {
        return Err(malformed());
    }
    Ok(Some((id, secret)))
}

/// Decodes one `application/x-www-form-urlencoded` value (`+` is a space, `%XX` a byte).
fn form_unescape(value: &str) -> String {
    let pair = format!("v={}", value.replace('&', "%26").replace('=', "%3D"));
    form_urlencoded::parse(pair.as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}
