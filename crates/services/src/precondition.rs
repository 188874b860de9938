//! What the caller expects of the resource it changes (HTTP's `If-Match` and
//! `If-Unmodified-Since`), checked inside the operation's transaction against the resource
//! as the actor would GET it, after its row is locked.

use domain::Timestamp;
use serde_json::Value;

use crate::ServiceResult;

pub trait Precondition: Sync {
    /// `Err(ServiceError::PreconditionFailed)` when the resource (as `shown` renders it, with
    /// its last change at `updated_on`) is no longer what the caller expects. `shown` is
    /// called only when the expectation is about the document itself, so that a write
    /// without one renders nothing for it.
    fn check(&self, shown: &dyn Fn() -> Value, updated_on: Timestamp) -> ServiceResult<()>;
}

/// No expectation: background jobs, and requests that sent none.
pub struct Unconditional;

impl Precondition for Unconditional {
    fn check(&self, _: &dyn Fn() -> Value, _: Timestamp) -> ServiceResult<()> {
        Ok(())
    }
}
