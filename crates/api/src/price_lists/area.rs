//! The price lists area as the toolkit gathers it: paths, routes, root links, URL
//! builders.

use domain::Scope;
use services::price_lists::input::{ItemBatch, NewPriceList, PriceListChanges};

use super::{ITEM_LIST, PRICE_LIST_LIST, items, prices};
use crate::area::{Area, Path, RootLink, Routes};
use crate::catalog;
use crate::kernel::state::ApiConfig;
use crate::kernel::urls::Urls;
use crate::openapi::{Answer, Op};
use crate::rels;

pub const PRICE_LISTS: Path = Path::new("/price_lists");
pub const PRICE_LIST: Path = Path::new("/price_lists/{id}");
pub const ITEMS: Path = Path::new("/price_lists/{id}/items");
pub const ITEM: Path = Path::new("/price_lists/{id}/items/{item_id}");
pub const PRICES: Path = Path::new("/price_lists/{id}/prices");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[
        RootLink {
            rel: &rels::PRICE_LISTS_PRICE_LISTS,
            shown: catalog::admin,
            href: |urls| urls.list_template(PRICE_LISTS.pattern(), &PRICE_LIST_LIST),
        },
        RootLink {
            rel: &rels::PRICE_LISTS_PRICE_LIST,
            shown: catalog::admin,
            href: |urls| urls.template(PRICE_LIST),
        },
        RootLink {
            rel: &rels::PRICE_LISTS_CREATE_PRICE_LIST,
            shown: catalog::writer,
            href: |urls| urls.template(PRICE_LISTS),
        },
    ],
};

fn routes(routes: &mut Routes, _: &ApiConfig) {
    type Fields = super::PriceListFields<'static>;
    type ItemFields = super::ItemFields<'static>;
    routes
        .get(
            PRICE_LISTS,
            super::list,
            Op::new("List price lists", Answer::list::<Fields>())
                .scope(Scope::ProductsRead)
                .list(&PRICE_LIST_LIST),
        )
        .post(
            PRICE_LISTS,
            super::create,
            Op::new("Create a price list", Answer::created::<Fields>())
                .scope(Scope::ProductsWrite)
                .json_body::<NewPriceList>(),
        )
        .get(
            PRICE_LIST,
            super::show,
            Op::new("Show a price list", Answer::resource::<Fields>()).scope(Scope::ProductsRead),
        )
        .put(
            PRICE_LIST,
            super::update,
            Op::new("Update a price list", Answer::resource::<Fields>())
                .scope(Scope::ProductsWrite)
                .json_body::<PriceListChanges>()
                .if_match(),
        )
        .delete(
            PRICE_LIST,
            super::remove,
            Op::new(
                "Delete a price list with its items",
                Answer::resource::<Fields>(),
            )
            .scope(Scope::ProductsWrite)
            .if_match(),
        )
        .get(
            ITEMS,
            items::list,
            Op::new("List a price list's items", Answer::list::<ItemFields>())
                .scope(Scope::ProductsRead)
                .list(&ITEM_LIST),
        )
        .put(
            ITEMS,
            items::upsert,
            Op::new(
                "Write a batch of a price list's items (the list, with them embedded)",
                Answer::resource::<Fields>(),
            )
            .scope(Scope::ProductsWrite)
            .json_body::<ItemBatch>()
            .if_match(),
        )
        .get(
            ITEM,
            items::show,
            Op::new("Show a price list's item", Answer::resource::<ItemFields>())
                .scope(Scope::ProductsRead),
        )
        .delete(
            ITEM,
            items::remove,
            Op::new(
                "Delete a price list's item",
                Answer::resource::<ItemFields>(),
            )
            .scope(Scope::ProductsWrite)
            .if_match(),
        )
        .get(
            PRICES,
            prices::show,
            Op::new(
                "Preview the prices a price list gives some variants",
                Answer::resource::<prices::PreviewFields<'static>>(),
            )
            .scope(Scope::ProductsRead)
            .query(prices::VARIANT_IDS)
            .query(prices::QUANTITY)
            .query(prices::CURRENCY_CODE)
            .query(prices::CONTACT_ID)
            .query(prices::AT),
        );
}

impl Urls {
    pub fn price_list(&self, id: i64) -> String {
        self.at(PRICE_LIST, &[id])
    }

    /// A price list's items, as a list template.
    pub fn price_list_items(&self, list_id: i64) -> String {
        self.list_template(&ITEMS.with(&[list_id]), &ITEM_LIST)
    }
}
