//! What a client may send to add or change a shop's payment method, and the checks that
//! need no database: the name, the instructions, the position, and settings limited to
//! the keys the method's type declares (secret ones written, never read back).

use std::collections::BTreeMap;

use domain::payment::{MethodType, SettingKey, check_setting};
use domain::{FieldErrors, Patch, limits, validation};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use storage::payment_methods::{MethodData, PaymentMethod};

const NAME_MAX: usize = 100;
const INSTRUCTIONS_MAX: usize = 5_000;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NewPaymentMethod {
    /// `test_gateway`, `bank_transfer` or `cash_on_delivery`; never changes.
    #[serde(rename = "type")]
    method_type: MethodType,
    /// What buyers are shown (default: the type's name, e.g. "Bank transfer").
    #[serde(default)]
    name: Option<String>,
    /// What buyers are told to do (where to transfer, what to have ready).
    #[serde(default)]
    instructions: Option<String>,
    /// Whether new orders may name it (default true).
    #[serde(default)]
    enabled: Option<bool>,
    /// Its place in the shop's list (default: after the last one).
    #[serde(default)]
    position: Option<i64>,
    /// The keys its type declares, as strings (numbers are kept as their text); secret
    /// keys are written only, and listed in `secrets_set` once set.
    #[serde(default)]
    settings: Option<BTreeMap<String, Value>>,
}

#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct PaymentMethodChanges {
    #[serde(default)]
    name: Patch<String>,
    #[serde(default)]
    instructions: Patch<String>,
    #[serde(default)]
    enabled: Patch<bool>,
    #[serde(default)]
    position: Patch<i64>,
    /// Merged into the current settings: each key given is set, or unset by null; keys
    /// not given stay as they are (secret ones included).
    #[serde(default)]
    settings: Patch<BTreeMap<String, Value>>,
    /// Refused: a method keeps its type (add another method instead).
    #[serde(default, rename = "type")]
    method_type: Patch<Value>,
}

/// Settings to write over the current ones: each key set to a value or unset (`None`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SettingChanges {
    pub public: BTreeMap<String, Option<String>>,
    /// Never logged: `Debug` of the services' types that hold it shows the keys only.
    pub secret: SecretChanges,
}

/// Secret settings to set or unset, by key; their values are never shown or logged.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct SecretChanges(pub BTreeMap<String, Option<String>>);

impl std::fmt::Debug for SecretChanges {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.keys()).finish()
    }
}

/// A checked new method, before the checks that need the database.
#[derive(Debug)]
pub struct MethodDraft {
    pub method_type: MethodType,
    pub data: MethodData,
    /// `None`: after the shop's last method.
    pub position: Option<i64>,
    pub settings: SettingChanges,
}

impl NewPaymentMethod {
    pub fn validate(self) -> Result<MethodDraft, FieldErrors> {
        let mut errors = FieldErrors::new();
        let method_type = self.method_type;
        let name = match self.name {
            Some(name) => checked_name(name, &mut errors),
            None => default_name(method_type).to_owned(),
        };
        let instructions = checked_instructions(self.instructions.unwrap_or_default(), &mut errors);
        if let Some(position) = self.position {
            errors.check("position", limits::POSITION.check(position));
        }
        let settings = settings(method_type, self.settings.unwrap_or_default(), &mut errors);
        errors.into_result()?;
        Ok(MethodDraft {
            method_type,
            data: MethodData {
                name,
                instructions,
                enabled: self.enabled.unwrap_or(true),
                position: self.position.unwrap_or(0),
                settings: BTreeMap::new(),
                secrets_set: Vec::new(),
            },
            position: self.position,
            settings,
        })
    }
}

