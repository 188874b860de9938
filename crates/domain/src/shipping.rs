//! Shipping tables: where a shop ships (a zone of countries and regions), how it prices a
//! parcel (flat, by weight or by the order's total, in ranges that never overlap), and
//! when shipping is free. A table applies to an order when its zone covers the shipping
//! address and one of its rates covers the parcel; the order then pays that rate.

use serde::{Deserialize, Serialize};

use crate::limits::{self, IntRange};
use crate::order::Address;
use crate::text_enum;
use crate::validation::FieldErrors;

text_enum! {
    /// What a table's rates are ranges of.
    pub enum ShippingMethod {
        /// One price whatever the parcel: a single rate with no range.
        Flat => "flat",
        /// Ranges of the parcel's weight in grams.
        Weight => "weight",
        /// Ranges of the order's net total, in the shop's currency.
        Total => "total",
    }
}

/// The most countries a zone lists, regions a country lists, and rates a table has.
pub const ZONE_MAX: usize = 250;
pub const REGIONS_MAX: usize = 100;
pub const RATES_MAX: usize = 100;
/// The longest region name.
pub const REGION_MAX: usize = 255;

/// A country of a table's zone: the whole country, or only the regions listed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ZoneCountry {
    /// ISO 3166-1 alpha-2, upper case (`CL`).
    pub country_code: String,
    /// Regions as addresses name them, matched without regard to case or surrounding
    /// spaces; empty: the whole country.
    #[serde(default)]
    pub regions: Vec<String>,
}

/// One price for the parcels whose measure (grams, or minor units of the order's net
/// total) lies in `min..max`: `min` included, `max` excluded, no `max` for no upper bound.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rate {
    #[serde(default)]
    pub min: i64,
    #[serde(default)]
    pub max: Option<i64>,
    /// Minor units of the shop's currency.
    pub price: i64,
}

impl Rate {
    fn covers(&self, measure: i64) -> bool {
        self.min <= measure && self.max.is_none_or(|max| measure < max)
    }
}

/// What a table charges and where: the part of a table the rules are about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShippingRules {
    pub method: ShippingMethod,
    /// Empty: every address (the rest of the world).
    pub zone: Vec<ZoneCountry>,
    pub rates: Vec<Rate>,
    /// Orders whose net total is at least this ship free (where a rate covers them).
    pub free_over: Option<i64>,
}

/// What a table prices: the order's weight and net total (in the shop's currency).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Parcel {
    pub weight_in_grams: i64,
    pub net_total: i64,
}

/// Why a table does not apply to an order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotApplicable {
    /// The shipping address is outside the zone (or the order has none and the zone is
    /// not the whole world).
    Address,
    /// No rate covers the parcel's weight or total.
    Parcel,
}

impl ShippingRules {
    /// The rules normalized (codes and regions trimmed, rates sorted by `min`), with every
    /// problem added to `errors` under the field that has it.
    pub fn checked(mut self, errors: &mut FieldErrors) -> Self {
        self.check_zone(errors);
        self.check_rates(errors);
        if let Some(free_over) = self.free_over {
            errors.check("free_over", limits::AMOUNT.check(free_over));
        }
        self.rates.sort_by_key(|r| r.min);
        self
    }

    fn check_zone(&mut self, errors: &mut FieldErrors) {
        if self.zone.len() > ZONE_MAX {
            errors.add(
                "zone",
                format!("lists too many countries (maximum is {ZONE_MAX})"),
            );
        }
        for (i, country) in self.zone.iter_mut().enumerate() {
            let code = country.country_code.trim().to_owned();
            if !(code.len() == 2 && code.bytes().all(|b| b.is_ascii_uppercase())) {
                errors.add(
                    format!("zone[{i}].country_code"),
                    "must be an ISO 3166-1 alpha-2 code in upper case (e.g. CL)",
                );
            }
            country.country_code = code;
            if country.regions.len() > REGIONS_MAX {
                errors.add(
                    format!("zone[{i}].regions"),
                    format!("lists too many regions (maximum is {REGIONS_MAX})"),
                );
            }
            for (j, region) in country.regions.iter_mut().enumerate() {
                *region = region.trim().to_owned();
                errors.check(
                    &format!("zone[{i}].regions[{j}]"),
                    crate::validation::text(region, REGION_MAX),
                );
            }
        }
        let codes: Vec<&str> = self.zone.iter().map(|c| c.country_code.as_str()).collect();
        for (i, code) in codes.iter().enumerate() {
            if codes[..i].contains(code) {
                errors.add(
                    format!("zone[{i}].country_code"),
                    "is listed twice: list its regions together",
                );
            }
        }
    }

