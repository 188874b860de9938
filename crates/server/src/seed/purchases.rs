//! Generated subscription purchases for demos and benchmarks, all due today: a weekly
//! subscription product of the shop's seller (its variants stocked for any run, each with
//! a fee), and purchases of it opened a week ago by paid orders whose test gateway charge
//! saved an approving card. The renewal engine finds every one due at once.

use std::collections::BTreeMap;

use anyhow::ensure;
use domain::catalog::product::ProductStatus;
use domain::catalog::search;
use domain::payment::{MethodType, card_brand};
use domain::subscription::billing::Billing;
use domain::subscription::{FeeTerms, FirstRenewal, PaymentInterval};
use domain::{CalendarDate, Clock, Timestamp};
use storage::catalog_load::{self, LoadProduct, LoadVariant};
use storage::order_load::SoldVariant;
use storage::orders::LineData;
use storage::payment_methods::{self, MethodData};
use storage::purchase_load::{self, LoadPurchase, PaidWith};
use storage::shops::Shop;
use storage::subscription_fees::{self, SubscriptionFee};
use storage::{Database, Tx};

use super::orders::{BUYERS, Buyer};
use super::random::SplitMix;

/// Purchases per transaction: bounds memory and lets progress show.
const BATCH: usize = 10_000;
/// The subscription product's variants, the purchases spread over them.
const VARIANTS: usize = 4;
/// Their stock: more than any run's renewals take.
const STOCK: i64 = 1_000_000_000;
/// The test card whose saved card the test gateway approves.
const CARD: &str = "4242424242424242";
/// The renewals' interval: the purchases opened one interval ago are due today.
const INTERVAL_DAYS: i64 = 7;

/// What `commerce seed --purchases` did.
#[derive(Debug, serde::Serialize)]
pub struct Loaded {
    pub shop_id: i64,
    pub purchases: usize,
    pub first_id: Option<i64>,
    pub product_id: i64,
    pub payment_method_id: i64,
    /// The date they are due on.
    pub due_on: String,
    pub seconds: f64,
}

