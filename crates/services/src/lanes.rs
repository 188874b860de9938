//! Combining concurrent requests about one key. Requests about a key (a variant whose
//! stock many adjust at once) wait in its lane; the first to find the lane idle starts its
//! runner, a task of its own, which takes every request waiting there (in arrival order,
//! up to a bound), runs them as one batch, answers each with its own result, and goes on
//! until the lane is empty. A write on a hot row then takes the row's lock, and waits for
//! its commit, once per batch instead of once per request.
//!
//! The runner is spawned so that a caller giving up (its client went away) does not stop
//! the batch of the others; a request whose caller has given up before its batch starts
//! is left out of it. If a runner dies (a panic), its lane is cleared and every request
//! waiting there gets `Unanswered`.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::future::Future;
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::oneshot;

/// The request's batch ended without answering it (its runner died).
#[derive(Debug, PartialEq, Eq)]
pub struct Unanswered;

struct Job<R, A> {
    request: R,
    answer: oneshot::Sender<A>,
}

/// The lanes of one kind of request `R`, answered with `A`, by key `K`.
pub struct Lanes<K, R, A> {
    /// A key is present while its runner runs: new requests join its lane.
    waiting: Mutex<HashMap<K, Vec<Job<R, A>>>>,
    max_batch: usize,
}

impl<K, R, A> Lanes<K, R, A>
where
    K: Eq + Hash + Clone + Send + 'static,
    R: Send + 'static,
    A: Send + 'static,
{
    /// Lanes whose batches take at most `max_batch` requests.
    pub fn new(max_batch: usize) -> Self {
        Self {
            waiting: Mutex::new(HashMap::new()),
            max_batch: max_batch.max(1),
        }
    }

    /// Queues `request` in `key`'s lane and waits for its answer. When the lane is idle
    /// this call starts its runner, which runs each batch with `run` (given the requests in
    /// arrival order, it answers one result per request, in the same order).
    pub async fn submit<F, Fut>(
        self: &Arc<Self>,
        key: K,
        request: R,
        run: F,
    ) -> Result<A, Unanswered>
    where
        F: FnMut(Vec<R>) -> Fut + Send + 'static,
        Fut: Future<Output = Vec<A>> + Send + 'static,
    {
        let (answer, answered) = oneshot::channel();
        let job = Job { request, answer };
        let idle = match self.lock().entry(key.clone()) {
            Entry::Occupied(mut lane) => {
                lane.get_mut().push(job);
                false
            }
            Entry::Vacant(lane) => {
                lane.insert(vec![job]);
                true
            }
        };
        if idle {
            tokio::spawn(Arc::clone(self).drain(key, run));
        }
        answered.await.map_err(|_| Unanswered)
    }

    /// The runner of `key`'s lane: batches until the lane is empty, then leaves it idle.
    async fn drain<F, Fut>(self: Arc<Self>, key: K, mut run: F)
    where
        F: FnMut(Vec<R>) -> Fut + Send + 'static,
        Fut: Future<Output = Vec<A>> + Send + 'static,
    {
        let mut clear_on_panic = ClearOnDrop {
            lanes: &self,
            key: Some(key.clone()),
        };
        loop {
            let jobs: Vec<Job<R, A>> = {
                let mut waiting = self.lock();
                let Some(lane) = waiting.get_mut(&key).filter(|lane| !lane.is_empty()) else {
                    waiting.remove(&key);
                    clear_on_panic.key = None;
                    return;
                };
                let taken = lane.len().min(self.max_batch);
                lane.drain(..taken).collect()
            };
            let (requests, answers): (Vec<R>, Vec<oneshot::Sender<A>>) = jobs
                .into_iter()
                .filter(|job| !job.answer.is_closed())
                .map(|job| (job.request, job.answer))
                .unzip();
            if requests.is_empty() {
                continue;
            }
            let results = run(requests).await;
            for (answer, result) in answers.into_iter().zip(results) {
                // The caller may have given up meanwhile; its result is simply dropped.
                let _ = answer.send(result);
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<K, Vec<Job<R, A>>>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Clears a lane whose runner stops before emptying it, so that its waiting requests are
/// answered `Unanswered` and the next request starts a runner again.
struct ClearOnDrop<'a, K: Eq + Hash, R, A> {
    lanes: &'a Lanes<K, R, A>,
    key: Option<K>,
}

impl<K: Eq + Hash, R, A> Drop for ClearOnDrop<'_, K, R, A> {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            self.lanes
                .waiting
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&key);
        }
    }
}
