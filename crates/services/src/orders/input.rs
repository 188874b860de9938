//! What order requests may say, and the checks that need no database: quantities, contact
//! fields, addresses, amounts, and which fields an order's status lets change. (Whether a
//! variant may be sold in the shop, and at what price, is checked by the operations.)

use crate::customers::ContactLink;
use crate::payment_methods::MethodPick;
use domain::catalog::product::amount;
use domain::order::{Address, OrderStatus, TEXT_MAX};
use domain::{FieldErrors, Patch, limits, validation};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use storage::orders::{Order, OrderDetails, Tracking};

/// The most lines an order may have.
pub const LINES_MAX: usize = 250;
const NOTE_MAX: usize = 10_000;

/// One line as a request gives it: a variant and how many of it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[schemars(rename = "OrderLineInput")]
pub struct LineInput {
    variant_id: i64,
    /// How many (default 1); also accepted as `units`, its Bootic v1 name.
    #[serde(default = "one", alias = "units")]
    quantity: i64,
    /// One of the variant's subscription fees: the buyer chose to subscribe. Paying the
    /// order starts a subscription purchase for the line, and the fee's setup fee is
    /// charged once on the line.
    #[serde(default)]
    subscription_fee_id: Option<i64>,
}

fn one() -> i64 {
    1
}

/// A line to write: a variant and how many of it (priced and described by the operations).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WantedLine {
    pub variant_id: i64,
    pub quantity: i64,
    /// The fee the line subscribes on, if any.
    pub subscription_fee_id: Option<i64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NewOrder {
    /// The order's lines; also accepted as `line_items`, its Bootic v1 name.
    #[serde(alias = "line_items")]
    lines: Vec<LineInput>,
    /// A customer of the shop's seller; without it, the order is linked to the customer
    /// with its email (created when there is none).
    #[serde(default)]
    contact_id: Option<i64>,
    #[serde(default)]
    email: Option<String>,
    #[serde(default)]
    contact_name: Option<String>,
    #[serde(default)]
    phone_number: Option<String>,
    #[serde(default)]
    shipping_address: Option<Address>,
    #[serde(default)]
    billing_address: Option<Address>,
    #[serde(default)]
    note: Option<String>,
    /// An enabled shipping table of the shop, which prices the shipping.
    #[serde(default)]
    shipping_table_id: Option<i64>,
    /// Shipping set by hand, in the order's currency (without a shipping table).
    #[serde(default)]
    shipping_total: Option<i64>,
    /// An enabled payment method of the shop; the order keeps a copy of its type and name.
    #[serde(default)]
    payment_method_id: Option<i64>,
    /// The currency the order is priced in (default: the shop's); another one needs the
    /// shop's exchange rate to it.
    #[serde(default)]
    currency_code: Option<String>,
}

/// How an order's shipping is priced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShippingChoice {
    /// By the shop's shipping table with this id.
    Table(i64),
    /// This amount, set by hand, in the order's currency.
    Custom(i64),
}

impl ShippingChoice {
    /// How `order` is priced now.
    pub fn of(order: &Order) -> Self {
        order
            .basis
            .shipping_table_id
            .map_or(Self::Custom(order.shipping_total), Self::Table)
    }
}

/// A checked request, before the checks that need the database.
#[derive(Debug)]
pub struct OrderDraft {
    pub details: OrderDetails,
    /// Whom the order is linked to.
    pub contact: ContactLink,
    pub shipping: ShippingChoice,
    /// `None`: the shop's currency.
    pub currency_code: Option<String>,
    /// `None`: the lines stay as they are.
    pub lines: Option<Vec<WantedLine>>,
    /// The payment method the order is to name.
    pub payment_method: MethodPick,
    /// Whether something the order's prices depend on changes.
    pub reprice: bool,
}

impl NewOrder {
    pub fn validate(self, errors: &mut FieldErrors) -> OrderDraft {
        let shipping = match (self.shipping_table_id, self.shipping_total) {
            (Some(id), given) => {
                if given.is_some() {
                    errors.add("shipping_total", SET_BY_TABLE);
                }
                ShippingChoice::Table(id)
            }
            (None, amount_given) => {
                let shipping_total = amount_given.unwrap_or(0);
                errors.check("shipping_total", amount(shipping_total));
                ShippingChoice::Custom(shipping_total)
            }
        };
        let currency_code = self
            .currency_code
            .inspect(|code| errors.check("currency_code", validation::currency_code(code)));
        let details = OrderDetails {
            contact_id: None,
            email: contact_text("email", self.email, errors),
            contact_name: contact_text("contact_name", self.contact_name, errors),
            phone_number: contact_text("phone_number", self.phone_number, errors),
            shipping_address: address("shipping_address", self.shipping_address, errors),
            billing_address: address("billing_address", self.billing_address, errors),
            note: note(self.note, errors),
            payment_method: None,
        };
        OrderDraft {
            details,
            contact: self
                .contact_id
                .map_or(ContactLink::ByEmail, ContactLink::Id),
            shipping,
            currency_code,
            lines: Some(lines(self.lines, errors)),
            payment_method: self
                .payment_method_id
                .map_or(MethodPick::Clear, MethodPick::Id),
            reprice: true,
        }
    }
}

