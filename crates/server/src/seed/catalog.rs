//! Generated catalogs for demos and benchmarks: realistic, varied products (titles, tags,
//! vendors, types, one to three variants, prices, stock), the same for the same seed and
//! position, loaded in bulk.

use domain::catalog::product::{ProductStatus, slugify};
use domain::catalog::search;
use domain::{Clock, Timestamp};
use storage::catalog_load::{self, LoadProduct, LoadVariant};
use storage::sellers::Seller;
use storage::{Database, product_types};

use super::random::{SplitMix, pick};

/// Products per transaction: bounds memory and lets progress show.
const BATCH: usize = 5_000;

const ADJECTIVES: &[&str] = &[
    "Classic", "Vintage", "Modern", "Rustic", "Elegant", "Sturdy", "Compact", "Deluxe", "Everyday",
    "Handmade", "Organic", "Urban", "Coastal", "Nordic", "Bold", "Soft", "Bright", "Quiet", "Wild",
    "Royal", "Simple", "Smart", "Cozy", "Sleek", "Premium", "Light", "Heavy", "Tiny", "Grand",
    "Swift",
];
const MATERIALS: &[&str] = &[
    "Cotton", "Wool", "Linen", "Leather", "Oak", "Walnut", "Steel", "Copper", "Ceramic", "Glass",
    "Bamboo", "Silk", "Denim", "Canvas", "Marble", "Cork", "Velvet", "Brass", "Clay", "Felt",
];
const NOUNS: &[&str] = &[
    "Shirt", "Mug", "Lamp", "Chair", "Table", "Jacket", "Scarf", "Bag", "Wallet", "Bottle", "Bowl",
    "Vase", "Blanket", "Pillow", "Hat", "Sneaker", "Boot", "Watch", "Notebook", "Pen", "Backpack",
    "Candle", "Plate", "Glove", "Sock", "Belt", "Apron", "Towel", "Basket", "Mirror", "Clock",
    "Frame", "Shelf", "Stool", "Rug", "Kettle", "Teapot", "Spoon", "Knife", "Board",
];
const VENDORS: &[&str] = &[
    "Acme",
    "Northwind",
    "Globex",
    "Initech",
    "Umbrella",
    "Stark Goods",
    "Wayne Home",
    "Hooli",
    "Vandelay",
    "Soylent",
    "Tyrell",
    "Cyberdyne",
    "Wonka",
    "Gringotts",
    "Oceanic",
    "Monarch",
    "Aperture",
    "Black Mesa",
    "Massive Dynamic",
    "Pied Piper",
];
const TYPES: &[&str] = &[
    "Apparel",
    "Kitchen",
    "Furniture",
    "Accessories",
    "Footwear",
    "Stationery",
    "Decor",
    "Bedding",
    "Outdoor",
    "Lighting",
    "Bags",
    "Tableware",
    "Textiles",
    "Storage",
    "Gifts",
];
const WORDS: &[&str] = &[
    "crafted",
    "durable",
    "gentle",
    "warm",
    "daily",
    "travel",
    "gift",
    "home",
    "office",
    "garden",
    "sustainable",
    "recycled",
    "limited",
    "edition",
    "comfortable",
    "washable",
    "natural",
    "fine",
];

/// The tags a generated product may carry (`tag-0` … `tag-99`, plus a few words).
pub const TAGS: usize = 100;

/// What `commerce seed --products` did.
#[derive(Debug, serde::Serialize)]
pub struct Loaded {
    pub seller_id: i64,
    pub products: usize,
    pub first_id: Option<i64>,
    pub seconds: f64,
}

