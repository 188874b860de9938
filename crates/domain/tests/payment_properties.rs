//! Properties of an order's balance over generated sequences of charge attempts, each
//! taking what `charge_amount` allows and then approved, declined or left pending: what
//! is outstanding is never negative, approved charges never exceed the total, the sums
//! are exact, and a refund of every approved charge leaves nothing owed.

use domain::money::AMOUNT_MAX;
use domain::payment::{AmountRefused, Balance, charge_amount};
use proptest::prelude::*;

/// How an attempt ends.
#[derive(Clone, Copy, Debug)]
enum End {
    Approved,
    Declined,
    /// Still waiting for its gateway; settled (approved or failed) by a later step.
    Pending,
}

fn end() -> impl Strategy<Value = End> {
    prop_oneof![Just(End::Approved), Just(End::Declined), Just(End::Pending)]
}

/// Attempts: an amount asked (or all that is chargeable), and how each ends.
fn attempts() -> impl Strategy<Value = Vec<(Option<i64>, End, bool)>> {
    prop::collection::vec(
        (prop::option::of(0..=AMOUNT_MAX), end(), any::<bool>()),
        0..20,
    )
}

proptest! {
    #[test]
    fn charges_never_exceed_the_total(total in 0..=AMOUNT_MAX, attempts in attempts()) {
        let mut balance = Balance { total, ..Balance::default() };
        let mut pending: Vec<i64> = Vec::new();
        let mut approved: Vec<i64> = Vec::new();
        for (asked, end, settle_pending) in attempts {
            // A pending attempt settles before this one, approved or failed.
            if settle_pending && let Some(amount) = pending.pop() {
                balance.pending_total -= amount;
                if amount % 2 == 0 {
                    balance.paid_total += amount;
                    approved.push(amount);
                }
            }
            match charge_amount(balance, asked) {
                Ok(amount) => {
                    prop_assert!(amount >= 1 && amount <= balance.chargeable());
                    match end {
                        End::Approved => {
                            balance.paid_total += amount;
                            approved.push(amount);
                        }
                        End::Declined => {}
                        End::Pending => {
                            balance.pending_total += amount;
                            pending.push(amount);
                        }
                    }
                }
                Err(AmountRefused::InProgress { pending: held }) => {
                    prop_assert!(held > 0);
                    prop_assert_eq!(held, pending.iter().sum::<i64>());
                }
                Err(AmountRefused::Exceeds { outstanding }) => {
                    prop_assert_eq!(outstanding, balance.outstanding());
                }
            }
            prop_assert!(balance.outstanding() >= 0);
            prop_assert!(balance.chargeable() >= 0);
            prop_assert!(balance.paid_total + balance.pending_total <= total);
            prop_assert_eq!(balance.paid_total, approved.iter().sum::<i64>());
            prop_assert_eq!(balance.outstanding(), total - balance.paid_total);
        }
        prop_assert_eq!(balance.is_paid(), total > 0 && balance.paid_total == total);
        // Cancelled and refunded in full: nothing owed, nothing kept.
        let refunded = Balance {
            refunded_total: balance.paid_total,
            cancelled: true,
            ..balance
        };
        prop_assert_eq!(refunded.outstanding(), 0);
        prop_assert!(!refunded.is_paid());
    }
}
