//! What a client may send to create or change a price list or to write its items, and
//! the rules they must meet. Every problem of a body is reported at once, field by field.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::str::FromStr;

use domain::catalog::pricing::{PriceListKind, PriceListStatus, check_dates};
use domain::catalog::product::amount;
use domain::{FieldErrors, Patch, Timestamp, limits, validation};
use schemars::JsonSchema;
use serde::Deserialize;
use storage::price_lists::{PriceList, PriceListData};
use storage::sellers::Seller;

const NAME_MAX: usize = 255;
const DESCRIPTION_MAX: usize = 65_536;
const CONTACTS_MAX: usize = 1000;
/// The most items one batch may write.
pub const BATCH_MAX: usize = 200;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NewPriceList {
    name: String,
    #[serde(default)]
    pub seller_id: Option<i64>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    #[schemars(with = "Option<PriceListStatus>")]
    status: Option<String>,
    #[serde(default)]
    #[schemars(with = "Option<PriceListKind>")]
    kind: Option<String>,
    #[serde(default)]
    currency_code: Option<String>,
    #[serde(default)]
    starts_on: Option<String>,
    #[serde(default)]
    ends_on: Option<String>,
    #[serde(default)]
    priority: Option<i64>,
    #[serde(default)]
    contact_ids: Option<Vec<i64>>,
}

impl NewPriceList {
    /// The list's data, defaults taken from the seller, or every problem found.
    pub fn validate(self, seller: &Seller) -> Result<PriceListData, FieldErrors> {
        let mut errors = FieldErrors::new();
        let mut data = PriceListData {
            name: self.name.trim().to_owned(),
            description: self.description.unwrap_or_default(),
            status: PriceListStatus::Draft,
            kind: PriceListKind::Override,
            currency_code: self
                .currency_code
                .unwrap_or_else(|| seller.default_currency_code.clone()),
            starts_on: None,
            ends_on: None,
            priority: self.priority.unwrap_or(0),
            contact_ids: self.contact_ids.map(dedup).unwrap_or_default(),
        };
        if let Some(text) = &self.status {
            parse_into("status", text, &mut data.status, &mut errors);
        }
        if let Some(text) = &self.kind {
            parse_into("kind", text, &mut data.kind, &mut errors);
        }
        data.starts_on = self
            .starts_on
            .as_deref()
            .and_then(|t| parse_time("starts_on", t, &mut errors));
        data.ends_on = self
            .ends_on
            .as_deref()
            .and_then(|t| parse_time("ends_on", t, &mut errors));
        check(&data, &mut errors);
        errors.into_result().map(|()| data)
    }
}

#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct PriceListChanges {
    #[serde(default)]
    name: Patch<String>,
    #[serde(default)]
    description: Patch<String>,
    #[serde(default)]
    #[schemars(with = "Patch<PriceListStatus>")]
    status: Patch<String>,
    #[serde(default)]
    #[schemars(with = "Patch<PriceListKind>")]
    kind: Patch<String>,
    #[serde(default)]
    currency_code: Patch<String>,
    #[serde(default)]
    starts_on: Patch<String>,
    #[serde(default)]
    ends_on: Patch<String>,
    #[serde(default)]
    priority: Patch<i64>,
    #[serde(default)]
    contact_ids: Patch<Vec<i64>>,
    #[serde(default)]
    seller_id: Patch<i64>,
}

