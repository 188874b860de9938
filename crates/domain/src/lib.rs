//! The commerce domain without I/O: identity and scopes, validation rules, time, money, the
//! catalog's rules, the order state machine, the event topics and when mail is retried.
//! Everything here is deterministic and unit-tested.

pub mod batch;
pub mod calendar;
pub mod catalog;
pub mod clock;
pub mod customer;
pub mod document;
pub mod exchange;
pub mod limits;
pub mod mail;
pub mod money;
pub mod order;
pub mod patch;
pub mod payment;
pub mod role;
pub mod scope;
pub mod shipping;
pub mod shop;
pub mod shop_admin;
pub mod subscription;
pub mod text;
pub mod text_enum;
pub mod topic;
pub mod validation;
pub mod webhook;

mod data {
    pub(crate) mod currencies;
    pub(crate) mod timezones;
}

pub use calendar::CalendarDate;
pub use clock::{Clock, SystemClock, Timestamp};
pub use patch::Patch;
pub use role::Role;
/// For `text_enum!`, whose enums describe themselves to the OpenAPI document.
pub use schemars;
pub use scope::{Scope, ScopeSet};
pub use validation::{FieldError, FieldErrors};
