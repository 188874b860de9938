//! What a client sends to move many orders at once, and the checks that need no database.

use std::collections::HashSet;

use domain::FieldErrors;
use domain::batch::ITEMS_MAX;
use domain::order::{OrderStatus, Transition};
use schemars::JsonSchema;
use serde::Deserialize;

/// The most orders one request moves itself; a larger batch (up to
/// `domain::batch::ITEMS_MAX`) becomes a job the worker does.
pub const NOW_MAX: usize = 100;

/// The orders to move and the status to move them to. Bootic v1's form is accepted too:
/// the status under `additions`, with its names `pending` (placed) and `invalid`
/// (cancelled).
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct BatchUpdate {
    /// The orders' ids, each once: 1 to 10000 of them (over 100, a background job).
    #[serde(default)]
    pub ids: Option<Vec<i64>>,
    /// `placed`, `closed`, `shipped` or `cancelled` (or Bootic's `pending` and `invalid`).
    #[serde(default)]
    pub status: Option<String>,
    /// Bootic v1's form: `{"status": …}`.
    #[serde(default)]
    pub additions: Option<Additions>,
}

#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct Additions {
    #[serde(default)]
    pub status: Option<String>,
}

/// A checked batch: distinct positive ids, and the move that reaches the status.
#[derive(Clone, Debug)]
pub struct Batch {
    pub ids: Vec<i64>,
    pub target: Move,
}

impl Batch {
    /// Whether the request does it itself rather than leave it to a job.
    pub fn runs_now(&self) -> bool {
        self.ids.len() <= NOW_MAX
    }
}

/// A status and the move of the state machine that ends in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    pub status: OrderStatus,
    pub transition: Transition,
}

impl Move {
    /// The move to `status`; none to checkout, where no move leads.
    pub fn to(status: OrderStatus) -> Option<Self> {
        Transition::ALL
            .iter()
            .copied()
            .find(|t| t.target() == status)
            .map(|transition| Self { status, transition })
    }
}

impl BatchUpdate {
    /// The batch, or every problem with it.
    pub fn validate(self) -> Result<Batch, FieldErrors> {
        let mut errors = FieldErrors::new();
        let ids = self.ids.unwrap_or_default();
        if ids.is_empty() {
            errors.add("ids", format!("give the ids of 1 to {ITEMS_MAX} orders"));
        } else if ids.len() > ITEMS_MAX {
            errors.add(
                "ids",
                format!("at most {ITEMS_MAX} orders are moved by one batch"),
            );
        } else {
            let mut seen = HashSet::with_capacity(ids.len());
            for (i, id) in ids.iter().enumerate() {
                if *id < 1 {
                    errors.add(format!("ids[{i}]"), "an order id is a positive integer");
                } else if !seen.insert(*id) {
                    errors.add(format!("ids[{i}]"), "this order is already in the batch");
                }
            }
        }
        let (field, named) = match (self.status, self.additions.and_then(|a| a.status)) {
            (Some(_), Some(_)) => {
                errors.add(
                    "status",
                    "give the status once, as status or additions.status",
                );
                ("status", None)
            }
            (Some(status), None) => ("status", Some(status)),
            (None, Some(status)) => ("additions.status", Some(status)),
            (None, None) => ("status", None),
        };
        let target = match named.as_deref().map(OrderStatus::parse_lenient) {
            None => {
                if !errors.has("status") {
                    errors.add("status", "required");
                }
                None
            }
            Some(Err(e)) => {
                errors.add(field, e.to_string());
                None
            }
            Some(Ok(status)) => match Move::to(status) {
                Some(target) => Some(target),
                None => {
                    errors.add(field, "an order cannot be moved back to checkout");
                    None
                }
            },
        };
        errors.into_result()?;
        let target = target.expect("a status when nothing is wrong");
        Ok(Batch { ids, target })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(body: serde_json::Value) -> Result<Batch, Vec<String>> {
        let input: BatchUpdate = serde_json::from_value(body).unwrap();
        input
            .validate()
            .map_err(|e| e.errors().iter().map(|e| e.field.clone()).collect())
    }

    #[test]
    fn statuses_by_either_name_and_form() {
        let b = batch(serde_json::json!({"ids": [1, 2], "status": "pending"})).unwrap();
        assert_eq!(
            (b.target.status, b.target.transition),
            (OrderStatus::Placed, Transition::Place)
        );
        let b = batch(serde_json::json!({"ids": [1], "additions": {"status": "invalid"}})).unwrap();
        assert_eq!(b.target.transition, Transition::Cancel);
        let b = batch(serde_json::json!({"ids": [1], "status": "shipped"})).unwrap();
        assert_eq!(b.target.transition, Transition::Ship);
    }

    #[test]
    fn every_problem_is_named() {
        assert_eq!(
            batch(serde_json::json!({"ids": [], "status": "x"})).unwrap_err(),
            ["ids", "status"]
        );
        assert_eq!(
            batch(serde_json::json!({"ids": [3, 0, 3], "additions": {"status": "checkout"}}))
                .unwrap_err(),
            ["ids[1]", "ids[2]", "additions.status"]
        );
        let most: Vec<i64> = (1..=10_000).collect();
        let b = batch(serde_json::json!({"ids": most, "status": "closed"})).unwrap();
        assert!(!b.runs_now());
        let hundred: Vec<i64> = (1..=100).collect();
        assert!(
            batch(serde_json::json!({"ids": hundred, "status": "closed"}))
                .unwrap()
                .runs_now()
        );
        let many: Vec<i64> = (1..=10_001).collect();
        assert_eq!(
            batch(serde_json::json!({"ids": many, "status": "closed"})).unwrap_err(),
            ["ids"]
        );
        assert_eq!(
            batch(serde_json::json!({"ids": [1]})).unwrap_err(),
            ["status"]
        );
    }
}
