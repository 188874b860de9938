//! Properties of a subscription purchase's state machine over random sequences of moves:
//! each move is allowed exactly when the reference's table allows it, and only an active
//! purchase is billed.

use domain::subscription::purchase::{PurchaseMove, PurchaseState, apply};
use proptest::prelude::*;
use proptest::sample::select;

/// The moves the reference's table allows, written out independently of `sources`.
fn allowed(from: PurchaseState, by: PurchaseMove) -> bool {
    use PurchaseMove::*;
    use PurchaseState::*;
    matches!(
        (from, by),
        (Active, Pause | Cancel | Renew | Finish | Fail)
            | (Paused, Resume | Cancel)
            | (Failed, Resume | Cancel)
    )
}

proptest! {
    #[test]
    fn every_sequence_of_moves_keeps_the_rules(moves in prop::collection::vec(select(PurchaseMove::ALL.to_vec()), 0..40)) {
        let mut state = PurchaseState::Active;
        let mut billed_after_end = false;
        for by in moves {
            let ended = matches!(state, PurchaseState::Cancelled | PurchaseState::Finished);
            match apply(state, by) {
                Ok(next) => {
                    prop_assert!(allowed(state, by), "{state} by {by:?}");
                    billed_after_end |= ended && by == PurchaseMove::Renew;
                    state = next;
                }
                Err(refused) => {
                    prop_assert!(!allowed(state, by), "{state} by {by:?}");
                    prop_assert_eq!(refused.from, state);
                }
            }
            prop_assert_eq!(state.is_billed(), state == PurchaseState::Active);
        }
        prop_assert!(!billed_after_end);
    }
}
