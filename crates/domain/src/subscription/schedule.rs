//! The calendar of a subscription's renewals: on which dates it renews, and what its
//! first renewal charges, from its fee's interval, payment day and first-renewal mode.
//!
//! Renewals bill in advance: the order that starts a subscription pays its first interval
//! (from the start date to start + interval), and each renewal pays the cycle that begins
//! on its date and ends on the next renewal. Renewal dates keep to the payment day: a
//! monthly fee paid on the 31st renews on the last day of shorter months and on the 31st
//! again after them (the day never drifts), a weekly one on its ISO weekday.

use time::{Date, Duration, Month};

use super::{FirstRenewal, PaymentInterval};

/// Where a subscription's renewals fall: its interval, and the day they keep to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    pub interval: PaymentInterval,
    /// A day of the month (1–31) for monthly intervals, an ISO weekday (1 = Monday, 7 =
    /// Sunday) for the weekly one.
    pub day: u8,
}

/// What the first renewal charges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstCharge {
    /// The whole renewal fee.
    Full,
    /// `days` of a cycle of `of` days: the part of the cycle the first order did not pay.
    Prorated { days: i64, of: i64 },
    /// Nothing: the date passes and the next renewal bills.
    Skipped,
}

/// A subscription's first renewal: its date and what it charges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FirstRenewalPlan {
    pub on: Date,
    pub charge: FirstCharge,
}

impl Schedule {
    /// The schedule of a subscription starting on `start`: the fee's payment day, or, with
    /// none, the start's day of the month (or weekday). `payment_day` out of its range is
    /// clamped into it (the fee's rules refuse such a day before it is stored).
    pub fn new(interval: PaymentInterval, payment_day: Option<i64>, start: Date) -> Self {
        let day = match (interval, payment_day) {
            (PaymentInterval::OneWeek, Some(day)) => day.clamp(1, 7),
            (PaymentInterval::OneWeek, None) => i64::from(start.weekday().number_from_monday()),
            (_, Some(day)) => day.clamp(1, 31),
            (_, None) => i64::from(start.day()),
        };
        Self {
            interval,
            day: u8::try_from(day).unwrap_or(1),
        }
    }

    /// The renewal after the one on `date` (a renewal date of this schedule).
    pub fn next(self, date: Date) -> Date {
        match months(self.interval) {
            None => date.saturating_add(Duration::days(7)),
            Some(months) => self.in_month(add_months(date.year(), date.month(), months)),
        }
    }

    /// The first renewal date on or after `date`.
    pub fn on_or_after(self, date: Date) -> Date {
        match months(self.interval) {
            None => {
                let ahead = (i64::from(self.day) - i64::from(date.weekday().number_from_monday()))
                    .rem_euclid(7);
                date.saturating_add(Duration::days(ahead))
            }
            Some(_) => {
                let this_month = self.in_month((date.year(), date.month()));
                if this_month >= date {
                    this_month
                } else {
                    self.in_month(add_months(date.year(), date.month(), 1))
                }
            }
        }
    }

    /// The first renewal of a subscription that started on `start`, by `mode`:
    /// - `Full`: the first renewal date on or after start + interval, charging the whole
    ///   fee (the first cycle is at least the interval the first order paid for);
    /// - `Prorate`: the first renewal date after the start, charging the part of its cycle
    ///   beyond start + interval (the first order paid up to there);
    /// - `Skip`: as `Full`, charging nothing; billing starts with the renewal after it.
    pub fn first_renewal(self, start: Date, mode: FirstRenewal) -> FirstRenewalPlan {
        let paid_until = self.after_one_interval(start);
        match mode {
            FirstRenewal::Full => FirstRenewalPlan {
                on: self.on_or_after(paid_until),
                charge: FirstCharge::Full,
            },
            FirstRenewal::Skip => FirstRenewalPlan {
                on: self.on_or_after(paid_until),
                charge: FirstCharge::Skipped,
            },
            FirstRenewal::Prorate => {
                let on = self.on_or_after(start.saturating_add(Duration::days(1)));
                let following = self.next(on);
                let of = (following - on).whole_days();
                let days = (following - paid_until.max(on)).whole_days().clamp(0, of);
                let charge = if days == of {
                    FirstCharge::Full
                } else {
                    FirstCharge::Prorated { days, of }
                };
                FirstRenewalPlan { on, charge }
            }
        }
    }

    /// `date` plus one interval, at `date`'s own day (clamped to the month's last day).
    fn after_one_interval(self, date: Date) -> Date {
        match months(self.interval) {
            None => date.saturating_add(Duration::days(7)),
            Some(months) => {
                let (year, month) = add_months(date.year(), date.month(), months);
                on_day(year, month, date.day())
            }
        }
    }

    /// The schedule's day in the month, or the month's last day when it is shorter.
    fn in_month(self, (year, month): (i32, Month)) -> Date {
        on_day(year, month, self.day)
    }
}

impl FirstCharge {
    /// The amount charged for a renewal fee of `fee` minor units, rounded half up.
    pub fn amount(self, fee: i64) -> i64 {
        match self {
            FirstCharge::Full => fee,
            FirstCharge::Skipped => 0,
            FirstCharge::Prorated { days, of } => {
                let of = i128::from(of.max(1));
                let part = (i128::from(fee) * i128::from(days) * 2 + of).div_euclid(2 * of);
                i64::try_from(part).unwrap_or(i64::MAX)
            }
        }
    }
}

