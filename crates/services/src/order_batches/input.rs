//! What a client sends to move many orders at once, and the checks that need no database.

use std::collections::HashSet;

use domain::FieldErrors;
use domain::order::{OrderStatus, Transition};
use schemars::JsonSchema;
use serde::Deserialize;

/// The most orders one request moves. Larger batches are left to a background job, which
/// this server does not run yet.
pub const IDS_MAX: usize = 100;

/// The orders to move and the status to move them to. Bootic v1's form is accepted too:
/// the status under `additions`, with its names `pending` (placed) and `invalid`
/// (cancelled).
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
pub struct BatchUpdate {
    /// The orders' ids, each once: 1 to 100 of them.
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
    pub status: OrderStatus,
    pub transition: Transition,
}

impl BatchUpdate {
    /// The batch, or every problem with it.
    pub fn validate(self) -> Result<Batch, FieldErrors> {
        let mut errors = FieldErrors::new();
        let ids = self.ids.unwrap_or_default();
        if ids.is_empty() {
            errors.add("ids", "give the ids of 1 to 100 orders");
        } else if ids.len() > IDS_MAX {
            errors.add("ids", format!("at most {IDS_MAX} orders are moved at once"));
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
            Some(Ok(status)) => match move_to(status) {
                Some(transition) => Some((status, transition)),
                None => {
                    errors.add(field, "an order cannot be moved back to checkout");
                    None
                }
            },
        };
        errors.into_result()?;
        let (status, transition) = target.expect("a status when nothing is wrong");
        Ok(Batch {
            ids,
            status,
            transition,
        })
    }
}

/// The move of the state machine that ends in `status`.
fn move_to(status: OrderStatus) -> Option<Transition> {
    Transition::ALL
        .iter()
        .copied()
        .find(|t| t.target() == status)
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
            (b.status, b.transition),
            (OrderStatus::Placed, Transition::Place)
        );
        let b = batch(serde_json::json!({"ids": [1], "additions": {"status": "invalid"}})).unwrap();
        assert_eq!(b.transition, Transition::Cancel);
        let b = batch(serde_json::json!({"ids": [1], "status": "shipped"})).unwrap();
        assert_eq!(b.transition, Transition::Ship);
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
        let many: Vec<i64> = (1..=101).collect();
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
