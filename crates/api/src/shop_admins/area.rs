//! The shop admins area as the toolkit gathers it: paths, routes, URL builders. Its lists
//! hang off each shop (`shops:admins`), not the root.

use domain::Scope;
use services::shops::admins::input::{AdminChanges, NewAdmin};

use super::ADMIN_LIST;
use crate::area::{Area, Path, Routes};
use crate::kernel::state::ApiConfig;
use crate::kernel::urls::Urls;
use crate::openapi::{Answer, Op};
use crate::rels;

pub const ADMINS: Path = Path::new("/shops/{id}/admins");
pub const ADMIN: Path = Path::new("/shops/{id}/admins/{admin_id}");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[],
};

fn routes(routes: &mut Routes, _: &ApiConfig) {
    type Fields = super::AdminFields<'static>;
    routes
        .get(
            ADMINS,
            super::list,
            Op::new("List a shop's admins", Answer::list::<Fields>())
                .scope(Scope::ShopsRead)
                .list(&ADMIN_LIST)
                .rel(&rels::SHOPS_ADMINS),
        )
        .post(
            ADMINS,
            super::create,
            Op::new(
                "Invite an admin to a shop (a user of the account, or a new one by mail)",
                Answer::created::<Fields>(),
            )
            .scope(Scope::ShopsWrite)
            .json_body::<NewAdmin>()
            .rel(&rels::SHOPS_CREATE_ADMIN),
        )
        .get(
            ADMIN,
            super::show,
            Op::new("Show a shop admin", Answer::resource::<Fields>())
                .scope(Scope::ShopsRead)
                .rel(&rels::SHOPS_ADMIN),
        )
        .put(
            ADMIN,
            super::update,
            Op::new("Change a shop admin's role", Answer::resource::<Fields>())
                .scope(Scope::ShopsWrite)
                .json_body::<AdminChanges>()
                .if_match()
                .rel(&rels::SHOPS_UPDATE_ADMIN),
        )
        .delete(
            ADMIN,
            super::delete,
            Op::new(
                "Remove an admin from a shop (the user stays in the account)",
                Answer::resource::<Fields>(),
            )
            .scope(Scope::ShopsWrite)
            .if_match()
            .rel(&rels::SHOPS_DELETE_ADMIN),
        );
}

impl Urls {
    /// A shop's admins, as a list template.
    pub fn shop_admins(&self, shop_id: i64) -> String {
        self.list_template(&ADMINS.with(&[shop_id]), &ADMIN_LIST)
    }

    /// Where an admin is invited to a shop.
    pub fn shop_new_admin(&self, shop_id: i64) -> String {
        self.at(ADMINS, &[shop_id])
    }

    pub fn shop_admin(&self, shop_id: i64, id: i64) -> String {
        self.at(ADMIN, &[shop_id, id])
    }
}
