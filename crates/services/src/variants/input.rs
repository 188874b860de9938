//! What a client may send to create or change a variant, and the rules it must meet.

use std::collections::BTreeMap;

use domain::catalog::product::amount;
use domain::{FieldErrors, Patch, limits, validation};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use storage::variants::VariantData;

const TITLE_MAX: usize = 255;
const SKU_MAX: usize = 100;
const BARCODE_MAX: usize = 64;
const OPTIONS_MAX: usize = 10;
const OPTION_MAX: usize = 255;
const IMAGES_MAX: usize = 50;
pub const DEFAULT_TITLE: &str = "Default";

#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct NewVariant {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    sku: Option<String>,
    /// Option names and their values, e.g. `{"size": "M"}`.
    #[serde(default)]
    #[schemars(with = "Option<BTreeMap<String, String>>")]
    options: Option<Map<String, Value>>,
    #[serde(default)]
    price: Option<i64>,
    #[serde(default)]
    price_comparison: Option<i64>,
    #[serde(default)]
    stock: Option<i64>,
    #[serde(default)]
    available_if_no_stock: Option<bool>,
    #[serde(default)]
    weight_in_grams: Option<i64>,
    #[serde(default)]
    barcode: Option<String>,
    #[serde(default)]
    position: Option<i64>,
    #[serde(default)]
    image_ids: Option<Vec<i64>>,
}

/// What a new variant takes when its body leaves a field out.
pub struct Defaults {
    pub price: Option<i64>,
    pub price_comparison: Option<i64>,
    pub position: i64,
}

impl NewVariant {
    /// The variant's data, problems reported as `{prefix}{field}`.
    pub fn validate(
        self,
        prefix: &str,
        defaults: Defaults,
        errors: &mut FieldErrors,
    ) -> VariantData {
        let price = self.price.or(defaults.price);
        if price.is_none() {
            errors.add(format!("{prefix}price"), "can't be blank");
        }
        let data = VariantData {
            sku: self.sku.as_deref().and_then(non_blank),
            title: self
                .title
                .map_or_else(|| DEFAULT_TITLE.to_owned(), |t| t.trim().to_owned()),
            options: self.options.unwrap_or_default(),
            price: price.unwrap_or_default(),
            price_comparison: self.price_comparison.or(defaults.price_comparison),
            stock: self.stock.unwrap_or(0),
            available_if_no_stock: self.available_if_no_stock.unwrap_or(false),
            weight_in_grams: self.weight_in_grams,
            barcode: self.barcode.as_deref().and_then(non_blank),
            position: self.position.unwrap_or(defaults.position),
            image_ids: self.image_ids.unwrap_or_default(),
        };
        check(&data, prefix, errors);
        data
    }
}

#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct VariantChanges {
    #[serde(default)]
    title: Patch<String>,
    #[serde(default)]
    sku: Patch<String>,
    #[serde(default)]
    #[schemars(with = "Patch<BTreeMap<String, String>>")]
    options: Patch<Map<String, Value>>,
    #[serde(default)]
    price: Patch<i64>,
    #[serde(default)]
    price_comparison: Patch<i64>,
    #[serde(default)]
    stock: Patch<i64>,
    #[serde(default)]
    available_if_no_stock: Patch<bool>,
    #[serde(default)]
    weight_in_grams: Patch<i64>,
    #[serde(default)]
    barcode: Patch<String>,
    #[serde(default)]
    position: Patch<i64>,
    #[serde(default)]
    image_ids: Patch<Vec<i64>>,
}

impl VariantChanges {
    /// `data` with these changes applied, or every problem found.
    pub fn apply(self, mut data: VariantData) -> Result<VariantData, FieldErrors> {
        let mut errors = FieldErrors::new();
        let mut required = |field: &str, present: bool| {
            if !present {
                errors.add(field, "can't be null");
            }
        };
        required("title", self.title != Patch::Null);
        required("price", self.price != Patch::Null);
        required("stock", self.stock != Patch::Null);
        required(
            "available_if_no_stock",
            self.available_if_no_stock != Patch::Null,
        );
        required("position", self.position != Patch::Null);
        set(&mut data.title, self.title.map(|t| t.trim().to_owned()));
        set(&mut data.price, self.price);
        set(&mut data.stock, self.stock);
        set(&mut data.available_if_no_stock, self.available_if_no_stock);
        set(&mut data.position, self.position);
        set_optional(&mut data.sku, self.sku.map(|s| non_blank(&s)));
        set_optional(&mut data.price_comparison, self.price_comparison.map(Some));
        set_optional(&mut data.weight_in_grams, self.weight_in_grams.map(Some));
        set_optional(&mut data.barcode, self.barcode.map(|b| non_blank(&b)));
        match self.options {
            Patch::Absent => {}
            Patch::Null => data.options.clear(),
            Patch::Value(options) => data.options = options,
        }
        match self.image_ids {
            Patch::Absent => {}
            Patch::Null => data.image_ids.clear(),
            Patch::Value(ids) => data.image_ids = ids,
        }
        check(&data, "", &mut errors);
        errors.into_result().map(|()| data)
    }
}

fn set<T>(target: &mut T, patch: Patch<T>) {
    if let Patch::Value(value) = patch {
        *target = value;
    }
}

/// An optional field: `null` clears it; a value that reads as nothing clears it too.
fn set_optional<T>(target: &mut Option<T>, patch: Patch<Option<T>>) {
    match patch {
        Patch::Absent => {}
        Patch::Null => *target = None,
        Patch::Value(value) => *target = value,
    }
}

fn non_blank(value: &str) -> Option<String> {
    let trimmed = value.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}

/// The rules every variant meets, reported as `{prefix}{field}`.
pub fn check(data: &VariantData, prefix: &str, errors: &mut FieldErrors) {
    let field = |name: &str| format!("{prefix}{name}");
    errors.check(&field("title"), validation::text(&data.title, TITLE_MAX));
    if let Some(sku) = &data.sku {
        errors.check(&field("sku"), validation::text(sku, SKU_MAX));
    }
    if let Some(barcode) = &data.barcode {
        errors.check(&field("barcode"), validation::text(barcode, BARCODE_MAX));
    }
    if !errors.has(&field("price")) {
        errors.check(&field("price"), amount(data.price));
    }
    if let Some(comparison) = data.price_comparison {
        errors.check(&field("price_comparison"), amount(comparison));
    }
    if let Err(message) = limits::STOCK.check(data.stock) {
        errors.add(field("stock"), message);
    } else if data.stock < 0 && !data.available_if_no_stock {
        errors.add(
            field("stock"),
            "can't be below zero unless the variant is available_if_no_stock",
        );
    }
    if let Some(weight) = data.weight_in_grams {
        errors.check(
            &field("weight_in_grams"),
            limits::WEIGHT_IN_GRAMS.check(weight),
        );
    }
    errors.check(&field("position"), limits::POSITION.check(data.position));
    if data.options.len() > OPTIONS_MAX {
        errors.add(
            field("options"),
            format!("has too many options (maximum is {OPTIONS_MAX})"),
        );
    }
    for (name, value) in &data.options {
        let outcome = validation::text(name, 64).and_then(|()| match value {
            Value::String(v) => validation::text(v, OPTION_MAX),
            _ => Err("values must be strings".to_owned()),
        });
        if let Err(message) = outcome {
            errors.add(field("options"), format!("{name}: {message}"));
        }
    }
    if data.image_ids.len() > IMAGES_MAX {
        errors.add(
            field("image_ids"),
            format!("has too many images (maximum is {IMAGES_MAX})"),
        );
    }
}
