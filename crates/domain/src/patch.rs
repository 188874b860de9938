//! A field of a partial update, which must tell a field left out from one set to `null`.

use serde::{Deserialize, Deserializer};

/// A field of a partial update: left out, set to `null`, or set to a value.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Patch<T> {
    #[default]
    Absent,
    Null,
    Value(T),
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Patch<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match Option::<T>::deserialize(deserializer)? {
            Some(value) => Patch::Value(value),
            None => Patch::Null,
        })
    }
}

/// Described as the value or `null`; leaving the field out is what makes it absent.
impl<T: schemars::JsonSchema> schemars::JsonSchema for Patch<T> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("Nullable_{}", T::schema_name()).into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Option<T>>::json_schema(generator)
    }
}

impl<T> Patch<T> {
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Patch<U> {
        match self {
            Patch::Absent => Patch::Absent,
            Patch::Null => Patch::Null,
            Patch::Value(v) => Patch::Value(f(v)),
        }
    }

    pub fn is_absent(&self) -> bool {
        matches!(self, Patch::Absent)
    }
}
