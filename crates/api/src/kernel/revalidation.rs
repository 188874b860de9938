//! The revalidation shortcut: a read whose answer is remembered, and nothing that answer
//! showed can have changed since, is answered without running its handler — `304` when
//! the request names the answer's tag, otherwise the remembered body itself.
//!
//! A handler whose document is a function of some accounts' data, the token and the URL
//! alone (no clock, no other table) says so with [`AccountData`]. The answer (its headers
//! and, up to a size, its body) is then remembered under the token and the URL, with where
//! the accounts' data stood *before* the handler read it. A later read of the same URL
//! with the same token gets it again while those accounts' data has not changed since.
//! The body is the very one the handler made from the same data, so it is exactly what
//! the handler would make again; a request that says `Cache-Control: no-cache` (or
//! `Pragma: no-cache`) is answered by the handler all the same.
//!
//! Where the data stood (`storage::changes`):
//! - SQLite: the commit clock of this process, which makes every commit: a mark taken in
//!   memory, and the shortcut reads nothing;
//! - PostgreSQL: the accounts' commit count, one small read, which requests arriving
//!   together share (`CommitCounts`). It is taken only for a request whose answer is
//!   remembered, for the accounts that answer showed, so a first read only remembers
//!   which accounts it showed, and the next one arms it.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, Method, header};
use bytes::Bytes;
use oauth::Principal;
use storage::Database;
use storage::account_versions::CommitCounts;
use storage::changes::{ChangeClock, Mark};

use super::auth::Authentication;

/// How many answers are remembered; past it, all are forgotten (the shortcut only saves
/// work: a forgotten answer is read again).
const CAPACITY: usize = 8192;

/// The most body bytes remembered in all; past it, all answers are forgotten. It bounds
/// what the bodies take, beside the headers that `CAPACITY` and `MAX_KEY_BYTES` bound.
const BODY_BUDGET: usize = 16 << 20;

/// The largest body remembered: a larger answer is remembered for `304`s alone.
const MAX_BODY_BYTES: usize = 1 << 20;

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
    counts: CommitCounts,
    clock: Option<Arc<ChangeClock>>,
    known: Mutex<Answers>,
}

/// The remembered answers, by key, and the bytes their bodies take.
#[derive(Default)]
struct Answers {
    by_key: HashMap<String, Known>,
    body_bytes: usize,
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
    /// The answer's body, when not larger than `MAX_BODY_BYTES`.
    body: Option<Bytes>,
    /// When the handler made it.
    made: Instant,
}

/// A remembered answer that still holds.
pub struct Recalled {
    /// Its headers, `ETag` and `Content-Type` among them (not `Content-Length`), and
    /// `Age`: the seconds since the handler made it.
    pub headers: HeaderMap,
    /// Its body, when remembered.
    pub body: Option<Bytes>,
}

/// A read the shortcut may answer: its key, and where the data stood when it arrived
/// (with the accounts that was asked of, on PostgreSQL).
pub struct Candidate {
    key: String,
    stood: Stood,
    asked_of: Option<AccountData>,
    /// The request asks for an answer made now (`no-cache`): it is only remembered.
    fresh: bool,
}

impl Revalidation {
    pub fn new(db: Database) -> Self {
        Self {
            clock: db.change_clock().cloned(),
            counts: CommitCounts::new(db),
            known: Mutex::new(Answers::default()),
        }
    }

    /// A GET or HEAD by a token; where the data stands is taken now, before the handler
    /// reads (on PostgreSQL only for a read whose answer is remembered). Not an
    /// `async fn`: the request (not `Sync`) must not be held across the read.
    pub fn candidate(&self, request: &Request) -> impl Future<Output = Option<Candidate>> + '_ {
        let key = Self::key(request);
        let fresh = asks_for_fresh(request.headers());
        async move { self.arm(key?, fresh).await }
    }

    async fn arm(&self, key: String, fresh: bool) -> Option<Candidate> {
        if let Some(clock) = &self.clock {
            return Some(Candidate {
                key,
                stood: Stood::At(clock.mark()),
                asked_of: None,
                fresh,
            });
        }
        let asked_of = if fresh {
            None
        } else {
            self.lock()
                .by_key
                .get(&key)
                .map(|known| known.accounts.clone())
        };
        let stood = match &asked_of {
            // A failed read only costs the shortcut.
            Some(accounts) => self
                .counts
                .sum_of(&accounts.0)
                .await
                .map_or(Stood::Unknown, Stood::Counted),
            None => Stood::Unknown,
        };
        Some(Candidate {
            key,
            stood,
            asked_of,
            fresh,
        })
    }

    /// The key of a GET or HEAD by a token: its token id and URL.
    fn key(request: &Request) -> Option<String> {
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
        Some(key)
    }

    /// The remembered answer, when nothing it showed has changed since.
    pub fn recall(&self, candidate: &Candidate) -> Option<Recalled> {
        if candidate.fresh {
            return None;
        }
        let known = self.lock();
        let answer = known.by_key.get(&candidate.key)?;
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
        unchanged.then(|| {
            let mut headers = answer.headers.clone();
            headers.insert(
                header::AGE,
                HeaderValue::from(answer.made.elapsed().as_secs()),
            );
            Recalled {
                headers,
                body: answer.body.clone(),
            }
        })
    }

    /// Remembers a successful answer (its headers, `ETag` among them, and body) for the
    /// candidate.
    pub fn remember(
        &self,
        candidate: Candidate,
        data: AccountData,
        headers: &HeaderMap,
        body: &Bytes,
    ) {
        let stood = match candidate.stood {
            Stood::Counted(_) if candidate.asked_of.as_ref() != Some(&data) => Stood::Unknown,
            stood => stood,
        };
        let body = (body.len() <= MAX_BODY_BYTES).then(|| body.clone());
        let mut known = self.lock();
        if let Some(answer) = known.by_key.get_mut(&candidate.key)
            && answer.headers.get(header::ETAG) == headers.get(header::ETAG)
        {
            // The answer already known, made again: it still held where the data stood
            // now (a clock's later mark, or the latest count), and is as new as now.
            answer.stood = match (answer.stood, stood) {
                (Stood::At(then), Stood::At(now)) => Stood::At(then.max(now)),
                (kept, Stood::Unknown) => kept,
                (_, now) => now,
            };
            answer.accounts = data;
            answer.made = Instant::now();
            return;
        }
        let mut kept = headers.clone();
        kept.remove(header::CONTENT_LENGTH);
        if !kept.contains_key(header::ETAG) {
            return;
        }
        known.insert(
            candidate.key,
            Known {
                stood,
                accounts: data,
                headers: kept,
                body,
                made: Instant::now(),
            },
        );
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Answers> {
        self.known.lock().expect("the lock is not poisoned")
    }
}

