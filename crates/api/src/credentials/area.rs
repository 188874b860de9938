//! The credentials area (a user's personal access tokens and the account's OAuth apps) as
//! the toolkit gathers it: paths, routes, root links.

use axum::Router;
use axum::routing::get;
use domain::{Role, Scope};

use super::{APP_LIST, TOKEN_LIST};
use crate::area::{Access, Area, Path, RootLink, Routes};
use crate::kernel::state::{ApiConfig, AppState};
use crate::rels;

pub const TOKENS: Path = Path::new("/personal_access_tokens");
pub const TOKEN: Path = Path::new("/personal_access_tokens/{id}");
pub const APPS: Path = Path::new("/apps");
pub const APP: Path = Path::new("/apps/{id}");

// Credentials belong to users and need their own scopes (`admin` does not imply them).
pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[
        RootLink {
            rel: &rels::ROOT_PERSONAL_ACCESS_TOKENS,
            shown: reader,
            href: |urls| urls.list_template(TOKENS.pattern(), &TOKEN_LIST),
        },
        RootLink {
            rel: &rels::ROOT_CREATE_PERSONAL_ACCESS_TOKEN,
            shown: writer,
            href: |urls| urls.template(TOKENS),
        },
        RootLink {
            rel: &rels::ROOT_APPS,
            shown: reader,
            href: |urls| urls.list_template(APPS.pattern(), &APP_LIST),
        },
        RootLink {
            rel: &rels::ROOT_CREATE_APP,
            shown: |access| {
                writer(access) && matches!(access.role(), Some(Role::Owner | Role::Admin))
            },
            href: |urls| urls.template(APPS),
        },
    ],
};

fn routes(routes: &mut Routes, config: &ApiConfig) {
    routes.undocumented(plain_routes(config));
}

fn plain_routes(_: &ApiConfig) -> Router<AppState> {
    Router::new()
        .route(
            TOKENS.pattern(),
            get(super::list_tokens).post(super::create_token),
        )
        .route(
            TOKEN.pattern(),
            get(super::show_token).delete(super::revoke_token),
        )
        .route(
            APPS.pattern(),
            get(super::list_apps).post(super::register_app),
        )
        .route(APP.pattern(), get(super::show_app))
}

fn reader(access: &Access<'_>) -> bool {
    access.user_has(Scope::CredentialsRead)
}

fn writer(access: &Access<'_>) -> bool {
    access.user_has(Scope::CredentialsWrite)
}
