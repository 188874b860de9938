//! What a write returns: the value it wrote and the document its event carried.

use serde_json::Value;

/// A written value with the resource as a GET by the actor shows it now: the document its
/// event carried, rendered once in the transaction, which a request answers with as is.
#[derive(Clone, Debug)]
pub struct Shown<T> {
    pub value: T,
    pub document: Value,
}

impl<T> Shown<T> {
    pub fn new(value: T, document: Value) -> Self {
        Self { value, document }
    }
}
