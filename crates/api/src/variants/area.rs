//! The variants area as the toolkit gathers it: paths, routes, URL builders.

use axum::Router;
use axum::routing::{get, post};

use crate::area::{Area, Path, Routes};
use crate::kernel::state::{ApiConfig, AppState};
use crate::kernel::urls::Urls;

pub const VARIANTS: Path = Path::new("/products/{id}/variants");
pub const VARIANT: Path = Path::new("/products/{id}/variants/{variant_id}");
pub const STOCK_ADJUSTMENTS: Path =
    Path::new("/products/{id}/variants/{variant_id}/stock_adjustments");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[],
};

fn routes(routes: &mut Routes, config: &ApiConfig) {
    routes.undocumented(plain_routes(config));
}

fn plain_routes(_: &ApiConfig) -> Router<AppState> {
    Router::new()
        .route(VARIANTS.pattern(), get(super::list).post(super::create))
        .route(
            VARIANT.pattern(),
            get(super::show).put(super::update).delete(super::delete),
        )
        .route(STOCK_ADJUSTMENTS.pattern(), post(super::adjust_stock))
}

impl Urls {
    pub fn variants(&self, product_id: i64) -> String {
        self.at(VARIANTS, &[product_id])
    }

    pub fn variant(&self, product_id: i64, id: i64) -> String {
        self.at(VARIANT, &[product_id, id])
    }
}
