//! Catalog lookups that several areas' operations share.

use storage::Tx;
use storage::products::{self, Product};

use crate::ServiceResult;

/// The ids of the shops `product` is available in: the subscriptions that hear of it.
pub async fn shops_of(tx: &mut Tx, product: &Product) -> ServiceResult<Vec<i64>> {
    let mut by_product = products::shop_ids_of(&mut *tx, &[product]).await?;
    Ok(by_product.remove(&product.id).unwrap_or_default())
}
