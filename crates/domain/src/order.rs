//! Orders: their states and the moves between them (checkout → placed → closed → shipped,
//! or cancelled before shipping), what each move does to stock, and the totals, all as
//! pure functions.

use crate::money::AMOUNT_MAX;
use crate::text_enum;
use crate::topic;

text_enum! {
    /// Where an order stands. Bootic v1 called `placed` `pending` and `cancelled`
    /// `invalid`; `OrderStatus::parse_lenient` accepts those names too.
    pub enum OrderStatus {
        /// A cart being put together: lines, contact and addresses may change.
        Checkout => "checkout",
        /// The buyer completed the checkout; its stock is taken.
        Placed => "placed",
        /// Paid or confirmed, waiting to be shipped.
        Closed => "closed",
        Shipped => "shipped",
        Cancelled => "cancelled",
    }
}

text_enum! {
    /// A move of an order from one status to another.
    pub enum Transition {
        Place => "place",
        Close => "close",
        Ship => "ship",
        Cancel => "cancel",
    }
}

/// What a move does to the stock of an order's lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StockEffect {
    /// Nothing was taken and nothing is taken.
    None,
    /// Each line's quantity leaves its variant's stock.
    Take,
    /// Each line's quantity goes back to its variant's stock.
    Restore,
}

/// A move the order's status does not allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvalidTransition {
    pub from: OrderStatus,
    pub transition: Transition,
}

impl std::fmt::Display for InvalidTransition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let allowed: Vec<&str> = self
            .transition
            .sources()
            .iter()
            .map(|s| s.as_str())
            .collect();
        write!(
            f,
            "cannot {} an order that is {} (only one that is {})",
            self.transition,
            self.from,
            allowed.join(" or ")
        )
    }
}

impl std::error::Error for InvalidTransition {}

impl OrderStatus {
    /// A status as a list filter may name it, Bootic's names included.
    pub fn parse_lenient(text: &str) -> Result<Self, crate::text_enum::UnknownValue> {
        match text {
            "pending" => Ok(OrderStatus::Placed),
            "invalid" => Ok(OrderStatus::Cancelled),
            other => other.parse(),
        }
    }

    /// Whether lines, addresses and shipping may still change (and the order be deleted).
    pub const fn is_editable(self) -> bool {
        matches!(self, OrderStatus::Checkout)
    }

    /// Whether the order's lines hold stock taken from their variants.
    pub const fn holds_stock(self) -> bool {
        matches!(
            self,
            OrderStatus::Placed | OrderStatus::Closed | OrderStatus::Shipped
        )
    }

    /// The moves available from this status.
    pub fn transitions(self) -> impl Iterator<Item = Transition> {
        Transition::ALL
            .iter()
            .copied()
            .filter(move |t| t.sources().contains(&self))
    }
}

impl Transition {
    /// The statuses this move starts from.
    pub const fn sources(self) -> &'static [OrderStatus] {
        match self {
            Transition::Place => &[OrderStatus::Checkout],
            Transition::Close => &[OrderStatus::Placed],
            Transition::Ship => &[OrderStatus::Closed],
            Transition::Cancel => &[
                OrderStatus::Checkout,
                OrderStatus::Placed,
                OrderStatus::Closed,
            ],
        }
    }

    /// The status this move leads to.
    pub const fn target(self) -> OrderStatus {
        match self {
            Transition::Place => OrderStatus::Placed,
            Transition::Close => OrderStatus::Closed,
            Transition::Ship => OrderStatus::Shipped,
            Transition::Cancel => OrderStatus::Cancelled,
        }
    }

    /// The event topic of this move.
    pub const fn topic(self) -> &'static str {
        match self {
            Transition::Place => topic::ORDERS_PLACED,
            Transition::Close => topic::ORDERS_CLOSED,
            Transition::Ship => topic::ORDERS_SHIPPED,
            Transition::Cancel => topic::ORDERS_CANCELLED,
        }
    }
}

/// The outcome of a move from `from`: the new status and what happens to stock.
pub fn transition(
    from: OrderStatus,
    transition: Transition,
) -> Result<(OrderStatus, StockEffect), InvalidTransition> {
    if !transition.sources().contains(&from) {
        return Err(InvalidTransition { from, transition });
    }
    let to = transition.target();
    let effect = match (from.holds_stock(), to.holds_stock()) {
        (false, true) => StockEffect::Take,
        (true, false) => StockEffect::Restore,
        _ => StockEffect::None,
    };
    Ok((to, effect))
}

