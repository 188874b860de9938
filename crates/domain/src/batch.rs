//! Batch jobs: work over many resources that runs off the request path, in chunks whose
//! progress is saved, so that a job survives a restart and its state can be followed.

use serde::{Deserialize, Serialize};

use crate::text_enum;
use crate::validation::FieldError;

text_enum! {
    /// What a batch job does.
    pub enum BatchKind {
        /// Moves many of a shop's orders to one status.
        OrderStatus => "order_status",
    }
}

text_enum! {
    /// Where a batch job stands.
    pub enum BatchState {
        /// Accepted; no item is done yet.
        Pending => "pending",
        /// Some items are done, others wait.
        Running => "running",
        /// Every item was tried: each either succeeded or is among the invalid items.
        Finished => "finished",
    }
}

/// The most items one batch job takes.
pub const ITEMS_MAX: usize = 10_000;

/// Items done between two saves of a job's progress: what a crash can make the next run
/// try again (harmlessly: each item's move is idempotent).
pub const CHUNK: usize = 50;

/// An item a batch left as it was, and why (as a refused request's `_embedded.errors`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InvalidItem {
    pub id: i64,
    pub errors: Vec<FieldError>,
}
