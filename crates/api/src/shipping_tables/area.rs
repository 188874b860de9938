//! The shipping tables area as the toolkit gathers it: paths, routes, URL builders (the
//! shop links to its tables; the root does not).

use domain::Scope;
use services::shipping_tables::input::{NewShippingTable, ShippingTableChanges};

use super::SHIPPING_TABLE_LIST;
use crate::area::{Area, Path, Routes};
use crate::kernel::state::ApiConfig;
use crate::kernel::urls::Urls;
use crate::openapi::{Answer, Op};
use crate::rels;

pub const SHIPPING_TABLES: Path = Path::new("/shops/{id}/shipping_tables");
pub const SHIPPING_TABLE: Path = Path::new("/shops/{id}/shipping_tables/{table_id}");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[],
};

fn routes(routes: &mut Routes, _: &ApiConfig) {
    type Fields = super::ShippingTableFields<'static>;
    routes
        .get(
            SHIPPING_TABLES,
            super::list,
            Op::new("List a shop's shipping tables", Answer::list::<Fields>())
                .scope(Scope::ShopsRead)
                .list(&SHIPPING_TABLE_LIST)
                .rel(&rels::SHOPS_SHIPPING_TABLES),
        )
        .post(
            SHIPPING_TABLES,
            super::create,
            Op::new("Create a shipping table", Answer::created::<Fields>())
                .scope(Scope::ShopsWrite)
                .json_body::<NewShippingTable>()
                .rel(&rels::SHOPS_CREATE_SHIPPING_TABLE),
        )
        .get(
            SHIPPING_TABLE,
            super::show,
            Op::new("Show a shipping table", Answer::resource::<Fields>())
                .scope(Scope::ShopsRead)
                .rel(&rels::SHOPS_SHIPPING_TABLE),
        )
        .put(
            SHIPPING_TABLE,
            super::update,
            Op::new("Update a shipping table", Answer::resource::<Fields>())
                .scope(Scope::ShopsWrite)
                .json_body::<ShippingTableChanges>()
                .if_match()
                .rel(&rels::SHOPS_UPDATE_SHIPPING_TABLE),
        )
        .delete(
            SHIPPING_TABLE,
            super::delete,
            Op::new("Delete a shipping table", Answer::resource::<Fields>())
                .scope(Scope::ShopsWrite)
                .if_match()
                .rel(&rels::SHOPS_DELETE_SHIPPING_TABLE),
        );
}

impl Urls {
    /// The shop's list, as a template of its parameters.
    pub fn shipping_tables(&self, shop_id: i64) -> String {
        self.list_template(&SHIPPING_TABLES.with(&[shop_id]), &SHIPPING_TABLE_LIST)
    }

    /// Where one is added to the shop.
    pub fn new_shipping_table(&self, shop_id: i64) -> String {
        self.at(SHIPPING_TABLES, &[shop_id])
    }

    pub fn shipping_table(&self, shop_id: i64, id: i64) -> String {
        self.at(SHIPPING_TABLE, &[shop_id, id])
    }
}
