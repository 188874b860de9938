//! What a client may send to change a subscription purchase: exactly the spec's writable
//! fields. Any other field is refused (422 naming it), as is a body that names none.

use std::collections::BTreeMap;

use domain::subscription::billing::{CYCLES, DISCOUNT, REMAINING_PAYMENTS};
use domain::subscription::purchase::{PausedBy, PurchaseState};
use domain::{CalendarDate, FieldErrors, Patch, Timestamp, limits};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// The writable fields, in the spec's order.
pub const WRITABLE: &[&str] = &[
    "state",
    "next_payment_on",
    "total_renewal_fee",
    "remaining_payments",
    "subscription_fee_id",
    "cancel_at",
    "payments_to_skip",
    "paused_by",
    "last_pause_at",
    "renewal_discount",
    "discount_num_charges",
    "end_date",
];

#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct PurchaseChanges {
    /// `active` (resume a paused purchase, or reactivate a failed one), `paused` or
    /// `cancelled`; `finished` and `failed` are reached by renewals only.
    #[serde(default)]
    state: Patch<String>,
    /// `YYYY-MM-DD`, today or later.
    #[serde(default)]
    next_payment_on: Patch<String>,
    #[serde(default)]
    total_renewal_fee: Patch<i64>,
    /// 0 to 1000; 0 is unlimited.
    #[serde(default)]
    remaining_payments: Patch<i64>,
    /// Another fee of the purchase's variant.
    #[serde(default)]
    subscription_fee_id: Patch<i64>,
    /// `YYYY-MM-DD`, today or later; null: no cancel planned.
    #[serde(default)]
    cancel_at: Patch<String>,
    #[serde(default)]
    payments_to_skip: Patch<i64>,
    /// `admin`, `customer` or `system` (default `admin` when pausing).
    #[serde(default)]
    paused_by: Patch<String>,
    /// RFC 3339 (default: now, when pausing).
    #[serde(default)]
    last_pause_at: Patch<String>,
    /// A percentage, 0 to 100, with at most two decimals.
    #[serde(default)]
    renewal_discount: Patch<Value>,
    #[serde(default)]
    discount_num_charges: Patch<i64>,
    /// `YYYY-MM-DD` or null.
    #[serde(default)]
    end_date: Patch<String>,
    /// Every other field, refused.
    #[serde(flatten)]
    #[schemars(skip)]
    others: BTreeMap<String, Value>,
}

/// The changes as checked without the database.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Changes {
    pub state: Option<PurchaseState>,
    pub next_payment_on: Option<CalendarDate>,
    pub total_renewal_fee: Option<i64>,
    pub remaining_payments: Option<i64>,
    pub subscription_fee_id: Option<i64>,
    pub cancel_at: Patch<CalendarDate>,
    pub payments_to_skip: Option<i64>,
    pub paused_by: Option<PausedBy>,
    pub last_pause_at: Option<Timestamp>,
    /// Hundredths of a percent.
    pub renewal_discount: Option<i64>,
    pub discount_num_charges: Option<i64>,
    pub end_date: Patch<CalendarDate>,
}

impl PurchaseChanges {
    /// The changes, or every problem found: a field not writable, a value out of its
    /// range or of the wrong form, a null where none is allowed, or no field at all.
    pub(super) fn checked(self) -> Result<Changes, FieldErrors> {
        let mut errors = FieldErrors::new();
        for field in self.others.keys() {
            errors.add(
                field.as_str(),
                format!(
                    "is not writable: a purchase changes only {}",
                    WRITABLE.join(", ")
                ),
            );
        }
        let given = [
            !self.state.is_absent(),
            !self.next_payment_on.is_absent(),
            !self.total_renewal_fee.is_absent(),
            !self.remaining_payments.is_absent(),
            !self.subscription_fee_id.is_absent(),
            !self.cancel_at.is_absent(),
            !self.payments_to_skip.is_absent(),
            !self.paused_by.is_absent(),
            !self.last_pause_at.is_absent(),
            !self.renewal_discount.is_absent(),
            !self.discount_num_charges.is_absent(),
            !self.end_date.is_absent(),
        ];
        if !given.contains(&true) && self.others.is_empty() {
            errors.add(
                "body",
                format!(
                    "names no writable field: give one of {}",
                    WRITABLE.join(", ")
                ),
            );
        }
        let state = required(&mut errors, "state", self.state).and_then(|s| {
            let parsed = s.parse::<PurchaseState>().ok();
            if parsed.is_none() {
                errors.add(
                    "state",
                    "must be active, paused or cancelled (finished and failed are reached by renewals)",
                );
            }
            parsed
        });
        let next_payment_on = required(&mut errors, "next_payment_on", self.next_payment_on)
            .and_then(|d| date(&mut errors, "next_payment_on", &d));
        let total_renewal_fee = ranged(
            &mut errors,
            "total_renewal_fee",
            self.total_renewal_fee,
            limits::AMOUNT,
        );
        let remaining_payments = ranged(
            &mut errors,
            "remaining_payments",
            self.remaining_payments,
            REMAINING_PAYMENTS,
        );
        let subscription_fee_id = ranged(
            &mut errors,
            "subscription_fee_id",
            self.subscription_fee_id,
            limits::ID,
        );
        let cancel_at = nullable_date(&mut errors, "cancel_at", self.cancel_at);
        let payments_to_skip = ranged(
            &mut errors,
            "payments_to_skip",
            self.payments_to_skip,
            CYCLES,
        );
        let paused_by = required(&mut errors, "paused_by", self.paused_by).and_then(|s| {
            let parsed = s.parse::<PausedBy>().ok();
            if parsed.is_none() {
                errors.add("paused_by", "must be admin, customer or system");
            }
            parsed
        });
        let last_pause_at =
            required(&mut errors, "last_pause_at", self.last_pause_at).and_then(|s| {
                let parsed = Timestamp::parse(&s);
                if parsed.is_none() {
                    errors.add("last_pause_at", Timestamp::MESSAGE);
                }
                parsed
            });
        let renewal_discount = required(&mut errors, "renewal_discount", self.renewal_discount)
            .and_then(|v| {
                let parsed = hundredths(&v);
                if parsed.is_none() {
                    errors.add(
                        "renewal_discount",
                        "must be a percentage from 0 to 100 with at most two decimals",
                    );
                }
                parsed
            });
        let discount_num_charges = ranged(
            &mut errors,
            "discount_num_charges",
            self.discount_num_charges,
            CYCLES,
        );
        let end_date = nullable_date(&mut errors, "end_date", self.end_date);
        errors.into_result()?;
        Ok(Changes {
            state,
            next_payment_on,
            total_renewal_fee,
            remaining_payments,
            subscription_fee_id,
            cancel_at,
            payments_to_skip,
            paused_by,
            last_pause_at,
            renewal_discount,
            discount_num_charges,
            end_date,
        })
    }
}

