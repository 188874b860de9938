//! Payments: the kinds of payment method a shop offers and the settings each declares,
//! the states of a payment attempt, card checks (Luhn, expiry, brand), and the money an
//! order is still owed, all as pure functions.

use crate::clock::Timestamp;
use crate::money::AMOUNT_MAX;
use crate::text_enum;

text_enum! {
    /// How a payment method takes money. Real gateways are added here, each with its
    /// settings (`settings_of`) and, in the services, its `Gateway`.
    pub enum MethodType {
        /// The built-in gateway for sandboxes and tests: the card number decides the
        /// outcome (see `services::payments::gateway`); no money moves.
        TestGateway => "test_gateway",
        /// The buyer transfers the money; the merchant records it when it arrives.
        BankTransfer => "bank_transfer",
        /// The courier collects the money; the merchant records it.
        CashOnDelivery => "cash_on_delivery",
    }
}

/// One key a payment method's `settings` may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SettingKey {
    pub name: &'static str,
    /// Written, never shown: sealed at rest, and only named in `secrets_set`.
    pub secret: bool,
}

const fn public(name: &'static str) -> SettingKey {
    SettingKey {
        name,
        secret: false,
    }
}

const fn secret(name: &'static str) -> SettingKey {
    SettingKey { name, secret: true }
}

/// The longest value of a setting.
pub const SETTING_MAX: usize = 500;
/// The slowest the test gateway may be told to answer (`latency_ms`).
pub const TEST_LATENCY_MAX_MS: i64 = 10_000;

impl MethodType {
    /// The keys its `settings` may hold; any other key is refused.
    pub const fn settings(self) -> &'static [SettingKey] {
        const TEST_GATEWAY: &[SettingKey] = &[
            public("publishable_key"),
            secret("secret_key"),
            // Milliseconds the gateway waits before answering (0 to 10000): lets a
            // sandbox see how its client behaves with a slow gateway.
            public("latency_ms"),
        ];
        const BANK_TRANSFER: &[SettingKey] = &[
            public("bank_name"),
            public("account_holder"),
            public("account_number"),
            public("iban"),
            public("bic"),
        ];
        match self {
            MethodType::TestGateway => TEST_GATEWAY,
            MethodType::BankTransfer => BANK_TRANSFER,
            MethodType::CashOnDelivery => &[],
        }
    }

    /// The declared key called `name`.
    pub fn setting(self, name: &str) -> Option<SettingKey> {
        self.settings().iter().copied().find(|k| k.name == name)
    }

    /// Whether payments go through a gateway with a card (else the merchant records the
    /// money received, and no card is taken).
    pub const fn takes_cards(self) -> bool {
        matches!(self, MethodType::TestGateway)
    }
}

/// Checks one setting's value (a string; `latency_ms` a whole number of milliseconds).
pub fn check_setting(key: SettingKey, value: &str) -> Result<(), String> {
    crate::validation::length(value, SETTING_MAX)?;
    if key.name == "latency_ms" {
        match value.parse::<i64>() {
            Ok(ms) if (0..=TEST_LATENCY_MAX_MS).contains(&ms) => {}
            _ => {
                return Err(format!(
                    "must be a whole number of milliseconds from 0 to {TEST_LATENCY_MAX_MS}"
                ));
            }
        }
    }
    Ok(())
}

text_enum! {
    /// Money in (a charge) or back out (a refund).
    pub enum PaymentKind {
        Charge => "charge",
        Refund => "refund",
    }
}

text_enum! {
    /// Where a payment attempt stands.
    pub enum PaymentStatus {
        /// Sent to the gateway; its answer is not recorded yet. Its amount counts as
        /// taken until it is (so that no second charge overlaps it).
        Pending => "pending",
        /// The gateway took the money (a charge) or gave it back (a refund); or the
        /// merchant recorded money received through a manual method.
        Approved => "approved",
        /// The gateway refused the card.
        Declined => "declined",
        /// The gateway failed, or its answer was lost: no money moved.
        Failed => "failed",
        /// A refund of a manual payment: owed to the buyer, paid back by the merchant.
        Recorded => "recorded",
    }
}