impl PaymentMethodChanges {
    /// The method's data with these changes (settings still to merge), and the settings
    /// to merge.
    pub fn apply(
        self,
        method: &PaymentMethod,
    ) -> Result<(MethodData, SettingChanges), FieldErrors> {
        let mut errors = FieldErrors::new();
        let mut data = method.data();
        if !self.method_type.is_absent() {
            errors.add(
                "type",
                "cannot change: add a method of the other type instead",
            );
        }
        for (field, null) in [
            ("name", self.name == Patch::Null),
            ("enabled", self.enabled == Patch::Null),
            ("position", self.position == Patch::Null),
        ] {
            if null {
                errors.add(field, "can't be null");
            }
        }
        if let Patch::Value(name) = self.name {
            data.name = checked_name(name, &mut errors);
        }
        match self.instructions {
            Patch::Absent => {}
            Patch::Null => data.instructions.clear(),
            Patch::Value(text) => data.instructions = checked_instructions(text, &mut errors),
        }
        if let Patch::Value(enabled) = self.enabled {
            data.enabled = enabled;
        }
        if let Patch::Value(position) = self.position {
            errors.check("position", limits::POSITION.check(position));
            data.position = position;
        }
        let settings = match self.settings {
            Patch::Value(given) => settings(method.method_type, given, &mut errors),
            // null: every setting unset, the secret ones included.
            Patch::Null => {
                let mut cleared = SettingChanges::default();
                for key in method.method_type.settings() {
                    let slot = if key.secret {
                        &mut cleared.secret.0
                    } else {
                        &mut cleared.public
                    };
                    slot.insert(key.name.to_owned(), None);
                }
                cleared
            }
            Patch::Absent => SettingChanges::default(),
        };
        errors.into_result()?;
        Ok((data, settings))
    }
}

/// What buyers see of a method named by nobody.
pub fn default_name(method_type: MethodType) -> &'static str {
    match method_type {
        MethodType::TestGateway => "Test gateway",
        MethodType::BankTransfer => "Bank transfer",
        MethodType::CashOnDelivery => "Cash on delivery",
    }
}

fn checked_name(name: String, errors: &mut FieldErrors) -> String {
    let name = name.trim().to_owned();
    if name.is_empty() {
        errors.add("name", "can't be blank");
    } else {
        errors.check("name", validation::length(&name, NAME_MAX));
    }
    name
}

fn checked_instructions(text: String, errors: &mut FieldErrors) -> String {
    let text = text.trim().to_owned();
    errors.check("instructions", validation::length(&text, INSTRUCTIONS_MAX));
    text
}

/// The settings given, checked against the keys `method_type` declares.
fn settings(
    method_type: MethodType,
    given: BTreeMap<String, Value>,
    errors: &mut FieldErrors,
) -> SettingChanges {
    let mut changes = SettingChanges::default();
    for (name, value) in given {
        let field = format!("settings.{name}");
        let Some(key) = method_type.setting(&name) else {
            let declared: Vec<&str> = method_type.settings().iter().map(|k| k.name).collect();
            errors.add(
                field,
                if declared.is_empty() {
                    format!("is not a setting: a {method_type} method has none")
                } else {
                    format!(
                        "is not a setting of a {method_type} method (its settings are {})",
                        declared.join(", ")
                    )
                },
            );
            continue;
        };
        let value = match value {
            Value::Null => None,
            Value::String(text) => Some(text.trim().to_owned()),
            Value::Number(n) => Some(n.to_string()),
            _ => {
                errors.add(field, "must be a string");
                continue;
            }
        };
        if let Some(text) = &value {
            errors.check(&field, checked_value(key, text));
        }
        // A blank value unsets the key.
        let value = value.filter(|v| !v.is_empty());
        let slot = if key.secret {
            &mut changes.secret.0
        } else {
            &mut changes.public
        };
        slot.insert(name, value);
    }
    changes
}

fn checked_value(key: SettingKey, value: &str) -> Result<(), String> {
    if value.is_empty() {
        return Ok(());
    }
    check_setting(key, value)
}

/// `current` with `changes` applied.
pub fn merged(
    mut current: BTreeMap<String, String>,
    changes: &BTreeMap<String, Option<String>>,
) -> BTreeMap<String, String> {
    for (key, value) in changes {
        match value {
            Some(value) => current.insert(key.clone(), value.clone()),
            None => current.remove(key),
        };
    }
    current
}
