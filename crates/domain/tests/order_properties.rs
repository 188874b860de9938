//! Properties of orders over generated inputs: every sequence of moves keeps the state
//! machine's rules and balances stock, and totals are exact or an error, never a panic
//! or a wrapped number.

use domain::catalog::pricing::QUANTITY_MAX;
use domain::limits;
use domain::money::AMOUNT_MAX;
use domain::order::{
    OrderStatus, StockEffect, Totals, TotalsError, Transition, line_total, totals, transition,
};
use proptest::prelude::*;
use proptest::sample::select;

/// The moves the rules allow, written out independently of `Transition::sources`.
fn allowed(from: OrderStatus, t: Transition) -> bool {
    use OrderStatus::*;
    use Transition::*;
    matches!(
        (from, t),
        (Checkout, Place) | (Placed, Close) | (Closed, Ship) | (Checkout | Placed | Closed, Cancel)
    )
}

fn any_status() -> impl Strategy<Value = OrderStatus> {
    select(OrderStatus::ALL.to_vec())
}

fn any_transition() -> impl Strategy<Value = Transition> {
    select(Transition::ALL.to_vec())
}

/// An order's lines as (quantity, the variant's stock before the order).
fn lines() -> impl Strategy<Value = Vec<(i64, i64)>> {
    prop::collection::vec(
        (
            limits::QUANTITY.min..=limits::QUANTITY.max,
            limits::STOCK.min..=limits::STOCK.max,
        ),
        0..8,
    )
}

proptest! {
    /// Each move is allowed exactly from the statuses the rules name, leads to its target,
    /// and takes or restores stock exactly when it crosses into or out of holding it.
    #[test]
    fn every_move_follows_the_rules(from in any_status(), t in any_transition()) {
        let outcome = transition(from, t);
        prop_assert_eq!(outcome.is_ok(), allowed(from, t));
        prop_assert_eq!(from.transitions().any(|x| x == t), allowed(from, t));
        match outcome {
            Ok((to, effect)) => {
                prop_assert_eq!(to, t.target());
                let expected = match (from.holds_stock(), to.holds_stock()) {
                    (false, true) => StockEffect::Take,
                    (true, false) => StockEffect::Restore,
                    _ => StockEffect::None,
                };
                prop_assert_eq!(effect, expected);
            }
            Err(refused) => {
                prop_assert_eq!((refused.from, refused.transition), (from, t));
            }
        }
    }

    /// Along any sequence of attempted moves from checkout, refused ones change nothing;
    /// stock is taken at most once (when placed), given back at most once and only after
    /// it was taken (when cancelled), and each variant's stock is its starting stock less
    /// the line exactly while the status holds stock. Shipped and cancelled are final.
    #[test]
    fn stock_balances_along_every_sequence(
        moves in prop::collection::vec(any_transition(), 0..24),
        lines in lines(),
    ) {
        let mut status = OrderStatus::Checkout;
        let mut stock: Vec<i64> = lines.iter().map(|(_, s)| *s).collect();
        let (mut taken, mut restored) = (0, 0);
        for t in moves {
            match transition(status, t) {
                Ok((to, effect)) => {
                    prop_assert!(!matches!(status, OrderStatus::Shipped | OrderStatus::Cancelled));
                    match effect {
                        StockEffect::Take => {
                            taken += 1;
                            prop_assert_eq!((status, to), (OrderStatus::Checkout, OrderStatus::Placed));
                            for (held, (quantity, _)) in stock.iter_mut().zip(&lines) {
                                *held = held.checked_sub(*quantity).expect("within limits");
                            }
                        }
                        StockEffect::Restore => {
                            restored += 1;
                            prop_assert_eq!(to, OrderStatus::Cancelled);
                            for (held, (quantity, _)) in stock.iter_mut().zip(&lines) {
                                *held = held.checked_add(*quantity).expect("within limits");
                            }
                        }
                        StockEffect::None => {}
                    }
                    status = to;
                }
                Err(_) => prop_assert!(!allowed(status, t)),
            }
            prop_assert!(taken <= 1 && restored <= taken, "taken {taken}, restored {restored}");
            let holding = i64::from(status.holds_stock());
            for (held, (quantity, start)) in stock.iter().zip(&lines) {
                prop_assert_eq!(*held, start - quantity * holding, "{}", status);
            }
        }
        if status == OrderStatus::Cancelled {
            prop_assert_eq!(taken, restored, "a cancelled order holds nothing");
        }
    }

    /// A line's total is the exact product when it is an amount, and nothing otherwise,
    /// whatever the two numbers (no overflow panics or wraps).
    #[test]
    fn line_totals_are_exact_or_none(unit_price in any::<i64>(), quantity in any::<i64>()) {
        let exact = i128::from(unit_price) * i128::from(quantity);
        let expected = (0..=i128::from(AMOUNT_MAX)).contains(&exact).then_some(exact as i64);
        prop_assert_eq!(line_total(unit_price, quantity), expected);
    }

    /// Within the limits the API enforces, a line's total is always an amount.
    #[test]
    fn lines_within_the_limits_have_totals(
        unit_price in limits::AMOUNT.min..=limits::AMOUNT.max,
        quantity in limits::QUANTITY.min..=limits::QUANTITY.max,
    ) {
        let exact = i128::from(unit_price) * i128::from(quantity);
        prop_assert_eq!(
            line_total(unit_price, quantity).map(i128::from),
            (exact <= i128::from(AMOUNT_MAX)).then_some(exact)
        );
    }

    /// Within the limits the API enforces, totals agree with exact (128-bit) arithmetic:
    /// the first line beyond an amount is named, a sum or total beyond an amount or below
    /// zero is an error, and otherwise every figure is the exact one.
    #[test]
    fn totals_within_the_limits_are_exact_or_an_error(
        lines in prop::collection::vec((amount(), quantity()), 0..12),
        shipping in amount(),
        discount in amount(),
        tax in amount(),
    ) {
        let got = totals(lines.iter().copied(), shipping, discount, tax);
        prop_assert_eq!(got, exact_totals(&lines, shipping, discount, tax));
    }

    /// Whatever the numbers, totals never panic or wrap: the lines are judged exactly, and
    /// an answer is the exact one, within an amount. (Amounts beyond the limits may be
    /// refused where exact arithmetic would come back in range: the API never passes
    /// them.)
    #[test]
    fn totals_of_any_numbers_never_wrap(
        lines in prop::collection::vec((amount_or_any(), quantity_or_any()), 0..12),
        shipping in amount_or_any(),
        discount in amount_or_any(),
        tax in amount_or_any(),
    ) {
        let got = totals(lines.iter().copied(), shipping, discount, tax);
        let exact = exact_totals(&lines, shipping, discount, tax);
        match (got, exact) {
            (Ok(got), exact) => {
                prop_assert_eq!(Ok(got), exact);
                prop_assert!((0..=AMOUNT_MAX).contains(&got.net_total));
                prop_assert!((0..=AMOUNT_MAX).contains(&got.total));
            }
            (Err(TotalsError::Line(i)), exact) => {
                prop_assert_eq!(Err(TotalsError::Line(i)), exact);
            }
            (Err(TotalsError::Total), Err(TotalsError::Line(i))) => {
                prop_assert!(false, "line {} is beyond an amount, but the total was blamed", i);
            }
            (Err(TotalsError::Total), _) => {}
        }
    }
}

