//! What a payment request may say, and the checks that need no database: the amount's
//! range, the card (Luhn, month, not expired by the service's clock, CVC) and the
//! reference. Whether the order's method takes a card, and how much is outstanding, the
//! operation checks under the order's lock.

use domain::payment::{card_expired, card_number, check_cvc};
use domain::{FieldErrors, Timestamp, limits, validation};
use schemars::JsonSchema;
use serde::Deserialize;

use super::gateway::Card;

const REFERENCE_MAX: usize = 255;

#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct NewPayment {
    /// Minor units of the order's currency, from 1 to what is outstanding (the default).
    #[serde(default)]
    amount: Option<i64>,
    /// The card to charge, for a method that takes cards (the test gateway).
    #[serde(default)]
    card: Option<CardInput>,
    /// For a manual method (bank transfer, cash on delivery): the merchant's reference of
    /// the money received (a transfer's number, a receipt).
    #[serde(default)]
    reference: Option<String>,
}

/// A card as a request gives it. Never stored nor logged: only its brand and last four
/// digits are kept.
#[derive(Deserialize, JsonSchema)]
#[schemars(rename = "CardInput")]
pub struct CardInput {
    /// 12 to 19 digits (spaces and dashes are ignored), passing the Luhn check.
    number: String,
    /// 1 to 12.
    exp_month: i64,
    /// Four digits; the card is valid to the end of its month.
    exp_year: i64,
    /// 3 or 4 digits.
    cvc: String,
}

impl std::fmt::Debug for CardInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CardInput(…)")
    }
}

/// A checked request, before the checks that need the order.
#[derive(Debug)]
pub struct PaymentDraft {
    pub amount: Option<i64>,
    pub card: Option<Card>,
    pub reference: Option<String>,
}

impl NewPayment {
    /// Checks the request; a card's expiry against `now`.
    pub fn validate(self, now: Timestamp) -> Result<PaymentDraft, FieldErrors> {
        let mut errors = FieldErrors::new();
        if let Some(amount) = self.amount {
            errors.check("amount", limits::AMOUNT.check(amount));
            if amount == 0 {
                errors.add("amount", "must be at least 1");
            }
        }
        let card = self.card.map(|card| checked_card(card, now, &mut errors));
        let reference = self
            .reference
            .map(|r| r.trim().to_owned())
            .filter(|r| !r.is_empty());
        if let Some(reference) = &reference {
            errors.check("reference", validation::length(reference, REFERENCE_MAX));
        }
        errors.into_result()?;
        Ok(PaymentDraft {
            amount: self.amount,
            card,
            reference,
        })
    }
}

fn checked_card(card: CardInput, now: Timestamp, errors: &mut FieldErrors) -> Card {
    let number = match card_number(&card.number) {
        Ok(digits) => digits,
        Err(message) => {
            errors.add("card.number", message);
            String::new()
        }
    };
    let month_ok = (1..=12).contains(&card.exp_month);
    if !month_ok {
        errors.add("card.exp_month", "must be a month from 1 to 12");
    }
    let year_ok = (2000..=9999).contains(&card.exp_year);
    if !year_ok {
        errors.add("card.exp_year", "must be a year of four digits");
    }
    if month_ok && year_ok && card_expired(card.exp_month, card.exp_year, now) {
        errors.add("card.exp_year", "the card has expired");
    }
    errors.check("card.cvc", check_cvc(&card.cvc));
    Card {
        number,
        exp_month: card.exp_month,
        exp_year: card.exp_year,
        cvc: card.cvc,
    }
}
