//! Subscription fees: the recurring terms a variant is sold on (how often it renews, what
//! each renewal charges, on which day), and the rules those terms must meet; the calendar
//! of renewals those terms make (`schedule`), and a purchase's states (`purchase`). The
//! purchases' storage and the renewal engine that bills them come later; these rules are
//! what they will read.

pub mod billing;
pub mod purchase;
pub mod schedule;

use crate::limits::{self, IntRange};
use crate::text_enum;
use crate::validation::FieldErrors;

text_enum! {
    /// How often a subscription renews.
    pub enum PaymentInterval {
        OneWeek => "1_week",
        OneMonth => "1_month",
        ThreeMonths => "3_months",
        SixMonths => "6_months",
        TwelveMonths => "12_months",
    }
}

text_enum! {
    /// What the first renewal after a subscription starts charges.
    pub enum FirstRenewal {
        /// The full fee, one interval after the start.
        Full => "full",
        /// On the first payment day after the start, the fee in proportion to the days
        /// covered.
        Prorate => "prorate",
        /// Nothing on the first renewal date; billing starts on the next one.
        Skip => "skip",
    }
}

/// Renewals a subscription runs for; 0 is unlimited.
pub const NUMBER_OF_PAYMENTS: IntRange = IntRange::new(0, 1000);
/// Days before the next payment within which a subscription can no longer be cancelled.
pub const MIN_DAYS_FOR_CANCELLATION: IntRange = IntRange::new(0, 365);
/// A renewal fee given as a percentage of the variant's price.
pub const PERCENTAGE: IntRange = IntRange::new(0, 100);

impl PaymentInterval {
    /// The days a renewal may fall on: an ISO weekday (1 = Monday) for weekly renewals, a
    /// day of the month otherwise (clamped to the month's last day when billing).
    pub const fn payment_days(self) -> IntRange {
        match self {
            PaymentInterval::OneWeek => IntRange::new(1, 7),
            _ => IntRange::new(1, 31),
        }
    }
}

/// The terms a client sets on a fee, whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeeTerms {
    pub payment_interval: PaymentInterval,
    /// Minor units per unit and cycle, or a percentage of the variant's price.
    pub renewal_fee: i64,
    pub by_percentage: bool,
    pub setup_fee: i64,
    pub number_of_payments: i64,
    /// `None`: the day the subscription starts on.
    pub payment_day: Option<i64>,
    pub allow_non_recurring_payment: bool,
    pub min_days_for_cancellation: i64,
    pub allow_changing_day: bool,
    pub extend_on_reenable: bool,
    pub on_first_renewal: FirstRenewal,
}

impl FeeTerms {
    /// Adds every rule the terms break to `errors`, each on its field.
    pub fn check(&self, errors: &mut FieldErrors) {
        let renewal_fee = if self.by_percentage {
            PERCENTAGE.check(self.renewal_fee).map_err(|message| {
                format!("{message} (a percentage of the variant's price, by_percentage being true)")
            })
        } else {
            limits::AMOUNT.check(self.renewal_fee)
        };
        errors.check("renewal_fee", renewal_fee);
        errors.check("setup_fee", limits::AMOUNT.check(self.setup_fee));
        errors.check(
            "number_of_payments",
            NUMBER_OF_PAYMENTS.check(self.number_of_payments),
        );
        if let Some(day) = self.payment_day {
            let days = self.payment_interval.payment_days();
            errors.check(
                "payment_day",
                days.check(day).map_err(|message| {
                    format!("{message} for a {} interval", self.payment_interval)
                }),
            );
        }
        errors.check(
            "min_days_for_cancellation",
            MIN_DAYS_FOR_CANCELLATION.check(self.min_days_for_cancellation),
        );
    }

    /// What one unit renews for now, in minor units, given the variant's price.
    pub fn renewal_fee_price(&self, variant_price: i64) -> i64 {
        renewal_fee_price(self.renewal_fee, self.by_percentage, variant_price)
    }
}

/// The per-unit renewal price in minor units: the fee itself, or (`by_percentage`) that
/// percentage of the variant's price, rounded half up. Never above the price for a
/// percentage within 0–100; saturates rather than overflows outside the checked ranges.
pub fn renewal_fee_price(renewal_fee: i64, by_percentage: bool, variant_price: i64) -> i64 {
    if !by_percentage {
        return renewal_fee;
    }
    let hundredths = i128::from(variant_price) * i128::from(renewal_fee);
    let rounded = (hundredths + 50).div_euclid(100);
    i64::try_from(rounded).unwrap_or(if rounded < 0 { i64::MIN } else { i64::MAX })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms() -> FeeTerms {
        FeeTerms {
            payment_interval: PaymentInterval::OneMonth,
            renewal_fee: 1000,
            by_percentage: false,
            setup_fee: 0,
            number_of_payments: 0,
            payment_day: None,
            allow_non_recurring_payment: false,
            min_days_for_cancellation: 0,
            allow_changing_day: false,
            extend_on_reenable: false,
            on_first_renewal: FirstRenewal::Full,
        }
    }

    fn fields(terms: &FeeTerms) -> Vec<String> {
        let mut errors = FieldErrors::new();
        terms.check(&mut errors);
        errors.errors().iter().map(|e| e.field.clone()).collect()
    }

    #[test]
    fn a_weekly_fee_renews_on_a_weekday_and_a_monthly_one_on_a_day_of_the_month() {
        let weekly = FeeTerms {
            payment_interval: PaymentInterval::OneWeek,
            payment_day: Some(8),
            ..terms()
        };
        assert_eq!(fields(&weekly), ["payment_day"]);
        let monthly = FeeTerms {
            payment_day: Some(31),
            ..terms()
        };
        assert!(fields(&monthly).is_empty());
        let monthly = FeeTerms {
            payment_day: Some(0),
            ..terms()
        };
        assert_eq!(fields(&monthly), ["payment_day"]);
    }

    #[test]
    fn a_percentage_is_at_most_a_hundred() {
        let over = FeeTerms {
            by_percentage: true,
            renewal_fee: 101,
            ..terms()
        };
        assert_eq!(fields(&over), ["renewal_fee"]);
        assert!(
            fields(&FeeTerms {
                renewal_fee: 101,
                ..terms()
            })
            .is_empty()
        );
    }

    #[test]
    fn a_percentage_rounds_half_up() {
        assert_eq!(renewal_fee_price(10, true, 1005), 101);
        assert_eq!(renewal_fee_price(10, true, 1004), 100);
        assert_eq!(renewal_fee_price(750, false, 1), 750);
    }
}