const SET_BY_TABLE: &str = "is set by the order's shipping table: give one or the other";

#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct OrderChanges {
    /// The order's new lines; also accepted as `line_items`, its Bootic v1 name.
    #[serde(default, alias = "line_items")]
    lines: Patch<Vec<LineInput>>,
    /// In checkout: a customer of the shop's seller, or null to unlink the order. A new
    /// email in checkout links the order to the customer with that email.
    #[serde(default)]
    contact_id: Patch<i64>,
    #[serde(default)]
    email: Patch<String>,
    #[serde(default)]
    contact_name: Patch<String>,
    #[serde(default)]
    phone_number: Patch<String>,
    #[serde(default)]
    shipping_address: Patch<Address>,
    #[serde(default)]
    billing_address: Patch<Address>,
    #[serde(default)]
    note: Patch<String>,
    /// In checkout: an enabled shipping table of the shop, or null for shipping set by
    /// hand.
    #[serde(default)]
    shipping_table_id: Patch<i64>,
    /// In checkout, without a shipping table: shipping set by hand, in the order's
    /// currency.
    #[serde(default)]
    shipping_total: Patch<i64>,
    /// In checkout: the currency the order is priced in, or null for the shop's.
    #[serde(default)]
    currency_code: Patch<String>,
    #[serde(default)]
    status: Patch<Value>,
    /// In checkout: an enabled payment method of the shop, or null for none.
    #[serde(default)]
    payment_method_id: Patch<i64>,
}

impl OrderChanges {
    /// The draft of `order` with these changes. Lines, addresses and shipping change only
    /// in checkout; the contact fields and the note in any status.
    pub fn apply(self, order: &Order, errors: &mut FieldErrors) -> OrderDraft {
        if !self.status.is_absent() {
            errors.add(
                "status",
                "changes through the order's place, close, ship and cancel links",
            );
        }
        if !order.status.is_editable() {
            for (field, given) in [
                ("lines", !self.lines.is_absent()),
                ("shipping_address", !self.shipping_address.is_absent()),
                ("billing_address", !self.billing_address.is_absent()),
                ("shipping_total", !self.shipping_total.is_absent()),
                ("shipping_table_id", !self.shipping_table_id.is_absent()),
                ("currency_code", !self.currency_code.is_absent()),
                ("contact_id", !self.contact_id.is_absent()),
                ("payment_method_id", !self.payment_method_id.is_absent()),
            ] {
                if given {
                    errors.add(field, checkout_only(order.status));
                }
            }
        }
        for (field, null) in [
            ("lines", self.lines == Patch::Null),
            ("shipping_total", self.shipping_total == Patch::Null),
        ] {
            if null {
                errors.add(field, "can't be null");
            }
        }
        // In checkout the order follows its email to a customer; after it, the email is
        // the order's copy and the link stays.
        let contact = match (&self.contact_id, &self.email) {
            _ if !order.status.is_editable() => ContactLink::Keep,
            (Patch::Value(id), _) => ContactLink::Id(*id),
            (Patch::Null, _) => ContactLink::Unlinked,
            (Patch::Absent, Patch::Absent) => ContactLink::Keep,
            (Patch::Absent, _) => ContactLink::ByEmail,
        };
        let editable = order.status.is_editable();
        let reprice = editable
            && [
                self.lines.is_absent(),
                self.shipping_table_id.is_absent(),
                self.shipping_total.is_absent(),
                self.currency_code.is_absent(),
                self.shipping_address.is_absent(),
            ]
            .contains(&false);
        let mut details = order.details();
        let mut contact_field =
            |field: &str, patch: Patch<String>, slot: &mut Option<String>| match patch {
                Patch::Absent => {}
                Patch::Null => *slot = None,
                Patch::Value(v) => *slot = contact_text(field, Some(v), errors),
            };
        contact_field("email", self.email, &mut details.email);
        contact_field("contact_name", self.contact_name, &mut details.contact_name);
        contact_field("phone_number", self.phone_number, &mut details.phone_number);
        for (field, patch, slot) in [
            (
                "shipping_address",
                self.shipping_address,
                &mut details.shipping_address,
            ),
            (
                "billing_address",
                self.billing_address,
                &mut details.billing_address,
            ),
        ] {
            match patch {
                _ if !order.status.is_editable() => {}
                Patch::Absent => {}
                Patch::Null => *slot = None,
                Patch::Value(a) => *slot = address(field, Some(a), errors),
            }
        }
        match self.note {
            Patch::Absent => {}
            Patch::Null => details.note.clear(),
            Patch::Value(n) => details.note = note(Some(n), errors),
        }
        // What only checkout may change was refused above in other statuses.
        let shipping = match (self.shipping_table_id, self.shipping_total) {
            _ if !editable => ShippingChoice::of(order),
            (Patch::Value(id), given) => {
                if !given.is_absent() {
                    errors.add("shipping_total", SET_BY_TABLE);
                }
                ShippingChoice::Table(id)
            }
            (table, Patch::Value(s)) => {
                if table.is_absent() && order.basis.shipping_table_id.is_some() {
                    errors.add(
                        "shipping_total",
                        "is set by the order's shipping table (set shipping_table_id to null to set it by hand)",
                    );
                }
                errors.check("shipping_total", amount(s));
                ShippingChoice::Custom(s)
            }
            (Patch::Null, _) => ShippingChoice::Custom(0),
            (Patch::Absent, _) => ShippingChoice::of(order),
        };
        let currency_code = match self.currency_code {
            Patch::Value(code) if editable => {
                errors.check("currency_code", validation::currency_code(&code));
                Some(code)
            }
            Patch::Null if editable => None,
            _ => Some(order.currency_code.clone()),
        };
        let lines = match self.lines {
            Patch::Value(given) if editable => Some(lines(given, errors)),
            _ => None,
        };
        let payment_method = match self.payment_method_id {
            _ if !editable => MethodPick::Keep,
            Patch::Absent => MethodPick::Keep,
            Patch::Null => MethodPick::Clear,
            Patch::Value(id) => MethodPick::Id(id),
        };
        OrderDraft {
            details,
            contact,
            shipping,
            currency_code,
            lines,
            payment_method,
            reprice,
        }
    }
}