impl PaymentStatus {
    /// Whether nothing will change it any more.
    pub const fn is_final(self) -> bool {
        !matches!(self, PaymentStatus::Pending)
    }
}

/// What an order has been paid and refunded, and what it still owes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Balance {
    pub total: i64,
    /// Approved charges.
    pub paid_total: i64,
    /// Refunds given back or owed by the merchant (approved or recorded).
    pub refunded_total: i64,
    /// Charges sent to the gateway whose answer is not recorded yet.
    pub pending_total: i64,
    /// A cancelled order owes nothing.
    pub cancelled: bool,
}

impl Balance {
    /// What the buyer still owes: the total less what was paid and kept (never below
    /// zero, and nothing on a cancelled order).
    pub fn outstanding(self) -> i64 {
        if self.cancelled {
            return 0;
        }
        let kept = self.paid_total.saturating_sub(self.refunded_total);
        self.total.saturating_sub(kept).max(0)
    }

    /// What a new charge may take now: the outstanding amount less the charges still
    /// waiting for the gateway.
    pub fn chargeable(self) -> i64 {
        self.outstanding()
            .saturating_sub(self.pending_total.max(0))
            .max(0)
    }

    /// Whether approved charges cover the total: a placed order is closed then.
    pub fn is_paid(self) -> bool {
        !self.cancelled && self.total > 0 && self.outstanding() == 0
    }
}

/// Why an amount cannot be charged now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AmountRefused {
    /// Nothing or less than asked is outstanding, whatever is pending.
    Exceeds { outstanding: i64 },
    /// It would fit but for charges still waiting for the gateway.
    InProgress { pending: i64 },
}

/// The amount of a new charge: `asked`, or all that is chargeable; within
/// `1..=chargeable`.
pub fn charge_amount(balance: Balance, asked: Option<i64>) -> Result<i64, AmountRefused> {
    let outstanding = balance.outstanding();
    let chargeable = balance.chargeable();
    let amount = asked.unwrap_or(chargeable);
    if amount >= 1 && amount <= chargeable {
        return Ok(amount);
    }
    let wanted = asked.unwrap_or(outstanding);
    if wanted >= 1 && wanted <= outstanding {
        Err(AmountRefused::InProgress {
            pending: balance.pending_total,
        })
    } else {
        Err(AmountRefused::Exceeds { outstanding })
    }
}

/// Adds an amount to a running figure, within `0..=AMOUNT_MAX`.
pub fn add_amount(figure: i64, amount: i64) -> Option<i64> {
    figure
        .checked_add(amount)
        .filter(|sum| (0..=AMOUNT_MAX).contains(sum))
}

text_enum! {
    /// The network of a card number, by its prefix.
    pub enum CardBrand {
        Visa => "visa",
        Mastercard => "mastercard",
        Amex => "amex",
        Discover => "discover",
        Unknown => "unknown",
    }
}

/// A card number with spaces and dashes taken out, if it is 12 to 19 digits passing the
/// Luhn check.
pub fn card_number(text: &str) -> Result<String, String> {
    let digits: String = text.chars().filter(|c| !matches!(c, ' ' | '-')).collect();
    if !(12..=19).contains(&digits.len()) || !digits.chars().all(|c| c.is_ascii_digit()) {
        return Err("must be a card number of 12 to 19 digits".into());
    }
    if !luhn(&digits) {
        return Err("is not a valid card number (its check digit is wrong)".into());
    }
    Ok(digits)
}

