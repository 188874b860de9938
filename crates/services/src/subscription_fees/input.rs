//! What a client may send to create or change a subscription fee, and the rules it must
//! meet without the database (the terms' rules are `domain::subscription`'s).

use domain::subscription::{FeeTerms, FirstRenewal, PaymentInterval};
use domain::{FieldErrors, Patch, limits};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NewSubscriptionFee {
    /// The variant sold on these terms (one of the account's).
    variant_id: i64,
    /// The variant's product; optional, checked when given.
    #[serde(default)]
    product_id: Option<i64>,
    payment_interval: PaymentInterval,
    /// Minor units per unit and cycle; with `by_percentage`, a percentage (0–100) of the
    /// variant's price.
    renewal_fee: i64,
    /// Default false.
    #[serde(default)]
    by_percentage: Option<bool>,
    /// Minor units charged once, at the start (default 0).
    #[serde(default)]
    setup_fee: Option<i64>,
    /// Renewals the subscription runs for, 0 to 1000; 0 (the default) is unlimited.
    #[serde(default)]
    number_of_payments: Option<i64>,
    /// ISO weekday (1 = Monday) for `1_week`, day of the month (1–31) otherwise; absent or
    /// null: the day the subscription starts on.
    #[serde(default)]
    payment_day: Option<i64>,
    #[serde(default)]
    allow_non_recurring_payment: Option<bool>,
    /// 0 to 365 (default 0).
    #[serde(default)]
    min_days_for_cancellation: Option<i64>,
    #[serde(default)]
    allow_changing_day: Option<bool>,
    #[serde(default)]
    extend_on_reenable: Option<bool>,
    /// `full` (default), `prorate` or `skip`.
    #[serde(default)]
    on_first_renewal: Option<FirstRenewal>,
}

/// A new fee's terms and the variant (and product) it names, as checked so far.
#[derive(Clone, Debug)]
pub(super) struct NewFee {
    pub variant_id: i64,
    pub product_id: Option<i64>,
    pub terms: FeeTerms,
}

#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct SubscriptionFeeChanges {
    #[serde(default)]
    payment_interval: Patch<PaymentInterval>,
    #[serde(default)]
    renewal_fee: Patch<i64>,
    #[serde(default)]
    setup_fee: Patch<i64>,
    #[serde(default)]
    number_of_payments: Patch<i64>,
    /// Null: the day the subscription starts on.
    #[serde(default)]
    payment_day: Patch<i64>,
    /// Also applies the fee's terms to its active purchases, in the same transaction.
    #[serde(default)]
    pub update_purchases_fees: Option<bool>,
    /// With `update_purchases_fees`: mails each buyer whose purchase changed.
    #[serde(default)]
    pub notify_purchases: Option<bool>,
    #[serde(default)]
    by_percentage: Patch<bool>,
    #[serde(default)]
    allow_non_recurring_payment: Patch<bool>,
    #[serde(default)]
    min_days_for_cancellation: Patch<i64>,
    #[serde(default)]
    allow_changing_day: Patch<bool>,
    #[serde(default)]
    extend_on_reenable: Patch<bool>,
    #[serde(default)]
    on_first_renewal: Patch<FirstRenewal>,
    /// Cannot be changed.
    #[serde(default)]
    seller_id: Patch<i64>,
    /// Cannot be changed.
    #[serde(default)]
    product_id: Patch<i64>,
    /// Cannot be changed.
    #[serde(default)]
    variant_id: Patch<i64>,
}

impl NewSubscriptionFee {
    /// The fee to write, with every problem found so far (the variant is checked against
    /// the database later, and its problems added).
    pub(super) fn checked(self) -> (NewFee, FieldErrors) {
        let mut errors = FieldErrors::new();
        let terms = FeeTerms {
            payment_interval: self.payment_interval,
            renewal_fee: self.renewal_fee,
            by_percentage: self.by_percentage.unwrap_or(false),
            setup_fee: self.setup_fee.unwrap_or(0),
            number_of_payments: self.number_of_payments.unwrap_or(0),
            payment_day: self.payment_day,
            allow_non_recurring_payment: self.allow_non_recurring_payment.unwrap_or(false),
            min_days_for_cancellation: self.min_days_for_cancellation.unwrap_or(0),
            allow_changing_day: self.allow_changing_day.unwrap_or(false),
            extend_on_reenable: self.extend_on_reenable.unwrap_or(false),
            on_first_renewal: self.on_first_renewal.unwrap_or(FirstRenewal::Full),
        };
        terms.check(&mut errors);
        let fee = NewFee {
            variant_id: self.variant_id,
            product_id: self.product_id,
            terms,
        };
        (fee, errors)
    }
}

impl NewFee {
    /// Whether the ids are ones any row could have (others name nothing).
    pub(super) fn ids_in_range(&self) -> bool {
        limits::ID.contains(self.variant_id)
            && self.product_id.is_none_or(|id| limits::ID.contains(id))
    }
}

impl SubscriptionFeeChanges {
    /// `current` with these changes, checked whole (a new interval re-checks the payment
    /// day), or every problem found.
    pub(super) fn apply(&self, current: &FeeTerms) -> Result<FeeTerms, FieldErrors> {
        let mut errors = FieldErrors::new();
        for (field, given) in [
            ("seller_id", !self.seller_id.is_absent()),
            ("product_id", !self.product_id.is_absent()),
            ("variant_id", !self.variant_id.is_absent()),
        ] {
            if given {
                errors.add(field, "cannot be changed");
            }
        }
        let mut terms = current.clone();
        set(
            &mut errors,
            "payment_interval",
            &self.payment_interval,
            &mut terms.payment_interval,
        );
        set(
            &mut errors,
            "renewal_fee",
            &self.renewal_fee,
            &mut terms.renewal_fee,
        );
        set(
            &mut errors,
            "setup_fee",
            &self.setup_fee,
            &mut terms.setup_fee,
        );
        set(
            &mut errors,
            "number_of_payments",
            &self.number_of_payments,
            &mut terms.number_of_payments,
        );
        match self.payment_day {
            Patch::Absent => {}
            Patch::Null => terms.payment_day = None,
            Patch::Value(day) => terms.payment_day = Some(day),
        }
        set(
            &mut errors,
            "by_percentage",
            &self.by_percentage,
            &mut terms.by_percentage,
        );
        set(
            &mut errors,
            "allow_non_recurring_payment",
            &self.allow_non_recurring_payment,
            &mut terms.allow_non_recurring_payment,
        );
        set(
            &mut errors,
            "min_days_for_cancellation",
            &self.min_days_for_cancellation,
            &mut terms.min_days_for_cancellation,
        );
        set(
            &mut errors,
            "allow_changing_day",
            &self.allow_changing_day,
            &mut terms.allow_changing_day,
        );
        set(
            &mut errors,
            "extend_on_reenable",
            &self.extend_on_reenable,
            &mut terms.extend_on_reenable,
        );
        set(
            &mut errors,
            "on_first_renewal",
            &self.on_first_renewal,
            &mut terms.on_first_renewal,
        );
        terms.check(&mut errors);
        errors.into_result().map(|()| terms)
    }
}

/// Writes a given value over `target`; a null is refused (the field has no empty value).
fn set<T: Clone>(errors: &mut FieldErrors, field: &str, patch: &Patch<T>, target: &mut T) {
    match patch {
        Patch::Absent => {}
        Patch::Null => errors.add(field, "can't be null"),
        Patch::Value(value) => *target = value.clone(),
    }
}
