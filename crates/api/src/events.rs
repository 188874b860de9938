//! Recording events for changes made through the API, attributed to the principal.

use domain::Timestamp;
use oauth::Principal;
pub use services::events::Change;
use storage::Tx;
use storage::events::Actor;

use crate::kernel::auth::Auth;
use crate::kernel::error::{ApiError, ApiResult};
use crate::kernel::state::AppState;

/// Writes the event in the caller's transaction, attributed to the principal.
pub async fn record(
    tx: &mut Tx,
    principal: &Principal,
    change: Change<'_>,
    now: Timestamp,
) -> Result<i64, ApiError> {
    let actor = Actor {
        user_id: principal.user_id(),
        user_name: principal.user_name.as_deref(),
        app_id: Some(principal.app_id),
    };
    Ok(services::events::record(tx, actor, change, now).await?)
}

/// What every write of a request shares: the state, who writes, and when.
#[derive(Clone, Copy)]
pub struct WriteCtx<'a> {
    pub state: &'a AppState,
    pub auth: &'a Auth,
    pub now: Timestamp,
}

impl<'a> WriteCtx<'a> {
    pub fn new(state: &'a AppState, auth: &'a Auth) -> Self {
        Self {
            state,
            auth,
            now: state.clock.now(),
        }
    }

    /// Records `change` in the transaction, attributed to the request's principal.
    pub async fn record(&self, tx: &mut Tx, change: Change<'_>) -> ApiResult<i64> {
        record(tx, self.auth, change, self.now).await
    }
}
