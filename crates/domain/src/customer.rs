//! Customers (a seller's contacts): their states, limits, and how their orders count
//! towards `orders_count` and `total_spent`.

use crate::order::OrderStatus;
use crate::text_enum;

text_enum! {
    /// `invited` customers were asked to set up an account and have not yet; `disabled`
    /// ones cannot sign in. Only a state of the customer's account: orders do not look at it.
    pub enum CustomerStatus {
        Active => "active",
        Disabled => "disabled",
        Invited => "invited",
    }
}

impl CustomerStatus {
    /// Whether the customer may sign in (and keep a session).
    pub const fn may_sign_in(self) -> bool {
        !matches!(self, CustomerStatus::Disabled)
    }
}

/// The most addresses a customer keeps.
pub const ADDRESSES_MAX: usize = 50;

/// The longest note.
pub const NOTE_MAX: usize = 5000;

/// What one order adds to its customer's figures while it is in `status`: whether it is
/// one of their orders (placed, closed or shipped: not a cart, not cancelled), and
/// whether its total is money they spent (closed or shipped: paid).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Standing {
    pub counted: bool,
    pub spent: bool,
}

impl Standing {
    pub const fn of(status: OrderStatus) -> Self {
        match status {
            OrderStatus::Checkout | OrderStatus::Cancelled => Self {
                counted: false,
                spent: false,
            },
            OrderStatus::Placed => Self {
                counted: true,
                spent: false,
            },
            OrderStatus::Closed | OrderStatus::Shipped => Self {
                counted: true,
                spent: true,
            },
        }
    }
}

/// How a customer's figures change when one of their orders, of `total`, moves from
/// `from` to `to`: `(orders_count change, total_spent change)`.
pub fn change_of_move(from: OrderStatus, to: OrderStatus, total: i64) -> (i64, i64) {
    let (before, after) = (Standing::of(from), Standing::of(to));
    let delta = |was: bool, is: bool| (is as i64) - (was as i64);
    (
        delta(before.counted, after.counted),
        delta(before.spent, after.spent) * total,
    )
}

/// The display name of a customer written without one: the first and last names joined.
pub fn composed_name(first_name: Option<&str>, last_name: Option<&str>) -> Option<String> {
    let joined = [first_name, last_name]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
    let joined = joined.trim();
    (!joined.is_empty()).then(|| joined.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_composed_from_the_parts_given() {
        assert_eq!(
            composed_name(Some("Ada"), Some("Lovelace")).as_deref(),
            Some("Ada Lovelace")
        );
        assert_eq!(
            composed_name(None, Some("Lovelace")).as_deref(),
            Some("Lovelace")
        );
        assert_eq!(composed_name(None, None), None);
    }

    #[test]
    fn only_paid_orders_are_spent() {
        use OrderStatus::*;
        assert_eq!(change_of_move(Checkout, Placed, 500), (1, 0));
        assert_eq!(change_of_move(Placed, Closed, 500), (0, 500));
        assert_eq!(change_of_move(Closed, Shipped, 500), (0, 0));
        assert_eq!(change_of_move(Closed, Cancelled, 500), (-1, -500));
        assert_eq!(change_of_move(Placed, Cancelled, 500), (-1, 0));
    }
}
