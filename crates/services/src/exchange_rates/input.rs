//! What a client may send to add or change an exchange rate (the rate's form and the
//! rounding rule are `domain::exchange`'s).

use domain::exchange::ExchangeRate;
use domain::{FieldErrors, validation};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NewExchangeRate {
    /// The currency one unit of the shop's currency is converted to (ISO 4217).
    to_currency: String,
    /// How many units of `to_currency` one unit of the shop's currency buys: a decimal
    /// string with at most 6 places ("950.25").
    rate: String,
}

#[derive(Clone, Debug, Deserialize, JsonSchema)]
pub struct ExchangeRateChanges {
    /// The new rate, a decimal string with at most 6 places.
    rate: String,
}

impl NewExchangeRate {
    /// The currency and rate, for a shop selling in `shop_currency`; or every problem.
    pub(super) fn validate(
        self,
        shop_currency: &str,
    ) -> Result<(String, ExchangeRate), FieldErrors> {
        let mut errors = FieldErrors::new();
        let to = self.to_currency.trim().to_owned();
        errors.check("to_currency", validation::currency_code(&to));
        if to == shop_currency {
            errors.add("to_currency", "is the shop's own currency");
        }
        let rate = parse(&self.rate, &mut errors);
        errors.into_result()?;
        Ok((to, rate.expect("a rate without errors parsed")))
    }
}

impl ExchangeRateChanges {
    pub(super) fn validate(self) -> Result<ExchangeRate, FieldErrors> {
        let mut errors = FieldErrors::new();
        let rate = parse(&self.rate, &mut errors);
        errors.into_result()?;
        Ok(rate.expect("a rate without errors parsed"))
    }
}

fn parse(text: &str, errors: &mut FieldErrors) -> Option<ExchangeRate> {
    ExchangeRate::parse(text.trim())
        .map_err(|rule| errors.add("rate", rule))
        .ok()
}
