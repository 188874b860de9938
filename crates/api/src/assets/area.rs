//! The images area as the toolkit gathers it: paths, routes, URL builders. (Image files
//! themselves are served outside `/v2`, by `file_routes`.)

use axum::extract::DefaultBodyLimit;
use axum::http::Method;
use axum::routing::post;
use domain::Scope;

use super::{ASSET_LIST, upload_body_limit};
use crate::area::{Area, Path, Routes};
use crate::catalog;
use crate::kernel::state::ApiConfig;
use crate::kernel::urls::Urls;
use crate::openapi::{Answer, Op, SHOP_SUBDOMAINS};
use crate::rels;

pub const ASSETS: Path = Path::new("/products/{id}/assets");
pub const ASSET: Path = Path::new("/products/{id}/assets/{asset_id}");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[],
};

fn routes(routes: &mut Routes, config: &ApiConfig) {
    type Fields = super::AssetFields<'static>;
    let upload_limit = DefaultBodyLimit::max(upload_body_limit(config.max_asset_bytes));
    routes
        .get(
            ASSETS,
            super::list,
            Op::new("List a product's images", Answer::list::<Fields>())
                .any_scope(catalog::READ_SCOPES)
                .list(&ASSET_LIST)
                .query(SHOP_SUBDOMAINS)
                .rel(&rels::PRODUCTS_ASSETS),
        )
        .add(
            Method::POST,
            ASSETS,
            post(super::upload).layer(upload_limit),
            Op::new(
                "Upload an image of a product (JPEG, PNG, GIF or WebP)",
                Answer::created::<Fields>(),
            )
            .scope(Scope::ProductsWrite)
            .json_body::<super::EncodedUpload>()
            .multipart_body::<super::MultipartUpload>()
            .rel(&rels::PRODUCTS_CREATE_ASSET),
        )
        .get(
            ASSET,
            super::show,
            Op::new("Show an image", Answer::resource::<Fields>())
                .any_scope(catalog::READ_SCOPES)
                .query(SHOP_SUBDOMAINS),
        )
        .delete(
            ASSET,
            super::delete,
            Op::new("Delete an image", Answer::resource::<Fields>())
                .scope(Scope::ProductsWrite)
                .if_match()
                .rel(&rels::PRODUCTS_DELETE_ASSET),
        );
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

    /// A product's images, as a list template.
    pub fn assets_list(&self, product_id: i64) -> String {
        self.list_template(&ASSETS.with(&[product_id]), &super::ASSET_LIST)
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