impl PriceListChanges {
    /// The list's data with these changes applied, or every problem found.
    pub fn apply(self, list: &PriceList) -> Result<PriceListData, FieldErrors> {
        let mut errors = FieldErrors::new();
        let mut data = list.data();
        if !self.seller_id.is_absent() {
            errors.add("seller_id", "cannot be changed");
        }
        for (field, null) in [
            ("name", self.name == Patch::Null),
            ("status", self.status == Patch::Null),
            ("kind", self.kind == Patch::Null),
            ("currency_code", self.currency_code == Patch::Null),
            ("priority", self.priority == Patch::Null),
        ] {
            if null {
                errors.add(field, "can't be null");
            }
        }
        if let Patch::Value(name) = self.name {
            data.name = name.trim().to_owned();
        }
        match self.description {
            Patch::Absent => {}
            Patch::Null => data.description.clear(),
            Patch::Value(d) => data.description = d,
        }
        if let Patch::Value(text) = &self.status {
            parse_into("status", text, &mut data.status, &mut errors);
        }
        if let Patch::Value(text) = &self.kind {
            parse_into("kind", text, &mut data.kind, &mut errors);
        }
        if let Patch::Value(code) = self.currency_code
            && code != data.currency_code
        {
            if list.items_count > 0 {
                errors.add(
                    "currency_code",
                    format!(
                        "cannot change while the list has items (their prices are in {})",
                        data.currency_code
                    ),
                );
            }
            data.currency_code = code;
        }
        for (field, patch, target) in [
            ("starts_on", &self.starts_on, &mut data.starts_on),
            ("ends_on", &self.ends_on, &mut data.ends_on),
        ] {
            match patch {
                Patch::Absent => {}
                Patch::Null => *target = None,
                Patch::Value(text) => {
                    if let Some(t) = parse_time(field, text, &mut errors) {
                        *target = Some(t);
                    }
                }
            }
        }
        if let Patch::Value(priority) = self.priority {
            data.priority = priority;
        }
        match self.contact_ids {
            Patch::Absent => {}
            Patch::Null => data.contact_ids.clear(),
            Patch::Value(ids) => data.contact_ids = dedup(ids),
        }
        check(&data, &mut errors);
        errors.into_result().map(|()| data)
    }
}

fn check(data: &PriceListData, errors: &mut FieldErrors) {
    if !errors.has("name") {
        errors.check("name", validation::text(&data.name, NAME_MAX));
    }
    errors.check(
        "description",
        validation::length(&data.description, DESCRIPTION_MAX),
    );
    if !errors.has("currency_code") {
        errors.check(
            "currency_code",
            validation::currency_code(&data.currency_code),
        );
    }
    if !errors.has("starts_on") && !errors.has("ends_on") {
        errors.check("ends_on", check_dates(data.starts_on, data.ends_on));
    }
    errors.check("priority", limits::PRIORITY.check(data.priority));
    if let Some(bad) = data
        .contact_ids
        .iter()
        .find(|id| !limits::ID.contains(**id))
    {
        errors.add(
            "contact_ids",
            format!(
                "must hold contact ids ({}; {bad} is not)",
                limits::ID.message().trim_start_matches("must be ")
            ),
        );
    }
    if data.contact_ids.len() > CONTACTS_MAX {
        errors.add(
            "contact_ids",
            format!("must name at most {CONTACTS_MAX} contacts"),
        );
    }
}

/// A value from a fixed vocabulary; a bad one is reported and leaves `target` as it was.
fn parse_into<T: FromStr>(field: &str, text: &str, target: &mut T, errors: &mut FieldErrors)
where
    T::Err: std::fmt::Display,
{
    match text.parse() {
        Ok(value) => *target = value,
        Err(e) => errors.add(field, e.to_string()),
    }
}

/// An RFC 3339 date-time (or a `YYYY-MM-DD` date, meaning midnight UTC), kept to the
/// second as the API shows it.
pub fn parse_time(field: &str, text: &str, errors: &mut FieldErrors) -> Option<Timestamp> {
    match Timestamp::parse(text.trim()) {
        Some(t) => Some(t.truncated_to_secs()),
        None => {
            errors.add(field, Timestamp::MESSAGE);
            None
        }
    }
}

/// Ids without repetitions, in the order first given.
fn dedup(ids: Vec<i64>) -> Vec<i64> {
    let mut seen = std::collections::HashSet::new();
    ids.into_iter().filter(|id| seen.insert(*id)).collect()
}

