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