/// A given value; a null is refused (the field has no empty value).
fn required<T>(errors: &mut FieldErrors, field: &str, patch: Patch<T>) -> Option<T> {
    match patch {
        Patch::Absent => None,
        Patch::Null => {
            errors.add(field, "can't be null");
            None
        }
        Patch::Value(value) => Some(value),
    }
}

fn ranged(
    errors: &mut FieldErrors,
    field: &str,
    patch: Patch<i64>,
    range: limits::IntRange,
) -> Option<i64> {
    let value = required(errors, field, patch)?;
    match range.check(value) {
        Ok(()) => Some(value),
        Err(message) => {
            errors.add(field, message);
            None
        }
    }
}

fn date(errors: &mut FieldErrors, field: &str, text: &str) -> Option<CalendarDate> {
    let parsed = CalendarDate::parse(text);
    if parsed.is_none() {
        errors.add(field, CalendarDate::MESSAGE);
    }
    parsed
}

fn nullable_date(
    errors: &mut FieldErrors,
    field: &str,
    patch: Patch<String>,
) -> Patch<CalendarDate> {
    match patch {
        Patch::Absent => Patch::Absent,
        Patch::Null => Patch::Null,
        Patch::Value(text) => match date(errors, field, &text) {
            Some(d) => Patch::Value(d),
            None => Patch::Absent,
        },
    }
}

/// A percentage 0–100 with at most two decimals, as hundredths of a percent.
fn hundredths(value: &Value) -> Option<i64> {
    let percent = value.as_f64()?;
    let scaled = percent * 100.0;
    let rounded = scaled.round();
    let exact = (scaled - rounded).abs() < 1e-6;
    // Within 0–10,000 once checked: the cast is exact.
    (exact && DISCOUNT.contains(rounded as i64)).then_some(rounded as i64)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn fields(body: Value) -> Vec<String> {
        let changes: PurchaseChanges = serde_json::from_value(body).unwrap();
        match changes.checked() {
            Ok(_) => Vec::new(),
            Err(errors) => errors.errors().iter().map(|e| e.field.clone()).collect(),
        }
    }

    #[test]
    fn only_the_writable_fields_are_taken() {
        assert_eq!(fields(json!({})), ["body"]);
        assert_eq!(fields(json!({"units": 3})), ["units"]);
        assert_eq!(fields(json!({"state": "asleep"})), ["state"]);
        assert_eq!(fields(json!({"state": "paused", "id": 1})), ["id"]);
        assert!(fields(json!({"state": "paused", "paused_by": "customer"})).is_empty());
        assert_eq!(fields(json!({"state": null})), ["state"]);
        assert!(fields(json!({"cancel_at": null, "end_date": null})).is_empty());
    }

    #[test]
    fn a_discount_is_a_percentage_to_two_decimals() {
        let discount = |v: Value| hundredths(&v);
        assert_eq!(discount(json!(12.5)), Some(1250));
        assert_eq!(discount(json!(100)), Some(10_000));
        assert_eq!(discount(json!(0.01)), Some(1));
        assert_eq!(discount(json!(0.001)), None);
        assert_eq!(discount(json!(100.01)), None);
        assert_eq!(discount(json!(-1)), None);
        assert_eq!(discount(json!("5")), None);
    }
}