fn amount() -> impl Strategy<Value = i64> {
    prop_oneof![
        6 => limits::AMOUNT.min..=limits::AMOUNT.max,
        1 => select(vec![0, 1, AMOUNT_MAX - 1, AMOUNT_MAX]),
    ]
}

fn quantity() -> impl Strategy<Value = i64> {
    prop_oneof![
        6 => limits::QUANTITY.min..=limits::QUANTITY.max,
        1 => select(vec![1, 2, QUANTITY_MAX]),
    ]
}

/// Mostly numbers within the limits, near their edges too, and now and then any at all.
fn amount_or_any() -> impl Strategy<Value = i64> {
    prop_oneof![
        6 => 0..=AMOUNT_MAX,
        2 => select(vec![0, 1, AMOUNT_MAX - 1, AMOUNT_MAX, AMOUNT_MAX + 1]),
        1 => any::<i64>(),
    ]
}

fn quantity_or_any() -> impl Strategy<Value = i64> {
    prop_oneof![
        6 => 1..=QUANTITY_MAX,
        2 => select(vec![0, 1, 2, QUANTITY_MAX]),
        1 => any::<i64>(),
    ]
}

/// What `totals` should answer, in 128-bit arithmetic that cannot overflow here.
fn exact_totals(
    lines: &[(i64, i64)],
    shipping: i64,
    discount: i64,
    tax: i64,
) -> Result<Totals, TotalsError> {
    let max = i128::from(AMOUNT_MAX);
    let mut net: i128 = 0;
    for (i, (unit_price, quantity)) in lines.iter().enumerate() {
        let line = i128::from(*unit_price) * i128::from(*quantity);
        if !(0..=max).contains(&line) {
            return Err(TotalsError::Line(i));
        }
        net += line;
        if net > max {
            return Err(TotalsError::Total);
        }
    }
    let total = net + i128::from(shipping) + i128::from(tax) - i128::from(discount);
    if !(0..=max).contains(&total) {
        return Err(TotalsError::Total);
    }
    Ok(Totals {
        net_total: net as i64,
        discount_total: discount,
        shipping_total: shipping,
        tax_total: tax,
        total: total as i64,
    })
}
