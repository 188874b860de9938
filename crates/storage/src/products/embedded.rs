//! What a product's representation embeds besides its own row — its variants, images,
//! collection ids and shop ids — read in the same statement as the product: the database
//! aggregates each relation into a JSON array column, so a product or a whole page costs
//! one round trip and one row per product, whatever it embeds.

use std::fmt;

use domain::Timestamp;
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, de::DeserializeOwned};

use super::Product;
use crate::db::Backend;
use crate::error::{Error, Result};
use crate::json::JsonText;
use crate::product_assets::Asset;
use crate::variants::Variant;

/// A product's relations, in the order its representation lists them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Embedded {
    /// By position, then id.
    pub variants: Vec<Variant>,
    /// By position, then id.
    pub assets: Vec<Asset>,
    /// Ascending.
    pub collection_ids: Vec<i64>,
    /// Ascending: the seller's shops for a product in all shops, else its own.
    pub shop_ids: Vec<i64>,
}

/// A product row with its relations' columns (see [`columns`]).
#[derive(sqlx::FromRow)]
pub(crate) struct Row {
    #[sqlx(flatten)]
    product: Product,
    embedded_variants: String,
    embedded_assets: String,
    embedded_collection_ids: String,
    embedded_shop_ids: String,
}

impl Row {
    pub(crate) fn decode(self) -> Result<(Product, Embedded)> {
        let embedded = Embedded {
            variants: cells::<VariantCells>(&self.embedded_variants)?
                .into_iter()
                .map(Variant::try_from)
                .collect::<Result<_>>()?,
            assets: cells::<AssetCells>(&self.embedded_assets)?
                .into_iter()
                .map(Asset::from)
                .collect(),
            collection_ids: cells(&self.embedded_collection_ids)?,
            shop_ids: cells(&self.embedded_shop_ids)?,
        };
        Ok((self.product, embedded))
    }
}

/// The relation columns of a product row of the `products` table (unaliased), each a JSON
/// array of rows, themselves arrays in the order of `VariantCells` and `AssetCells`.
pub(crate) fn columns(backend: Backend) -> &'static str {
    match backend {
        Backend::Sqlite => SQLITE_COLUMNS,
        Backend::Postgres => POSTGRES_COLUMNS,
    }
}

macro_rules! variant_cells {
    () => {
        "v.id, v.account_id, v.seller_id, v.product_id, v.sku, v.title, v.options, v.price, \
         v.price_comparison, v.stock, v.available_if_no_stock, v.weight_in_grams, v.barcode, \
         v.position, v.image_ids, v.created_on, v.updated_on"
    };
}

macro_rules! asset_cells {
    () => {
        "a.id, a.account_id, a.seller_id, a.product_id, a.file_name, a.content_type, a.byte_size, \
         a.width, a.height, a.digest, a.position, a.created_on, a.updated_on"
    };
}

const SQLITE_COLUMNS: &str = concat!(
    "(SELECT json_group_array(json_array(",
    variant_cells!(),
    ") ORDER BY v.position, v.id) FROM variants v WHERE v.product_id = products.id) AS embedded_variants, ",
    "(SELECT json_group_array(json_array(",
    asset_cells!(),
    ") ORDER BY a.position, a.id) FROM product_assets a WHERE a.product_id = products.id) AS embedded_assets, ",
    "(SELECT json_group_array(cp.collection_id ORDER BY cp.collection_id) FROM collection_products cp \
     WHERE cp.product_id = products.id) AS embedded_collection_ids, ",
    "CASE WHEN products.all_shops \
     THEN (SELECT json_group_array(s.id ORDER BY s.id) FROM shops s WHERE s.seller_id = products.seller_id) \
     ELSE (SELECT json_group_array(ps.shop_id ORDER BY ps.shop_id) FROM product_shops ps \
     WHERE ps.product_id = products.id) END AS embedded_shop_ids",
);

const POSTGRES_COLUMNS: &str = concat!(
    "(SELECT COALESCE(json_agg(json_build_array(",
    variant_cells!(),
    ") ORDER BY v.position, v.id), '[]')::text FROM variants v WHERE v.product_id = products.id) \
     AS embedded_variants, ",
    "(SELECT COALESCE(json_agg(json_build_array(",
    asset_cells!(),
    ") ORDER BY a.position, a.id), '[]')::text FROM product_assets a WHERE a.product_id = products.id) \
     AS embedded_assets, ",
    "(SELECT COALESCE(json_agg(cp.collection_id ORDER BY cp.collection_id), '[]')::text \
     FROM collection_products cp WHERE cp.product_id = products.id) AS embedded_collection_ids, ",
    "CASE WHEN products.all_shops \
     THEN (SELECT COALESCE(json_agg(s.id ORDER BY s.id), '[]')::text FROM shops s \
     WHERE s.seller_id = products.seller_id) \
     ELSE (SELECT COALESCE(json_agg(ps.shop_id ORDER BY ps.shop_id), '[]')::text FROM product_shops ps \
     WHERE ps.product_id = products.id) END AS embedded_shop_ids",
);