/// `PUT /price_lists/{id}/items`: the tiers to write.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(rename = "PriceListItemBatch", description = "The tiers to write")]
pub struct ItemBatch {
    items: Vec<ItemInput>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(rename = "PriceListItemInput")]
struct ItemInput {
    #[serde(default)]
    variant_id: Option<i64>,
    #[serde(default)]
    price: Option<i64>,
    #[serde(default)]
    price_comparison: Option<i64>,
    #[serde(default)]
    min_quantity: Option<i64>,
}

/// One well-formed item of a batch, with its index there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ItemDraft {
    pub index: usize,
    pub variant_id: i64,
    pub min_quantity: i64,
    pub price: i64,
    pub price_comparison: Option<i64>,
}

impl ItemBatch {
    /// The well-formed items; every problem is recorded as `items[i].field`.
    pub fn validate(self, errors: &mut FieldErrors) -> Vec<ItemDraft> {
        if self.items.is_empty() || self.items.len() > BATCH_MAX {
            errors.add("items", format!("must hold 1 to {BATCH_MAX} items"));
            return Vec::new();
        }
        let mut drafts = Vec::with_capacity(self.items.len());
        let mut first_of: HashMap<(i64, i64), usize> = HashMap::new();
        for (index, item) in self.items.into_iter().enumerate() {
            let field = |name: &str| format!("items[{index}].{name}");
            let before = errors.errors().len();
            if item.variant_id.is_none() {
                errors.add(field("variant_id"), "can't be blank");
            }
            match item.price {
                None => errors.add(field("price"), "can't be blank"),
                Some(price) => errors.check(&field("price"), amount(price)),
            }
            if let Some(comparison) = item.price_comparison {
                errors.check(&field("price_comparison"), amount(comparison));
            }
            let min_quantity = item.min_quantity.unwrap_or(1);
            errors.check(&field("min_quantity"), limits::QUANTITY.check(min_quantity));
            let (Some(variant_id), Some(price)) = (item.variant_id, item.price) else {
                continue;
            };
            match first_of.entry((variant_id, min_quantity)) {
                Entry::Occupied(first) => errors.add(
                    field("min_quantity"),
                    format!(
                        "repeats items[{}]: one price per variant and min_quantity",
                        first.get()
                    ),
                ),
                Entry::Vacant(slot) => {
                    slot.insert(index);
                }
            }
            if errors.errors().len() == before {
                drafts.push(ItemDraft {
                    index,
                    variant_id,
                    min_quantity,
                    price,
                    price_comparison: item.price_comparison,
                });
            }
        }
        drafts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(json: serde_json::Value) -> (Vec<ItemDraft>, FieldErrors) {
        let batch: ItemBatch = serde_json::from_value(json).unwrap();
        let mut errors = FieldErrors::new();
        let drafts = batch.validate(&mut errors);
        (drafts, errors)
    }

    #[test]
    fn items_are_checked_one_by_one() {
        let (drafts, errors) = batch(serde_json::json!({"items": [
            {"variant_id": 1, "price": 500},
            {"variant_id": 1, "price": 400, "min_quantity": 10, "price_comparison": 450},
            {"price": -1, "min_quantity": 0},
            {"variant_id": 1, "price": 300, "min_quantity": 1},
        ]}));
        assert_eq!(drafts.len(), 2);
        assert_eq!(drafts[0].min_quantity, 1, "min_quantity defaults to 1");
        let fields: Vec<&str> = errors.errors().iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "items[2].variant_id",
                "items[2].price",
                "items[2].min_quantity",
                "items[3].min_quantity"
            ]
        );
        assert!(errors.errors()[3].messages[0].contains("items[0]"));
    }

    #[test]
    fn a_batch_holds_one_to_two_hundred_items() {
        assert!(batch(serde_json::json!({"items": []})).1.has("items"));
        let many: Vec<_> = (1..=BATCH_MAX as i64 + 1)
            .map(|i| serde_json::json!({"variant_id": i, "price": 1}))
            .collect();
        assert!(batch(serde_json::json!({ "items": many })).1.has("items"));
    }
}
