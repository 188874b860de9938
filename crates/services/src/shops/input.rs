//! What a client may send to create or change a shop, and the rules it must meet.

use domain::Patch;
use domain::shop::{Storefront, validate_subdomain};
use domain::validation::{self, FieldErrors};
use schemars::JsonSchema;
use serde::Deserialize;
use storage::sellers::Seller;
use storage::shops::{Shop, ShopSettings};

const NAME_MAX: usize = 200;
const DESCRIPTION_MAX: usize = 5000;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NewShop {
    subdomain: String,
    name: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    locale: Option<String>,
    #[serde(default)]
    currency_code: Option<String>,
    #[serde(default)]
    timezone: Option<String>,
    #[serde(default)]
    contact_email: Option<String>,
    #[serde(default)]
    #[schemars(with = "Option<Storefront>")]
    storefront: Option<String>,
}

impl NewShop {
    /// The subdomain and settings, defaults taken from the seller, or every problem found.
    pub fn validate(self, seller: &Seller) -> Result<(String, ShopSettings), FieldErrors> {
        let mut errors = FieldErrors::new();
        let subdomain = self.subdomain.trim().to_owned();
        errors.check("subdomain", validate_subdomain(&subdomain));
        let storefront = parse_storefront(self.storefront.as_deref(), &mut errors);
        let settings = ShopSettings {
            name: self.name.trim().to_owned(),
            description: self.description.unwrap_or_default(),
            locale: self.locale.unwrap_or_else(|| "en".to_owned()),
            currency_code: self
                .currency_code
                .unwrap_or_else(|| seller.default_currency_code.clone()),
            timezone: self.timezone.unwrap_or_else(|| "UTC".to_owned()),
            contact_email: self.contact_email.as_deref().and_then(non_blank),
            storefront: storefront.unwrap_or(Storefront::Hosted),
        };
        check_settings(&settings, &mut errors);
        errors.into_result().map(|()| (subdomain, settings))
    }
}

#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct ShopChanges {
    #[serde(default)]
    subdomain: Patch<String>,
    #[serde(default)]
    name: Patch<String>,
    #[serde(default)]
    description: Patch<String>,
    #[serde(default)]
    locale: Patch<String>,
    #[serde(default)]
    currency_code: Patch<String>,
    #[serde(default)]
    timezone: Patch<String>,
    #[serde(default)]
    contact_email: Patch<String>,
    #[serde(default)]
    #[schemars(with = "Patch<Storefront>")]
    storefront: Patch<String>,
}

impl ShopChanges {
    /// The shop's settings with these changes applied, or every problem found.
    pub fn apply(self, shop: &Shop) -> Result<ShopSettings, FieldErrors> {
        let mut errors = FieldErrors::new();
        match &self.subdomain {
            Patch::Value(s) if *s == shop.subdomain => {}
            Patch::Absent => {}
            _ => errors.add("subdomain", "cannot be changed"),
        }
        let mut settings = shop.settings();
        let mut required = |field: &str, patch: Patch<String>, target: &mut String| match patch {
            Patch::Absent => {}
            Patch::Null => errors.add(field, "can't be null"),
            Patch::Value(v) => *target = v,
        };
        required(
            "name",
            self.name.map(|n| n.trim().to_owned()),
            &mut settings.name,
        );
        required("locale", self.locale, &mut settings.locale);
        required(
            "currency_code",
            self.currency_code,
            &mut settings.currency_code,
        );
        required("timezone", self.timezone, &mut settings.timezone);
        match self.description {
            Patch::Absent => {}
            Patch::Null => settings.description.clear(),
            Patch::Value(v) => settings.description = v,
        }
        match self.contact_email {
            Patch::Absent => {}
            Patch::Null => settings.contact_email = None,
            Patch::Value(v) => settings.contact_email = non_blank(&v),
        }
        match self.storefront {
            Patch::Absent => {}
            Patch::Null => errors.add("storefront", "can't be null"),
            Patch::Value(v) => {
                if let Some(s) = parse_storefront(Some(&v), &mut errors) {
                    settings.storefront = s;
                }
            }
        }
        check_settings(&settings, &mut errors);
        errors.into_result().map(|()| settings)
    }
}

/// Blank text clears an optional field.
fn non_blank(value: &str) -> Option<String> {
    let trimmed = value.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}

fn parse_storefront(value: Option<&str>, errors: &mut FieldErrors) -> Option<Storefront> {
    let value = value?;
    match value.parse() {
        Ok(s) => Some(s),
        Err(e) => {
            errors.add("storefront", e.to_string());
            None
        }
    }
}

fn check_settings(settings: &ShopSettings, errors: &mut FieldErrors) {
    if !errors.has("name") {
        errors.check("name", validation::text(&settings.name, NAME_MAX));
    }
    errors.check(
        "description",
        validation::length(&settings.description, DESCRIPTION_MAX),
    );
    if !errors.has("locale") {
        errors.check("locale", validation::locale(&settings.locale));
    }
    if !errors.has("currency_code") {
        errors.check(
            "currency_code",
            validation::currency_code(&settings.currency_code),
        );
    }
    if !errors.has("timezone") {
        errors.check("timezone", validation::timezone(&settings.timezone));
    }
    if let Some(email) = &settings.contact_email {
        errors.check("contact_email", validation::email(email));
    }
}
