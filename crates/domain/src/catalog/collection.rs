//! Collections: manual ones hold the products put in them; smart ones hold every product
//! of the seller that meets their rules (all of them, or any).

use serde::{Deserialize, Serialize};

use crate::limits::{self, IntRange};
use crate::text_enum;
use crate::validation::FieldErrors;

pub const RULES_MAX: usize = 60;
const VALUE_MAX: usize = 255;

text_enum! {
    pub enum CollectionKind {
        Manual => "manual",
        Smart => "smart",
    }
}

text_enum! {
    /// Whether a product must meet every rule of a smart collection, or one of them.
    pub enum RuleMatch {
        All => "all",
        Any => "any",
    }
}

text_enum! {
    /// The order of a collection's products.
    pub enum SortOrder {
        Manual => "manual",
        TitleAsc => "title.asc",
        TitleDesc => "title.desc",
        PriceAsc => "price.asc",
        PriceDesc => "price.desc",
        CreatedAsc => "created_on.asc",
        CreatedDesc => "created_on.desc",
    }
}

text_enum! {
    /// What a rule looks at: the product's title, a tag, its vendor, its type's name, its
    /// price (the lowest variant price), or the stock of any of its variants.
    pub enum RuleField {
        Title => "title",
        Tag => "tag",
        Vendor => "vendor",
        Type => "type",
        Price => "price",
        Stock => "stock",
    }
}

text_enum! {
    pub enum Relation {
        Equals => "equals",
        NotEquals => "not_equals",
        Contains => "contains",
        NotContains => "not_contains",
        StartsWith => "starts_with",
        EndsWith => "ends_with",
        GreaterThan => "greater_than",
        LessThan => "less_than",
    }
}

impl RuleField {
    /// Numbers are compared as integers; text without regard to case.
    pub const fn is_numeric(self) -> bool {
        self.range().is_some()
    }

    /// The values a numeric field takes.
    pub const fn range(self) -> Option<IntRange> {
        match self {
            RuleField::Price => Some(limits::AMOUNT),
            RuleField::Stock => Some(limits::STOCK),
            _ => None,
        }
    }

    pub fn relations(self) -> &'static [Relation] {
        use Relation::*;
        match self {
            RuleField::Title | RuleField::Vendor | RuleField::Type => &[
                Equals,
                NotEquals,
                Contains,
                NotContains,
                StartsWith,
                EndsWith,
            ],
            RuleField::Tag => &[Equals, NotEquals],
            RuleField::Price | RuleField::Stock => &[Equals, NotEquals, GreaterThan, LessThan],
        }
    }
}

/// One condition of a smart collection, e.g. `{"field":"tag","relation":"equals","value":"sale"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Rule {
    pub field: RuleField,
    pub relation: Relation,
    pub value: String,
}

/// A rule's value as compared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleValue {
    /// Lower-case text.
    Text(String),
    Number(i64),
}

impl Rule {
    pub fn value(&self) -> RuleValue {
        if self.field.is_numeric() {
            RuleValue::Number(self.value.trim().parse().unwrap_or_default())
        } else {
            RuleValue::Text(self.value.trim().to_lowercase())
        }
    }
}

/// Checks the rules of a collection of `kind`, reporting on `rules[i].field`.
pub fn check_rules(kind: CollectionKind, rules: &[Rule], errors: &mut FieldErrors) {
    match kind {
        CollectionKind::Manual if !rules.is_empty() => {
            errors.add("rules", "a manual collection has no rules");
            return;
        }
        CollectionKind::Smart if rules.is_empty() => {
            errors.add("rules", "a smart collection needs at least one rule");
            return;
        }
        _ => {}
    }
    if rules.len() > RULES_MAX {
        errors.add(
            "rules",
            format!("has too many rules (maximum is {RULES_MAX})"),
        );
        return;
    }
    for (i, rule) in rules.iter().enumerate() {
        let relations = rule.field.relations();
        if !relations.contains(&rule.relation) {
            let allowed: Vec<&str> = relations.iter().map(|r| r.as_str()).collect();
            errors.add(
                format!("rules[{i}].relation"),
                format!("must be one of {} for {}", allowed.join(", "), rule.field),
            );
        }
        let value = rule.value.trim();
        if let Some(range) = rule.field.range() {
            if let Err(message) = range.parse(value) {
                errors.add(format!("rules[{i}].value"), message);
            }
        } else if value.is_empty() {
            errors.add(format!("rules[{i}].value"), "can't be blank");
        } else if value.chars().count() > VALUE_MAX {
            errors.add(
                format!("rules[{i}].value"),
                format!("is too long (maximum is {VALUE_MAX} characters)"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rules(value: serde_json::Value) -> Vec<Rule> {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn rules_are_checked_per_field() {
        let mut errors = FieldErrors::new();
        check_rules(
            CollectionKind::Smart,
            &rules(json!([
                {"field": "tag", "relation": "contains", "value": "x"},
                {"field": "price", "relation": "greater_than", "value": "ten"},
                {"field": "title", "relation": "starts_with", "value": " "},
                {"field": "stock", "relation": "less_than", "value": "-5"},
                {"field": "price", "relation": "less_than", "value": "9223372036854775808"},
                {"field": "price", "relation": "greater_than", "value": "-1"},
                {"field": "stock", "relation": "equals", "value": "+5"},
            ])),
            &mut errors,
        );
        let fields: Vec<&str> = errors.errors().iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "rules[0].relation",
                "rules[1].value",
                "rules[2].value",
                "rules[4].value",
                "rules[5].value",
                "rules[6].value"
            ]
        );
        let mut errors = FieldErrors::new();
        check_rules(CollectionKind::Smart, &[], &mut errors);
        assert!(errors.has("rules"));
        let mut errors = FieldErrors::new();
        check_rules(
            CollectionKind::Manual,
            &rules(json!([{"field": "tag", "relation": "equals", "value": "x"}])),
            &mut errors,
        );
        assert!(errors.has("rules"));
    }

    #[test]
    fn values_compare_as_numbers_or_lower_case_text() {
        let rule = rules(json!([{"field": "vendor", "relation": "equals", "value": " ACME "}]));
        assert_eq!(rule[0].value(), RuleValue::Text("acme".into()));
        let rule = rules(json!([{"field": "price", "relation": "less_than", "value": "1500"}]));
        assert_eq!(rule[0].value(), RuleValue::Number(1500));
        assert_eq!("price.desc".parse::<SortOrder>(), Ok(SortOrder::PriceDesc));
    }
}
