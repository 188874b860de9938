//! Properties of a fee's renewal price by percentage over generated prices and
//! percentages: the ends are nothing and the whole price, it never falls as the percentage
//! rises, and it never exceeds the price.

use domain::money::AMOUNT_MAX;
use domain::subscription::renewal_fee_price;
use proptest::prelude::*;

proptest! {
    #[test]
    fn none_and_all_of_the_price_are_the_ends(price in 0..=AMOUNT_MAX) {
        prop_assert_eq!(renewal_fee_price(0, true, price), 0);
        prop_assert_eq!(renewal_fee_price(100, true, price), price);
    }

    #[test]
    fn a_higher_percentage_never_renews_for_less(price in 0..=AMOUNT_MAX, low in 0_i64..=100, high in 0_i64..=100) {
        let (low, high) = (low.min(high), low.max(high));
        prop_assert!(renewal_fee_price(low, true, price) <= renewal_fee_price(high, true, price));
    }

    #[test]
    fn a_percentage_never_renews_above_the_price(price in 0..=AMOUNT_MAX, percentage in 0_i64..=100) {
        let renewal = renewal_fee_price(percentage, true, price);
        prop_assert!((0..=price).contains(&renewal));
    }

    #[test]
    fn a_fee_in_minor_units_is_the_price_whatever_the_variant(fee in 0..=AMOUNT_MAX, price in 0..=AMOUNT_MAX) {
        prop_assert_eq!(renewal_fee_price(fee, false, price), fee);
    }
}
