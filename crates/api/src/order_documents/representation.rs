//! How an order document looks to a client, with a link to its file once it is ready.

use domain::document::{DocumentKind, DocumentStatus};
use domain::{Scope, ScopeSet, Timestamp};
use hal::{Link, Resource};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use storage::order_documents::Document;

use crate::kernel::present::Presenter;
use crate::kernel::urls::Urls;
use crate::rels;

#[derive(Serialize, JsonSchema)]
pub struct DocumentFields<'a> {
    id: i64,
    order_id: i64,
    shop_id: i64,
    kind: DocumentKind,
    /// Per shop and kind, without gaps: `INV-1001`, `PS-1001`.
    number: String,
    /// Always `pdf`.
    format: &'static str,
    status: DocumentStatus,
    /// Why a failed document could not be generated.
    failure_reason: Option<&'a str>,
    /// The file's size once generated.
    byte_size: Option<i64>,
    created_on: Timestamp,
    generated_on: Option<Timestamp>,
}

/// A document, and its file's link once it is ready.
pub fn document_resource(urls: &Urls, viewer: ScopeSet, document: &Document) -> Resource {
    let fields = DocumentFields {
        id: document.id,
        order_id: document.order_id,
        shop_id: document.shop_id,
        kind: document.kind,
        number: document.kind.display_number(document.number),
        format: "pdf",
        status: document.status,
        failure_reason: document.failure_reason.as_deref(),
        byte_size: document.byte_size,
        created_on: document.created_on,
        generated_on: document.generated_on,
    };
    let (order_id, id) = (document.order_id, document.id);
    let ready = document.status == DocumentStatus::Ready;
    Resource::new(["order_document"])
        .with_properties(&fields)
        .link("self", Link::get(urls.order_document(order_id, id)))
        .rel(&rels::ORDERS_ORDER, urls.order(order_id))
        .rel_if(
            ready && viewer.contains(Scope::OrdersRead),
            &rels::ORDERS_DOCUMENT_FILE,
            || urls.order_document_file(order_id, id),
        )
}

impl services::order_documents::Present for Presenter {
    fn order_document(&self, viewer: ScopeSet, document: &Document) -> Value {
        document_resource(&self.urls, viewer, document).into_value(self.urls.curies())
    }
}
