//! Buckets kept in this process: the limits of a single node, and of every node while
//! the shared buckets cannot be reached. Sharded maps, so that concurrent requests rarely
//! wait for one another; full (idle) buckets are dropped when a shard grows large.

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::{Mutex, PoisonError};

use domain::Timestamp;

use super::Rate;

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    updated: Timestamp,
}

const SHARDS: usize = 16;
/// Above this many buckets in a shard, full (idle) buckets are dropped.
const SHARD_SWEEP_THRESHOLD: usize = 4096;

#[derive(Debug)]
pub(super) struct LocalBuckets {
    shards: Vec<Mutex<HashMap<String, Bucket>>>,
}

impl LocalBuckets {
    pub(super) fn new() -> Self {
        Self {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
        }
    }

    /// Takes one request from `key`'s bucket at `now`: whether it was allowed, and the
    /// tokens left.
    pub(super) fn take(&self, key: &str, now: Timestamp, rate: Rate) -> (bool, f64) {
        let mut hasher = DefaultHasher::new();
        key.hash(&mut hasher);
        let shard = &self.shards[usize::try_from(hasher.finish() % SHARDS as u64).unwrap_or(0)];
        let mut buckets = shard.lock().unwrap_or_else(PoisonError::into_inner);
        if buckets.len() > SHARD_SWEEP_THRESHOLD {
            buckets.retain(|_, b| {
                b.tokens + secs_between(b.updated, now) * rate.per_sec < rate.capacity
            });
        }
        let bucket = buckets.entry(key.to_owned()).or_insert(Bucket {
            tokens: rate.capacity,
            updated: now,
        });
        let (allowed, tokens) = rate.take(bucket.tokens, secs_between(bucket.updated, now));
        bucket.tokens = tokens;
        bucket.updated = bucket.updated.max(now);
        (allowed, tokens)
    }
}

/// Seconds from `earlier` to `later`, never negative.
fn secs_between(earlier: Timestamp, later: Timestamp) -> f64 {
    let micros = later.as_micros().saturating_sub(earlier.as_micros()).max(0);
    micros as f64 / 1_000_000.0
}
