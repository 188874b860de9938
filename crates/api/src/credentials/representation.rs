//! How personal tokens and apps look to a client. Secrets appear only in the answer that
//! created them.

use domain::{Scope, Timestamp};
use hal::{Link, Resource};
use oauth::Principal;
use schemars::JsonSchema;
use serde::Serialize;
use storage::apps::App;
use storage::tokens::AccessToken;

use super::area::{APP, TOKEN};
use crate::kernel::urls::Urls;
use crate::rels;

#[derive(Serialize, JsonSchema)]
pub struct TokenFields<'a> {
    id: i64,
    name: Option<&'a str>,
    scopes: &'a str,
    #[schemars(extend("enum" = ["active", "expired", "revoked"]))]
    state: &'static str,
    created_on: Timestamp,
    expires_on: Option<Timestamp>,
    last_used_on: Option<Timestamp>,
    revoked_on: Option<Timestamp>,
    /// The token, only in the answer that created it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    token: Option<&'a str>,
}

pub fn token_resource(
    urls: &Urls,
    principal: &Principal,
    token: &AccessToken,
    now: Timestamp,
    raw: Option<&str>,
) -> Resource {
    let state = if token.revoked_on.is_some() {
        "revoked"
    } else if token.expires_on.is_some_and(|e| e <= now) {
        "expired"
    } else {
        "active"
    };
    let fields = TokenFields {
        id: token.id,
        name: token.name.as_deref(),
        scopes: &token.scopes,
        state,
        created_on: token.created_on,
        expires_on: token.expires_on,
        last_used_on: token.last_used_on,
        revoked_on: token.revoked_on,
        token: raw,
    };
    let href = urls.at(TOKEN, &[token.id]);
    Resource::new(["personal_access_token"])
        .with_properties(&fields)
        .link("self", Link::get(href.clone()))
        .rel_if(
            state == "active" && principal.has(Scope::CredentialsWrite),
            &rels::ROOT_REVOKE,
            || href,
        )
}

#[derive(Serialize, JsonSchema)]
pub struct AppFields<'a> {
    id: i64,
    name: &'a str,
    client_id: &'a str,
    redirect_uris: Vec<&'a str>,
    scopes: &'a str,
    grants: Vec<&'a str>,
    public: bool,
    trusted: bool,
    created_on: Timestamp,
    /// The client secret, only in the answer that registered the app (a public client has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    client_secret: Option<&'a str>,
}

pub fn app_resource(urls: &Urls, app: &App, secret: Option<&str>) -> Resource {
    let fields = AppFields {
        id: app.id,
        name: &app.name,
        client_id: &app.client_id,
        redirect_uris: app.redirect_uri_list().collect(),
        scopes: &app.scopes,
        grants: app.grants.split(',').filter(|g| !g.is_empty()).collect(),
        public: app.public,
        trusted: app.trusted,
        created_on: app.created_on,
        client_secret: secret,
    };
    Resource::new(["app"])
        .with_properties(&fields)
        .link("self", Link::get(urls.at(APP, &[app.id])))
}
