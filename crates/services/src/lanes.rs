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

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use domain::catalog::stock::{Refusal, apply_in_order};
    use proptest::prelude::*;

    use super::*;

    type Stocks = Arc<Mutex<HashMap<u8, i64>>>;
    type Batches = Arc<Mutex<Vec<(u8, Vec<i64>)>>>;
    type Run = std::pin::Pin<Box<dyn Future<Output = Vec<Result<i64, Refusal>>> + Send>>;

    /// A batch runner over an in-memory stock per key, as the stock lanes' runs: it
    /// applies the batch in the order given, and logs each batch it ran.
    fn runner(
        key: u8,
        stocks: Stocks,
        batches: Batches,
    ) -> impl FnMut(Vec<i64>) -> Run + Send + 'static {
        move |deltas: Vec<i64>| {
            let (stocks, batches) = (stocks.clone(), batches.clone());
            Box::pin(async move {
                // Others may queue while a batch runs.
                tokio::task::yield_now().await;
                let mut stocks = stocks.lock().unwrap();
                let stock = stocks.entry(key).or_insert(0);
                let (outcomes, end) = apply_in_order(*stock, false, deltas.iter().copied());
                *stock = end;
                batches.lock().unwrap().push((key, deltas));
                outcomes
            })
        }
    }

    /// Submissions in waves (a wave's requests join their lanes before the next wave is
    /// sent, with the runners yielding in between): a key and a delta each.
    fn waves() -> impl Strategy<Value = Vec<Vec<(u8, i64)>>> {
        prop::collection::vec(prop::collection::vec((0u8..3, -3i64..=3), 1..12), 1..6)
    }

    proptest! {
        /// Each lane runs its requests in the order they joined it, in batches of at most
        /// the bound, each exactly once; every request gets the answer of its own turn,
        /// as if the requests of its key had been applied one by one in that order.
        #[test]
        fn lanes_apply_requests_in_arrival_order_and_answer_each_its_own(
            waves in waves(),
            yields in 0usize..4,
        ) {
            let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
            runtime.block_on(async {
                let lanes: Arc<Lanes<u8, i64, Result<i64, Refusal>>> = Arc::new(Lanes::new(4));
                let stocks: Stocks = Arc::default();
                let batches: Batches = Arc::default();
                let mut sent: Vec<(u8, i64)> = Vec::new();
                let mut answers = Vec::new();
                for wave in &waves {
                    for &(key, delta) in wave {
                        let lanes = lanes.clone();
                        let run = runner(key, stocks.clone(), batches.clone());
                        answers.push(tokio::spawn(
                            async move { lanes.submit(key, delta, run).await },
                        ));
                        sent.push((key, delta));
                    }
                    for _ in 0..yields {
                        tokio::task::yield_now().await;
                    }
                }
                let mut answered = Vec::new();
                for answer in answers {
                    answered.push(answer.await.unwrap().unwrap());
                }
                let batches = batches.lock().unwrap().clone();
                for key in 0u8..3 {
                    let in_order: Vec<i64> =
                        sent.iter().filter(|(k, _)| *k == key).map(|(_, d)| *d).collect();
                    let ran: Vec<i64> = batches
                        .iter()
                        .filter(|(k, _)| *k == key)
                        .flat_map(|(_, d)| d.clone())
                        .collect();
                    prop_assert_eq!(&ran, &in_order, "key {} ran in arrival order, each once", key);
                    let expected = apply_in_order(0, false, in_order).0;
                    let got: Vec<Result<i64, Refusal>> = sent
                        .iter()
                        .zip(&answered)
                        .filter(|((k, _), _)| *k == key)
                        .map(|(_, answer)| *answer)
                        .collect();
                    prop_assert_eq!(got, expected, "key {} answered in its own turn", key);
                }
                prop_assert!(batches.iter().all(|(_, batch)| (1..=4).contains(&batch.len())));
                prop_assert!(lanes.lock().is_empty(), "every lane went idle");
                Ok(())
            })?;
        }
    }

    #[test]
    fn a_runner_that_dies_leaves_its_requests_unanswered_and_the_lane_usable() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let lanes: Arc<Lanes<u8, i64, i64>> = Arc::new(Lanes::new(4));
            let dying =
                |_: Vec<i64>| -> std::future::Ready<Vec<i64>> { panic!("the batch failed") };
            assert_eq!(lanes.submit(1, 5, dying).await, Err(Unanswered));
            let doubling = |batch: Vec<i64>| async move { batch.iter().map(|d| d * 2).collect() };
            assert_eq!(lanes.submit(1, 5, doubling).await, Ok(10));
        });
    }
}