fn cells<T: DeserializeOwned>(json: &str) -> Result<Vec<T>> {
    serde_json::from_str(json).map_err(|e| Error::Corrupt(format!("embedded rows: {e}")))
}

/// A variant as `variant_cells!` lists it.
#[derive(Deserialize)]
struct VariantCells(
    i64,
    i64,
    i64,
    i64,
    Option<String>,
    String,
    String,
    i64,
    Option<i64>,
    i64,
    Flag,
    Option<i64>,
    Option<String>,
    i64,
    String,
    i64,
    i64,
);

impl TryFrom<VariantCells> for Variant {
    type Error = Error;

    fn try_from(c: VariantCells) -> Result<Self> {
        let id = c.0;
        let json = |e: serde_json::Error| Error::Corrupt(format!("variant {id}: {e}"));
        Ok(Variant {
            id,
            account_id: c.1,
            seller_id: c.2,
            product_id: c.3,
            sku: c.4,
            title: c.5,
            options: JsonText::try_from(c.6).map_err(json)?,
            price: c.7,
            price_comparison: c.8,
            stock: c.9,
            available_if_no_stock: c.10.0,
            weight_in_grams: c.11,
            barcode: c.12,
            position: c.13,
            image_ids: JsonText::try_from(c.14).map_err(json)?,
            created_on: Timestamp::from_micros(c.15),
            updated_on: Timestamp::from_micros(c.16),
        })
    }
}

/// An image as `asset_cells!` lists it.
#[derive(Deserialize)]
struct AssetCells(
    i64,
    i64,
    i64,
    i64,
    String,
    String,
    i64,
    Option<i64>,
    Option<i64>,
    String,
    i64,
    i64,
    i64,
);

impl From<AssetCells> for Asset {
    fn from(c: AssetCells) -> Self {
        Asset {
            id: c.0,
            account_id: c.1,
            seller_id: c.2,
            product_id: c.3,
            file_name: c.4,
            content_type: c.5,
            byte_size: c.6,
            width: c.7,
            height: c.8,
            digest: c.9,
            position: c.10,
            created_on: Timestamp::from_micros(c.11),
            updated_on: Timestamp::from_micros(c.12),
        }
    }
}

/// A boolean column in JSON: `true`/`false` from PostgreSQL, `1`/`0` from SQLite.
struct Flag(bool);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FlagVisitor;

        impl Visitor<'_> for FlagVisitor {
            type Value = Flag;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a boolean or 0 or 1")
            }

            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Flag, E> {
                Ok(Flag(v))
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Flag, E> {
                match v {
                    0 => Ok(Flag(false)),
                    1 => Ok(Flag(true)),
                    _ => Err(E::invalid_value(de::Unexpected::Unsigned(v), &self)),
                }
            }
        }

        deserializer.deserialize_any(FlagVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_read_as_either_backend_writes_them() {
        let flags: Vec<Flag> = serde_json::from_str("[true, false, 1, 0]").unwrap();
        let flags: Vec<bool> = flags.into_iter().map(|f| f.0).collect();
        assert_eq!(flags, [true, false, true, false]);
        assert!(serde_json::from_str::<Flag>("2").is_err());
        assert!(serde_json::from_str::<Flag>("\"1\"").is_err());
    }

    #[test]
    fn a_variant_reads_from_its_cells() {
        let json = r#"[[7, 1, 2, 3, null, "Blue \"XL\"", "{\"size\":\"XL\"}", 1500, null, -2, 1,
                       250, "0123", 4, "[9,10]", 1000000, 2000000]]"#;
        let variant = Variant::try_from(cells::<VariantCells>(json).unwrap().remove(0)).unwrap();
        assert_eq!(variant.id, 7);
        assert_eq!(variant.sku, None);
        assert_eq!(variant.title, "Blue \"XL\"");
        assert_eq!(variant.options.0["size"], "XL");
        assert_eq!(variant.stock, -2);
        assert!(variant.available_if_no_stock);
        assert_eq!(variant.image_ids.0, [9, 10]);
        assert_eq!(variant.updated_on, Timestamp::from_micros(2_000_000));
    }

    #[test]
    fn malformed_cells_are_reported_not_panicked_on() {
        assert!(matches!(
            cells::<VariantCells>("[[1, 2]]"),
            Err(Error::Corrupt(_))
        ));
        let bad_options =
            r#"[[7, 1, 2, 3, null, "t", "{", 1, null, 0, 0, null, null, 1, "[]", 0, 0]]"#;
        let variant = cells::<VariantCells>(bad_options).unwrap().remove(0);
        assert!(matches!(Variant::try_from(variant), Err(Error::Corrupt(_))));
    }
}
