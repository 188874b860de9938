//! Properties of stock changes applied in order (a batch of adjustments of one variant):
//! the stock never goes below zero without backorders nor leaves its range, the end stock
//! is the start plus the accepted changes, and a refused change leaves the stock as it was.

use domain::catalog::stock::{Refusal, adjusted, apply_in_order};
use domain::limits;
use proptest::prelude::*;

fn any_delta() -> impl Strategy<Value = i64> {
    prop_oneof![
        8 => -5i64..=5,
        1 => Just(limits::STOCK.max),
        1 => Just(-limits::STOCK.max),
        1 => any::<i64>(),
    ]
}

proptest! {
    #[test]
    fn changes_in_order_keep_the_rules(
        start in prop_oneof![0i64..10, Just(limits::STOCK.max), Just(-limits::STOCK.max)],
        backorder in any::<bool>(),
        deltas in prop::collection::vec(any_delta(), 0..40),
    ) {
        let start = if backorder { start } else { start.max(0) };
        let (outcomes, end) = apply_in_order(start, backorder, deltas.iter().copied());
        prop_assert_eq!(outcomes.len(), deltas.len());
        let mut stock = start;
        for (delta, outcome) in deltas.iter().zip(&outcomes) {
            prop_assert_eq!(*outcome, adjusted(stock, backorder, *delta));
            match outcome {
                Ok(after) => {
                    prop_assert_eq!(Some(*after), stock.checked_add(*delta));
                    prop_assert!(limits::STOCK.contains(*after));
                    prop_assert!(backorder || *after >= 0, "oversold to {}", after);
                    stock = *after;
                }
                Err(Refusal::Insufficient(at) | Refusal::OutOfRange(at)) => {
                    prop_assert_eq!(*at, stock, "a refusal names the stock it met");
                }
            }
        }
        let accepted: i64 = deltas
            .iter()
            .zip(&outcomes)
            .filter(|(_, o)| o.is_ok())
            .map(|(d, _)| d)
            .sum();
        prop_assert_eq!(end, stock);
        prop_assert_eq!(end, start + accepted);
    }
}
