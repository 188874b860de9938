//! The load generator: a fixed number of tasks sending a target's requests in turn on a
//! shared keep-alive client until a deadline, recording every latency.

use std::time::{Duration, Instant};

use anyhow::{Context, Result};
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
    fn empty() -> Result<Self> {
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

    fn fail(&mut self, what: String) {
        self.errors += 1;
        self.first_error.get_or_insert(what);
    }
}

/// Runs `concurrency` tasks sending `target` until `duration` has passed. In-flight
/// requests finish (the client's timeout bounds them) and count.
pub async fn run(
    client: &Client,
    target: &Target,
    concurrency: u32,
    duration: Duration,
) -> Result<Outcome> {
    let started = Instant::now();
    let deadline = started + duration;
    let workers: Vec<_> = (0..concurrency as usize)
        .map(|i| {
            let client = client.clone();
            let count = target.requests.len().max(1);
            let requests: Option<Vec<Request>> = (0..count)
                .map(|k| target.requests.get((i + k) % count)?.try_clone())
                .collect();
            let answers = Answers {
                expect: target.expect,
                refusal: target.refusal,
            };
            tokio::spawn(async move {
                let requests = requests.context("the requests cannot be cloned")?;
                worker(client, requests, answers, deadline).await
            })
        })
        .collect();
    let mut total = Outcome::empty()?;
    for worker in workers {
        total.merge(worker.await.context("a load task panicked")??)?;
    }
    total.elapsed = started.elapsed();
    Ok(total)
}

/// The answers a worker counts as success.
#[derive(Clone, Copy)]
struct Answers {
    expect: StatusCode,
    refusal: Option<StatusCode>,
}

async fn worker(
    client: Client,
    templates: Vec<Request>,
    answers: Answers,
    deadline: Instant,
) -> Result<Outcome> {
    let mut outcome = Outcome::empty()?;
    for template in templates.iter().cycle() {
        if Instant::now() >= deadline {
            break;
        }
        let request = template
            .try_clone()
            .context("the request cannot be cloned")?;
        let sent = Instant::now();
        let response = match client.execute(request).await {
            Ok(response) => response,
            Err(err) => {
                outcome.fail(format!("request failed: {err}"));
                continue;
            }
        };
        let status = response.status();
        let body = response.bytes().await;
        let latency_us = u64::try_from(sent.elapsed().as_micros()).unwrap_or(u64::MAX);
        outcome.latency_us.saturating_record(latency_us.max(1));
        match body {
            Ok(_) if status == answers.expect => outcome.ok += 1,
            Ok(_) if Some(status) == answers.refusal => {
                outcome.ok += 1;
                outcome.refused += 1;
            }
            Ok(_) => outcome.fail(format!("status {status}, expected {}", answers.expect)),
            Err(err) => outcome.fail(format!("reading the body failed: {err}")),
        }
    }
    Ok(outcome)
}

fn new_histogram() -> Result<Histogram<u64>> {
    Histogram::new_with_bounds(1, MAX_LATENCY_US, 3).context("create a latency histogram")
}
