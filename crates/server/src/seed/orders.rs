//! Generated order histories for demos and benchmarks: a shop's orders spread over
//! statuses, two years of dates, amounts and buyers, each with one to three lines selling
//! the seller's variants; the same for the same position, loaded in bulk.

use anyhow::ensure;
use domain::order::{Address, OrderStatus};
use domain::{Clock, Timestamp};
use storage::Database;
use storage::order_load::{self, LoadOrder, SoldVariant};
use storage::orders::LineData;
use storage::shops::Shop;

use super::random::{SplitMix, pick};

/// Orders per transaction: bounds memory and lets progress show.
const BATCH: usize = 10_000;
/// The seller's variants (the first by id) that the lines sell.
const VARIANTS: i64 = 1_000;
/// Distinct buyers; each has one name, email and phone number.
pub const BUYERS: u64 = 50_000;
/// The first generated order is this old; the next ones follow a minute apart.
const HISTORY_SECS: i64 = 730 * 86_400;
const SPACING_SECS: i64 = 60;

const FIRST_NAMES: &[&str] = &[
    "Ana", "Ben", "Carla", "David", "Elena", "Felipe", "Grace", "Hugo", "Ines", "Jonas", "Karin",
    "Luis", "Maya", "Nico", "Olga", "Pablo", "Quinn", "Rosa", "Sam", "Tomas",
];
const LAST_NAMES: &[&str] = &[
    "Silva", "Smith", "Rojas", "Keller", "Novak", "Garcia", "Brown", "Costa", "Weber", "Lopez",
    "Moreau", "Rossi", "Jensen", "Tanaka", "Murphy", "Fischer",
];
const STREETS: &[&str] = &[
    "Oak", "Maple", "Pine", "Cedar", "Elm", "Harbor", "Hill", "Lake", "Mill", "River",
];
const CITIES: &[&str] = &[
    "Springfield",
    "Riverton",
    "Lakeside",
    "Fairview",
    "Georgetown",
    "Milford",
    "Ashland",
    "Clinton",
];

/// What `commerce seed --orders` did.
#[derive(Debug, serde::Serialize)]
pub struct Loaded {
    pub shop_id: i64,
    pub orders: usize,
    pub first_id: Option<i64>,
    pub seconds: f64,
}

