//! Properties of renewal calendars over random starts, intervals, payment days and modes:
//! renewals keep to their day, advance by one interval, and the first one never comes
//! before the order that started the subscription has had its interval, unless prorated.

use domain::subscription::schedule::{FirstCharge, Schedule};
use domain::subscription::{FirstRenewal, PaymentInterval};
use proptest::prelude::*;
use time::{Date, Duration};

fn interval() -> impl Strategy<Value = PaymentInterval> {
    prop_oneof![
        Just(PaymentInterval::OneWeek),
        Just(PaymentInterval::OneMonth),
        Just(PaymentInterval::ThreeMonths),
        Just(PaymentInterval::SixMonths),
        Just(PaymentInterval::TwelveMonths),
    ]
}

fn mode() -> impl Strategy<Value = FirstRenewal> {
    prop_oneof![
        Just(FirstRenewal::Full),
        Just(FirstRenewal::Prorate),
        Just(FirstRenewal::Skip),
    ]
}

/// Any day from 2020 to 2039.
fn start() -> impl Strategy<Value = Date> {
    (0_i64..7305).prop_map(|days| {
        Date::from_calendar_date(2020, time::Month::January, 1).unwrap() + Duration::days(days)
    })
}

fn schedule() -> impl Strategy<Value = (Schedule, Date)> {
    (interval(), proptest::option::of(1_i64..=31), start()).prop_map(|(interval, day, start)| {
        let day = match interval {
            PaymentInterval::OneWeek => day.map(|d| (d - 1) % 7 + 1),
            _ => day,
        };
        (Schedule::new(interval, day, start), start)
    })
}

/// The day a renewal date shows: its weekday for weekly schedules, else its day.
fn day_of(schedule: Schedule, date: Date) -> u8 {
    match schedule.interval {
        PaymentInterval::OneWeek => date.weekday().number_from_monday(),
        _ => date.day(),
    }
}

proptest! {
    #[test]
    fn renewals_keep_to_their_day_and_advance_one_interval((schedule, start) in schedule(), steps in 1_usize..30) {
        let mut on = schedule.on_or_after(start);
        for _ in 0..steps {
            let next = schedule.next(on);
            prop_assert!(next > on);
            let days = (next - on).whole_days();
            match schedule.interval {
                PaymentInterval::OneWeek => prop_assert_eq!(days, 7),
                PaymentInterval::OneMonth => prop_assert!((28..=31).contains(&days)),
                PaymentInterval::ThreeMonths => prop_assert!((89..=92).contains(&days)),
                PaymentInterval::SixMonths => prop_assert!((181..=184).contains(&days)),
                PaymentInterval::TwelveMonths => prop_assert!((365..=366).contains(&days)),
            }
            // The day, or the month's last day when the month is shorter.
            let shown = day_of(schedule, next);
            let last = time::util::days_in_month(next.month(), next.year());
            prop_assert!(shown == schedule.day || (shown == last && last < schedule.day));
            on = next;
        }
    }

    #[test]
    fn the_first_renewal_is_a_renewal_date_after_the_start((schedule, start) in schedule(), mode in mode()) {
        let plan = schedule.first_renewal(start, mode);
        prop_assert!(plan.on > start);
        prop_assert_eq!(schedule.on_or_after(plan.on), plan.on);
        match plan.charge {
            FirstCharge::Prorated { days, of } => {
                prop_assert!(mode == FirstRenewal::Prorate);
                prop_assert!(0 <= days && days < of);
                prop_assert_eq!(of, (schedule.next(plan.on) - plan.on).whole_days());
            }
            FirstCharge::Skipped => prop_assert!(mode == FirstRenewal::Skip),
            FirstCharge::Full => {}
        }
        if mode != FirstRenewal::Prorate {
            // The first order's interval is had in full before anything is charged again.
            let week_or_more = (plan.on - start).whole_days() >= 7;
            prop_assert!(week_or_more);
        }
    }

    #[test]
    fn a_prorated_charge_is_within_the_fee(fee in 0_i64..1_000_000_000, of in 1_i64..400, part in 0.0_f64..=1.0) {
        let days = ((of as f64) * part).floor() as i64;
        let amount = FirstCharge::Prorated { days, of }.amount(fee);
        prop_assert!((0..=fee).contains(&amount));
        let exact = i128::from(fee) * i128::from(days);
        prop_assert!((i128::from(amount) * i128::from(of) - exact).abs() * 2 <= i128::from(of));
    }
}
