//! The credentials area (a user's personal access tokens and the account's OAuth apps) as
//! the toolkit gathers it: paths, routes, root links.

use domain::{Role, Scope};

use super::{APP_LIST, TOKEN_LIST};
use crate::area::{Access, Area, Path, RootLink, Routes};
use crate::kernel::state::ApiConfig;
use crate::openapi::{Answer, Op};
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

fn routes(routes: &mut Routes, _: &ApiConfig) {
    type Token = super::TokenFields<'static>;
    type App = super::AppFields<'static>;
    routes
        .get(
            TOKENS,
            super::list_tokens,
            Op::new(
                "List the personal access tokens of the token's user",
                Answer::list::<Token>(),
            )
            .scope(Scope::CredentialsRead)
            .list(&TOKEN_LIST)
            .rel(&rels::ROOT_PERSONAL_ACCESS_TOKENS),
        )
        .post(
            TOKENS,
            super::create_token,
            Op::new(
                "Create a personal access token of the token's user, shown this once",
                Answer::created::<Token>(),
            )
            .scope(Scope::CredentialsWrite)
            .json_body::<super::NewToken>()
            .rel(&rels::ROOT_CREATE_PERSONAL_ACCESS_TOKEN),
        )
        .get(
            TOKEN,
            super::show_token,
            Op::new("Show a personal access token", Answer::resource::<Token>())
                .scope(Scope::CredentialsRead),
        )
        .delete(
            TOKEN,
            super::revoke_token,
            Op::new(
                "Revoke a personal access token at once",
                Answer::resource::<Token>(),
            )
            .scope(Scope::CredentialsWrite)
            .rel(&rels::ROOT_REVOKE),
        )
        .get(
            APPS,
            super::list_apps,
            Op::new(
                "List the OAuth apps of the user's account",
                Answer::list::<App>(),
            )
            .scope(Scope::CredentialsRead)
            .list(&APP_LIST)
            .rel(&rels::ROOT_APPS),
        )
        .post(
            APPS,
            super::register_app,
            Op::new(
                "Register an OAuth app of the user's account (owners and admins); its \
                 secret is shown this once",
                Answer::created::<App>(),
            )
            .scope(Scope::CredentialsWrite)
            .json_body::<super::NewApp>()
            .rel(&rels::ROOT_CREATE_APP),
        )
        .get(
            APP,
            super::show_app,
            Op::new(
                "Show an OAuth app of the user's account",
                Answer::resource::<App>(),
            )
            .scope(Scope::CredentialsRead),
        );
}

fn reader(access: &Access<'_>) -> bool {
    access.user_has(Scope::CredentialsRead)
}

fn writer(access: &Access<'_>) -> bool {
    access.user_has(Scope::CredentialsWrite)
}
