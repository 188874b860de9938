//! What a subscription purchase bills: its figures when a paid order opens it, what each
//! due cycle charges (skipped, prorated, discounted), and how the figures move after a
//! charge, a skip or a failed attempt. The renewal engine reads these rules; it adds the
//! orders, the charges and their exactly-once bookkeeping.

use super::purchase::PurchaseState;
use super::schedule::{FirstCharge, Schedule};
use super::{FeeTerms, PaymentInterval};
use crate::CalendarDate;
use crate::limits::IntRange;

/// A renewal discount in hundredths of a percent (12.5 % is 1250), 0–100 %.
pub const DISCOUNT: IntRange = IntRange::new(0, 10_000);
/// Renewals still to charge, as a merchant may set them; 0 is unlimited while active.
pub const REMAINING_PAYMENTS: IntRange = IntRange::new(0, 1000);
/// Cycles to skip, or to discount.
pub const CYCLES: IntRange = IntRange::new(0, 1000);
/// Days after a cycle's date on which a failed charge is tried again; the attempt after
/// the last retry fails the purchase.
pub const RETRY_AFTER_DAYS: [i64; 3] = [1, 3, 7];

/// A purchase's billing figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Billing {
    pub state: PurchaseState,
    pub interval: PaymentInterval,
    /// The day renewals keep to (see `Schedule`).
    pub payment_day: u8,
    /// The cycle due next; failed attempts retry it.
    pub next_payment_on: CalendarDate,
    pub last_payment_on: Option<CalendarDate>,
    /// What a whole cycle charges, in minor units.
    pub total_renewal_fee: i64,
    /// Payments made, the opening order's included.
    pub total_payments: i64,
    /// Renewals still to charge; 0 while active is unlimited.
    pub remaining_payments: i64,
    pub payments_to_skip: i64,
    pub renewal_discount: i64,
    pub discount_num_charges: i64,
    pub failed_attempts: i64,
    /// When the failed cycle is tried again.
    pub retry_on: Option<CalendarDate>,
    /// The next charge's share of a cycle (a prorated first renewal), as (days, of).
    pub prorated: Option<(i64, i64)>,
}

/// What a due cycle does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CycleCharge {
    /// Nothing is charged; the cycle passes.
    Skip,
    /// An order for `amount`: `total_renewal_fee` less `discount`.
    Charge { amount: i64, discount: i64 },
}

/// What a failed attempt leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterFailure {
    RetryOn(CalendarDate),
    Failed,
}

impl Billing {
    /// The figures of a purchase a paid order opens on `start` for `units` units of a fee
    /// with `terms`, each renewing for `unit_renewal_price`. The opening order paid the
    /// first cycle: a fee of one payment is finished at once.
    pub fn opening(
        terms: &FeeTerms,
        units: i64,
        unit_renewal_price: i64,
        start: CalendarDate,
    ) -> Self {
        let schedule = Schedule::new(terms.payment_interval, terms.payment_day, start.date());
        let first = schedule.first_renewal(start.date(), terms.on_first_renewal);
        let remaining = (terms.number_of_payments - 1).max(0);
        let state = if terms.number_of_payments == 1 {
            PurchaseState::Finished
        } else {
            PurchaseState::Active
        };
        Self {
            state,
            interval: terms.payment_interval,
            payment_day: schedule.day,
            next_payment_on: CalendarDate::new(first.on),
            last_payment_on: Some(start),
            total_renewal_fee: unit_renewal_price.saturating_mul(units.max(0)),
            total_payments: 1,
            remaining_payments: remaining,
            payments_to_skip: i64::from(first.charge == FirstCharge::Skipped),
            renewal_discount: 0,
            discount_num_charges: 0,
            failed_attempts: 0,
            retry_on: None,
            prorated: match first.charge {
                FirstCharge::Prorated { days, of } => Some((days, of)),
                FirstCharge::Full | FirstCharge::Skipped => None,
            },
        }
    }

