//! What a client may send to create or change a customer or one of its addresses, and the
//! rules it must meet that need no database.

use domain::catalog::product::normalize_tags;
use domain::customer::{ADDRESSES_MAX, CustomerStatus, NOTE_MAX, composed_name};
use domain::order::{Address, TEXT_MAX};
use domain::{FieldErrors, Patch, validation};
use schemars::JsonSchema;
use serde::Deserialize;
use storage::customers::{Customer, CustomerData};

#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct NewCustomer {
    /// Required when the account has several sellers.
    #[serde(default)]
    pub seller_id: Option<i64>,
    /// The display name; "first last" when absent.
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    first_name: Option<String>,
    #[serde(default)]
    last_name: Option<String>,
    /// Unique per seller, whatever its case.
    #[serde(default)]
    email: Option<String>,
    #[serde(default)]
    phone_number: Option<String>,
    #[serde(default)]
    company: Option<String>,
    #[serde(default)]
    opt_in: Option<bool>,
    #[serde(default)]
    status: Option<CustomerStatus>,
    #[serde(default)]
    tags: Option<Vec<String>>,
    #[serde(default)]
    note: Option<String>,
    /// The customer's first addresses; the first is the default for shipping and billing
    /// unless another is marked so.
    #[serde(default)]
    addresses: Option<Vec<NewAddress>>,
    /// Lets the customer sign in; never shown. At least 10 characters.
    #[serde(default)]
    password: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct CustomerChanges {
    #[serde(default)]
    name: Patch<String>,
    #[serde(default)]
    first_name: Patch<String>,
    #[serde(default)]
    last_name: Patch<String>,
    #[serde(default)]
    email: Patch<String>,
    #[serde(default)]
    phone_number: Patch<String>,
    #[serde(default)]
    company: Patch<String>,
    #[serde(default)]
    opt_in: Patch<bool>,
    #[serde(default)]
    status: Patch<CustomerStatus>,
    #[serde(default)]
    tags: Patch<Vec<String>>,
    #[serde(default)]
    note: Patch<String>,
    /// One of the customer's addresses, or null.
    #[serde(default)]
    default_shipping_address_id: Patch<i64>,
    /// One of the customer's addresses, or null.
    #[serde(default)]
    default_billing_address_id: Patch<i64>,
    /// Refused: addresses change through the customer's addresses.
    #[serde(default)]
    addresses: Patch<serde_json::Value>,
    /// Refused: a customer stays with its seller.
    #[serde(default)]
    seller_id: Patch<serde_json::Value>,
    /// A new password (never shown; at least 10 characters); ends the customer's sessions.
    #[serde(default)]
    password: Option<String>,
}

/// What a signed-in customer may change of their own profile. Their email, status, tags
/// and note are the shop's to change.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct OwnChanges {
    #[serde(default)]
    name: Patch<String>,
    #[serde(default)]
    first_name: Patch<String>,
    #[serde(default)]
    last_name: Patch<String>,
    #[serde(default)]
    phone_number: Patch<String>,
    #[serde(default)]
    company: Patch<String>,
    #[serde(default)]
    opt_in: Patch<bool>,
    #[serde(default)]
    default_shipping_address_id: Patch<i64>,
    #[serde(default)]
    default_billing_address_id: Patch<i64>,
    /// Refused: the shop changes it.
    #[serde(default)]
    email: Patch<serde_json::Value>,
    /// Refused: the shop changes it.
    #[serde(default)]
    status: Patch<serde_json::Value>,
    /// Refused: the shop changes them.
    #[serde(default)]
    tags: Patch<serde_json::Value>,
    /// Refused: the shop changes it.
    #[serde(default)]
    note: Patch<serde_json::Value>,
    /// Refused: a password changes through the account's password.
    #[serde(default)]
    password: Patch<serde_json::Value>,
}

impl OwnChanges {
    /// The same changes as the shop would make them, once none names a field the customer
    /// may not change.
    pub(super) fn into_changes(self) -> Result<CustomerChanges, FieldErrors> {
        let mut errors = FieldErrors::new();
        for (field, given) in [
            ("email", !self.email.is_absent()),
            ("status", !self.status.is_absent()),
            ("tags", !self.tags.is_absent()),
            ("note", !self.note.is_absent()),
            ("password", !self.password.is_absent()),
        ] {
            if given {
                errors.add(
                    field,
                    if field == "password" {
                        "changes through the account's password"
                    } else {
                        "is the shop's to change"
                    },
                );
            }
        }
        errors.into_result()?;
        Ok(CustomerChanges {
            name: self.name,
            first_name: self.first_name,
            last_name: self.last_name,
            phone_number: self.phone_number,
            company: self.company,
            opt_in: self.opt_in,
            default_shipping_address_id: self.default_shipping_address_id,
            default_billing_address_id: self.default_billing_address_id,
            ..CustomerChanges::default()
        })
    }
}

/// An address to add to a customer.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct NewAddress {
    #[serde(flatten)]
    address: Address,
    /// Make it the customer's default shipping address.
    #[serde(default)]
    default_shipping: bool,
    /// Make it the customer's default billing address.
    #[serde(default)]
    default_billing: bool,
}