/// The months an interval spans; none for the weekly one.
const fn months(interval: PaymentInterval) -> Option<u8> {
    match interval {
        PaymentInterval::OneWeek => None,
        PaymentInterval::OneMonth => Some(1),
        PaymentInterval::ThreeMonths => Some(3),
        PaymentInterval::SixMonths => Some(6),
        PaymentInterval::TwelveMonths => Some(12),
    }
}

fn add_months(year: i32, month: Month, months: u8) -> (i32, Month) {
    let index = i32::from(u8::from(month)) - 1 + i32::from(months);
    let month = u8::try_from(index.rem_euclid(12) + 1).unwrap_or(1);
    (
        year.saturating_add(index.div_euclid(12)),
        Month::try_from(month).unwrap_or(Month::January),
    )
}

/// `day` of the month, or its last day when the month is shorter.
fn on_day(year: i32, month: Month, day: u8) -> Date {
    let day = day.clamp(1, time::util::days_in_month(month, year));
    Date::from_calendar_date(year, month, day).unwrap_or(Date::MAX)
}

#[cfg(test)]
mod tests {
    use time::macros::date;

    use super::*;

    fn monthly(day: i64, start: Date) -> Schedule {
        Schedule::new(PaymentInterval::OneMonth, Some(day), start)
    }

    #[test]
    fn the_31st_falls_on_the_last_day_of_shorter_months_and_never_drifts() {
        let s = monthly(31, date!(2027 - 01 - 31));
        let mut on = date!(2027 - 01 - 31);
        let mut seen = Vec::new();
        for _ in 0..4 {
            on = s.next(on);
            seen.push(on);
        }
        assert_eq!(
            seen,
            [
                date!(2027 - 02 - 28),
                date!(2027 - 03 - 31),
                date!(2027 - 04 - 30),
                date!(2027 - 05 - 31)
            ]
        );
        // A leap year's February.
        assert_eq!(s.next(date!(2028 - 01 - 31)), date!(2028 - 02 - 29));
    }

    #[test]
    fn without_a_payment_day_renewals_keep_the_start_day() {
        let start = date!(2027 - 01 - 30);
        let s = Schedule::new(PaymentInterval::ThreeMonths, None, start);
        assert_eq!(s.day, 30);
        assert_eq!(s.next(start), date!(2027 - 04 - 30));
        assert_eq!(s.next(date!(2027 - 11 - 30)), date!(2028 - 02 - 29));
        assert_eq!(s.next(date!(2028 - 02 - 29)), date!(2028 - 05 - 30));
        let weekly = Schedule::new(PaymentInterval::OneWeek, None, date!(2027 - 03 - 03));
        assert_eq!(weekly.day, 3, "a Wednesday");
        assert_eq!(weekly.next(date!(2027 - 03 - 03)), date!(2027 - 03 - 10));
    }

    #[test]
    fn the_first_renewal_by_mode() {
        // Started on Wednesday 3 March 2027, monthly on the 1st: paid up to 3 April, so
        // the full fee is next charged on the first 1st after it.
        let start = date!(2027 - 03 - 03);
        let s = monthly(1, start);
        assert_eq!(
            s.first_renewal(start, FirstRenewal::Full),
            FirstRenewalPlan {
                on: date!(2027 - 05 - 01),
                charge: FirstCharge::Full
            }
        );
        // Prorated: 1 April, whose cycle (30 days to 1 May) was paid up to 3 April.
        assert_eq!(
            s.first_renewal(start, FirstRenewal::Prorate),
            FirstRenewalPlan {
                on: date!(2027 - 04 - 01),
                charge: FirstCharge::Prorated { days: 28, of: 30 }
            }
        );
        assert_eq!(
            s.first_renewal(start, FirstRenewal::Skip).charge,
            FirstCharge::Skipped
        );
        // Weekly on Mondays, started on a Wednesday.
        let weekly = Schedule::new(PaymentInterval::OneWeek, Some(1), start);
        assert_eq!(
            weekly.first_renewal(start, FirstRenewal::Full).on,
            date!(2027 - 03 - 15)
        );
        assert_eq!(
            weekly.first_renewal(start, FirstRenewal::Prorate),
            FirstRenewalPlan {
                on: date!(2027 - 03 - 08),
                charge: FirstCharge::Prorated { days: 5, of: 7 }
            }
        );
        // Started on the payment day: prorating changes nothing.
        let on_day = monthly(3, start);
        assert_eq!(
            on_day.first_renewal(start, FirstRenewal::Prorate),
            FirstRenewalPlan {
                on: date!(2027 - 04 - 03),
                charge: FirstCharge::Full
            }
        );
    }

    #[test]
    fn a_prorated_charge_rounds_half_up() {
        assert_eq!(FirstCharge::Prorated { days: 1, of: 2 }.amount(3), 2);
        assert_eq!(
            FirstCharge::Prorated { days: 28, of: 30 }.amount(3000),
            2800
        );
        assert_eq!(FirstCharge::Skipped.amount(3000), 0);
    }
}