/// Adds `count` generated orders to the shop, in batches; their lines sell the seller's
/// variants, which must exist.
pub async fn load(
    db: &Database,
    shop: &Shop,
    count: usize,
    clock: &dyn Clock,
    mut progress: impl FnMut(usize),
) -> anyhow::Result<Loaded> {
    let started = std::time::Instant::now();
    let variants = order_load::variants_to_sell(db, shop.seller_id, VARIANTS).await?;
    ensure!(
        !variants.is_empty(),
        "the shop's seller has no variants for the orders to sell: add products first (e.g. with --products)"
    );
    let start = usize::try_from(order_load::orders_of_shop(db, shop.id).await?).unwrap_or(0);
    let first_on = clock.now().plus_secs(-HISTORY_SECS);
    let mut first_id = None;
    let mut done = 0;
    while done < count {
        let size = BATCH.min(count - done);
        let batch: Vec<LoadOrder> = (start + done..start + done + size)
            .map(|n| order(n, &variants, first_on))
            .collect();
        let mut tx = db.begin().await?;
        let first = order_load::load(&mut tx, shop, &batch).await?;
        tx.commit().await?;
        first_id.get_or_insert(first);
        done += size;
        progress(done);
    }
    order_load::refresh_statistics(db).await?;
    Ok(Loaded {
        shop_id: shop.id,
        orders: count,
        first_id,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The `n`th generated order of a shop whose history starts at `first_on`.
fn order(n: usize, variants: &[SoldVariant], first_on: Timestamp) -> LoadOrder {
    let mut rng = SplitMix(n as u64 ^ 0x0de5_5eed_u64);
    let position = i64::try_from(n).unwrap_or(i64::MAX);
    let created_on = first_on.plus_secs(position * SPACING_SECS + up_to(&mut rng, 59));
    let status = match rng.below(100) {
        0..8 => OrderStatus::Checkout,
        8..20 => OrderStatus::Placed,
        20..65 => OrderStatus::Closed,
        65..90 => OrderStatus::Shipped,
        _ => OrderStatus::Cancelled,
    };
    // A cart may not have told who buys yet.
    let anonymous = status == OrderStatus::Checkout && rng.below(2) == 0;
    let buyer = (!anonymous).then(|| Buyer::of(rng.below(BUYERS)));
    let placed_on = match status {
        OrderStatus::Checkout => None,
        OrderStatus::Cancelled if rng.below(2) == 0 => None,
        _ => Some(created_on.plus_secs(300 + up_to(&mut rng, 3_300))),
    };
    let closed_on = matches!(status, OrderStatus::Closed | OrderStatus::Shipped).then(|| {
        placed_on
            .unwrap_or(created_on)
            .plus_secs(60 + up_to(&mut rng, 3_540))
    });
    let shipped_on = (status == OrderStatus::Shipped).then(|| {
        closed_on
            .unwrap_or(created_on)
            .plus_secs(86_400 + up_to(&mut rng, 172_800))
    });
    let cancelled_on = (status == OrderStatus::Cancelled).then(|| {
        placed_on
            .unwrap_or(created_on)
            .plus_secs(3_600 + up_to(&mut rng, 172_800))
    });
    let shipping_address = buyer
        .as_ref()
        .filter(|_| status != OrderStatus::Checkout)
        .map(|buyer| buyer.address(&mut rng));
    LoadOrder {
        status,
        email: buyer.as_ref().map(|b| b.email.clone()),
        contact_name: buyer.as_ref().map(|b| b.name.clone()),
        phone_number: buyer.and_then(|b| b.phone),
        shipping_address,
        shipping_total: match rng.below(10) {
            0..3 => 0,
            _ => 300 + 100 * up_to(&mut rng, 12),
        },
        created_on,
        placed_on,
        closed_on,
        shipped_on,
        cancelled_on,
        lines: lines(&mut rng, variants),
    }
}

/// One to three lines of distinct variants (when there are as many), mostly of one unit.
fn lines(rng: &mut SplitMix, variants: &[SoldVariant]) -> Vec<LineData> {
    let first = rng.below(variants.len() as u64) as usize;
    let count = (1 + rng.below(3) as usize).min(variants.len());
    (0..count)
        .map(|k| {
            let variant = &variants[(first + k * 7) % variants.len()];
            let quantity = [1, 1, 1, 2, 3][rng.below(5) as usize];
            LineData {
                product_id: variant.product_id,
                variant_id: Some(variant.variant_id),
                title: variant.title.clone(),
                variant_title: variant.variant_title.clone(),
                sku: variant.sku.clone(),
                unit_price: variant.price,
                quantity,
                subscription_fee_id: None,
                setup_fee: 0,
                line_total: variant.price * quantity,
            }
        })
        .collect()
}

/// A whole number in `0..=most`.
fn up_to(rng: &mut SplitMix, most: i64) -> i64 {
    i64::try_from(rng.below(u64::try_from(most).unwrap_or(0) + 1)).unwrap_or(0)
}

/// One of the generated buyers: the same for the same number.
pub(super) struct Buyer {
    number: u64,
    pub(super) name: String,
    pub(super) email: String,
    phone: Option<String>,
}

impl Buyer {
    pub(super) fn of(number: u64) -> Self {
        let mut rng = SplitMix(number ^ 0xb0b_u64);
        let (first, last) = (pick(&mut rng, FIRST_NAMES), pick(&mut rng, LAST_NAMES));
        Self {
            number,
            name: format!("{first} {last}"),
            email: format!(
                "{}.{}{number}@example.com",
                first.to_lowercase(),
                last.to_lowercase()
            ),
            phone: (rng.below(10) < 7).then(|| format!("+1555{number:07}")),
        }
    }

    pub(super) fn address(&self, rng: &mut SplitMix) -> Address {
        Address {
            name: Some(self.name.clone()),
            street: Some(format!(
                "{} {} Street",
                1 + self.number % 999,
                pick(rng, STREETS)
            )),
            locality: Some(pick(rng, CITIES).to_owned()),
            postal_code: Some(format!("{:05}", self.number * 7 % 100_000)),
            country_code: Some("US".into()),
            ..Address::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variants() -> Vec<SoldVariant> {
        (1..=5)
            .map(|id| SoldVariant {
                variant_id: id,
                product_id: 100 + id,
                title: format!("Thing {id}"),
                variant_title: "Default".into(),
                sku: Some(format!("T-{id}")),
                price: 1_000 * id,
            })
            .collect()
    }

    #[test]
    fn the_same_position_gives_the_same_order_in_its_own_time() {
        let first_on = Timestamp::from_secs(1_700_000_000);
        let a = order(42, &variants(), first_on);
        let b = order(42, &variants(), first_on);
        assert_eq!(
            (a.status, &a.email, a.created_on),
            (b.status, &b.email, b.created_on)
        );
        assert!((1..=3).contains(&a.lines.len()));
        assert!(
            a.lines
                .iter()
                .all(|l| l.line_total == l.unit_price * l.quantity)
        );
        let later = order(43, &variants(), first_on);
        assert!(later.created_on > a.created_on);
        let statuses: std::collections::HashSet<_> = (0..500)
            .map(|n| order(n, &variants(), first_on).status)
            .collect();
        assert_eq!(statuses.len(), 5, "every status occurs");
    }
}
