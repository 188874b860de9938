//! Batch jobs: the progress of work started by a request over more items than it does
//! itself, read with `batches.read`.

pub mod area;
pub mod rels;
mod representation;

use axum::extract::{RawQuery, State};
use domain::Scope;
use domain::batch::BatchState;
use storage::batches::{self, BatchFilter};
use storage::sql::Direction;

use crate::kernel::auth::Auth;
use crate::kernel::error::ApiResult;
use crate::kernel::hal_response::Hal;
use crate::kernel::input::ResourceId;
use crate::kernel::list::ListSpec;
use crate::kernel::revalidation::AccountData;
use crate::kernel::state::AppState;

pub use representation::{BatchFields, batch_resource, batch_summary, invalid_item};

pub static BATCH_LIST: ListSpec = ListSpec {
    name: "batches",
    default_per_page: 20,
    sort_fields: batches::SORT_FIELDS,
    default_sort: ("id", Direction::Desc),
    filters: &["state", "shop_ids"],
};

async fn list(
    State(state): State<AppState>,
    auth: Auth,
    RawQuery(query): RawQuery,
) -> ApiResult<Hal> {
    auth.require(Scope::BatchesRead)?;
    let (request, filter) = BATCH_LIST.read(query.as_deref(), |params, errors| BatchFilter {
        state: params.parsed::<BatchState>("state", errors),
        shop_ids: params.id_list("shop_ids", errors),
    })?;
    let page = auth
        .tenant_page(|tenant| {
            batches::list(&state.db, tenant, &filter, request.sort, request.window())
        })
        .await?;
    Ok(request
        .respond(&state, area::BATCHES.pattern(), page, |batch| {
            batch_summary(&state.urls, batch)
        })
        .showing(AccountData::own(&auth)))
}

async fn show(
    State(state): State<AppState>,
    auth: Auth,
    ResourceId(id): ResourceId,
) -> ApiResult<Hal> {
    auth.require(Scope::BatchesRead)?;
    let batch = auth
        .find(|tenant| batches::find(&state.db, tenant, id))
        .await?;
    let doc = batch_resource(&state.urls, &batch).into_json(state.urls.curies());
    Ok(Hal::ok(doc, batch.summary.updated_on).showing(AccountData::own(&auth)))
}
