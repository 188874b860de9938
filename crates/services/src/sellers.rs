//! Sellers as other areas' operations need them.

use storage::sellers::{self, Seller};
use storage::{Database, Tenant};

use crate::{ServiceError, ServiceResult};

/// The seller a new catalog item belongs to: the one the input names, the actor's own,
/// or the account's only seller.
pub async fn owning_seller(
    db: &Database,
    tenant: Tenant,
    requested: Option<i64>,
) -> ServiceResult<Seller> {
    let id = requested.or(tenant.seller_id);
    if let Some(id) = id {
        return sellers::find(db, tenant, id)
            .await?
            .ok_or_else(|| ServiceError::invalid_field("seller_id", "does not exist"));
    }
    let mut candidates = sellers::first_of_tenant(db, tenant, 2).await?;
    match candidates.len() {
        1 => Ok(candidates.remove(0)),
        0 => Err(ServiceError::invalid_field(
            "seller_id",
            "the account has no seller",
        )),
        _ => Err(ServiceError::invalid_field(
            "seller_id",
            "is required when the account has several sellers",
        )),
    }
}