/// An order's amounts, in minor units of its currency.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// The sum of the lines' totals.
    pub net_total: i64,
    pub discount_total: i64,
    pub shipping_total: i64,
    pub tax_total: i64,
    /// `net_total + shipping_total + tax_total - discount_total`.
    pub total: i64,
}

/// Why amounts cannot be added up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TotalsError {
    /// This line's total (unit price × quantity) is beyond the largest amount.
    Line(usize),
    /// The order's total is beyond the largest amount, or below zero.
    Total,
}

/// A line's total: unit price × quantity, within the largest amount.
pub fn line_total(unit_price: i64, quantity: i64) -> Option<i64> {
    unit_price
        .checked_mul(quantity)
        .filter(|t| (0..=AMOUNT_MAX).contains(t))
}

/// The totals of lines (`(unit_price, quantity)`) with these shipping, discount and tax
/// amounts; every amount stays within `0..=AMOUNT_MAX`.
pub fn totals(
    lines: impl IntoIterator<Item = (i64, i64)>,
    shipping_total: i64,
    discount_total: i64,
    tax_total: i64,
) -> Result<Totals, TotalsError> {
    let mut net_total: i64 = 0;
    for (i, (unit_price, quantity)) in lines.into_iter().enumerate() {
        let line = line_total(unit_price, quantity).ok_or(TotalsError::Line(i))?;
        net_total = net_total
            .checked_add(line)
            .filter(|t| *t <= AMOUNT_MAX)
            .ok_or(TotalsError::Total)?;
    }
    let total = net_total
        .checked_add(shipping_total)
        .and_then(|t| t.checked_add(tax_total))
        .and_then(|t| t.checked_sub(discount_total))
        .filter(|t| (0..=AMOUNT_MAX).contains(t))
        .ok_or(TotalsError::Total)?;
    Ok(Totals {
        net_total,
        discount_total,
        shipping_total,
        tax_total,
        total,
    })
}

/// A postal address as an order records it; every part is optional free text.
#[derive(
    Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Address {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub company: Option<String>,
    #[serde(default)]
    pub street: Option<String>,
    #[serde(default)]
    pub street_2: Option<String>,
    #[serde(default)]
    pub locality: Option<String>,
    #[serde(default)]
    pub region: Option<String>,
    #[serde(default)]
    pub postal_code: Option<String>,
    /// ISO 3166-1 alpha-2, upper case (`CL`, `US`).
    #[serde(default)]
    pub country_code: Option<String>,
    #[serde(default)]
    pub phone_number: Option<String>,
}

/// The longest part of an address, contact field or tracking field.
pub const TEXT_MAX: usize = 255;

impl Address {
    /// The address with its parts trimmed (blank parts dropped), and the problems of each
    /// part as `(part, message)`.
    pub fn normalized(self) -> (Self, Vec<(&'static str, String)>) {
        let mut problems = Vec::new();
        let mut part = |name: &'static str, value: Option<String>| {
            let value = value
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())?;
            if let Err(message) = crate::validation::length(&value, TEXT_MAX) {
                problems.push((name, message));
            }
            Some(value)
        };
        let address = Self {
            name: part("name", self.name),
            company: part("company", self.company),
            street: part("street", self.street),
            street_2: part("street_2", self.street_2),
            locality: part("locality", self.locality),
            region: part("region", self.region),
            postal_code: part("postal_code", self.postal_code),
            country_code: part("country_code", self.country_code),
            phone_number: part("phone_number", self.phone_number),
        };
        if let Some(code) = &address.country_code
            && !(code.len() == 2 && code.chars().all(|c| c.is_ascii_uppercase()))
        {
            problems.push((
                "country_code",
                "must be an ISO 3166-1 alpha-2 code in upper case (e.g. CL)".to_owned(),
            ));
        }
        (address, problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use OrderStatus::*;
    use Transition::*;

    #[test]
    fn the_happy_path_takes_stock_once() {
        assert_eq!(transition(Checkout, Place), Ok((Placed, StockEffect::Take)));
        assert_eq!(transition(Placed, Close), Ok((Closed, StockEffect::None)));
        assert_eq!(transition(Closed, Ship), Ok((Shipped, StockEffect::None)));
    }

    #[test]
    fn cancelling_restores_what_was_taken() {
        assert_eq!(
            transition(Checkout, Cancel),
            Ok((Cancelled, StockEffect::None))
        );
        assert_eq!(
            transition(Placed, Cancel),
            Ok((Cancelled, StockEffect::Restore))
        );
        assert_eq!(
            transition(Closed, Cancel),
            Ok((Cancelled, StockEffect::Restore))
        );
        let refused = transition(Shipped, Cancel).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "cannot cancel an order that is shipped (only one that is checkout or placed or closed)"
        );
    }

