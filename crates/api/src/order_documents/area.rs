//! The order documents area as the toolkit gathers it: paths, routes, URL builders.

use domain::Scope;
use services::order_documents::NewOrderDocument;

use super::DOCUMENT_LIST;
use crate::area::{Area, Path, Routes};
use crate::kernel::state::ApiConfig;
use crate::kernel::urls::Urls;
use crate::openapi::{Answer, Op};
use crate::rels;

pub const DOCUMENTS: Path = Path::new("/orders/{id}/documents");
pub const DOCUMENT: Path = Path::new("/orders/{id}/documents/{document_id}");
pub const FILE: Path = Path::new("/orders/{id}/documents/{document_id}/file");

pub static AREA: Area = Area {
    routes,
    rels: super::rels::RELS,
    root_links: &[],
};

fn routes(routes: &mut Routes, _: &ApiConfig) {
    type Fields = super::DocumentFields<'static>;
    routes
        .get(
            DOCUMENTS,
            super::list,
            Op::new("List an order's documents", Answer::list::<Fields>())
                .scope(Scope::OrdersRead)
                .list(&DOCUMENT_LIST)
                .rel(&rels::ORDERS_DOCUMENTS),
        )
        .post(
            DOCUMENTS,
            super::create,
            Op::new(
                "Generate an order's invoice or packing slip",
                Answer::accepted_resource::<Fields>(),
            )
            .scope(Scope::OrdersWrite)
            .json_body::<NewOrderDocument>()
            .rel(&rels::ORDERS_CREATE_DOCUMENT),
        )
        .get(
            DOCUMENT,
            super::show,
            Op::new("Show an order's document", Answer::resource::<Fields>())
                .scope(Scope::OrdersRead)
                .rel(&rels::ORDERS_DOCUMENT),
        )
        .get(
            FILE,
            super::file,
            Op::new("Download a document's PDF file", Answer::File)
                .scope(Scope::OrdersRead)
                .rel(&rels::ORDERS_DOCUMENT_FILE),
        );
}

impl Urls {
    pub fn order_documents(&self, order_id: i64) -> String {
        self.at(DOCUMENTS, &[order_id])
    }

    /// An order's documents, as a list template.
    pub fn order_documents_list(&self, order_id: i64) -> String {
        self.list_template(&DOCUMENTS.with(&[order_id]), &DOCUMENT_LIST)
    }

    pub fn order_document(&self, order_id: i64, id: i64) -> String {
        self.at(DOCUMENT, &[order_id, id])
    }

    pub fn order_document_file(&self, order_id: i64, id: i64) -> String {
        self.at(FILE, &[order_id, id])
    }
}
