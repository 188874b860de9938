//! Order documents: an order's invoices and packing slips, asked for with `orders.write`
//! (answered 202: a worker generates the PDF), listed, read and downloaded with
//! `orders.read`. The files hold the buyer's personal data, so unlike product images they
//! are served only to a token of the order's account.

pub mod area;
pub mod rels;
mod representation;

use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use domain::Scope;
use domain::document::DocumentStatus;
use services::order_documents::{self as operations, NewOrderDocument};
use storage::order_documents::{self as documents, Document};
use storage::orders::{self, Order};
use storage::sql::Direction;

use crate::kernel::auth::Auth;
use crate::kernel::error::{ApiError, ApiResult};
use crate::kernel::hal_response::{Hal, http_date};
use crate::kernel::input::{JsonBody, NestedIds, ResourceId};
use crate::kernel::list::ListSpec;
use crate::kernel::revalidation::AccountData;
use crate::kernel::state::AppState;

pub use representation::{DocumentFields, document_resource};

pub static DOCUMENT_LIST: ListSpec = ListSpec {
    name: "order_documents",
    default_per_page: 20,
    sort_fields: documents::SORT_FIELDS,
    default_sort: ("id", Direction::Asc),
    filters: &[],
};

/// The order, in the token's tenant (404 otherwise).
async fn order_of(state: &AppState, auth: &Auth, id: i64) -> ApiResult<Order> {
    auth.find(|tenant| orders::find(&state.db, tenant, id))
        .await
}

/// The order's document, in the token's tenant (404 otherwise).
async fn document_of(state: &AppState, auth: &Auth, order_id: i64, id: i64) -> ApiResult<Document> {
    auth.find(|tenant| documents::find(&state.db, tenant, order_id, id))
        .await
}

async fn list(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::OrdersRead)?;
    let order = order_of(&state, &auth, id).await?;
    let (request, ()) = DOCUMENT_LIST.read(query.as_deref(), |_, _| ())?;
    let page = documents::list(&state.db, order.id, request.sort, request.window()).await?;
    let path = area::DOCUMENTS.with(&[id]);
    Ok(request
        .respond(&state, &path, page, |document| {
            document_resource(&state.urls, auth.scopes, document)
        })
        .showing(AccountData::own(&auth)))
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(order_id, id): NestedIds,
) -> ApiResult<Hal> {
    auth.require(Scope::OrdersRead)?;
    let document = document_of(&state, &auth, order_id, id).await?;
    let doc = document_resource(&state.urls, auth.scopes, &document).into_json(state.urls.curies());
    Ok(Hal::ok(doc, document.updated_on).showing(AccountData::own(&auth)))
}

async fn create(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(order_id): ResourceId,
    JsonBody(input): JsonBody<NewOrderDocument>,
) -> ApiResult<Hal> {
    auth.require(Scope::OrdersWrite)?;
    let made = operations::create(&state.services, &auth.actor()?, order_id, input).await?;
    let document = &made.value;
    Ok(Hal::accepted(
        made.document,
        state.urls.order_document(order_id, document.id),
        document.updated_on,
    ))
}

/// The PDF of a ready document; a pending or failed one has none yet (404).
async fn file(
    State(state): State<AppState>,
    auth: Auth,
    NestedIds(order_id, id): NestedIds,
) -> ApiResult<Response> {
    auth.require(Scope::OrdersRead)?;
    let document = document_of(&state, &auth, order_id, id).await?;
    if document.status != DocumentStatus::Ready {
        return Err(ApiError::not_found());
    }
    let data = documents::file(&state.db, document.id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let name = document.kind.display_number(document.number);
    let mut response = Body::from(data).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/pdf"),
    );
    headers.insert(
        header::CONTENT_DISPOSITION,
        HeaderValue::from_str(&format!("inline; filename=\"{name}.pdf\""))
            .map_err(ApiError::internal)?,
    );
    // Personal data: kept by the client that asked, never by a shared cache.
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-cache"),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if let Some(at) = document.generated_on {
        headers.insert(header::LAST_MODIFIED, http_date(at));
    }
    Ok(response)
}