/// The Luhn (mod 10) check of a string of ASCII digits.
pub fn luhn(digits: &str) -> bool {
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0');
            if i % 2 == 1 {
                let doubled = d * 2;
                if doubled > 9 { doubled - 9 } else { doubled }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

pub fn card_brand(digits: &str) -> CardBrand {
    let prefix = |n: usize| digits.get(..n).and_then(|p| p.parse::<u32>().ok());
    match (prefix(1), prefix(2), prefix(4)) {
        (Some(4), _, _) => CardBrand::Visa,
        (_, Some(34 | 37), _) => CardBrand::Amex,
        (_, Some(51..=55), _) | (_, _, Some(2221..=2720)) => CardBrand::Mastercard,
        (_, Some(65), _) | (_, _, Some(6011)) => CardBrand::Discover,
        _ => CardBrand::Unknown,
    }
}

/// The last four digits, all that is kept of a card number.
pub fn last4(digits: &str) -> String {
    digits[digits.len().saturating_sub(4)..].to_owned()
}

/// Whether a card expiring at the end of `month`/`year` is still valid at `now` (UTC).
pub fn card_expired(month: i64, year: i64, now: Timestamp) -> bool {
    let today = now.to_rfc3339();
    let (this_year, this_month) = (
        today[..4].parse::<i64>().unwrap_or(0),
        today[5..7].parse::<i64>().unwrap_or(0),
    );
    (year, month) < (this_year, this_month)
}

pub fn check_cvc(cvc: &str) -> Result<(), String> {
    if (3..=4).contains(&cvc.len()) && cvc.chars().all(|c| c.is_ascii_digit()) {
        Ok(())
    } else {
        Err("must be 3 or 4 digits".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn luhn_and_brands() {
        for (number, brand) in [
            ("4242424242424242", CardBrand::Visa),
            ("4000 0000 0000 0002", CardBrand::Visa),
            ("5555-5555-5555-4444", CardBrand::Mastercard),
            ("2223003122003222", CardBrand::Mastercard),
            ("378282246310005", CardBrand::Amex),
            ("6011111111111117", CardBrand::Discover),
        ] {
            let digits = card_number(number).unwrap();
            assert_eq!(card_brand(&digits), brand, "{number}");
        }
        assert!(card_number("4242424242424241").is_err());
        assert!(card_number("42424242").is_err());
        assert!(card_number("4242x24242424242").is_err());
        assert_eq!(last4("4242424242424242"), "4242");
    }

    #[test]
    fn expiry_is_the_end_of_the_month() {
        let now = Timestamp::parse("2026-03-15T10:00:00Z").unwrap();
        assert!(!card_expired(3, 2026, now));
        assert!(card_expired(2, 2026, now));
        assert!(card_expired(12, 2025, now));
        assert!(!card_expired(1, 2027, now));
    }

    #[test]
    fn settings_are_declared_per_type() {
        assert!(
            MethodType::TestGateway
                .setting("secret_key")
                .unwrap()
                .secret
        );
        assert!(!MethodType::BankTransfer.setting("iban").unwrap().secret);
        assert!(MethodType::CashOnDelivery.setting("iban").is_none());
        let latency = MethodType::TestGateway.setting("latency_ms").unwrap();
        assert!(check_setting(latency, "250").is_ok());
        assert!(check_setting(latency, "-1").is_err());
        assert!(check_setting(latency, "fast").is_err());
    }

    #[test]
    fn charges_fit_within_what_is_outstanding() {
        let b = Balance {
            total: 5000,
            paid_total: 1000,
            ..Balance::default()
        };
        assert_eq!(b.outstanding(), 4000);
        assert_eq!(charge_amount(b, None), Ok(4000));
        assert_eq!(charge_amount(b, Some(1)), Ok(1));
        assert_eq!(
            charge_amount(b, Some(4001)),
            Err(AmountRefused::Exceeds { outstanding: 4000 })
        );
        assert_eq!(
            charge_amount(b, Some(0)),
            Err(AmountRefused::Exceeds { outstanding: 4000 })
        );
        let pending = Balance {
            pending_total: 4000,
            ..b
        };
        assert_eq!(
            charge_amount(pending, None),
            Err(AmountRefused::InProgress { pending: 4000 })
        );
        let paid = Balance {
            paid_total: 5000,
            ..b
        };
        assert!(paid.is_paid());
        assert_eq!(
            charge_amount(paid, None),
            Err(AmountRefused::Exceeds { outstanding: 0 })
        );
        let cancelled = Balance {
            cancelled: true,
            ..b
        };
        assert_eq!(cancelled.outstanding(), 0);
    }
}
