//! The revalidation shortcut: a conditional GET that would be answered `304` is answered
//! so without running its handler, when nothing it showed can have changed since.
//!
//! A handler whose document is a function of some accounts' data, the token and the URL
//! alone (no clock, no other table) says so with [`AccountData`]. The answer's entity tag
//! is then remembered under the token and the URL, with where the accounts' data stood
//! *before* the handler read it. A later request for the same URL with the same token,
//! naming that tag, gets the remembered headers and no body while those accounts' data
//! has not changed since. Every other request takes the usual path.
//!
//! Where the data stood (`storage::changes`):
//! - SQLite: the commit clock of this process, which makes every commit: a mark taken in
//!   memory, and the shortcut reads nothing;
//! - PostgreSQL: the accounts' commit count, one small read. It is taken only for a
//!   request naming a tag, for the accounts the remembered answer showed, so a first read
//!   only remembers which accounts it showed, and the next conditional one arms it.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};

use axum::extract::Request;
use axum::http::{HeaderMap, Method, header};
use oauth::Principal;
use storage::Database;
use storage::account_versions;
use storage::changes::{ChangeClock, Mark};

use super::auth::Authentication;

/// How many answers are remembered; past it, all are forgotten (the shortcut only saves
/// work: a forgotten answer is read again).
const CAPACITY: usize = 8192;

/// The longest key (token id and URL) remembered, so that what the answers take stays
/// bounded (8,192 × 2 KiB, with their headers) whatever URLs a client sends.
const MAX_KEY_BYTES: usize = 2048;

/// On a response: its document shows these accounts' data and nothing else that can
/// change (besides the token and the URL, which the shortcut's key holds).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountData(pub Box<[i64]>);

impl AccountData {
    /// The data of the token's own account, when it has one.
    pub fn own(principal: &Principal) -> Option<Self> {
        principal
            .tenant()
            .map(|tenant| Self::of([tenant.account_id]))
    }

    pub fn of(accounts: impl IntoIterator<Item = i64>) -> Self {
        let mut accounts: Vec<i64> = accounts.into_iter().collect();
        accounts.sort_unstable();
        accounts.dedup();
        Self(accounts.into_boxed_slice())
    }
}

pub struct Revalidation {
    db: Database,
    clock: Option<Arc<ChangeClock>>,
    known: Mutex<HashMap<String, Known>>,
}

/// Where some accounts' data stood.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stood {
    /// The commit clock's mark (SQLite).
    At(Mark),
    /// Their commit count (PostgreSQL).
    Counted(i64),
    /// Not known: the answer cannot be vouched for.
    Unknown,
}

struct Known {
    stood: Stood,
    accounts: AccountData,
    /// The answer's headers, `ETag` among them, as a `304` repeats them.
    headers: HeaderMap,
}

/// A read the shortcut may answer: its key, and where the data stood when it arrived
/// (with the accounts that was asked of, on PostgreSQL).
pub struct Candidate {
    key: String,
    stood: Stood,
    asked_of: Option<AccountData>,
}

impl Revalidation {
    pub fn new(db: Database) -> Self {
        Self {
            clock: db.change_clock().cloned(),
            db,
            known: Mutex::new(HashMap::new()),
        }
    }