    fn check_rates(&self, errors: &mut FieldErrors) {
        let measure = match self.method {
            ShippingMethod::Weight => limits::WEIGHT_IN_GRAMS,
            ShippingMethod::Flat | ShippingMethod::Total => limits::AMOUNT,
        };
        if self.rates.is_empty() {
            errors.add("rates", "must have at least one rate");
        } else if self.rates.len() > RATES_MAX {
            errors.add(
                "rates",
                format!("has too many rates (maximum is {RATES_MAX})"),
            );
        }
        if self.method == ShippingMethod::Flat && self.rates.len() > 1 {
            errors.add("rates", "a flat table has one rate");
        }
        for (i, rate) in self.rates.iter().enumerate() {
            errors.check(
                &format!("rates[{i}].price"),
                limits::AMOUNT.check(rate.price),
            );
            if self.method == ShippingMethod::Flat {
                if rate.min != 0 || rate.max.is_some() {
                    errors.add(format!("rates[{i}].min"), "a flat rate has no range");
                }
                continue;
            }
            errors.check(&format!("rates[{i}].min"), measure.check(rate.min));
            if let Some(max) = rate.max {
                let above_min = IntRange::new(rate.min.saturating_add(1), measure.max);
                errors.check(&format!("rates[{i}].max"), above_min.check(max));
            }
        }
        if self.method != ShippingMethod::Flat {
            for (i, rate) in self.rates.iter().enumerate() {
                if let Some(j) = (0..i).find(|&j| overlap(&self.rates[j], rate)) {
                    errors.add(
                        format!("rates[{i}].min"),
                        format!("overlaps rates[{j}]: ranges must not overlap"),
                    );
                }
            }
        }
    }

    /// Whether the zone takes parcels to `address`.
    pub fn covers(&self, address: Option<&Address>) -> bool {
        if self.zone.is_empty() {
            return true;
        }
        let Some(address) = address else {
            return false;
        };
        let Some(code) = address.country_code.as_deref() else {
            return false;
        };
        self.zone.iter().any(|country| {
            country.country_code == code
                && (country.regions.is_empty()
                    || address.region.as_deref().is_some_and(|region| {
                        let region = region.trim();
                        country
                            .regions
                            .iter()
                            .any(|r| r.to_lowercase() == region.to_lowercase())
                    }))
        })
    }

    /// What shipping `parcel` to `address` costs by this table, in minor units of the
    /// shop's currency: the rate covering the parcel, or nothing when the order's net
    /// total reaches `free_over`.
    pub fn quote(&self, address: Option<&Address>, parcel: Parcel) -> Result<i64, NotApplicable> {
        if !self.covers(address) {
            return Err(NotApplicable::Address);
        }
        let measure = match self.method {
            ShippingMethod::Flat => 0,
            ShippingMethod::Weight => parcel.weight_in_grams,
            ShippingMethod::Total => parcel.net_total,
        };
        let rate = self
            .rates
            .iter()
            .find(|r| self.method == ShippingMethod::Flat || r.covers(measure))
            .ok_or(NotApplicable::Parcel)?;
        let free = self.free_over.is_some_and(|f| parcel.net_total >= f);
        Ok(if free { 0 } else { rate.price })
    }
}

