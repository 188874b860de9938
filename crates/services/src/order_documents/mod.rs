//! Order documents: asking for an order's invoice or packing slip (numbered at once, in
//! the asking transaction, and pending), and generating the pending ones' PDF files off
//! the request path (the worker calls [`generate_due`]). Each write records its event in
//! its own transaction.

pub mod pdf;

use std::panic::{AssertUnwindSafe, catch_unwind};

use domain::document::{DocumentKind, MAX_ATTEMPTS, retry_delay_secs};
use domain::{FieldErrors, ScopeSet, topic};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use storage::order_documents::{self as stored, Document, NewDocument};
use storage::orders;
use storage::shops::{self, Shop};
use storage::{ScopedExt, Tenant, Tx};

use crate::events::Change;
use crate::{Actor, Op, ServiceError, ServiceResult, Services, Shown};

/// How a document looks to a reader with `viewer`'s scopes (its GET).
pub trait Present {
    fn order_document(&self, viewer: ScopeSet, document: &Document) -> Value;
}

/// What a client sends to ask for a document.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewOrderDocument {
    /// invoice or packing_slip.
    #[schemars(with = "DocumentKind")]
    kind: String,
}

impl NewOrderDocument {
    fn validate(&self) -> Result<DocumentKind, FieldErrors> {
        self.kind.parse::<DocumentKind>().map_err(|_| {
            let mut errors = FieldErrors::new();
            errors.add("kind", "must be one of: invoice, packing_slip");
            errors
        })
    }
}

/// Asks for a document of the order: numbered now (the next of its shop and kind) and
/// pending until the worker renders it. Each call makes a new document with its own
/// number; none is ever deleted.
pub async fn create(
    services: &Services,
    actor: &Actor,
    order_id: i64,
    input: NewOrderDocument,
) -> ServiceResult<Shown<Document>> {
    let kind = input.validate()?;
    let op = Op::new(services, actor);
    services
        .write(|tx| {
            async move {
                let order = orders::find_for_update(tx, op.actor.tenant, order_id)
                    .await?
                    .ok_or(ServiceError::NotFound)?;
                if let Some(refusal) = kind.refusal(order.status) {
                    return Err(ServiceError::invalid_field("kind", refusal));
                }
                let shop = shop_of(tx, op.actor.tenant, order.shop_id).await?;
                let number = stored::next_number(tx, shop.id, kind).await?;
                let new = NewDocument {
                    account_id: order.account_id,
                    seller_id: order.seller_id,
                    shop_id: order.shop_id,
                    order_id: order.id,
                    kind,
                    number,
                };
                let id = stored::insert(tx, &new, op.now).await?;
                let written = reload(tx, op.actor.tenant, order_id, id).await?;
                let shown = record(tx, op, topic::ORDER_DOCUMENTS_CREATED, &shop, &written).await?;
                Ok(Shown::new(written, shown))
            }
            .scoped()
        })
        .await
}

/// The worker's name in events and logs.
pub const JOB: &str = "order_documents";

/// Generates up to `limit` due documents, one after another; how many it tried.
pub async fn generate_due(services: &Services, limit: i64) -> ServiceResult<usize> {
    let due = stored::due(services.db(), services.now(), limit).await?;
    for document in &due {
        if let Err(err) = generate(services, document).await {
            tracing::warn!(document = document.id, error = %err, "cannot generate an order document");
            let reason = "the document could not be rendered";
            fail(services, document, reason).await?;
        }
    }
    Ok(due.len())
}

/// Renders one pending document and stores it, with its event, in one transaction.
async fn generate(services: &Services, document: &Document) -> ServiceResult<()> {
    let actor = Actor::system(JOB, document.account_id, document.seller_id);
    let op = Op::new(services, &actor);
    let tenant = actor.tenant;
    let db = services.db();
    let order = orders::find(db, tenant, document.order_id)
        .await?
        .ok_or_else(|| ServiceError::internal("the document's order is not found"))?;
    let lines = orders::lines_of(db, &[order.id]).await?;
    let shop = shops::find(db, tenant, order.shop_id)
        .await?
        .ok_or_else(|| ServiceError::internal("the document's shop is not found"))?;
    let bytes = catch_unwind(AssertUnwindSafe(|| {
        pdf::render(document, &shop, &order, &lines)
    }))
    .map_err(|_| ServiceError::internal("rendering the PDF failed"))?;
    let (bytes, shop) = (&bytes, &shop);
    services
        .write(|tx| {
            async move {
                if !stored::store_file(tx, document, bytes, op.now).await? {
                    return Ok(());
                }
                let written = reload(tx, tenant, document.order_id, document.id).await?;
                record(tx, op, topic::ORDER_DOCUMENTS_GENERATED, shop, &written).await?;
                Ok(())
            }
            .scoped()
        })
        .await
}

/// Records a failed attempt: tried again later, or failed for good after the last one.
async fn fail(services: &Services, document: &Document, reason: &str) -> ServiceResult<()> {
    let now = services.now();
    let attempts = document.attempts + 1;
    let retry_on = (attempts < MAX_ATTEMPTS).then(|| now.plus_secs(retry_delay_secs(attempts)));
    services
        .write(|tx| {
            async move {
                stored::record_failure(tx, document, reason, retry_on, now).await?;
                Ok(())
            }
            .scoped()
        })
        .await
}

async fn reload(tx: &mut Tx, tenant: Tenant, order_id: i64, id: i64) -> ServiceResult<Document> {
    stored::find(&mut *tx, tenant, order_id, id)
        .await?
        .ok_or_else(|| ServiceError::internal(format!("document {id}, just written, is not found")))
}

async fn shop_of(tx: &mut Tx, tenant: Tenant, shop_id: i64) -> ServiceResult<Shop> {
    shops::find(&mut *tx, tenant, shop_id)
        .await?
        .ok_or_else(|| ServiceError::internal(format!("shop {shop_id} is not found")))
}

/// Records a document's event, heard by its shop's subscriptions, with the document as a
/// GET by the actor shows it; returns that document.
async fn record(
    tx: &mut Tx,
    op: Op<'_>,
    topic: &'static str,
    shop: &Shop,
    written: &Document,
) -> ServiceResult<Value> {
    let doc = op.present().order_document(op.actor.scopes, written);
    let number = written.kind.display_number(written.number);
    let change = Change::in_shop(
        topic,
        shop,
        "order_document",
        written.id,
        Some(&number),
        &doc,
    );
    op.record(tx, change).await?;
    Ok(doc)
}
