//! Custom attributes: the free-form properties of a product, and the optional schema a
//! product type declares for them.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::text_enum;
use crate::validation::{self, FieldErrors};

pub const ATTRIBUTES_MAX: usize = 50;
const NAME_MAX: usize = 64;
const TEXT_MAX: usize = 1000;
const OPTIONS_MAX: usize = 100;

text_enum! {
    /// The kind of value an attribute holds.
    pub enum FieldType {
        String => "string",
        Number => "number",
        Boolean => "boolean",
        Select => "select",
    }
}

/// One attribute a product type declares.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AttributeDef {
    pub name: String,
    pub field_type: FieldType,
    #[serde(default)]
    pub required: bool,
    /// The allowed values of a `select` attribute.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
}

/// Checks a schema, reporting problems on `attributes[i].field`.
pub fn check_schema(defs: &[AttributeDef], errors: &mut FieldErrors) {
    if defs.len() > ATTRIBUTES_MAX {
        errors.add(
            "attributes",
            format!("has too many attributes (maximum is {ATTRIBUTES_MAX})"),
        );
        return;
    }
    for (i, def) in defs.iter().enumerate() {
        let field = |name: &str| format!("attributes[{i}].{name}");
        errors.check(&field("name"), validation::text(&def.name, NAME_MAX));
        if defs[..i].iter().any(|d| d.name == def.name) {
            errors.add(field("name"), "is declared twice");
        }
        match def.field_type {
            FieldType::Select if def.options.is_empty() => {
                errors.add(field("options"), "a select attribute needs options");
            }
            FieldType::Select => {
                if def.options.len() > OPTIONS_MAX {
                    errors.add(
                        field("options"),
                        format!("has too many options (maximum is {OPTIONS_MAX})"),
                    );
                }
                for option in &def.options {
                    errors.check(&field("options"), validation::text(option, TEXT_MAX));
                }
            }
            _ if !def.options.is_empty() => {
                errors.add(field("options"), "only select attributes have options");
            }
            _ => {}
        }
    }
}

/// Checks a product's custom attributes, against the schema of its type when it declares
/// one; problems are reported on `custom_attributes.{name}`.
pub fn check_values(
    schema: &[AttributeDef],
    values: &Map<String, Value>,
    errors: &mut FieldErrors,
) {
    let field = |name: &str| format!("custom_attributes.{name}");
    if values.len() > ATTRIBUTES_MAX {
        errors.add(
            "custom_attributes",
            format!("has too many attributes (maximum is {ATTRIBUTES_MAX})"),
        );
        return;
    }
    for (name, value) in values {
        if let Err(message) = validation::text(name, NAME_MAX) {
            errors.add("custom_attributes", format!("attribute name {message}"));
            continue;
        }
        match value {
            Value::String(text) => errors.check(&field(name), validation::length(text, TEXT_MAX)),
            Value::Number(_) | Value::Bool(_) | Value::Null => {}
            _ => errors.add(field(name), "must be a string, a number or a boolean"),
        }
        if !schema.is_empty() && !schema.iter().any(|d| &d.name == name) {
            errors.add(field(name), "is not an attribute of the product type");
        }
    }
    for def in schema {
        let value = values.get(&def.name).filter(|v| !v.is_null());
        let Some(value) = value else {
            if def.required {
                errors.add(field(&def.name), "is required by the product type");
            }
            continue;
        };
        let fits = match def.field_type {
            FieldType::String => value.is_string(),
            FieldType::Number => value.is_number(),
            FieldType::Boolean => value.is_boolean(),
            FieldType::Select => value
                .as_str()
                .is_some_and(|v| def.options.iter().any(|o| o == v)),
        };
        if !fits {
            let expected = match def.field_type {
                FieldType::Select => format!("must be one of: {}", def.options.join(", ")),
                other => format!("must be a {other}"),
            };
            errors.add(field(&def.name), expected);
        }
    }
}

/// The attributes as stored: explicit nulls dropped.
pub fn without_nulls(values: Map<String, Value>) -> Map<String, Value> {
    values.into_iter().filter(|(_, v)| !v.is_null()).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Vec<AttributeDef> {
        serde_json::from_value(json!([
            {"name": "material", "field_type": "select", "required": true, "options": ["cotton", "wool"]},
            {"name": "weight", "field_type": "number"},
            {"name": "organic", "field_type": "boolean"},
        ]))
        .unwrap()
    }

    fn check(values: Value) -> Vec<String> {
        let mut errors = FieldErrors::new();
        check_values(&schema(), values.as_object().unwrap(), &mut errors);
        errors.errors().iter().map(|e| e.field.clone()).collect()
    }

    #[test]
    fn values_follow_the_schema() {
        assert!(check(json!({"material": "wool", "weight": 1.5})).is_empty());
        assert_eq!(check(json!({"weight": 1})), ["custom_attributes.material"]);
        assert_eq!(
            check(json!({"material": "silk", "organic": "yes", "colour": "red"})),
            [
                "custom_attributes.colour",
                "custom_attributes.material",
                "custom_attributes.organic"
            ]
        );
        let mut errors = FieldErrors::new();
        check_values(&[], json!({"any": [1]}).as_object().unwrap(), &mut errors);
        assert!(errors.has("custom_attributes.any"));
    }

    #[test]
    fn schemas_are_checked() {
        let defs: Vec<AttributeDef> = serde_json::from_value(json!([
            {"name": "a", "field_type": "select"},
            {"name": "a", "field_type": "string", "options": ["x"]},
        ]))
        .unwrap();
        let mut errors = FieldErrors::new();
        check_schema(&defs, &mut errors);
        let fields: Vec<&str> = errors.errors().iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "attributes[0].options",
                "attributes[1].name",
                "attributes[1].options"
            ]
        );
        let bad: Result<AttributeDef, _> =
            serde_json::from_value(json!({"name": "a", "field_type": "date"}));
        assert!(bad.unwrap_err().to_string().contains("must be one of"));
    }
}