    /// The schedule its dates keep to.
    pub fn schedule(&self) -> Schedule {
        Schedule::new(
            self.interval,
            Some(i64::from(self.payment_day)),
            self.next_payment_on.date(),
        )
    }

    /// The date the engine is next to act on it: a retry's, else the next payment's;
    /// none unless it is billed.
    pub fn due_on(&self) -> Option<CalendarDate> {
        self.state
            .is_billed()
            .then(|| self.retry_on.unwrap_or(self.next_payment_on))
    }

    /// What the cycle due on `next_payment_on` does.
    pub fn cycle_charge(&self) -> CycleCharge {
        if self.payments_to_skip > 0 {
            return CycleCharge::Skip;
        }
        let full = self.total_renewal_fee;
        let prorated = match self.prorated {
            Some((days, of)) => FirstCharge::Prorated { days, of }.amount(full),
            None => full,
        };
        let discount = if self.discount_num_charges > 0 {
            percent_of(prorated, self.renewal_discount)
        } else {
            0
        };
        let amount = prorated - discount;
        CycleCharge::Charge {
            amount,
            discount: full - amount,
        }
    }

    /// After the due cycle was skipped: the next date, one skip fewer.
    pub fn skipped(&mut self) {
        self.payments_to_skip = (self.payments_to_skip - 1).max(0);
        self.prorated = None;
        self.advance();
    }

    /// After the due cycle was charged: paid on its date, the next date, one payment and
    /// (when one was applied) one discounted charge fewer; finished when it was the last.
    pub fn charged(&mut self) {
        self.last_payment_on = Some(self.next_payment_on);
        self.total_payments = self.total_payments.saturating_add(1);
        if self.discount_num_charges > 0 {
            self.discount_num_charges -= 1;
        }
        self.prorated = None;
        self.failed_attempts = 0;
        self.retry_on = None;
        if self.remaining_payments > 0 {
            self.remaining_payments -= 1;
            if self.remaining_payments == 0 {
                self.state = PurchaseState::Finished;
            }
        }
        self.advance();
    }

    /// After an attempt at the due cycle failed: a retry on the cycle's date plus the next
    /// of `RETRY_AFTER_DAYS`, or, when they are spent, the purchase failed.
    pub fn attempt_failed(&mut self) -> AfterFailure {
        self.failed_attempts = self.failed_attempts.saturating_add(1);
        let retries = usize::try_from(self.failed_attempts - 1).unwrap_or(usize::MAX);
        match RETRY_AFTER_DAYS.get(retries) {
            Some(days) => {
                let on = self.next_payment_on.plus_days(*days);
                self.retry_on = Some(on);
                AfterFailure::RetryOn(on)
            }
            None => {
                self.retry_on = None;
                self.state = PurchaseState::Failed;
                AfterFailure::Failed
            }
        }
    }

    fn advance(&mut self) {
        let next = self.schedule().next(self.next_payment_on.date());
        self.next_payment_on = CalendarDate::new(next);
    }
}

