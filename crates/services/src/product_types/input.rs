//! What a client may send to create or change a product type, and the rules it must meet.

use domain::catalog::attributes::{self, AttributeDef};
use domain::{FieldErrors, Patch, validation};
use schemars::JsonSchema;
use serde::Deserialize;
use storage::product_types::ProductType;

const NAME_MAX: usize = 255;

/// The product type a request names.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeChoice {
    Keep,
    Clear,
    Id(i64),
    /// Found in any case, or created.
    Name(String),
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NewProductType {
    pub(super) name: String,
    #[serde(default)]
    pub seller_id: Option<i64>,
    #[serde(default)]
    pub(super) attributes: Option<Vec<AttributeDef>>,
}

#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct ProductTypeChanges {
    #[serde(default)]
    name: Patch<String>,
    #[serde(default)]
    attributes: Patch<Vec<AttributeDef>>,
    #[serde(default)]
    seller_id: Patch<i64>,
}

impl NewProductType {
    /// The name and schema, checked.
    pub(super) fn validate(self) -> Result<(String, Vec<AttributeDef>), FieldErrors> {
        let name = self.name.trim().to_owned();
        let defs = self.attributes.unwrap_or_default();
        check(&name, &defs)?;
        Ok((name, defs))
    }
}

impl ProductTypeChanges {
    /// The name and schema of `current` with these changes, checked.
    pub(super) fn apply(
        &self,
        current: &ProductType,
    ) -> Result<(String, Vec<AttributeDef>), FieldErrors> {
        let mut errors = FieldErrors::new();
        if !self.seller_id.is_absent() {
            errors.add("seller_id", "cannot be changed");
        }
        let name = match &self.name {
            Patch::Absent => current.name.clone(),
            Patch::Null => {
                errors.add("name", "can't be null");
                current.name.clone()
            }
            Patch::Value(name) => name.trim().to_owned(),
        };
        let defs = match &self.attributes {
            Patch::Absent => current.attributes.0.clone(),
            Patch::Null => Vec::new(),
            Patch::Value(defs) => defs.clone(),
        };
        errors.into_result()?;
        check(&name, &defs)?;
        Ok((name, defs))
    }
}

fn check(name: &str, defs: &[AttributeDef]) -> Result<(), FieldErrors> {
    let mut errors = FieldErrors::new();
    errors.check("name", validation::text(name, NAME_MAX));
    attributes::check_schema(defs, &mut errors);
    errors.into_result()
}
