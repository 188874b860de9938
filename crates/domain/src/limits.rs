//! The range of every number the API takes, declared once and checked at the edge.
//!
//! Both backends hold 64-bit integers. The bounds keep every value, and every sum the
//! service makes of them (an order's lines, stock plus a delta, a page's offset), far
//! enough inside that range that storage never sees a number it cannot hold and no
//! arithmetic can overflow.

use crate::money::AMOUNT_MAX;

/// An inclusive range of integers a field may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntRange {
    pub min: i64,
    pub max: i64,
    /// What the field holds, for the message: "an integer", "an id", …
    noun: &'static str,
}

/// Resource ids: positive. Nothing outside exists: a path id outside is a 404, a filter
/// id outside a 422, and a body id outside names nothing (a 422 on its field, listed
/// with the request's other errors).
pub const ID: IntRange = IntRange::of("an id", 1, i64::MAX);
/// Prices and other amounts in minor units (see `money::AMOUNT_MAX`).
pub const AMOUNT: IntRange = IntRange::of("an integer amount in minor units", 0, AMOUNT_MAX);
/// A variant's stock; negative only for variants sold on backorder.
pub const STOCK: IntRange = IntRange::new(-AMOUNT_MAX, AMOUNT_MAX);
/// A variant's weight.
pub const WEIGHT_IN_GRAMS: IntRange = IntRange::new(0, AMOUNT_MAX);
/// Units of one variant in an order line, a price tier or a price preview.
pub const QUANTITY: IntRange = IntRange::new(1, 1_000_000_000);
/// Places in an ordered list (variants of a product, products of a collection).
pub const POSITION: IntRange = IntRange::new(1, 1_000_000);
/// A price list's priority.
pub const PRIORITY: IntRange = IntRange::new(-1_000_000, 1_000_000);

impl IntRange {
    pub const fn new(min: i64, max: i64) -> Self {
        Self::of("an integer", min, max)
    }

    pub const fn of(noun: &'static str, min: i64, max: i64) -> Self {
        Self { min, max, noun }
    }

    pub const fn contains(self, value: i64) -> bool {
        self.min <= value && value <= self.max
    }

    /// What a value outside is told: "must be an integer from 1 to 200".
    pub fn message(self) -> String {
        format!("must be {} from {} to {}", self.noun, self.min, self.max)
    }

    pub fn check(self, value: i64) -> Result<(), String> {
        if self.contains(value) {
            Ok(())
        } else {
            Err(self.message())
        }
    }

    /// A decimal integer as a query string writes it (an optional `-`, then digits: no
    /// `+`, spaces, fractions or exponents), within the range.
    pub fn parse(self, text: &str) -> Result<i64, String> {
        let digits = text.strip_prefix('-').unwrap_or(text);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(self.message());
        }
        // Past i64 it is past every range too.
        let value = text.parse::<i64>().map_err(|_| self.message())?;
        self.check(value).map(|()| value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_check_and_parse() {
        let per_page = IntRange::new(1, 200);
        assert!(per_page.check(1).is_ok() && per_page.check(200).is_ok());
        assert_eq!(
            per_page.check(0),
            Err("must be an integer from 1 to 200".into())
        );
        assert_eq!(per_page.parse("20"), Ok(20));
        for bad in [
            "", "-", "+5", " 5", "5 ", "1e2", "2.0", "0x10", "201", "0", "-0", "٣",
        ] {
            assert!(per_page.parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(STOCK.parse("-5"), Ok(-5));
        for huge in [
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775809",
            "99999999999999999999999999",
        ] {
            assert!(AMOUNT.parse(huge).is_err(), "{huge}");
        }
        assert_eq!(ID.parse("9223372036854775807"), Ok(i64::MAX));
        assert!(ID.parse("0").is_err() && ID.parse("-3").is_err());
    }

    #[test]
    fn every_bound_leaves_room_for_the_sums_made_of_it() {
        // An order sums at most a few hundred lines of AMOUNT × QUANTITY-capped totals
        // (each line total itself capped at AMOUNT_MAX), and stock moves by at most
        // AMOUNT_MAX at a time: none of it comes near i64::MAX.
        assert!(AMOUNT_MAX.checked_mul(1_000).is_some());
        assert!(STOCK.max.checked_add(STOCK.max).is_some());
        assert!(STOCK.min.checked_sub(STOCK.max).is_some());
        assert!(QUANTITY.max.checked_mul(1_000).is_some());
    }
}
