//! Why an operation did not happen. The HTTP layer turns each into its answer; a worker
//! logs it or tries later. Storage failures are kept whole (the HTTP layer answers a
//! unique violation, a lost race or a busy database in one place), with where they arose.

use std::fmt;
use std::panic::Location;

use domain::FieldErrors;
use storage::{TxError, UniqueIndex};

use crate::taken::{self, Taken};

#[derive(Debug)]
pub enum ServiceError {
    /// Nothing the actor may see has that id.
    NotFound,
    /// The input, checked against the data, has invalid fields (every one is named).
    Invalid(FieldErrors),
    /// The caller's expectation of the current version no longer holds.
    PreconditionFailed,
    /// The actor may see the resource but its role may not do this (a user who does not
    /// manage the shop, say); says why.
    Forbidden(&'static str),
    /// The storage refused or failed.
    Storage {
        error: storage::Error,
        /// The value was derived by the service, not given (a slug, a code): a unique
        /// violation of this index means a concurrent write took it, so run again.
        derived: Option<UniqueIndex>,
        origin: &'static Location<'static>,
    },
    /// A bug: something the operation relies on does not hold.
    Internal {
        cause: String,
        origin: &'static Location<'static>,
    },
}

pub type ServiceResult<T> = Result<T, ServiceError>;

impl ServiceError {
    #[track_caller]
    pub fn internal(cause: impl Into<String>) -> Self {
        Self::Internal {
            cause: cause.into(),
            origin: Location::caller(),
        }
    }

    pub fn invalid_field(field: &str, message: impl Into<String>) -> Self {
        Self::Invalid(FieldErrors::single(field, message))
    }

    /// For a value the service derived rather than the input gave (a slug made from a
    /// title, a product type created by name): a violation of `index` means a concurrent
    /// write took the value after it was found free, so the work runs again.
    pub fn derived(self, index: UniqueIndex) -> Self {
        match self {
            Self::Storage { error, origin, .. } => Self::Storage {
                error,
                derived: Some(index),
                origin,
            },
            other => other,
        }
    }

    /// The same failure for another request that shared the transaction (a batch),
    /// answered alike.
    pub(crate) fn shared(&self) -> Self {
        match self {
            Self::NotFound => Self::NotFound,
            Self::Invalid(fields) => Self::Invalid(fields.clone()),
            Self::PreconditionFailed => Self::PreconditionFailed,
            Self::Forbidden(why) => Self::Forbidden(why),
            Self::Storage {
                error,
                derived,
                origin,
            } => Self::Storage {
                error: error.duplicate(),
                derived: *derived,
                origin,
            },
            Self::Internal { cause, origin } => Self::Internal {
                cause: cause.clone(),
                origin,
            },
        }
    }

    /// Where the error was made (storage and internal errors).
    pub fn origin(&self) -> Option<&'static Location<'static>> {
        match self {
            Self::Storage { origin, .. } | Self::Internal { origin, .. } => Some(origin),
            _ => None,
        }
    }
}

impl fmt::Display for ServiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotFound => f.write_str("not found"),
            Self::Invalid(fields) => write!(f, "invalid input: {fields}"),
            Self::PreconditionFailed => f.write_str("the precondition failed"),
            Self::Forbidden(why) => f.write_str(why),
            Self::Storage { error, .. } => write!(f, "storage: {error}"),
            Self::Internal { cause, .. } => f.write_str(cause),
        }
    }
}

impl std::error::Error for ServiceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Storage { error, .. } => Some(error),
            _ => None,
        }
    }
}

impl From<FieldErrors> for ServiceError {
    fn from(fields: FieldErrors) -> Self {
        Self::Invalid(fields)
    }
}

impl From<storage::Error> for ServiceError {
    #[track_caller]
    fn from(error: storage::Error) -> Self {
        Self::Storage {
            error,
            derived: None,
            origin: Location::caller(),
        }
    }
}

impl TxError for ServiceError {
    /// Run again after losing to a concurrent write — including a unique violation that no
    /// field of the input is at fault for (the registry's `Conflict`, or a derived value),
    /// since the next attempt sees the other write's outcome.
    fn is_retryable(&self) -> bool {
        let Self::Storage { error, derived, .. } = self else {
            return false;
        };
        if error.is_retryable() {
            return true;
        }
        match error {
            storage::Error::UniqueViolation {
                index: Some(index), ..
            } => *derived == Some(*index) || taken::answer(*index) == Taken::Conflict,
            _ => false,
        }
    }
}
