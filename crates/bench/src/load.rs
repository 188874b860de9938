//! The load generator: a fixed number of tasks repeating an iteration on a shared
//! keep-alive client until a deadline, recording every latency: a target's requests sent
//! in turn, or a sequence of dependent requests (a purchase).

use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use axum::body::Bytes;
use hdrhistogram::Histogram;
use reqwest::{Client, Request, StatusCode};

/// Latencies are recorded in microseconds, up to a minute, to three significant figures.
const MAX_LATENCY_US: u64 = 60_000_000;

/// Requests sent over and over, in turn, and the status they must get.
pub struct Target {
    /// Each task sends these in turn, task `i` starting at the `i`-th (modulo their
    /// number), so that concurrent tasks interleave them.
    pub requests: Vec<Request>,
    pub expect: StatusCode,
    /// An answer the scenario provokes on purpose (a refused stock change), counted apart
    /// rather than as an error.
    pub refusal: Option<StatusCode>,
}

/// What one measured phase did.
pub struct Outcome {
    /// Requests answered with the expected status.
    pub ok: u64,
    /// Requests answered with the target's refusal (included in `ok`).
    pub refused: u64,
    /// Requests that failed or got another status.
    pub errors: u64,
    /// The first failure, to show what went wrong.
    pub first_error: Option<String>,
    pub elapsed: Duration,
    /// Latency of every answered request, in microseconds.
    pub latency_us: Histogram<u64>,
}

impl Outcome {
    pub fn empty() -> Result<Self> {
        Ok(Self {
            ok: 0,
            refused: 0,
            errors: 0,
            first_error: None,
            elapsed: Duration::ZERO,
            latency_us: new_histogram()?,
        })
    }

    pub fn requests_per_second(&self) -> f64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 {
            self.ok as f64 / secs
        } else {
            0.0
        }
    }

    pub fn quantile_ms(&self, quantile: f64) -> f64 {
        self.latency_us.value_at_quantile(quantile) as f64 / 1000.0
    }

    fn merge(&mut self, other: Outcome) -> Result<()> {
        self.ok += other.ok;
        self.refused += other.refused;
        self.errors += other.errors;
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
        self.latency_us
            .add(other.latency_us)
            .context("merge latency histograms")
    }

    pub fn fail(&mut self, what: String) {
        self.errors += 1;
        self.first_error.get_or_insert(what);
    }

    /// Records one answered request's (or sequence's) latency.
    pub fn record(&mut self, latency: Duration) {
        let latency_us = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
        self.latency_us.saturating_record(latency_us.max(1));
    }
}

/// What one load task does over and over until the deadline.
pub trait Iteration: Send + 'static {
    /// One round, recording each of its measured steps into its outcome in `outcomes`.
    fn once(&mut self, outcomes: &mut [Outcome]) -> impl Future<Output = ()> + Send;
}

/// Runs `concurrency` tasks sending `target` until `duration` has passed. In-flight
/// requests finish (the client's timeout bounds them) and count.
pub async fn run(
    client: &Client,
    target: &Target,
    concurrency: u32,
    duration: Duration,
) -> Result<Outcome> {
    let tasks = (0..concurrency as usize)
        .map(|i| Cycle::new(client, target, i))
        .collect::<Result<Vec<_>>>()?;
    let [outcome] = repeat(tasks, duration).await?;
    Ok(outcome)
}

/// Runs each iteration in a task of its own, over and over, until `duration` has passed;
/// answers the `STEPS` outcomes each records into, merged across the tasks.
pub async fn repeat<I: Iteration, const STEPS: usize>(
    tasks: Vec<I>,
    duration: Duration,
) -> Result<[Outcome; STEPS]> {
    let started = Instant::now();
    let deadline = started + duration;
    let tasks: Vec<_> = tasks
        .into_iter()
        .map(|mut iteration| {
            tokio::spawn(async move {
                let mut outcomes = empty_outcomes::<STEPS>()?;
                while Instant::now() < deadline {
                    iteration.once(&mut outcomes).await;
                }
                Ok::<_, anyhow::Error>(outcomes)
            })
        })
        .collect();
    let mut total = empty_outcomes::<STEPS>()?;
    for task in tasks {
        let outcomes = task.await.context("a load task panicked")??;
        for (sum, part) in total.iter_mut().zip(outcomes) {
            sum.merge(part)?;
        }
    }
    for outcome in &mut total {
        outcome.elapsed = started.elapsed();
    }
    Ok(total)
}

/// `STEPS` outcomes with nothing recorded yet.
pub fn empty_outcomes<const STEPS: usize>() -> Result<[Outcome; STEPS]> {
    let outcomes: Vec<Outcome> = (0..STEPS)
        .map(|_| Outcome::empty())
        .collect::<Result<_>>()?;
    Ok(outcomes
        .try_into()
        .unwrap_or_else(|_| unreachable!("STEPS outcomes")))
}

/// The answers a request counts as success.
#[derive(Clone, Copy)]
pub struct Answers {
    pub expect: StatusCode,
    pub refusal: Option<StatusCode>,
}

impl Answers {
    pub fn expect(status: StatusCode) -> Self {
        Self {
            expect: status,
            refusal: None,
        }
    }
}

/// Sends `request`, recording its latency and answer into `outcome`: the body, when the
/// answer is one of `answers`.
pub async fn send(
    client: &Client,
    request: Request,
    answers: Answers,
    outcome: &mut Outcome,
) -> Option<Bytes> {
    let sent = Instant::now();
    let response = match client.execute(request).await {
        Ok(response) => response,
        Err(err) => {
            outcome.fail(format!("request failed: {err}"));
            return None;
        }
    };
    let status = response.status();
    let body = response.bytes().await;
    outcome.record(sent.elapsed());
    match body {
        Ok(body) if status == answers.expect => {
            outcome.ok += 1;
            Some(body)
        }
        Ok(body) if Some(status) == answers.refusal => {
            outcome.ok += 1;
            outcome.refused += 1;
            Some(body)
        }
        Ok(body) => {
            outcome.fail(format!(
                "status {status}, expected {}: {}",
                answers.expect,
                String::from_utf8_lossy(&body[..body.len().min(300)])
            ));
            None
        }
        Err(err) => {
            outcome.fail(format!("reading the body failed: {err}"));
            None
        }
    }
}

/// A target's requests sent in turn, task `i` starting at the `i`-th.
struct Cycle {
    client: Client,
    requests: Vec<Request>,
    next: usize,
    answers: Answers,
}

impl Cycle {
    fn new(client: &Client, target: &Target, i: usize) -> Result<Self> {
        let count = target.requests.len().max(1);
        let requests: Option<Vec<Request>> = (0..count)
            .map(|k| target.requests.get((i + k) % count)?.try_clone())
            .collect();
        Ok(Self {
            client: client.clone(),
            requests: requests.context("the requests cannot be cloned")?,
            next: 0,
            answers: Answers {
                expect: target.expect,
                refusal: target.refusal,
            },
        })
    }
}

impl Iteration for Cycle {
    async fn once(&mut self, outcomes: &mut [Outcome]) {
        let request = self.requests[self.next % self.requests.len()].try_clone();
        self.next += 1;
        match request {
            Some(request) => {
                send(&self.client, request, self.answers, &mut outcomes[0]).await;
            }
            None => outcomes[0].fail("the request cannot be cloned".into()),
        }
    }
}

fn new_histogram() -> Result<Histogram<u64>> {
    Histogram::new_with_bounds(1, MAX_LATENCY_US, 3).context("create a latency histogram")
}