/// The tracking a shipment may carry.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct ShipInput {
    #[serde(default)]
    tracking_code: Option<String>,
    #[serde(default)]
    courier_name: Option<String>,
    #[serde(default)]
    tracking_url: Option<String>,
}

impl ShipInput {
    pub fn validate(self, errors: &mut FieldErrors) -> Tracking {
        let tracking_url = contact_text("tracking_url", self.tracking_url, errors);
        if let Some(url) = &tracking_url
            && !(url.starts_with("https://") || url.starts_with("http://"))
        {
            errors.add("tracking_url", "must be an http or https URL");
        }
        Tracking {
            tracking_code: contact_text("tracking_code", self.tracking_code, errors),
            courier_name: contact_text("courier_name", self.courier_name, errors),
            tracking_url,
        }
    }
}

/// A shipment's tracking set on a closed order (which ships it) or changed on a shipped
/// one, and whether to tell the customer.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct TrackingInput {
    #[serde(flatten)]
    tracking: ShipInput,
    /// Mail the order's email the shipment and its tracking.
    #[serde(default)]
    pub notify: bool,
}

impl TrackingInput {
    pub fn validate(self, errors: &mut FieldErrors) -> (Tracking, bool) {
        (self.tracking.validate(errors), self.notify)
    }
}

/// The message for a field that only an order in checkout may change.
pub fn checkout_only(status: OrderStatus) -> String {
    format!("can change only while the order is in checkout (it is {status})")
}

fn lines(given: Vec<LineInput>, errors: &mut FieldErrors) -> Vec<WantedLine> {
    if given.is_empty() {
        errors.add("lines", "must name at least one variant");
    } else if given.len() > LINES_MAX {
        errors.add(
            "lines",
            format!("has too many lines (maximum is {LINES_MAX})"),
        );
    }
    let mut wanted: Vec<WantedLine> = Vec::with_capacity(given.len());
    for (i, line) in given.into_iter().enumerate() {
        errors.check(
            &format!("lines[{i}].quantity"),
            limits::QUANTITY.check(line.quantity),
        );
        let variant_id = line.variant_id;
        if wanted.iter().any(|w| w.variant_id == variant_id) {
            errors.add(
                format!("lines[{i}].variant_id"),
                "is given twice: give its total quantity on one line",
            );
        }
        wanted.push(WantedLine {
            variant_id,
            quantity: line.quantity,
            subscription_fee_id: line.subscription_fee_id,
        });
    }
    wanted
}

/// A trimmed contact or tracking field; blank means none. `email` must look like one.
fn contact_text(field: &str, value: Option<String>, errors: &mut FieldErrors) -> Option<String> {
    let value = value
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())?;
    if field == "email" {
        errors.check(field, validation::email(&value));
    } else {
        errors.check(field, validation::length(&value, TEXT_MAX));
    }
    Some(value)
}

fn address(field: &str, value: Option<Address>, errors: &mut FieldErrors) -> Option<Address> {
    let (address, problems) = value?.normalized();
    for (part, message) in problems {
        errors.add(format!("{field}.{part}"), message);
    }
    (address != Address::default()).then_some(address)
}

fn note(value: Option<String>, errors: &mut FieldErrors) -> String {
    let note = value.unwrap_or_default();
    errors.check("note", validation::length(&note, NOTE_MAX));
    note
}
