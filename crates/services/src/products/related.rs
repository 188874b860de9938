//! What a product's representation embeds besides its own row: variants, images,
//! collections and shops, loaded for a whole page with one query per relation.

use std::collections::HashMap;

use storage::product_assets::{self, Asset};
use storage::products::{self, Product};
use storage::variants::{self, Variant};
use storage::{Database, Tx, collections};

#[derive(Debug, Default)]
pub struct Related {
    variants: HashMap<i64, Vec<Variant>>,
    assets: HashMap<i64, Vec<Asset>>,
    collection_ids: HashMap<i64, Vec<i64>>,
    shop_ids: HashMap<i64, Vec<i64>>,
}

/// One product's share of `Related`.
#[derive(Clone, Copy, Debug)]
pub struct Parts<'a> {
    pub variants: &'a [Variant],
    pub assets: &'a [Asset],
    pub collection_ids: &'a [i64],
    pub shop_ids: &'a [i64],
}

impl Related {
    /// Loads a page's relations side by side, on separate connections.
    pub async fn load(db: &Database, page: &[Product]) -> storage::Result<Self> {
        let ids: Vec<i64> = page.iter().map(|p| p.id).collect();
        let refs: Vec<&Product> = page.iter().collect();
        let (variants, assets, collection_ids, shop_ids) = tokio::try_join!(
            variants::of_products(db, &ids),
            product_assets::of_products(db, &ids),
            collections::ids_of_products(db, &ids),
            products::shop_ids_of(db, &refs),
        )?;
        Ok(Self::assemble(variants, assets, collection_ids, shop_ids))
    }

    /// Loads one product's relations inside a transaction (to answer a write).
    pub async fn load_in(tx: &mut Tx, product: &Product) -> storage::Result<Self> {
        let ids = [product.id];
        let variants = variants::of_products(&mut *tx, &ids).await?;
        let assets = product_assets::of_products(&mut *tx, &ids).await?;
        let collection_ids = collections::ids_of_products(&mut *tx, &ids).await?;
        let shop_ids = products::shop_ids_of(&mut *tx, &[product]).await?;
        Ok(Self::assemble(variants, assets, collection_ids, shop_ids))
    }

    fn assemble(
        variants: Vec<Variant>,
        assets: Vec<Asset>,
        collection_ids: HashMap<i64, Vec<i64>>,
        shop_ids: HashMap<i64, Vec<i64>>,
    ) -> Self {
        let mut by_product: HashMap<i64, Vec<Variant>> = HashMap::new();
        for variant in variants {
            by_product
                .entry(variant.product_id)
                .or_default()
                .push(variant);
        }
        let mut assets_by_product: HashMap<i64, Vec<Asset>> = HashMap::new();
        for asset in assets {
            assets_by_product
                .entry(asset.product_id)
                .or_default()
                .push(asset);
        }
        Self {
            variants: by_product,
            assets: assets_by_product,
            collection_ids,
            shop_ids,
        }
    }

    pub fn parts(&self, product_id: i64) -> Parts<'_> {
        Parts {
            variants: self.variants.get(&product_id).map_or(&[], Vec::as_slice),
            assets: self.assets.get(&product_id).map_or(&[], Vec::as_slice),
            collection_ids: self
                .collection_ids
                .get(&product_id)
                .map_or(&[], Vec::as_slice),
            shop_ids: self.shop_ids.get(&product_id).map_or(&[], Vec::as_slice),
        }
    }
}
