//! A subscription purchase's states and the moves between them: what the renewal engine,
//! a merchant's `PUT` and a customer may do to a purchase, and which purchases are billed.
//! Only an active purchase is ever billed; cancelled and finished ones stay as they are.

use std::fmt;

use crate::text_enum;

text_enum! {
    /// Where a purchase stands.
    pub enum PurchaseState {
        /// Renewed on its dates.
        Active => "active",
        /// Not billed until resumed.
        Paused => "paused",
        /// Ended by the merchant or the customer; never billed again.
        Cancelled => "cancelled",
        /// Every payment made; never billed again.
        Finished => "finished",
        /// Renewals failed too often; not billed until reactivated.
        Failed => "failed",
    }
}

text_enum! {
    /// Who paused a purchase.
    pub enum PausedBy {
        Admin => "admin",
        Customer => "customer",
        /// The renewal engine (a renewal that cannot be charged yet).
        System => "system",
    }
}

/// A move of the state machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PurchaseMove {
    Pause,
    /// From paused, or (reactivation) from failed: billed again from the next date.
    Resume,
    Cancel,
    /// A renewal charged: the purchase stays active.
    Renew,
    /// The last payment made.
    Finish,
    /// Renewals failed too often.
    Fail,
}

impl PurchaseMove {
    pub const ALL: &'static [PurchaseMove] = &[
        PurchaseMove::Pause,
        PurchaseMove::Resume,
        PurchaseMove::Cancel,
        PurchaseMove::Renew,
        PurchaseMove::Finish,
        PurchaseMove::Fail,
    ];

    /// The states this move starts from.
    pub const fn sources(self) -> &'static [PurchaseState] {
        use PurchaseState::*;
        match self {
            PurchaseMove::Pause => &[Active],
            PurchaseMove::Resume => &[Paused, Failed],
            PurchaseMove::Cancel => &[Active, Paused, Failed],
            PurchaseMove::Renew | PurchaseMove::Finish | PurchaseMove::Fail => &[Active],
        }
    }

    /// The state it leads to.
    pub const fn target(self) -> PurchaseState {
        match self {
            PurchaseMove::Pause => PurchaseState::Paused,
            PurchaseMove::Resume | PurchaseMove::Renew => PurchaseState::Active,
            PurchaseMove::Cancel => PurchaseState::Cancelled,
            PurchaseMove::Finish => PurchaseState::Finished,
            PurchaseMove::Fail => PurchaseState::Failed,
        }
    }

    /// The move a `PUT` asking for `state` makes from `from`; none when the state is
    /// where the purchase already is, or one no move leads to (finished and failed are
    /// reached by renewals only).
    pub fn to_reach(from: PurchaseState, state: PurchaseState) -> Option<PurchaseMove> {
        match state {
            _ if state == from => None,
            PurchaseState::Active => Some(PurchaseMove::Resume),
            PurchaseState::Paused => Some(PurchaseMove::Pause),
            PurchaseState::Cancelled => Some(PurchaseMove::Cancel),
            PurchaseState::Finished | PurchaseState::Failed => None,
        }
    }
}

impl PurchaseState {
    /// Whether renewals bill it.
    pub const fn is_billed(self) -> bool {
        matches!(self, PurchaseState::Active)
    }

    /// Whether no move leaves it.
    pub fn is_final(self) -> bool {
        PurchaseMove::ALL
            .iter()
            .all(|m| !m.sources().contains(&self))
    }
}

/// A move the purchase's state does not allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refused {
    pub from: PurchaseState,
    pub by: PurchaseMove,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let allowed: Vec<&str> = PurchaseMove::ALL
            .iter()
            .filter(|m| m.sources().contains(&self.from))
            .map(|m| m.target().as_str())
            .collect();
        if allowed.is_empty() {
            write!(f, "a {} purchase cannot change state", self.from)
        } else {
            write!(
                f,
                "a {} purchase can only become {}",
                self.from,
                allowed.join(" or ")
            )
        }
    }
}

/// The state `by` leads to from `from`.
pub fn apply(from: PurchaseState, by: PurchaseMove) -> Result<PurchaseState, Refused> {
    if by.sources().contains(&from) {
        Ok(by.target())
    } else {
        Err(Refused { from, by })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancelled_and_finished_are_final_and_only_active_is_billed() {
        assert!(PurchaseState::Cancelled.is_final());
        assert!(PurchaseState::Finished.is_final());
        assert!(!PurchaseState::Failed.is_final(), "reactivated by a resume");
        let billed: Vec<_> = PurchaseState::ALL
            .iter()
            .filter(|s| s.is_billed())
            .collect();
        assert_eq!(billed, [&PurchaseState::Active]);
    }

    #[test]
    fn a_refusal_says_what_is_allowed() {
        let refused = apply(PurchaseState::Paused, PurchaseMove::Renew).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "a paused purchase can only become active or cancelled"
        );
        let refused = apply(PurchaseState::Finished, PurchaseMove::Resume).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "a finished purchase cannot change state"
        );
    }

    #[test]
    fn a_put_reaches_states_by_their_moves() {
        use PurchaseState::*;
        assert_eq!(
            PurchaseMove::to_reach(Active, Paused),
            Some(PurchaseMove::Pause)
        );
        assert_eq!(
            PurchaseMove::to_reach(Failed, Active),
            Some(PurchaseMove::Resume)
        );
        assert_eq!(PurchaseMove::to_reach(Active, Active), None);
        assert_eq!(PurchaseMove::to_reach(Active, Finished), None);
    }
}
