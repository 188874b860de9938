//! The sellers area as the toolkit gathers it: paths, routes, root links, URL builders.

use domain::Scope;

use super::SELLER_LIST;
use crate::area::{Access, Area, Path, RootLink, Routes};
use crate::kernel::state::ApiConfig;
use crate::kernel::urls::Urls;
use crate::openapi::{Answer, Op};
use crate::rels;

pub const SELLERS: Path = Path::new("/sellers");
pub const SELLER: Path = Path::new("/sellers/{id}");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[
        RootLink {
            rel: &rels::SELLERS_SELLERS,
            shown: reader,
            href: |urls| urls.list_template(SELLERS.pattern(), &SELLER_LIST),
        },
        RootLink {
            rel: &rels::SELLERS_SELLER,
            shown: reader,
            href: |urls| urls.template(SELLER),
        },
    ],
};

fn routes(routes: &mut Routes, _: &ApiConfig) {
    type Fields = super::SellerFields<'static>;
    routes
        .get(
            SELLERS,
            super::list,
            Op::new("List sellers", Answer::list::<Fields>())
                .scope(Scope::SellersRead)
                .list(&SELLER_LIST),
        )
        .get(
            SELLER,
            super::show,
            Op::new("Show a seller", Answer::resource::<Fields>()).scope(Scope::SellersRead),
        );
}

fn reader(access: &Access<'_>) -> bool {
    access.has(Scope::SellersRead)
}

impl Urls {
    pub fn seller(&self, id: i64) -> String {
        self.at(SELLER, &[id])
    }
}