    #[test]
    fn every_other_move_is_refused() {
        for from in OrderStatus::ALL {
            for t in Transition::ALL {
                let allowed = matches!(
                    (from, t),
                    (Checkout, Place)
                        | (Placed, Close)
                        | (Closed, Ship)
                        | (Checkout | Placed | Closed, Cancel)
                );
                assert_eq!(transition(*from, *t).is_ok(), allowed, "{from} {t}");
                assert_eq!(from.transitions().any(|x| x == *t), allowed, "{from} {t}");
            }
        }
        assert_eq!(Cancelled.transitions().count(), 0);
        assert_eq!(Shipped.transitions().count(), 0);
    }

    /// Every sequence of up to six moves from checkout: stock is taken at most once, given
    /// back only after it was taken, and held exactly while the status says so; terminal
    /// states stay put.
    #[test]
    fn stock_balances_along_every_path() {
        fn walk(status: OrderStatus, held: i32, depth: u32, paths: &mut u32) {
            *paths += 1;
            assert_eq!(held == 1, status.holds_stock(), "{status}");
            assert!((0..=1).contains(&held));
            if depth == 0 {
                return;
            }
            for t in Transition::ALL {
                match transition(status, *t) {
                    Ok((to, effect)) => {
                        let held = held
                            + match effect {
                                StockEffect::Take => 1,
                                StockEffect::Restore => -1,
                                StockEffect::None => 0,
                            };
                        assert!(matches!(status, Checkout | Placed | Closed));
                        walk(to, held, depth - 1, paths);
                    }
                    Err(e) => assert_eq!((e.from, e.transition), (status, *t)),
                }
            }
        }
        let mut paths = 0;
        walk(Checkout, 0, 6, &mut paths);
        assert!(paths > 5);
    }

    #[test]
    fn bootic_names_are_accepted_in_filters() {
        assert_eq!(OrderStatus::parse_lenient("pending"), Ok(Placed));
        assert_eq!(OrderStatus::parse_lenient("invalid"), Ok(Cancelled));
        assert_eq!(OrderStatus::parse_lenient("shipped"), Ok(Shipped));
        assert!(OrderStatus::parse_lenient("lost").is_err());
        assert!("pending".parse::<OrderStatus>().is_err());
    }

    #[test]
    fn addresses_are_trimmed_and_checked() {
        let (address, problems) = Address {
            street: Some("  Av. Italia 1 ".into()),
            street_2: Some("   ".into()),
            country_code: Some("cl".into()),
            ..Address::default()
        }
        .normalized();
        assert_eq!(address.street.as_deref(), Some("Av. Italia 1"));
        assert_eq!(address.street_2, None);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].0, "country_code");
        let (_, problems) = Address {
            name: Some("x".repeat(TEXT_MAX + 1)),
            country_code: Some("CL".into()),
            ..Address::default()
        }
        .normalized();
        assert_eq!(problems.iter().map(|p| p.0).collect::<Vec<_>>(), ["name"]);
    }

    #[test]
    fn totals_add_up_within_bounds() {
        let t = totals([(1500, 2), (250, 1)], 500, 0, 0).unwrap();
        assert_eq!(
            t,
            Totals {
                net_total: 3250,
                discount_total: 0,
                shipping_total: 500,
                tax_total: 0,
                total: 3750
            }
        );
        assert_eq!(totals([], 0, 0, 0).unwrap().total, 0);
        assert_eq!(
            totals([(1, 1), (AMOUNT_MAX, 2)], 0, 0, 0),
            Err(TotalsError::Line(1))
        );
        assert_eq!(
            totals([(AMOUNT_MAX, 1), (1, 1)], 0, 0, 0),
            Err(TotalsError::Total)
        );
        assert_eq!(totals([(AMOUNT_MAX, 1)], 1, 0, 0), Err(TotalsError::Total));
        assert_eq!(totals([(1, 1)], 0, 2, 0), Err(TotalsError::Total));
        assert_eq!(line_total(i64::MAX, 2), None);
        assert_eq!(line_total(7, 3), Some(21));
    }
}
