//! JSON documents kept in TEXT columns (the same type on both backends).

use serde::Serialize;
use serde::de::DeserializeOwned;

/// A column holding `T` as JSON text; decodes with `#[sqlx(try_from = "String")]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JsonText<T>(pub T);

impl<T: DeserializeOwned> TryFrom<String> for JsonText<T> {
    type Error = serde_json::Error;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        serde_json::from_str(&text).map(JsonText)
    }
}

/// The JSON text of a value for a TEXT column.
pub fn to_text<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).expect("values of our own types serialise")
}

/// A nullable column holding `T` as JSON text; decodes with
/// `#[sqlx(try_from = "Option<String>")]`.
impl<T: DeserializeOwned> TryFrom<Option<String>> for JsonText<Option<T>> {
    type Error = serde_json::Error;
    fn try_from(text: Option<String>) -> Result<Self, Self::Error> {
        match text {
            Some(text) => serde_json::from_str(&text).map(|v| JsonText(Some(v))),
            None => Ok(JsonText(None)),
        }
    }
}
