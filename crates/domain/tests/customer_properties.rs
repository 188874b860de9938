//! Properties of a customer's figures over generated order histories: whatever moves
//! their orders make, `orders_count` and `total_spent` kept by adding each move's change
//! equal what a count of the orders as they end up gives.

use domain::customer::{Standing, change_of_move};
use domain::money::AMOUNT_MAX;
use domain::order::{OrderStatus, Transition, transition};
use proptest::prelude::*;
use proptest::sample::select;

/// Orders as (total, the moves tried on it, each applied only when the rules allow it).
fn histories() -> impl Strategy<Value = Vec<(i64, Vec<Transition>)>> {
    prop::collection::vec(
        (
            0..=AMOUNT_MAX,
            prop::collection::vec(select(Transition::ALL.to_vec()), 0..6),
        ),
        0..12,
    )
}

proptest! {
    #[test]
    fn kept_figures_equal_a_recount(orders in histories()) {
        // Summed wider than the columns: the service refuses a move whose sum would not fit.
        let (mut count, mut spent) = (0_i64, 0_i128);
        let mut ended = Vec::new();
        for (total, moves) in &orders {
            let mut status = OrderStatus::Checkout;
            for t in moves {
                if let Ok((to, _)) = transition(status, *t) {
                    let (orders_change, spent_change) = change_of_move(status, to, *total);
                    count += orders_change;
                    spent += i128::from(spent_change);
                    prop_assert!(count >= 0 && spent >= 0);
                    status = to;
                }
            }
            ended.push((status, *total));
        }
        let recount = ended.iter().filter(|(s, _)| Standing::of(*s).counted).count() as i64;
        let respent: i128 = ended
            .iter()
            .filter(|(s, _)| Standing::of(*s).spent)
            .map(|(_, total)| i128::from(*total))
            .sum();
        prop_assert_eq!(count, recount);
        prop_assert_eq!(spent, respent);
    }
}
