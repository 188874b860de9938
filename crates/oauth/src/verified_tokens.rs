//! The cache of verified access tokens: checking a signature costs more than a lookup, and
//! a token is presented many times.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use crate::principal::Principal;

/// Principals of tokens whose signatures verified, by token. Bounded: when full it starts
/// afresh; emptied when the signing keys change (a retired key's tokens must fail).
#[derive(Default)]
pub(crate) struct VerifiedTokens(RwLock<HashMap<Box<str>, Arc<Principal>>>);

const VERIFIED_CAPACITY: usize = 10_000;

impl VerifiedTokens {
    pub(crate) fn get(&self, token: &str) -> Option<Arc<Principal>> {
        self.0
            .read()
            .expect("verified token lock is never poisoned")
            .get(token)
            .cloned()
    }

    pub(crate) fn insert(&self, token: &str, principal: Arc<Principal>) {
        let mut entries = self
            .0
            .write()
            .expect("verified token lock is never poisoned");
        if entries.len() >= VERIFIED_CAPACITY {
            entries.clear();
        }
        entries.insert(token.into(), principal);
    }

    pub(crate) fn clear(&self) {
        self.0
            .write()
            .expect("verified token lock is never poisoned")
            .clear();
    }
}
