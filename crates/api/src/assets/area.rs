//! The images area as the toolkit gathers it: paths, routes, URL builders. (Image files
//! themselves are served outside `/v2`, by `file_routes`.)

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::get;

use super::upload_body_limit;
use crate::area::{Area, Path, Routes};
use crate::kernel::state::{ApiConfig, AppState};
use crate::kernel::urls::Urls;
use crate::openapi::{Answer, Op};

pub const ASSETS: Path = Path::new("/products/{id}/assets");
pub const ASSET: Path = Path::new("/products/{id}/assets/{asset_id}");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[],
};

fn routes(routes: &mut Routes, config: &ApiConfig) {
    routes.undocumented(plain_routes(config));
}

fn plain_routes(config: &ApiConfig) -> Router<AppState> {
    let upload_limit = DefaultBodyLimit::max(upload_body_limit(config.max_asset_bytes));
    Router::new()
        .route(
            ASSETS.pattern(),
            get(super::list).post(super::upload).layer(upload_limit),
        )
        .route(ASSET.pattern(), get(super::show).delete(super::delete))
}

/// Where an image's bytes are served from, outside the API's versions.
pub const FILE: Path = Path::new("/files/{id}/{digest}/{name}");

pub fn file_routes(routes: &mut Routes) {
    routes.get(
        FILE,
        super::file,
        Op::new("An image's bytes, cacheable for ever", Answer::File).anonymous(),
    );
}

impl Urls {
    pub fn assets(&self, product_id: i64) -> String {
        self.at(ASSETS, &[product_id])
    }

    pub fn asset(&self, product_id: i64, id: i64) -> String {
        self.at(ASSET, &[product_id, id])
    }

    /// The public address of an asset's file: immutable, named by its digest.
    pub fn asset_file(&self, id: i64, digest: &str, file_name: &str) -> String {
        let name = form_urlencoded::byte_serialize(file_name.as_bytes()).collect::<String>();
        format!("{}/files/{id}/{digest}/{name}", self.public())
    }
}
