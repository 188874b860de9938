//! Recording events for changes made through the API, attributed to the principal.

use domain::Timestamp;
use oauth::Principal;
pub use services::events::Change;
use storage::Tx;
use storage::events::Actor;

use crate::kernel::error::ApiError;

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
