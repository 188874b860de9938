//! `GET /v2`: who the token speaks for, the sellers and shops it may see, and the links
//! every area adds for the tokens that may follow them (`area::AREAS`).

use axum::extract::State;
use hal::{Link, Resource};
use schemars::JsonSchema;
use serde::Serialize;
use storage::{sellers, shops, users};

use crate::area::{AREAS, Access, Path};
use crate::kernel::auth::Auth;
use crate::kernel::error::ApiResult;
use crate::kernel::hal_response::Hal;
use crate::kernel::revalidation::AccountData;
use crate::kernel::state::AppState;
use crate::openapi::{Answer, Op};
use crate::sellers::seller_resource;
use crate::shops::shop_resource;

/// How many sellers and shops the root embeds; the lists hold the rest.
const EMBEDDED_LIMIT: i64 = 200;

/// `/v2` itself.
pub const ROOT: Path = Path::new("/");

pub fn operation() -> Op {
    Op::new(
        "The root: who the token speaks for, and the links it may follow",
        Answer::resource::<RootFields>(),
    )
}

#[derive(Serialize, JsonSchema)]
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
    let access = Access(&auth);
    let mut doc = Resource::new(["root"])
        .with_properties(&fields)
        .link("self", Link::get(urls.root()));
    for link in AREAS.iter().flat_map(|area| area.root_links) {
        doc = doc.rel_if((link.shown)(&access), link.rel, || (link.href)(urls));
    }
    let doc = doc
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
        .into_json(urls.curies());
    Ok(Hal::ok(doc, state.clock.now()).showing(AccountData::own(&auth)))
}
