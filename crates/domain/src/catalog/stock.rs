//! The rule of a relative stock change, written once: storage applies it in one
//! conditional update, and a batch of changes to one variant applies it change by change
//! to the stock it holds locked. A change never takes a variant that does not sell on
//! backorder below zero, nor any stock out of `limits::STOCK`.

use crate::limits;

/// Why a stock change was refused; each carries the stock it was refused at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The variant does not sell on backorder and has too little stock.
    Insufficient(i64),
    /// The stock would leave `limits::STOCK`.
    OutOfRange(i64),
}

/// The stock after adding `delta` to `stock`, or why the change is refused.
pub fn adjusted(stock: i64, available_if_no_stock: bool, delta: i64) -> Result<i64, Refusal> {
    match stock.checked_add(delta) {
        Some(after) if !limits::STOCK.contains(delta) || !limits::STOCK.contains(after) => {
            Err(Refusal::OutOfRange(stock))
        }
        None => Err(Refusal::OutOfRange(stock)),
        Some(after) if after < 0 && !available_if_no_stock => Err(Refusal::Insufficient(stock)),
        Some(after) => Ok(after),
    }
}

/// Applies `deltas` in order from `stock`, each by `adjusted` from the stock the accepted
/// ones before it left: each change's outcome, and the stock at the end.
pub fn apply_in_order(
    stock: i64,
    available_if_no_stock: bool,
    deltas: impl IntoIterator<Item = i64>,
) -> (Vec<Result<i64, Refusal>>, i64) {
    let mut current = stock;
    let outcomes = deltas
        .into_iter()
        .map(|delta| {
            let outcome = adjusted(current, available_if_no_stock, delta);
            if let Ok(after) = outcome {
                current = after;
            }
            outcome
        })
        .collect();
    (outcomes, current)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_overselling_and_leaving_the_range() {
        assert_eq!(adjusted(2, false, -2), Ok(0));
        assert_eq!(adjusted(2, false, -3), Err(Refusal::Insufficient(2)));
        assert_eq!(adjusted(2, true, -3), Ok(-1));
        let max = limits::STOCK.max;
        assert_eq!(adjusted(max, true, 1), Err(Refusal::OutOfRange(max)));
        assert_eq!(adjusted(0, true, i64::MIN), Err(Refusal::OutOfRange(0)));
        assert_eq!(adjusted(-5, true, -max), Err(Refusal::OutOfRange(-5)));
    }

    #[test]
    fn a_refused_change_leaves_the_stock_for_the_next() {
        let (outcomes, end) = apply_in_order(1, false, [-1, -1, 2, -1]);
        assert_eq!(
            outcomes,
            [Ok(0), Err(Refusal::Insufficient(0)), Ok(2), Ok(1)]
        );
        assert_eq!(end, 1);
    }
}