/// `discount` hundredths of a percent of `amount`, rounded half up.
pub fn percent_of(amount: i64, discount: i64) -> i64 {
    let part = (i128::from(amount) * i128::from(discount.clamp(0, 10_000)) + 5_000) / 10_000;
    i64::try_from(part).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::super::FirstRenewal;
    use super::*;

    fn terms(interval: PaymentInterval, day: Option<i64>, payments: i64) -> FeeTerms {
        FeeTerms {
            payment_interval: interval,
            renewal_fee: 1000,
            by_percentage: false,
            setup_fee: 0,
            number_of_payments: payments,
            payment_day: day,
            allow_non_recurring_payment: false,
            min_days_for_cancellation: 0,
            allow_changing_day: false,
            extend_on_reenable: false,
            on_first_renewal: FirstRenewal::Full,
        }
    }

    fn date(text: &str) -> CalendarDate {
        CalendarDate::parse(text).unwrap()
    }

    #[test]
    fn a_monthly_purchase_on_the_31st_renews_through_february_and_finishes() {
        let mut b = Billing::opening(
            &terms(PaymentInterval::OneMonth, Some(31), 3),
            2,
            1500,
            date("2027-01-10"),
        );
        assert_eq!(b.total_renewal_fee, 3000);
        assert_eq!(b.next_payment_on, date("2027-02-28"));
        assert_eq!(b.remaining_payments, 2);
        assert_eq!(
            b.cycle_charge(),
            CycleCharge::Charge {
                amount: 3000,
                discount: 0
            }
        );
        b.charged();
        assert_eq!(b.next_payment_on, date("2027-03-31"));
        assert_eq!(b.last_payment_on, Some(date("2027-02-28")));
        assert_eq!(b.state, PurchaseState::Active);
        b.charged();
        assert_eq!(b.state, PurchaseState::Finished);
        assert_eq!(b.total_payments, 3);
        assert_eq!(b.due_on(), None);
    }

    #[test]
    fn skips_pass_cycles_and_discounts_lower_charges_for_their_count() {
        let mut b = Billing::opening(
            &terms(PaymentInterval::OneWeek, Some(1), 0),
            1,
            1000,
            date("2027-03-03"),
        );
        b.payments_to_skip = 1;
        b.renewal_discount = 1250;
        b.discount_num_charges = 1;
        assert_eq!(b.cycle_charge(), CycleCharge::Skip);
        b.skipped();
        assert_eq!(b.next_payment_on, date("2027-03-22"));
        assert_eq!(
            b.cycle_charge(),
            CycleCharge::Charge {
                amount: 875,
                discount: 125
            }
        );
        b.charged();
        assert_eq!(b.remaining_payments, 0, "unlimited");
        assert_eq!(b.state, PurchaseState::Active);
        assert_eq!(
            b.cycle_charge(),
            CycleCharge::Charge {
                amount: 1000,
                discount: 0
            }
        );
    }

    #[test]
    fn failed_attempts_retry_after_one_three_and_seven_days_then_fail() {
        let mut b = Billing::opening(
            &terms(PaymentInterval::OneMonth, Some(1), 0),
            1,
            1000,
            date("2027-01-01"),
        );
        let due = b.next_payment_on;
        let retries: Vec<AfterFailure> = (0..4).map(|_| b.attempt_failed()).collect();
        assert_eq!(
            retries,
            [
                AfterFailure::RetryOn(due.plus_days(1)),
                AfterFailure::RetryOn(due.plus_days(3)),
                AfterFailure::RetryOn(due.plus_days(7)),
                AfterFailure::Failed
            ]
        );
        assert_eq!(b.state, PurchaseState::Failed);
        assert_eq!(b.next_payment_on, due, "the failed cycle stays due");
    }

    #[test]
    fn a_prorated_first_renewal_charges_its_share_once() {
        let mut t = terms(PaymentInterval::OneMonth, Some(1), 0);
        t.on_first_renewal = FirstRenewal::Prorate;
        let mut b = Billing::opening(&t, 1, 3000, date("2027-03-03"));
        assert_eq!(b.next_payment_on, date("2027-04-01"));
        assert_eq!(
            b.cycle_charge(),
            CycleCharge::Charge {
                amount: 2800,
                discount: 200
            }
        );
        b.charged();
        assert_eq!(
            b.cycle_charge(),
            CycleCharge::Charge {
                amount: 3000,
                discount: 0
            }
        );
        let mut once = terms(PaymentInterval::OneMonth, None, 1);
        once.on_first_renewal = FirstRenewal::Skip;
        let b = Billing::opening(&once, 1, 3000, date("2027-03-03"));
        assert_eq!(b.state, PurchaseState::Finished);
    }
}