/// Changes to one address: its parts (a part given as null is cleared) and whether it is
/// a default.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct AddressChanges {
    #[serde(default)]
    name: Patch<String>,
    #[serde(default)]
    company: Patch<String>,
    #[serde(default)]
    street: Patch<String>,
    #[serde(default)]
    street_2: Patch<String>,
    #[serde(default)]
    locality: Patch<String>,
    #[serde(default)]
    region: Patch<String>,
    #[serde(default)]
    postal_code: Patch<String>,
    #[serde(default)]
    country_code: Patch<String>,
    #[serde(default)]
    phone_number: Patch<String>,
    /// true: make it the default shipping address; false: stop it being so.
    #[serde(default)]
    default_shipping: Option<bool>,
    /// true: make it the default billing address; false: stop it being so.
    #[serde(default)]
    default_billing: Option<bool>,
}

/// A checked address and the defaults it asks to be.
#[derive(Clone, Debug, PartialEq)]
pub struct AddressDraft {
    pub address: Address,
    pub default_shipping: Option<bool>,
    pub default_billing: Option<bool>,
}

/// A checked new customer: its fields and first addresses (defaults not yet set).
#[derive(Clone, Debug)]
pub struct CustomerDraft {
    pub data: CustomerData,
    pub addresses: Vec<AddressDraft>,
    /// A password that met the rules, to hash.
    pub password: Option<String>,
}

impl NewCustomer {
    /// A customer with only this email (an order's contact), named as the order names it.
    pub fn for_order(email: &str, name: Option<&str>, phone_number: Option<&str>) -> Self {
        Self {
            email: Some(email.to_owned()),
            name: name.map(str::to_owned),
            phone_number: phone_number.map(str::to_owned),
            ..Self::default()
        }
    }

    pub(super) fn validate(self) -> Result<CustomerDraft, FieldErrors> {
        let mut errors = FieldErrors::new();
        let mut data = CustomerData {
            name: text("name", self.name, &mut errors),
            first_name: text("first_name", self.first_name, &mut errors),
            last_name: text("last_name", self.last_name, &mut errors),
            email: email(self.email, &mut errors),
            phone_number: text("phone_number", self.phone_number, &mut errors),
            company: text("company", self.company, &mut errors),
            opt_in: self.opt_in.unwrap_or(false),
            status: Some(self.status.unwrap_or(CustomerStatus::Active)),
            tags: tags(self.tags.unwrap_or_default(), &mut errors),
            note: note(self.note, &mut errors),
            default_shipping_address_id: None,
            default_billing_address_id: None,
        };
        if data.name.is_none() {
            data.name = composed_name(data.first_name.as_deref(), data.last_name.as_deref());
        }
        let given = self.addresses.unwrap_or_default();
        if given.len() > ADDRESSES_MAX {
            errors.add(
                "addresses",
                format!("has too many addresses (maximum is {ADDRESSES_MAX})"),
            );
        }
        let addresses = given
            .into_iter()
            .enumerate()
            .map(|(i, new)| new.check(&format!("addresses[{i}]"), &mut errors))
            .collect();
        reachable(&data, &mut errors);
        let password = checked_password(self.password, &mut errors);
        errors.into_result()?;
        Ok(CustomerDraft {
            data,
            addresses,
            password,
        })
    }
}

impl NewAddress {
    pub(super) fn validate(self) -> Result<AddressDraft, FieldErrors> {
        let mut errors = FieldErrors::new();
        let draft = self.check("", &mut errors);
        errors.into_result()?;
        Ok(draft)
    }

    /// The address checked, its problems named under `prefix` (`addresses[0].`).
    fn check(self, prefix: &str, errors: &mut FieldErrors) -> AddressDraft {
        AddressDraft {
            address: address_parts(self.address, prefix, errors),
            default_shipping: Some(self.default_shipping),
            default_billing: Some(self.default_billing),
        }
    }
}

impl AddressChanges {
    /// `current` with these changes, checked.
    pub(super) fn apply(self, current: Address) -> Result<AddressDraft, FieldErrors> {
        let mut address = current;
        for (patch, slot) in [
            (self.name, &mut address.name),
            (self.company, &mut address.company),
            (self.street, &mut address.street),
            (self.street_2, &mut address.street_2),
            (self.locality, &mut address.locality),
            (self.region, &mut address.region),
            (self.postal_code, &mut address.postal_code),
            (self.country_code, &mut address.country_code),
            (self.phone_number, &mut address.phone_number),
        ] {
            match patch {
                Patch::Absent => {}
                Patch::Null => *slot = None,
                Patch::Value(v) => *slot = Some(v),
            }
        }
        let mut errors = FieldErrors::new();
        let address = address_parts(address, "", &mut errors);
        errors.into_result()?;
        Ok(AddressDraft {
            address,
            default_shipping: self.default_shipping,
            default_billing: self.default_billing,
        })
    }
}

impl CustomerChanges {
    /// Whether the changes give a new password (which ends the customer's sessions).
    pub fn gives_password(&self) -> bool {
        self.password.is_some()
    }

