//! What a client may send to create or change a shipping table, and the rules it must meet
//! (the zone and rate rules are `domain::shipping`'s).

use domain::shipping::{Rate, ShippingMethod, ShippingRules, ZoneCountry};
use domain::{FieldErrors, Patch, limits, validation};
use schemars::JsonSchema;
use serde::Deserialize;
use storage::shipping_tables::{ShippingTable, ShippingTableData};

const NAME_MAX: usize = 255;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NewShippingTable {
    /// What the buyer sees the shipping called ("Express", "Standard").
    name: String,
    method: ShippingMethod,
    /// Countries (and, within them, regions) the table ships to; empty or absent: every
    /// address.
    #[serde(default)]
    zone: Option<Vec<ZoneCountry>>,
    /// Non-overlapping ranges `min..max` (max excluded, absent for no upper bound) of
    /// grams (`weight`) or of the order's net total in the shop's currency (`total`),
    /// each with its price; a `flat` table has one rate with no range.
    rates: Vec<Rate>,
    /// Orders whose net total reaches this amount (shop's currency) ship free.
    #[serde(default)]
    free_over: Option<i64>,
    /// Default true; a disabled table prices no order.
    #[serde(default)]
    enabled: Option<bool>,
    /// Place among the shop's tables (default: last).
    #[serde(default)]
    position: Option<i64>,
}

#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct ShippingTableChanges {
    #[serde(default)]
    name: Patch<String>,
    #[serde(default)]
    method: Patch<ShippingMethod>,
    /// Null: every address.
    #[serde(default)]
    zone: Patch<Vec<ZoneCountry>>,
    #[serde(default)]
    rates: Patch<Vec<Rate>>,
    /// Null: never free.
    #[serde(default)]
    free_over: Patch<i64>,
    #[serde(default)]
    enabled: Patch<bool>,
    #[serde(default)]
    position: Patch<i64>,
}

impl NewShippingTable {
    /// The table to write, and whether its position was given (else it goes last, where
    /// the operation puts it); or every problem found.
    pub(super) fn validate(self) -> Result<(ShippingTableData, bool), FieldErrors> {
        let mut errors = FieldErrors::new();
        let rules = ShippingRules {
            method: self.method,
            zone: self.zone.unwrap_or_default(),
            rates: self.rates,
            free_over: self.free_over,
        };
        let data = ShippingTableData {
            name: self.name.trim().to_owned(),
            rules: rules.checked(&mut errors),
            enabled: self.enabled.unwrap_or(true),
            position: self.position.unwrap_or(limits::POSITION.min),
        };
        check(&data, &mut errors);
        errors
            .into_result()
            .map(|()| (data, self.position.is_some()))
    }
}

impl ShippingTableChanges {
    /// `current` with these changes, or every problem found.
    pub(super) fn apply(self, current: &ShippingTable) -> Result<ShippingTableData, FieldErrors> {
        let mut errors = FieldErrors::new();
        let mut data = current.data();
        for (field, null) in [
            ("name", self.name == Patch::Null),
            ("method", self.method == Patch::Null),
            ("rates", self.rates == Patch::Null),
            ("enabled", self.enabled == Patch::Null),
            ("position", self.position == Patch::Null),
        ] {
            if null {
                errors.add(field, "can't be null");
            }
        }
        if let Patch::Value(name) = self.name {
            data.name = name.trim().to_owned();
        }
        if let Patch::Value(method) = self.method {
            data.rules.method = method;
        }
        match self.zone {
            Patch::Absent => {}
            Patch::Null => data.rules.zone.clear(),
            Patch::Value(zone) => data.rules.zone = zone,
        }
        if let Patch::Value(rates) = self.rates {
            data.rules.rates = rates;
        }
        match self.free_over {
            Patch::Absent => {}
            Patch::Null => data.rules.free_over = None,
            Patch::Value(amount) => data.rules.free_over = Some(amount),
        }
        if let Patch::Value(enabled) = self.enabled {
            data.enabled = enabled;
        }
        if let Patch::Value(position) = self.position {
            data.position = position;
        }
        data.rules = data.rules.checked(&mut errors);
        check(&data, &mut errors);
        errors.into_result().map(|()| data)
    }
}

fn check(data: &ShippingTableData, errors: &mut FieldErrors) {
    errors.check("name", validation::text(&data.name, NAME_MAX));
    errors.check("position", limits::POSITION.check(data.position));
}
