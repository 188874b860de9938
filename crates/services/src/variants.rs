//! Variants: what other areas' operations record when they change one (an order's stock).

use domain::ScopeSet;
use serde_json::Value;
use storage::products::Product;
use storage::variants::Variant;
use storage::{Tenant, Tx};

use crate::events::Change;
use crate::{Op, ServiceResult, catalog};

/// How a variant looks to a reader of `tenant`'s catalog with `viewer`'s scopes (its GET).
pub trait Present {
    fn variant(&self, viewer: ScopeSet, tenant: Tenant, variant: &Variant) -> Value;
}

/// Records a variant's change, heard in its product's shops, with the variant as a GET by
/// the actor shows it.
pub(crate) async fn record(
    tx: &mut Tx,
    op: Op<'_>,
    topic: &'static str,
    product: &Product,
    variant: &Variant,
) -> ServiceResult<i64> {
    let doc = op
        .present()
        .variant(op.actor.scopes, op.actor.tenant, variant);
    let shops = catalog::shops_of(tx, product).await?;
    let change = Change::of_catalog(
        topic,
        (product.account_id, product.seller_id),
        "variant",
        variant.id,
        variant.sku.as_deref(),
        &doc,
    )
    .heard_in(&shops);
    op.record(tx, change).await
}