/// Adds `count` purchases of a new subscription product to the shop, each due today, in
/// batches; pays with the shop's test gateway method, added when it has none.
pub async fn load(
    db: &Database,
    shop: &Shop,
    count: usize,
    clock: &dyn Clock,
    mut progress: impl FnMut(usize),
) -> anyhow::Result<Loaded> {
    let started = std::time::Instant::now();
    let now = clock.now();
    let today = CalendarDate::of(now);
    let paid_with = test_gateway(db, shop, now).await?;
    let (product_id, offers) = subscription_product(db, shop, now).await?;
    let start = today.plus_days(-INTERVAL_DAYS);
    let salt = u64::try_from(now.as_micros()).unwrap_or(0);
    let mut first_id = None;
    let mut done = 0;
    while done < count {
        let size = BATCH.min(count - done);
        let batch = (done..done + size)
            .map(|n| purchase(n, salt, &offers[n % offers.len()], start))
            .collect::<anyhow::Result<Vec<LoadPurchase>>>()?;
        ensure!(
            batch.iter().all(|p| p.billing.due_on() == Some(today)),
            "a generated purchase is not due today"
        );
        let mut tx = db.begin().await?;
        let first = purchase_load::load(&mut tx, shop, &paid_with, &batch).await?;
        tx.commit().await?;
        first_id.get_or_insert(first);
        done += size;
        progress(done);
    }
    purchase_load::refresh_statistics(db).await?;
    Ok(Loaded {
        shop_id: shop.id,
        purchases: count,
        first_id,
        product_id,
        payment_method_id: paid_with.id,
        due_on: today.to_string(),
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The shop's test gateway method, added (as the API would, without settings) when it has
/// none.
async fn test_gateway(db: &Database, shop: &Shop, now: Timestamp) -> anyhow::Result<PaidWith> {
    if let Some(found) = purchase_load::test_gateway_of_shop(db, shop.id).await? {
        return Ok(found);
    }
    let mut tx = db.begin().await?;
    let data = MethodData {
        name: "Test gateway".into(),
        instructions: String::new(),
        enabled: true,
        position: payment_methods::next_position(&mut tx, shop.id).await?,
        settings: BTreeMap::new(),
        secrets_set: Vec::new(),
    };
    let owner = payment_methods::Owner {
        account_id: shop.account_id,
        seller_id: shop.seller_id,
        shop_id: shop.id,
    };
    let method =
        payment_methods::insert(&mut tx, owner, MethodType::TestGateway, &data, None, now).await?;
    tx.commit().await?;
    Ok(PaidWith {
        id: method.id,
        method_type: method.method_type,
        name: method.name,
    })
}

/// A variant sold on subscription, with its fee.
struct Offer {
    variant: SoldVariant,
    fee: SubscriptionFee,
}

/// A new visible product of the shop's seller, with `VARIANTS` variants of `STOCK`, each
/// with a weekly fee renewing at its price: its id and offers.
async fn subscription_product(
    db: &Database,
    shop: &Shop,
    now: Timestamp,
) -> anyhow::Result<(i64, Vec<Offer>)> {
    let stamp = now.as_micros();
    let title = "Coffee Subscription";
    let variants: Vec<LoadVariant> = (0..VARIANTS)
        .map(|v| LoadVariant {
            sku: format!("SUB-{stamp}-{v}"),
            title: format!("{} g", 250 * (v + 1)),
            price: 1_200 + 600 * i64::try_from(v).unwrap_or(0),
            price_comparison: None,
            stock: STOCK,
        })
        .collect();
    let description = "Freshly roasted beans, delivered every week.";
    let search_text = search::document(
        [title, description]
            .into_iter()
            .chain(variants.iter().map(|v| v.sku.as_str())),
    );
    let product = LoadProduct {
        title: title.into(),
        slug: format!("coffee-subscription-{stamp}"),
        description: description.into(),
        status: ProductStatus::Visible,
        vendor: None,
        tags: vec!["subscription".into()],
        currency_code: shop.currency_code.clone(),
        product_type_id: None,
        search_text,
        // Listed before the purchases that opened a week ago.
        created_on: now.plus_secs(-30 * 86_400),
        variants,
    };
    let mut tx = db.begin().await?;
    let product_id =
        catalog_load::load(&mut tx, shop.account_id, shop.seller_id, &[product]).await?;
    tx.commit().await?;
    let mut tx = db.begin().await?;
    let mut offers = Vec::with_capacity(VARIANTS);
    for variant in purchase_load::variants_of_product(db, product_id).await? {
        let fee = weekly_fee(&mut tx, shop, &variant, now).await?;
        offers.push(Offer { variant, fee });
    }
    tx.commit().await?;
    ensure!(
        offers.len() == VARIANTS,
        "the subscription product has no variants"
    );
    Ok((product_id, offers))
}

async fn weekly_fee(
    tx: &mut Tx,
    shop: &Shop,
    variant: &SoldVariant,
    now: Timestamp,
) -> anyhow::Result<SubscriptionFee> {
    let terms = FeeTerms {
        payment_interval: PaymentInterval::OneWeek,
        renewal_fee: variant.price,
        by_percentage: false,
        setup_fee: 0,
        number_of_payments: 0,
        payment_day: None,
        allow_non_recurring_payment: false,
        min_days_for_cancellation: 0,
        allow_changing_day: false,
        extend_on_reenable: false,
        on_first_renewal: FirstRenewal::Full,
    };
    let owner = subscription_fees::Owner {
        account_id: shop.account_id,
        seller_id: shop.seller_id,
        product_id: variant.product_id,
        variant_id: variant.variant_id,
    };
    Ok(subscription_fees::insert(tx, owner, &terms, now.plus_secs(-30 * 86_400)).await?)
}

/// The `n`th purchase, opened on `start` by a paid order of one unit of `offer`.
fn purchase(
    n: usize,
    salt: u64,
    offer: &Offer,
    start: CalendarDate,
) -> anyhow::Result<LoadPurchase> {
    let mut rng = SplitMix(n as u64 ^ 0x5ab5_c41b_u64.wrapping_add(salt));
    let buyer = Buyer::of(rng.below(BUYERS));
    let position = i64::try_from(n).unwrap_or(i64::MAX);
    // Paid during the start date (in UTC), some minutes after the order was created.
    let paid_on = start.start().plus_secs(3_600 + position % 72_000);
    let (variant, fee) = (&offer.variant, &offer.fee);
    let units = 1;
    let line = LineData {
        product_id: variant.product_id,
        variant_id: Some(variant.variant_id),
        title: variant.title.clone(),
        variant_title: variant.variant_title.clone(),
        sku: variant.sku.clone(),
        unit_price: variant.price,
        quantity: units,
        subscription_fee_id: Some(fee.id),
        setup_fee: fee.setup_fee * units,
        line_total: variant.price * units,
    };
    let renewal_price = fee.terms().renewal_fee_price(variant.price);
    let billing = Billing::opening(&fee.terms(), units, renewal_price, start);
    let token = format!("{:016x}{:08x}", rng.next(), rng.next() as u32);
    let last4 = domain::payment::last4(CARD);
    ensure!(
        CalendarDate::of(paid_on) == start,
        "a purchase is paid on its start date"
    );
    Ok(LoadPurchase {
        email: buyer.email.clone(),
        contact_name: buyer.name.clone(),
        shipping_address: buyer.address(&mut rng),
        created_on: paid_on.plus_secs(-240),
        placed_on: paid_on.plus_secs(-60),
        paid_on,
        line,
        reference: format!("test_ch_{token}"),
        card_brand: card_brand(CARD).as_str().into(),
        card_last4: last4.clone(),
        saved_card: format!("test_card_{last4}_{token}"),
        start_date: start,
        billing,
    })
}
