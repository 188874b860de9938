//! How the webhook claims made through a database handle found their work, for
//! `/metrics` and for tests that hold a drain to few scans.

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

/// The claims made through a database handle, by how they found their work.
#[derive(Debug, Default)]
pub(crate) struct ClaimCounters {
    pub(crate) due_scans: AtomicU64,
    pub(crate) next_sequences: AtomicU64,
}

impl ClaimCounters {
    pub(crate) fn counts(&self) -> ClaimCounts {
        ClaimCounts {
            due_scans: self.due_scans.load(Relaxed),
            next_sequences: self.next_sequences.load(Relaxed),
        }
    }
}

/// How many claims found their work which way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClaimCounts {
    /// Claims that scanned the due deliveries (`webhook_deliveries::claim`).
    pub due_scans: u64,
    /// Claims that went straight to resources' next sequences
    /// (`webhook_deliveries::claim_next_sequences`).
    pub next_sequences: u64,
}