    /// A GET or HEAD by a token; where the data stands is taken now, before the handler
    /// reads (on PostgreSQL only for a request naming a tag that is remembered). Not an
    /// `async fn`: the request (not `Sync`) must not be held across the read.
    pub fn candidate(&self, request: &Request) -> impl Future<Output = Option<Candidate>> + '_ {
        let key = Self::key(request);
        async move { self.arm(key?).await }
    }

    async fn arm(&self, (key, conditional): (String, bool)) -> Option<Candidate> {
        if let Some(clock) = &self.clock {
            return Some(Candidate {
                key,
                stood: Stood::At(clock.mark()),
                asked_of: None,
            });
        }
        let asked_of = if conditional {
            self.lock().get(&key).map(|known| known.accounts.clone())
        } else {
            None
        };
        let stood = match &asked_of {
            // A failed read only costs the shortcut.
            Some(accounts) => account_versions::sum_of(&self.db, &accounts.0)
                .await
                .map_or(Stood::Unknown, Stood::Counted),
            None => Stood::Unknown,
        };
        Some(Candidate {
            key,
            stood,
            asked_of,
        })
    }

    /// The key of a GET or HEAD by a token (its token id and URL), and whether it names
    /// a tag.
    fn key(request: &Request) -> Option<(String, bool)> {
        if !matches!(*request.method(), Method::GET | Method::HEAD) {
            return None;
        }
        let principal = request.extensions().get::<Authentication>()?.principal()?;
        let target = request.uri().path_and_query()?.as_str();
        if principal.token_id.len() + 1 + target.len() > MAX_KEY_BYTES {
            return None;
        }
        let mut key = String::with_capacity(principal.token_id.len() + 1 + target.len());
        key.push_str(&principal.token_id);
        key.push(' ');
        key.push_str(target);
        Some((key, request.headers().contains_key(header::IF_NONE_MATCH)))
    }

    /// The remembered answer's headers when the request names its tag and nothing it
    /// showed has changed since.
    pub fn unchanged(
        &self,
        candidate: &Candidate,
        names_tag: impl Fn(&str) -> bool,
    ) -> Option<HeaderMap> {
        let known = self.lock();
        let answer = known.get(&candidate.key)?;
        let tag = answer.headers.get(header::ETAG)?.to_str().ok()?;
        let unchanged = match (answer.stood, candidate.stood) {
            (Stood::At(then), _) => self
                .clock
                .as_ref()
                .is_some_and(|clock| clock.unchanged_since(&answer.accounts.0, then)),
            (Stood::Counted(then), Stood::Counted(now)) => {
                then == now && candidate.asked_of.as_ref() == Some(&answer.accounts)
            }
            _ => false,
        };
        (unchanged && names_tag(tag)).then(|| answer.headers.clone())
    }

    /// Remembers a successful answer's headers (`ETag` among them) for the candidate.
    pub fn remember(&self, candidate: Candidate, data: AccountData, headers: &HeaderMap) {
        let stood = match candidate.stood {
            Stood::Counted(_) if candidate.asked_of.as_ref() != Some(&data) => Stood::Unknown,
            stood => stood,
        };
        let mut known = self.lock();
        if let Some(answer) = known.get_mut(&candidate.key)
            && answer.headers.get(header::ETAG) == headers.get(header::ETAG)
        {
            // The answer already known, read again: it still held where the data stood
            // now (a clock's later mark, or the latest count).
            answer.stood = match (answer.stood, stood) {
                (Stood::At(then), Stood::At(now)) => Stood::At(then.max(now)),
                (kept, Stood::Unknown) => kept,
                (_, now) => now,
            };
            answer.accounts = data;
            return;
        }
        let mut kept = headers.clone();
        kept.remove(header::CONTENT_TYPE);
        kept.remove(header::CONTENT_LENGTH);
        if !kept.contains_key(header::ETAG) {
            return;
        }
        if known.len() >= CAPACITY && !known.contains_key(&candidate.key) {
            known.clear();
        }
        known.insert(
            candidate.key,
            Known {
                stood,
                accounts: data,
                headers: kept,
            },
        );
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Known>> {
        self.known.lock().expect("the lock is not poisoned")
    }
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use oauth::Subject;

    use super::*;

    fn read(method: Method, target: &str, by_token: bool) -> Request {
        let mut request = Request::builder()
            .method(method)
            .uri(target)
            .body(Body::empty())
            .unwrap();
        if by_token {
            let principal = Principal {
                subject: Subject::App,
                user_name: None,
                app_id: 1,
                client_id: "client".into(),
                account_id: Some(1),
                seller_id: None,
                granted: Default::default(),
                scopes: Default::default(),
                token_id: "token".into(),
                expires_at: None,
                personal: false,
            };
            request
                .extensions_mut()
                .insert(Authentication::Principal(Arc::new(principal)));
        }
        request
    }

    #[test]
    fn only_a_tokens_reads_of_a_bounded_url_are_candidates() {
        let key = Revalidation::key(&read(Method::GET, "/v2/products?page=2", true));
        assert_eq!(key, Some(("token /v2/products?page=2".to_owned(), false)));
        assert!(Revalidation::key(&read(Method::HEAD, "/v2/products", true)).is_some());
        assert!(Revalidation::key(&read(Method::GET, "/v2/products", false)).is_none());
        assert!(Revalidation::key(&read(Method::POST, "/v2/products", true)).is_none());
        let long = format!("/v2/products?q={}", "a".repeat(MAX_KEY_BYTES));
        assert!(Revalidation::key(&read(Method::GET, &long, true)).is_none());
    }
}