    /// Takes the new password out of the changes, checked (its problems go to `errors`).
    pub(super) fn take_password(&mut self, errors: &mut FieldErrors) -> Option<String> {
        checked_password(self.password.take(), errors)
    }

    /// The data of `current` with these changes, checked; the default addresses named are
    /// checked against the customer's addresses by the caller.
    pub(super) fn apply(self, current: &Customer) -> Result<CustomerData, FieldErrors> {
        let mut errors = FieldErrors::new();
        for (field, given) in [
            ("addresses", !self.addresses.is_absent()),
            ("seller_id", !self.seller_id.is_absent()),
        ] {
            if given {
                errors.add(
                    field,
                    if field == "addresses" {
                        "changes through the customer's addresses"
                    } else {
                        "cannot be changed"
                    },
                );
            }
        }
        let mut data = current.data();
        let names_change = !(self.first_name.is_absent() && self.last_name.is_absent());
        let mut optional =
            |field: &str, patch: Patch<String>, slot: &mut Option<String>| match patch {
                Patch::Absent => {}
                Patch::Null => *slot = None,
                Patch::Value(v) if field == "email" => *slot = email(Some(v), &mut errors),
                Patch::Value(v) => *slot = text(field, Some(v), &mut errors),
            };
        let name_given = !self.name.is_absent();
        optional("name", self.name, &mut data.name);
        optional("first_name", self.first_name, &mut data.first_name);
        optional("last_name", self.last_name, &mut data.last_name);
        optional("email", self.email, &mut data.email);
        optional("phone_number", self.phone_number, &mut data.phone_number);
        optional("company", self.company, &mut data.company);
        // A name that was composed follows the parts it was composed of.
        let was_composed = current.name
            == composed_name(current.first_name.as_deref(), current.last_name.as_deref());
        if !name_given && names_change && (was_composed || current.name.is_none()) {
            data.name = composed_name(data.first_name.as_deref(), data.last_name.as_deref());
        }
        match self.opt_in {
            Patch::Absent => {}
            Patch::Null => errors.add("opt_in", "can't be null"),
            Patch::Value(v) => data.opt_in = v,
        }
        match self.status {
            Patch::Absent => {}
            Patch::Null => errors.add("status", "can't be null"),
            Patch::Value(v) => data.status = Some(v),
        }
        match self.tags {
            Patch::Absent => {}
            Patch::Null => errors.add("tags", "can't be null (send [] to clear them)"),
            Patch::Value(v) => data.tags = tags(v, &mut errors),
        }
        match self.note {
            Patch::Absent => {}
            Patch::Null => data.note.clear(),
            Patch::Value(v) => data.note = note(Some(v), &mut errors),
        }
        for (patch, slot) in [
            (
                self.default_shipping_address_id,
                &mut data.default_shipping_address_id,
            ),
            (
                self.default_billing_address_id,
                &mut data.default_billing_address_id,
            ),
        ] {
            match patch {
                Patch::Absent => {}
                Patch::Null => *slot = None,
                Patch::Value(id) => *slot = Some(id),
            }
        }
        reachable(&data, &mut errors);
        errors.into_result()?;
        Ok(data)
    }
}

/// A password given, if it meets the rules; its problems go to `errors`.
pub(super) fn checked_password(
    password: Option<String>,
    errors: &mut FieldErrors,
) -> Option<String> {
    let password = password?;
    match validation::password(&password) {
        Ok(()) => Some(password),
        Err(message) => {
            errors.add("password", message);
            None
        }
    }
}

/// A customer is someone the seller can name or reach.
fn reachable(data: &CustomerData, errors: &mut FieldErrors) {
    if data.email.is_none()
        && data.phone_number.is_none()
        && data.name.is_none()
        && errors.is_empty()
    {
        errors.add(
            "email",
            "a customer needs an email, a phone number or a name",
        );
    }
}

/// A trimmed text field; blank means none.
fn text(field: &str, value: Option<String>, errors: &mut FieldErrors) -> Option<String> {
    let value = value
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())?;
    errors.check(field, validation::length(&value, TEXT_MAX));
    Some(value)
}

fn email(value: Option<String>, errors: &mut FieldErrors) -> Option<String> {
    let value = value
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())?;
    errors.check("email", validation::email(&value));
    Some(value)
}

fn tags(given: Vec<String>, errors: &mut FieldErrors) -> Vec<String> {
    normalize_tags(&given).unwrap_or_else(|message| {
        errors.add("tags", message);
        Vec::new()
    })
}

fn note(value: Option<String>, errors: &mut FieldErrors) -> String {
    let note = value.unwrap_or_default();
    errors.check("note", validation::length(&note, NOTE_MAX));
    note
}

/// The address with its parts trimmed and checked, problems named `{prefix}.{part}` (or
/// `{part}` without a prefix).
fn address_parts(address: Address, prefix: &str, errors: &mut FieldErrors) -> Address {
    let (address, problems) = address.normalized();
    for (part, message) in problems {
        if prefix.is_empty() {
            errors.add(part, message);
        } else {
            errors.add(format!("{prefix}.{part}"), message);
        }
    }
    address
}
