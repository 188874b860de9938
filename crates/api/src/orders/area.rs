//! The orders area as the toolkit gathers it: paths, routes, root links, URL builders.

use domain::Scope;
use domain::order::Transition;
use services::orders::input::{NewOrder, OrderChanges, ShipInput, TrackingInput};

use super::ORDER_LIST;
use crate::area::{Access, Area, Path, RootLink, Routes};
use crate::kernel::state::ApiConfig;
use crate::kernel::urls::Urls;
use crate::openapi::{Answer, Op};
use crate::rels;

pub const ORDERS: Path = Path::new("/orders");
pub const ORDER: Path = Path::new("/orders/{id}");
pub const PLACE: Path = Path::new("/orders/{id}/place");
pub const CLOSE: Path = Path::new("/orders/{id}/close");
pub const SHIP: Path = Path::new("/orders/{id}/ship");
pub const TRACKING: Path = Path::new("/orders/{id}/tracking");
pub const CANCEL: Path = Path::new("/orders/{id}/cancel");
/// A shop's orders: where an order is created.
pub const SHOP_ORDERS: Path = Path::new("/shops/{id}/orders");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[
        RootLink {
            rel: &rels::ORDERS_ORDERS,
            shown: reader,
            href: |urls| urls.list_template(ORDERS.pattern(), &ORDER_LIST),
        },
        RootLink {
            rel: &rels::ORDERS_ORDER,
            shown: reader,
            href: |urls| urls.template(ORDER),
        },
    ],
};

fn routes(routes: &mut Routes, _: &ApiConfig) {
    type Fields = super::OrderFields<'static>;
    let write = |summary| {
        Op::new(summary, Answer::resource::<Fields>())
            .scope(Scope::OrdersWrite)
            .if_match()
    };
    routes
        .get(
            ORDERS,
            super::list,
            Op::new("List orders, newest first", Answer::list::<Fields>())
                .scope(Scope::OrdersRead)
                .list(&ORDER_LIST)
                .rel(&rels::ORDERS_ORDERS),
        )
        .get(
            ORDER,
            super::show,
            Op::new("Show an order", Answer::resource::<Fields>())
                .scope(Scope::OrdersRead)
                .rel(&rels::ORDERS_ORDER),
        )
        .put(
            ORDER,
            super::update,
            write("Update an order")
                .json_body::<OrderChanges>()
                .rel(&rels::ORDERS_UPDATE),
        )
        .delete(
            ORDER,
            super::delete,
            write("Delete an order in checkout").rel(&rels::ORDERS_DELETE),
        )
        .put(
            PLACE,
            super::place,
            write("Place an order (checkout → placed)").rel(&rels::ORDERS_PLACE),
        )
        .put(
            CLOSE,
            super::close,
            write("Close an order (placed → closed)").rel(&rels::ORDERS_CLOSE),
        )
        .put(
            SHIP,
            super::ship,
            write("Ship an order (closed → shipped)")
                .json_body::<ShipInput>()
                .rel(&rels::ORDERS_SHIP),
        )
        .put(
            TRACKING,
            super::tracking,
            write("Set a shipment's tracking (ships a closed order), and tell the customer")
                .json_body::<TrackingInput>()
                .rel(&rels::ORDERS_TRACKING),
        )
        .put(
            CANCEL,
            super::cancel,
            write("Cancel an order (checkout, placed or closed → cancelled)")
                .rel(&rels::ORDERS_CANCEL),
        )
        .post(
            SHOP_ORDERS,
            super::create,
            Op::new("Create an order in a shop", Answer::created::<Fields>())
                .scope(Scope::OrdersWrite)
                .json_body::<NewOrder>()
                .rel(&rels::ORDERS_CREATE_ORDER),
        );
}

fn reader(access: &Access<'_>) -> bool {
    access.tenant_has(Scope::OrdersRead)
}

/// Where each move of the state machine is made.
fn path_of(transition: Transition) -> Path {
    match transition {
        Transition::Place => PLACE,
        Transition::Close => CLOSE,
        Transition::Ship => SHIP,
        Transition::Cancel => CANCEL,
    }
}

impl Urls {
    pub fn order(&self, id: i64) -> String {
        self.at(ORDER, &[id])
    }

    /// A move of an order.
    pub fn order_move(&self, id: i64, transition: Transition) -> String {
        self.at(path_of(transition), &[id])
    }

    pub fn order_tracking(&self, id: i64) -> String {
        self.at(TRACKING, &[id])
    }

    pub fn shop_orders(&self, shop_id: i64) -> String {
        self.at(SHOP_ORDERS, &[shop_id])
    }

    /// A shop's orders, as a list template.
    pub fn orders_of_shop(&self, shop_id: i64) -> String {
        let preset = [("shop_ids", shop_id.to_string())];
        self.list_template_with(ORDERS.pattern(), &ORDER_LIST, &preset)
    }
}
