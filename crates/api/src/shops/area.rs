//! The shops area as the toolkit gathers it: paths, routes, root links, URL builders.

use domain::Scope;
use services::shops::input::{NewShop, ShopChanges};

use super::SHOP_LIST;
use crate::area::{Access, Area, Path, RootLink, Routes};
use crate::kernel::state::ApiConfig;
use crate::kernel::urls::Urls;
use crate::openapi::{Answer, Op};
use crate::rels;

pub const SHOPS: Path = Path::new("/shops");
pub const SHOP: Path = Path::new("/shops/{id}");
/// A seller's shops: where a shop is created.
pub const SELLER_SHOPS: Path = Path::new("/sellers/{id}/shops");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[
        RootLink {
            rel: &rels::SHOPS_SHOPS,
            shown: reader,
            href: |urls| urls.list_template(SHOPS.pattern(), &SHOP_LIST),
        },
        RootLink {
            rel: &rels::SHOPS_SHOP,
            shown: reader,
            href: |urls| urls.template(SHOP),
        },
    ],
};

fn routes(routes: &mut Routes, _: &ApiConfig) {
    type Fields = super::ShopFields<'static>;
    routes
        .get(
            SHOPS,
            super::list,
            Op::new("List shops", Answer::list::<Fields>())
                .scope(Scope::ShopsRead)
                .list(&SHOP_LIST)
                .rel(&rels::SHOPS_SHOPS)
                .rel(&rels::SELLERS_SHOPS),
        )
        .get(
            SHOP,
            super::show,
            Op::new("Show a shop", Answer::resource::<Fields>())
                .scope(Scope::ShopsRead)
                .rel(&rels::SHOPS_SHOP),
        )
        .put(
            SHOP,
            super::update,
            Op::new("Change a shop's settings", Answer::resource::<Fields>())
                .scope(Scope::ShopsWrite)
                .json_body::<ShopChanges>()
                .if_match()
                .rel(&rels::SHOPS_UPDATE),
        )
        .post(
            SELLER_SHOPS,
            super::create,
            Op::new("Create a shop for a seller", Answer::created::<Fields>())
                .scope(Scope::ShopsWrite)
                .json_body::<NewShop>()
                .rel(&rels::SHOPS_CREATE_SHOP),
        );
}

fn reader(access: &Access<'_>) -> bool {
    access.has(Scope::ShopsRead)
}

impl Urls {
    pub fn shop(&self, id: i64) -> String {
        self.at(SHOP, &[id])
    }

    pub fn seller_shops(&self, id: i64) -> String {
        self.at(SELLER_SHOPS, &[id])
    }

    /// A seller's shops.
    pub fn shops_of_seller(&self, seller_id: i64) -> String {
        let preset = [("seller_ids", seller_id.to_string())];
        self.list_template_with(SHOPS.pattern(), &super::SHOP_LIST, &preset)
    }
}
