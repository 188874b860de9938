//! Which tokens are revoked, known to every node: the node that revokes a token knows at
//! once, the others read new revocations from the database several times a second.

use std::collections::HashMap;
use std::sync::{Mutex, RwLock};

use domain::Timestamp;
use storage::{Database, tokens};

/// How far back each refresh looks again: revocations committed late, or stamped by a
/// node whose clock runs behind, are still picked up.
const OVERLAP_SECS: i64 = 10;

#[derive(Debug)]
pub struct RevocationList {
    /// Revoked token ids and when they expire anyway (microseconds; `None`: never).
    revoked: RwLock<HashMap<String, Option<i64>>>,
    read_up_to: Mutex<Timestamp>,
}

impl RevocationList {
    /// Every revoked token that has not expired.
    pub async fn load(db: &Database, now: Timestamp) -> storage::Result<Self> {
        let list = Self {
            revoked: RwLock::new(HashMap::new()),
            read_up_to: Mutex::new(Timestamp::from_micros(0)),
        };
        list.refresh(db, now).await?;
        Ok(list)
    }

    pub fn contains(&self, jti: &str) -> bool {
        self.revoked
            .read()
            .expect("revocation lock is never poisoned")
            .contains_key(jti)
    }

    /// Records revocations made by this node, effective at once.
    pub fn insert(&self, revoked: impl IntoIterator<Item = (String, Option<i64>)>) {
        self.revoked
            .write()
            .expect("revocation lock is never poisoned")
            .extend(revoked);
    }

    /// Reads revocations made since the last refresh and forgets expired tokens.
    pub async fn refresh(&self, db: &Database, now: Timestamp) -> storage::Result<()> {
        let since = self
            .read_up_to
            .lock()
            .expect("revocation cursor lock is never poisoned")
            .plus_secs(-OVERLAP_SECS);
        let fresh = tokens::revoked_since(db, since, now).await?;
        let mut revoked = self
            .revoked
            .write()
            .expect("revocation lock is never poisoned");
        revoked.extend(fresh);
        revoked.retain(|_, expires| expires.is_none_or(|e| e > now.as_micros()));
        drop(revoked);
        *self
            .read_up_to
            .lock()
            .expect("revocation cursor lock is never poisoned") = now;
        Ok(())
    }
}