/// Whether two half-open ranges share a point.
fn overlap(a: &Rate, b: &Rate) -> bool {
    let below = |x: &Rate, y: &Rate| x.max.is_some_and(|max| max <= y.min);
    !(below(a, b) || below(b, a))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(min: i64, max: Option<i64>, price: i64) -> Rate {
        Rate { min, max, price }
    }

    fn rules(method: ShippingMethod, rates: Vec<Rate>) -> ShippingRules {
        ShippingRules {
            method,
            zone: vec![ZoneCountry {
                country_code: "CL".into(),
                regions: vec!["Metropolitana".into()],
            }],
            rates,
            free_over: None,
        }
    }

    fn address(country: &str, region: &str) -> Address {
        Address {
            country_code: Some(country.into()),
            region: Some(region.into()),
            ..Address::default()
        }
    }

    #[test]
    fn overlapping_ranges_are_refused_where_they_meet() {
        let mut errors = FieldErrors::new();
        let table = rules(
            ShippingMethod::Weight,
            vec![rate(0, Some(1000), 10), rate(999, Some(2000), 20)],
        );
        table.checked(&mut errors);
        assert!(errors.has("rates[1].min"), "{errors}");

        let mut errors = FieldErrors::new();
        let table = rules(
            ShippingMethod::Weight,
            vec![rate(1000, None, 20), rate(0, Some(1000), 10)],
        );
        let table = table.checked(&mut errors);
        assert!(errors.is_empty(), "{errors}");
        assert_eq!(table.rates[0].min, 0, "rates are kept in order");
    }

    #[test]
    fn an_open_range_overlaps_every_range_above_it() {
        let mut errors = FieldErrors::new();
        rules(
            ShippingMethod::Total,
            vec![rate(500, None, 1), rate(9000, Some(9001), 2)],
        )
        .checked(&mut errors);
        assert!(errors.has("rates[1].min"));
    }

    #[test]
    fn bad_bounds_name_their_fields() {
        let mut errors = FieldErrors::new();
        rules(
            ShippingMethod::Weight,
            vec![rate(-1, Some(5), -3), rate(10, Some(10), 1)],
        )
        .checked(&mut errors);
        for field in ["rates[0].min", "rates[0].price", "rates[1].max"] {
            assert!(errors.has(field), "{field}: {errors}");
        }
        let mut errors = FieldErrors::new();
        rules(ShippingMethod::Flat, vec![rate(0, Some(5), 3)]).checked(&mut errors);
        assert!(errors.has("rates[0].min"));
        let mut errors = FieldErrors::new();
        rules(ShippingMethod::Flat, vec![]).checked(&mut errors);
        assert!(errors.has("rates"));
    }

    #[test]
    fn zones_match_countries_and_regions_in_any_case() {
        let table = rules(ShippingMethod::Flat, vec![rate(0, None, 3000)]);
        let parcel = Parcel::default();
        assert_eq!(
            table.quote(Some(&address("CL", " metropolitana ")), parcel),
            Ok(3000)
        );
        assert_eq!(
            table.quote(Some(&address("CL", "Valparaíso")), parcel),
            Err(NotApplicable::Address)
        );
        assert_eq!(
            table.quote(Some(&address("AR", "Metropolitana")), parcel),
            Err(NotApplicable::Address)
        );
        assert_eq!(table.quote(None, parcel), Err(NotApplicable::Address));
        let world = ShippingRules {
            zone: vec![],
            ..table
        };
        assert_eq!(world.quote(None, parcel), Ok(3000));
    }

    #[test]
    fn the_covering_rate_prices_the_parcel_and_free_over_waives_it() {
        let mut table = rules(
            ShippingMethod::Weight,
            vec![rate(0, Some(1000), 10), rate(1000, Some(5000), 20)],
        );
        let to = address("CL", "Metropolitana");
        let parcel = |weight_in_grams, net_total| Parcel {
            weight_in_grams,
            net_total,
        };
        assert_eq!(table.quote(Some(&to), parcel(999, 1)), Ok(10));
        assert_eq!(table.quote(Some(&to), parcel(1000, 1)), Ok(20));
        assert_eq!(
            table.quote(Some(&to), parcel(5000, 1)),
            Err(NotApplicable::Parcel)
        );
        table.free_over = Some(50_000);
        assert_eq!(table.quote(Some(&to), parcel(1000, 49_999)), Ok(20));
        assert_eq!(table.quote(Some(&to), parcel(1000, 50_000)), Ok(0));
        assert_eq!(
            table.quote(Some(&to), parcel(6000, 90_000)),
            Err(NotApplicable::Parcel),
            "free shipping still needs a rate that takes the parcel"
        );
    }
}