impl Answers {
    /// Remembers `answer` under `key`, in place of the one there; when that would pass
    /// `CAPACITY` or `BODY_BUDGET`, every other answer is forgotten first.
    fn insert(&mut self, key: String, answer: Known) {
        let replaced = self.by_key.get(&key).map_or(0, Known::body_bytes);
        let over_capacity = self.by_key.len() >= CAPACITY && !self.by_key.contains_key(&key);
        if over_capacity || self.body_bytes - replaced + answer.body_bytes() > BODY_BUDGET {
            *self = Self::default();
        }
        let added = answer.body_bytes();
        let replaced = self.by_key.insert(key, answer);
        self.body_bytes = self.body_bytes - replaced.as_ref().map_or(0, Known::body_bytes) + added;
    }
}

impl Known {
    fn body_bytes(&self) -> usize {
        self.body.as_ref().map_or(0, Bytes::len)
    }
}

/// Whether a request asks for an answer made now rather than one remembered.
fn asks_for_fresh(headers: &HeaderMap) -> bool {
    let says_no_cache = |name| {
        headers.get_all(name).iter().any(|value| {
            value.to_str().is_ok_and(|v| {
                v.split(',')
                    .any(|directive| directive.trim().eq_ignore_ascii_case("no-cache"))
            })
        })
    };
    says_no_cache(header::CACHE_CONTROL) || says_no_cache(header::PRAGMA)
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

    fn answer(body_bytes: usize) -> Known {
        Known {
            stood: Stood::Unknown,
            accounts: AccountData::of([1]),
            headers: HeaderMap::new(),
            body: Some(Bytes::from(vec![b' '; body_bytes])),
            made: Instant::now(),
        }
    }

    #[test]
    fn the_bodies_remembered_stay_within_the_budget() {
        let mut answers = Answers::default();
        let quarter = BODY_BUDGET / 4;
        for key in ["a", "b", "c"] {
            answers.insert(key.into(), answer(quarter));
        }
        // Replacing an answer counts its body once.
        answers.insert("a".into(), answer(quarter / 2));
        assert_eq!(answers.body_bytes, quarter * 5 / 2);
        answers.insert("d".into(), answer(quarter));
        assert_eq!(answers.by_key.len(), 4);
        // Past the budget, the others are forgotten.
        answers.insert("e".into(), answer(quarter));
        assert_eq!(answers.by_key.len(), 1);
        assert_eq!(answers.body_bytes, quarter);
        answers.insert(
            "f".into(),
            Known {
                body: None,
                ..answer(0)
            },
        );
        assert_eq!((answers.by_key.len(), answers.body_bytes), (2, quarter));
    }

    #[test]
    fn no_cache_asks_for_a_fresh_answer() {
        let headers = |pairs: &[(header::HeaderName, &'static str)]| {
            let mut map = HeaderMap::new();
            for (name, value) in pairs {
                map.append(name, value.parse().unwrap());
            }
            map
        };
        assert!(!asks_for_fresh(&headers(&[])));
        assert!(!asks_for_fresh(&headers(&[(
            header::CACHE_CONTROL,
            "max-age=0"
        )])));
        assert!(asks_for_fresh(&headers(&[(
            header::CACHE_CONTROL,
            "max-age=0, No-Cache"
        )])));
        assert!(asks_for_fresh(&headers(&[(header::PRAGMA, "no-cache")])));
    }

    #[test]
    fn only_a_tokens_reads_of_a_bounded_url_are_candidates() {
        let key = Revalidation::key(&read(Method::GET, "/v2/products?page=2", true));
        assert_eq!(key.as_deref(), Some("token /v2/products?page=2"));
        assert!(Revalidation::key(&read(Method::HEAD, "/v2/products", true)).is_some());
        assert!(Revalidation::key(&read(Method::GET, "/v2/products", false)).is_none());
        assert!(Revalidation::key(&read(Method::POST, "/v2/products", true)).is_none());
        let long = format!("/v2/products?q={}", "a".repeat(MAX_KEY_BYTES));
        assert!(Revalidation::key(&read(Method::GET, &long, true)).is_none());
    }
}
