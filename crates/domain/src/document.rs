//! Order documents: invoices and packing slips, which order statuses have them, how their
//! numbers read, how amounts print on them and when a failed rendering is tried again.

use crate::money::minor_units;
use crate::order::OrderStatus;
use crate::text_enum;

text_enum! {
    /// What an order document is.
    pub enum DocumentKind {
        /// What the buyer owes: the lines with their prices and the order's totals.
        Invoice => "invoice",
        /// What goes in the parcel: the lines and quantities, no prices.
        PackingSlip => "packing_slip",
    }
}

text_enum! {
    /// Where a document's file stands.
    pub enum DocumentStatus {
        /// Asked for; the worker has not rendered it yet.
        Pending => "pending",
        /// Rendered: its file can be downloaded.
        Ready => "ready",
        /// Rendering failed on every attempt; `failure_reason` says why.
        Failed => "failed",
    }
}

/// The first number of each shop's documents of a kind.
pub const FIRST_NUMBER: i64 = 1001;

/// Rendering attempts before a document is marked failed.
pub const MAX_ATTEMPTS: i64 = 3;

/// Seconds before the attempt after `attempts` failed ones.
pub fn retry_delay_secs(attempts: i64) -> i64 {
    5 * attempts.clamp(1, MAX_ATTEMPTS)
}

impl DocumentKind {
    /// What its numbers start with.
    pub const fn prefix(self) -> &'static str {
        match self {
            DocumentKind::Invoice => "INV",
            DocumentKind::PackingSlip => "PS",
        }
    }

    /// Its title on the page.
    pub const fn title(self) -> &'static str {
        match self {
            DocumentKind::Invoice => "Invoice",
            DocumentKind::PackingSlip => "Packing slip",
        }
    }

    /// The number as it is shown, e.g. `INV-1001`.
    pub fn display_number(self, number: i64) -> String {
        format!("{}-{number}", self.prefix())
    }

    /// Whether an order in `status` has this document: an invoice once the order is placed
    /// (a cart is no sale), a packing slip once it is closed (paid or confirmed, so ready
    /// to pack); a cancelled order has neither.
    pub fn refusal(self, status: OrderStatus) -> Option<String> {
        let allowed: &[OrderStatus] = match self {
            DocumentKind::Invoice => &[
                OrderStatus::Placed,
                OrderStatus::Closed,
                OrderStatus::Shipped,
            ],
            DocumentKind::PackingSlip => &[OrderStatus::Closed, OrderStatus::Shipped],
        };
        (!allowed.contains(&status)).then(|| {
            let names: Vec<&str> = allowed.iter().map(|s| s.as_str()).collect();
            format!(
                "an order has a {} once it is {} (it is {status})",
                self.as_str(),
                names.join(", ")
            )
        })
    }
}

/// An amount in minor units as printed on a document: `1234` USD is `12.34 USD`, `500`
/// CLP is `500 CLP`.
pub fn format_amount(minor: i64, currency_code: &str) -> String {
    let digits = u32::from(minor_units(currency_code).unwrap_or(2));
    let sign = if minor < 0 { "-" } else { "" };
    let abs = minor.unsigned_abs();
    if digits == 0 {
        return format!("{sign}{abs} {currency_code}");
    }
    let scale = 10_u64.pow(digits);
    let width = digits as usize;
    format!(
        "{sign}{}.{:0width$} {currency_code}",
        abs / scale,
        abs % scale
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_print_with_their_currencys_minor_units() {
        assert_eq!(format_amount(1234, "USD"), "12.34 USD");
        assert_eq!(format_amount(5, "EUR"), "0.05 EUR");
        assert_eq!(format_amount(500, "CLP"), "500 CLP");
        assert_eq!(format_amount(1005, "KWD"), "1.005 KWD");
        assert_eq!(format_amount(-250, "USD"), "-2.50 USD");
        assert_eq!(format_amount(i64::MIN, "USD"), "-92233720368547758.08 USD");
    }

    #[test]
    fn which_orders_have_which_documents() {
        use OrderStatus::*;
        for status in [Placed, Closed, Shipped] {
            assert_eq!(DocumentKind::Invoice.refusal(status), None);
        }
        for status in [Checkout, Cancelled] {
            assert!(DocumentKind::Invoice.refusal(status).is_some());
        }
        for status in [Closed, Shipped] {
            assert_eq!(DocumentKind::PackingSlip.refusal(status), None);
        }
        for status in [Checkout, Placed, Cancelled] {
            assert!(DocumentKind::PackingSlip.refusal(status).is_some());
        }
    }

    #[test]
    fn numbers_read_with_their_kind() {
        assert_eq!(DocumentKind::Invoice.display_number(1001), "INV-1001");
        assert_eq!(DocumentKind::PackingSlip.display_number(1002), "PS-1002");
    }
}
