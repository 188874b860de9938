//! Batch status updates of a shop's orders: the path, its route and its URL builder.

use domain::Scope;
use services::order_batches::input::BatchUpdate;

use crate::area::{Area, Path, Routes};
use crate::kernel::state::ApiConfig;
use crate::kernel::urls::Urls;
use crate::openapi::{Answer, Op};
use crate::rels;

/// Where a shop's orders are moved many at once.
pub const BATCH_UPDATES: Path = Path::new("/shops/{id}/orders/batch_updates");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[],
};

fn routes(routes: &mut Routes, _: &ApiConfig) {
    routes.post(
        BATCH_UPDATES,
        super::create,
        Op::new(
            "Move many of a shop's orders to one status",
            Answer::resource::<super::BatchUpdateFields>(),
        )
        .also(Answer::accepted_resource::<crate::batches::BatchFields>())
        .scope(Scope::OrdersWrite)
        .json_body::<BatchUpdate>()
        .rel(&rels::ORDERS_BATCH_UPDATES),
    );
}

impl Urls {
    pub fn order_batch_updates(&self, shop_id: i64) -> String {
        self.at(BATCH_UPDATES, &[shop_id])
    }
}