/// Adds `count` generated products to the seller's catalog, in batches.
pub async fn load(
    db: &Database,
    seller: &Seller,
    count: usize,
    clock: &dyn Clock,
    mut progress: impl FnMut(usize),
) -> anyhow::Result<Loaded> {
    let started = std::time::Instant::now();
    let now = clock.now();
    let types = ensure_types(db, seller, now).await?;
    let start = existing_products(db, seller.id).await?;
    let mut first_id = None;
    let mut done = 0;
    while done < count {
        let size = BATCH.min(count - done);
        let batch: Vec<LoadProduct> = (start + done..start + done + size)
            .map(|n| product(n, &types, &seller.default_currency_code, now))
            .collect();
        let mut tx = db.begin().await?;
        let first = catalog_load::load(&mut tx, seller.account_id, seller.id, &batch).await?;
        tx.commit().await?;
        first_id.get_or_insert(first);
        done += size;
        progress(done);
    }
    let mut tx = db.begin().await?;
    catalog_load::recount_types(&mut tx, seller.id).await?;
    tx.commit().await?;
    catalog_load::refresh_statistics(db).await?;
    Ok(Loaded {
        seller_id: seller.id,
        products: count,
        first_id,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The seller's generated product types, created when missing.
async fn ensure_types(db: &Database, seller: &Seller, now: Timestamp) -> anyhow::Result<Vec<i64>> {
    let mut tx = db.begin().await?;
    let mut ids = Vec::with_capacity(TYPES.len());
    for name in TYPES {
        let found = product_types::find_by_name(&mut tx, seller.id, name).await?;
        let id = match found {
            Some(t) => t.id,
            None => {
                product_types::insert(&mut tx, seller.account_id, seller.id, name, &[], now)
                    .await?
                    .id
            }
        };
        ids.push(id);
    }
    tx.commit().await?;
    Ok(ids)
}

/// Where the sequence continues: after every product the seller has (generated slugs and
/// SKUs end in their position, so positions must not repeat).
async fn existing_products(db: &Database, seller_id: i64) -> anyhow::Result<usize> {
    let count = storage::products::count_of_seller(db, seller_id).await?;
    Ok(usize::try_from(count).unwrap_or(0))
}

/// The `n`th generated product: the same for the same `n`.
fn product(n: usize, types: &[i64], currency: &str, now: Timestamp) -> LoadProduct {
    let mut rng = SplitMix(n as u64 ^ 0x5eed_ca7a_1090_u64);
    let title = format!(
        "{} {} {}",
        pick(&mut rng, ADJECTIVES),
        pick(&mut rng, MATERIALS),
        pick(&mut rng, NOUNS)
    );
    let tag_count = 1 + rng.below(4);
    let mut tags: Vec<String> = (0..tag_count)
        .map(|_| format!("tag-{}", rng.below(TAGS as u64)))
        .collect();
    tags.sort();
    tags.dedup();
    let description = format!(
        "A {} {} for {} use, {} and {}.",
        pick(&mut rng, WORDS),
        title.to_lowercase(),
        pick(&mut rng, WORDS),
        pick(&mut rng, WORDS),
        pick(&mut rng, WORDS)
    );
    let base_price = 100 + i64::try_from(rng.below(199_900)).unwrap_or(0);
    let variants: Vec<LoadVariant> = (0..1 + rng.below(3))
        .map(|v| {
            let price = base_price + i64::try_from(v * 150).unwrap_or(0);
            LoadVariant {
                sku: format!("GEN-{n}-{v}"),
                title: ["S", "M", "L"][usize::try_from(v).unwrap_or(0)].to_owned(),
                price,
                price_comparison: (rng.below(4) == 0).then_some(price + price / 4),
                stock: i64::try_from(rng.below(100)).unwrap_or(0),
            }
        })
        .collect();
    let skus: Vec<&str> = variants.iter().map(|v| v.sku.as_str()).collect();
    let search_text = search::document(
        [title.as_str(), description.as_str()]
            .into_iter()
            .chain(tags.iter().map(String::as_str))
            .chain(skus),
    );
    let age_secs = i64::try_from(n).unwrap_or(0);
    LoadProduct {
        slug: format!("{}-{n}", slugify(&title)),
        title,
        description,
        status: if rng.below(5) == 0 {
            ProductStatus::Hidden
        } else {
            ProductStatus::Visible
        },
        vendor: (rng.below(10) != 0).then(|| pick(&mut rng, VENDORS).to_owned()),
        tags,
        currency_code: currency.to_owned(),
        product_type_id: types
            .get(usize::try_from(rng.below(types.len() as u64)).unwrap_or(0))
            .copied(),
        search_text,
        created_on: Timestamp::from_micros(
            now.as_micros() - 86_400_000_000 * 365 + age_secs * 1_000_000,
        ),
        variants,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_position_gives_the_same_product() {
        let now = Timestamp::from_secs(1_800_000_000);
        let a = product(42, &[7, 8], "USD", now);
        let b = product(42, &[7, 8], "USD", now);
        assert_eq!(
            (a.title.clone(), a.slug.clone(), a.tags.clone()),
            (b.title, b.slug, b.tags)
        );
        assert!(a.slug.ends_with("-42"));
        assert!(!a.variants.is_empty() && a.variants.len() <= 3);
        assert!(a.search_text.contains("gen"));
        let c = product(43, &[7, 8], "USD", now);
        assert_ne!(a.slug, c.slug);
    }
}
