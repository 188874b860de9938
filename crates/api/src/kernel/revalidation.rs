//! The revalidation shortcut: a conditional GET that would be answered `304` is answered
//! so without running its handler, when nothing it showed can have changed since.
//!
//! A handler whose document is a function of some accounts' data, the token and the URL
//! alone (no clock, no other table) says so with [`AccountData`]. The answer's entity tag
//! is then remembered under the token and the URL, with the commit clock's mark taken
//! *before* the handler read anything. A later request for the same URL with the same
//! token, naming that tag, gets the remembered headers and no body while no commit since
//! the mark changed those accounts' data. Every other request takes the usual path.
//!
//! Only where this process makes every commit (SQLite) is there a clock; elsewhere the
//! shortcut is off.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::Request;
use axum::http::{HeaderMap, Method, header};
use storage::changes::{ChangeClock, Mark};

use super::auth::Authentication;

/// How many answers are remembered; past it, all are forgotten (the shortcut only saves
/// work: a forgotten answer is read again).
const CAPACITY: usize = 8192;

/// On a response: its document shows these accounts' data and nothing else that can
/// change (besides the token and the URL, which the shortcut's key holds).
#[derive(Clone, Debug)]
pub struct AccountData(pub Box<[i64]>);

pub struct Revalidation {
    clock: Option<Arc<ChangeClock>>,
    known: Mutex<HashMap<String, Known>>,
}

struct Known {
    as_of: Mark,
    accounts: Box<[i64]>,
    /// The answer's headers, `ETag` among them, as a `304` repeats them.
    headers: HeaderMap,
}

/// A request the shortcut may answer: its key, and the clock's mark when it arrived.
pub struct Candidate {
    key: String,
    as_of: Mark,
}

impl Revalidation {
    pub fn new(clock: Option<Arc<ChangeClock>>) -> Self {
        Self {
            clock,
            known: Mutex::new(HashMap::new()),
        }
    }

    /// A read by a token, where there is a clock; its mark is taken now, before the
    /// handler reads.
    pub fn candidate(&self, request: &Request) -> Option<Candidate> {
        let clock = self.clock.as_ref()?;
        if !matches!(*request.method(), Method::GET | Method::HEAD) {
            return None;
        }
        let principal = request.extensions().get::<Authentication>()?.principal()?;
        let target = request.uri().path_and_query()?.as_str();
        let mut key = String::with_capacity(principal.token_id.len() + 1 + target.len());
        key.push_str(&principal.token_id);
        key.push(' ');
        key.push_str(target);
        Some(Candidate {
            key,
            as_of: clock.mark(),
        })
    }

    /// The remembered answer's headers when the request names its tag and nothing it
    /// showed has changed since.
    pub fn unchanged(
        &self,
        candidate: &Candidate,
        names_tag: impl Fn(&str) -> bool,
    ) -> Option<HeaderMap> {
        let clock = self.clock.as_ref()?;
        let known = self.known.lock().expect("the lock is not poisoned");
        let answer = known.get(&candidate.key)?;
        let tag = answer.headers.get(header::ETAG)?.to_str().ok()?;
        (names_tag(tag) && clock.unchanged_since(&answer.accounts, answer.as_of))
            .then(|| answer.headers.clone())
    }

    /// Remembers a successful answer's headers (`ETag` among them) for the candidate.
    pub fn remember(&self, candidate: Candidate, data: AccountData, headers: &HeaderMap) {
        let mut kept = headers.clone();
        kept.remove(header::CONTENT_TYPE);
        kept.remove(header::CONTENT_LENGTH);
        if !kept.contains_key(header::ETAG) {
            return;
        }
        let mut known = self.known.lock().expect("the lock is not poisoned");
        if known.len() >= CAPACITY && !known.contains_key(&candidate.key) {
            known.clear();
        }
        known.insert(
            candidate.key,
            Known {
                as_of: candidate.as_of,
                accounts: data.0,
                headers: kept,
            },
        );
    }
}

impl AccountData {
    pub fn of(accounts: impl IntoIterator<Item = i64>) -> Self {
        let mut accounts: Vec<i64> = accounts.into_iter().collect();
        accounts.sort_unstable();
        accounts.dedup();
        Self(accounts.into_boxed_slice())
    }
}
