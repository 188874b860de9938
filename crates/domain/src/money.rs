//! Currencies (ISO 4217) and their minor units. Amounts are integers in minor units.

use crate::data::currencies::CURRENCIES;

/// The largest price, amount or stock level the API accepts: a thousand times it still
/// fits in 64 bits, so sums of many amounts cannot overflow (see `limits`).
pub const AMOUNT_MAX: i64 = 1_000_000_000_000_000;

/// The number of minor-unit digits of an active ISO 4217 currency (`CLP` → 0, `USD` → 2),
/// or `None` for an unknown code.
pub fn minor_units(code: &str) -> Option<u8> {
    CURRENCIES
        .binary_search_by(|(c, _)| (*c).cmp(code))
        .ok()
        .map(|i| CURRENCIES[i].1)
}

pub fn is_currency_code(code: &str) -> bool {
    minor_units(code).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knows_minor_units() {
        assert_eq!(minor_units("USD"), Some(2));
        assert_eq!(minor_units("CLP"), Some(0));
        assert_eq!(minor_units("KWD"), Some(3));
        assert_eq!(minor_units("XOF"), Some(0));
        assert_eq!(minor_units("usd"), None);
        assert_eq!(minor_units("ZZZ"), None);
    }

    #[test]
    fn table_is_sorted_for_binary_search() {
        assert!(CURRENCIES.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
