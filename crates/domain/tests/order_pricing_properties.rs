//! Properties of an order's money over generated carts: converted to another currency by
//! an exchange rate and priced with shipping tables, every total is the sum of its parts,
//! nothing is negative, each converted amount is within half a minor unit of the exact
//! value, and shipping tables the rules accept price each parcel by at most one rate.

use domain::exchange::ExchangeRate;
use domain::money::minor_units;
use domain::order::{Address, totals};
use domain::shipping::{Parcel, Rate, ShippingMethod, ShippingRules};
use domain::validation::FieldErrors;
use proptest::prelude::*;
use proptest::sample::select;

const CURRENCIES: [&str; 5] = ["USD", "CLP", "KWD", "JPY", "EUR"];

/// Lines as (unit price in the shop's currency, quantity).
fn carts() -> impl Strategy<Value = Vec<(i64, i64)>> {
    prop::collection::vec((0..=10_000_000_i64, 1..=1_000_i64), 1..20)
}

fn rates() -> impl Strategy<Value = ExchangeRate> {
    (1..=1_000_000_000_000_i64).prop_map(|m| ExchangeRate::from_millionths(m).unwrap())
}

/// Whether `converted` (minor units of `to`) is within half a minor unit of `amount`
/// (minor units of `from`) times `rate`, computed exactly.
fn within_half_a_unit(
    amount: i64,
    converted: i64,
    rate: ExchangeRate,
    from: &str,
    to: &str,
) -> bool {
    let (from, to) = (minor_units(from).unwrap(), minor_units(to).unwrap());
    let exact = i128::from(amount) * i128::from(rate.millionths()) * 10_i128.pow(to.into());
    let scale = 1_000_000_i128 * 10_i128.pow(from.into());
    let off = (i128::from(converted) * scale - exact).abs();
    // Half up: at most half below, strictly less than half above.
    off * 2 <= scale
}

proptest! {
    #[test]
    fn converted_orders_add_up_exactly(
        lines in carts(),
        shipping in 0..=100_000_000_i64,
        rate in rates(),
        from in select(CURRENCIES.to_vec()),
        to in select(CURRENCIES.to_vec()),
    ) {
        let convert = |amount| rate.convert(amount, from, to);
        let Some(units) = lines.iter().map(|(unit, _)| convert(*unit)).collect::<Option<Vec<_>>>()
        else {
            // Too large for the target currency: the order is refused, never wrapped.
            return Ok(());
        };
        let Some(converted_shipping) = convert(shipping) else { return Ok(()); };
        for ((unit, _), converted) in lines.iter().zip(&units) {
            prop_assert!(*converted >= 0);
            prop_assert!(within_half_a_unit(*unit, *converted, rate, from, to));
        }
        prop_assert!(within_half_a_unit(shipping, converted_shipping, rate, from, to));
        let priced: Vec<(i64, i64)> =
            units.iter().zip(&lines).map(|(unit, (_, quantity))| (*unit, *quantity)).collect();
        if let Ok(t) = totals(priced.iter().copied(), converted_shipping, 0, 0) {
            let net: i64 = priced.iter().map(|(unit, quantity)| unit * quantity).sum();
            prop_assert_eq!(t.net_total, net);
            prop_assert_eq!(t.total, t.net_total + t.shipping_total + t.tax_total - t.discount_total);
            prop_assert!(t.net_total >= 0 && t.shipping_total >= 0 && t.total >= 0);
        }
    }

    #[test]
    fn a_larger_rate_never_converts_to_less(
        amount in 0..=1_000_000_000_i64,
        a in rates(),
        b in rates(),
        to in select(CURRENCIES.to_vec()),
    ) {
        let (low, high) = if a <= b { (a, b) } else { (b, a) };
        if let (Some(x), Some(y)) = (low.convert(amount, "USD", to), high.convert(amount, "USD", to)) {
            prop_assert!(x <= y);
        }
    }

    #[test]
    fn accepted_tables_price_each_parcel_by_at_most_one_rate(
        method in select(vec![ShippingMethod::Weight, ShippingMethod::Total]),
        bounds in prop::collection::vec((0..10_000_i64, prop::option::of(1..5_000_i64), 0..10_000_i64), 1..8),
        free_over in prop::option::of(0..20_000_i64),
        weight in 0..20_000_i64,
        net_total in 0..20_000_i64,
    ) {
        let rates: Vec<Rate> = bounds
            .iter()
            .map(|(min, width, price)| Rate { min: *min, max: width.map(|w| min + w), price: *price })
            .collect();
        let mut errors = FieldErrors::new();
        let rules = ShippingRules { method, zone: Vec::new(), rates, free_over }.checked(&mut errors);
        if !errors.is_empty() {
            return Ok(());
        }
        let parcel = Parcel { weight_in_grams: weight, net_total };
        let measure = if method == ShippingMethod::Weight { weight } else { net_total };
        let covering: Vec<&Rate> = rules
            .rates
            .iter()
            .filter(|r| r.min <= measure && r.max.is_none_or(|max| measure < max))
            .collect();
        prop_assert!(covering.len() <= 1, "{:?} covered by {:?}", measure, covering);
        let quote = rules.quote(Some(&Address::default()), parcel);
        match covering.first() {
            None => prop_assert!(quote.is_err()),
            Some(rate) => {
                let free = free_over.is_some_and(|f| net_total >= f);
                prop_assert_eq!(quote, Ok(if free { 0 } else { rate.price }));
            }
        }
    }
}
