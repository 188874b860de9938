//! Properties of a purchase's billing over random terms and random sequences of outcomes
//! (charged, skipped, failed attempts), checked against a model kept independently: every
//! charge stays within the cycle's fee, discounts apply to exactly their count of charges,
//! skips pass exactly their count of cycles, a limited purchase finishes on its last
//! payment, dates only move forward, and a failed cycle is retried three times, then fails.

use domain::CalendarDate;
use domain::subscription::billing::{AfterFailure, Billing, CycleCharge, percent_of};
use domain::subscription::purchase::PurchaseState;
use domain::subscription::{FeeTerms, FirstRenewal, PaymentInterval};
use proptest::prelude::*;

#[derive(Clone, Copy, Debug)]
enum Outcome {
    Approved,
    Declined,
}

fn terms() -> impl Strategy<Value = FeeTerms> {
    (
        prop_oneof![
            Just(PaymentInterval::OneWeek),
            Just(PaymentInterval::OneMonth),
            Just(PaymentInterval::ThreeMonths),
            Just(PaymentInterval::TwelveMonths),
        ],
        0_i64..6,
        prop_oneof![
            Just(FirstRenewal::Full),
            Just(FirstRenewal::Prorate),
            Just(FirstRenewal::Skip)
        ],
    )
        .prop_map(|(interval, payments, mode)| FeeTerms {
            payment_interval: interval,
            renewal_fee: 0,
            by_percentage: false,
            setup_fee: 0,
            number_of_payments: payments,
            payment_day: None,
            allow_non_recurring_payment: false,
            min_days_for_cancellation: 0,
            allow_changing_day: false,
            extend_on_reenable: false,
            on_first_renewal: mode,
        })
}

fn start() -> impl Strategy<Value = CalendarDate> {
    (0_i64..7000).prop_map(|days| CalendarDate::parse("2020-01-01").unwrap().plus_days(days))
}

proptest! {
    #[test]
    fn billing_follows_its_model(
        terms in terms(),
        start in start(),
        units in 1_i64..5,
        unit_price in 0_i64..100_000,
        skips in 0_i64..3,
        discount in 0_i64..=10_000,
        discounted in 0_i64..3,
        outcomes in proptest::collection::vec(
            prop_oneof![3 => Just(Outcome::Approved), 1 => Just(Outcome::Declined)], 1..40),
    ) {
        let mut b = Billing::opening(&terms, units, unit_price, start);
        prop_assert_eq!(b.total_renewal_fee, units * unit_price);
        if b.state == PurchaseState::Finished {
            prop_assert_eq!(terms.number_of_payments, 1);
            return Ok(());
        }
        b.payments_to_skip += skips;
        b.renewal_discount = discount;
        b.discount_num_charges = discounted;
        // The model.
        let mut skips_left = b.payments_to_skip;
        let mut discounts_left = discounted;
        let mut payments = 1;
        let mut declines_in_a_row = 0;
        let mut prorated_pending = b.prorated.is_some();
        for outcome in outcomes {
            if b.state != PurchaseState::Active {
                break;
            }
            let before = b.next_payment_on;
            match b.cycle_charge() {
                CycleCharge::Skip => {
                    prop_assert!(skips_left > 0);
                    b.skipped();
                    skips_left -= 1;
                    prorated_pending = false;
                    prop_assert!(b.next_payment_on > before);
                }
                CycleCharge::Charge { amount, discount: off } => {
                    prop_assert_eq!(skips_left, 0);
                    prop_assert!(amount >= 0 && amount <= b.total_renewal_fee);
                    prop_assert_eq!(amount + off, b.total_renewal_fee);
                    if !prorated_pending {
                        let expected = if discounts_left > 0 {
                            b.total_renewal_fee - percent_of(b.total_renewal_fee, discount)
                        } else {
                            b.total_renewal_fee
                        };
                        prop_assert_eq!(amount, expected);
                    }
                    match outcome {
                        Outcome::Approved => {
                            b.charged();
                            payments += 1;
                            declines_in_a_row = 0;
                            discounts_left = (discounts_left - 1).max(0);
                            prorated_pending = false;
                            prop_assert_eq!(b.last_payment_on, Some(before));
                            prop_assert!(b.next_payment_on > before);
                            prop_assert_eq!(b.failed_attempts, 0);
                            prop_assert_eq!(b.total_payments, payments);
                        }
                        Outcome::Declined => {
                            declines_in_a_row += 1;
                            let after = b.attempt_failed();
                            prop_assert_eq!(b.next_payment_on, before, "a failed cycle stays due");
                            if declines_in_a_row > 3 {
                                prop_assert_eq!(after, AfterFailure::Failed);
                                prop_assert_eq!(b.state, PurchaseState::Failed);
                                prop_assert_eq!(b.due_on(), None);
                            } else {
                                let AfterFailure::RetryOn(on) = after else {
                                    return Err(TestCaseError::fail("retried"));
                                };
                                prop_assert!(on > before);
                                prop_assert_eq!(b.due_on(), Some(on));
                            }
                        }
                    }
                }
            }
            prop_assert_eq!(b.discount_num_charges, discounts_left);
            prop_assert_eq!(b.payments_to_skip, skips_left);
        }
        if terms.number_of_payments > 0 {
            prop_assert!(payments <= terms.number_of_payments);
            prop_assert_eq!(
                b.state == PurchaseState::Finished,
                payments == terms.number_of_payments
            );
        } else {
            prop_assert!(b.state != PurchaseState::Finished, "unlimited never finishes");
        }
    }
}
