//! Exchange rates and the one rounding rule for converting amounts between currencies.
//!
//! A rate says how many units of another currency one unit of the shop's currency buys
//! (`USD` shop, `CLP` rate `950.25`: one dollar is 950.25 pesos). It is a decimal with at
//! most six places, written and shown as a string so that no float ever touches it, and
//! held as an integer count of millionths.
//!
//! **Rounding rule.** An amount converts to the target currency's minor unit (ISO 4217:
//! `CLP` has none, `USD` two, `KWD` three) rounded half up: exactly half a minor unit goes
//! up, less goes down. An order converts each unit price and its shipping once, then
//! multiplies and adds the converted amounts, so its totals are exact sums of what it
//! shows, and a line's total is always its unit price times its quantity.

use std::fmt;

use crate::money::{AMOUNT_MAX, minor_units};

/// Millionths in one: rates have six decimal places at most.
const SCALE: i64 = 1_000_000;
/// The largest rate taken: a billion units for one.
const RATE_MAX: i64 = 1_000_000_000 * SCALE;

/// A positive exchange rate with at most six decimal places.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ExchangeRate {
    millionths: i64,
}

/// The message for a rate that cannot be taken.
pub const RATE_RULE: &str =
    "must be a decimal string above 0 with at most 6 decimal places (e.g. \"950.25\")";

impl ExchangeRate {
    /// The rate a stored count of millionths holds (`None` outside the range).
    pub fn from_millionths(millionths: i64) -> Option<Self> {
        (1..=RATE_MAX)
            .contains(&millionths)
            .then_some(Self { millionths })
    }

    pub const fn millionths(self) -> i64 {
        self.millionths
    }

    /// A rate as a client writes it: digits, optionally a point and up to six more.
    pub fn parse(text: &str) -> Result<Self, &'static str> {
        let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
        let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if whole.is_empty()
            || whole.len() > 10
            || !digits(whole)
            || !digits(fraction)
            || fraction.len() > 6
            || (text.contains('.') && fraction.is_empty())
        {
            return Err(RATE_RULE);
        }
        let whole: i64 = whole.parse().map_err(|_| RATE_RULE)?;
        let padded = format!("{fraction:0<6}");
        let fraction: i64 = padded.parse().map_err(|_| RATE_RULE)?;
        whole
            .checked_mul(SCALE)
            .and_then(|w| w.checked_add(fraction))
            .and_then(Self::from_millionths)
            .ok_or(RATE_RULE)
    }

    /// `amount` minor units of `from` in minor units of `to`, rounded half up; `None`
    /// for an unknown currency, a negative amount, or a result above the largest amount.
    pub fn convert(self, amount: i64, from: &str, to: &str) -> Option<i64> {
        let (from, to) = (minor_units(from)?, minor_units(to)?);
        if amount < 0 {
            return None;
        }
        // amount × rate × 10^to / 10^(6 + from); at most 10^18 × 10^15 × 10^4 < 2^127.
        let numerator = i128::from(amount) * i128::from(self.millionths) * 10_i128.pow(to.into());
        let denominator = i128::from(SCALE) * 10_i128.pow(from.into());
        let rounded = (numerator + denominator / 2) / denominator;
        i64::try_from(rounded).ok().filter(|v| *v <= AMOUNT_MAX)
    }
}

impl fmt::Display for ExchangeRate {
    /// The shortest decimal: `950.25`, `1`, `0.000001`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (whole, fraction) = (self.millionths / SCALE, self.millionths % SCALE);
        if fraction == 0 {
            return write!(f, "{whole}");
        }
        let fraction = format!("{fraction:06}");
        write!(f, "{whole}.{}", fraction.trim_end_matches('0'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(text: &str) -> ExchangeRate {
        ExchangeRate::parse(text).unwrap()
    }

    #[test]
    fn rates_parse_and_print_as_the_shortest_decimal() {
        for (text, shown) in [
            ("950.25", "950.25"),
            ("1", "1"),
            ("1.000000", "1"),
            ("0.000001", "0.000001"),
            ("0.5", "0.5"),
            ("1000000000", "1000000000"),
        ] {
            assert_eq!(rate(text).to_string(), shown);
        }
        for bad in [
            "",
            "0",
            "0.0",
            "-1",
            "1.",
            ".5",
            "1.0000001",
            "1e3",
            " 1",
            "1,5",
            "+1",
            "1000000000.000001",
            "99999999999",
        ] {
            assert!(ExchangeRate::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn amounts_convert_to_the_target_minor_unit_rounded_half_up() {
        // 19.99 USD at 950.25 CLP: 18,995.4975 pesos → 18,995.
        assert_eq!(rate("950.25").convert(1999, "USD", "CLP"), Some(18_995));
        // 10 USD → 9,502.5 pesos: half goes up.
        assert_eq!(rate("950.25").convert(1000, "USD", "CLP"), Some(9_503));
        // 1,000 CLP at 0.001052 USD: 1.052 dollars → 105 cents.
        assert_eq!(rate("0.001052").convert(1000, "CLP", "USD"), Some(105));
        // 0.005 → 1 cent, 0.004999 → 0.
        assert_eq!(rate("0.5").convert(1, "USD", "EUR"), Some(1));
        assert_eq!(rate("0.499999").convert(1, "USD", "EUR"), Some(0));
        // Three-digit currencies keep their third digit.
        assert_eq!(rate("0.307").convert(1000, "USD", "KWD"), Some(3070));
        assert_eq!(rate("2").convert(-1, "USD", "EUR"), None);
        assert_eq!(rate("2").convert(1, "USD", "ZZZ"), None);
        assert_eq!(
            rate("1000000000").convert(AMOUNT_MAX, "CLP", "KWD"),
            None,
            "too large is refused, never wrapped"
        );
    }
}
