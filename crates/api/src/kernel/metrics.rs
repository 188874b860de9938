//! Prometheus metrics: request counts and latency histograms by route and status, the
//! database pools' usage, and this node's webhook delivery claims, served at `/metrics`.

use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet, EncodeMetric};
use prometheus_client::metrics::counter::{ConstCounter, Counter};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use storage::Database;

use crate::kernel::state::AppState;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: String,
    route: String,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PoolLabels {
    pool: String,
    state: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ClaimLabels {
    by: &'static str,
}

/// The webhook delivery claims made through the database handle, read at each scrape.
#[derive(Debug)]
struct Claims(Database);

impl Collector for Claims {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let counts = self.0.claim_counts();
        let mut metric = encoder.encode_descriptor(
            "webhook_claims",
            "Webhook delivery claims, by how they found their work: a scan of the due \
             deliveries, or a resource's next sequence",
            None,
            prometheus_client::metrics::MetricType::Counter,
        )?;
        for (by, total) in [
            ("due_scan", counts.due_scans),
            ("next_sequence", counts.next_sequences),
        ] {
            ConstCounter::new(total).encode(metric.encode_family(&ClaimLabels { by })?)?;
        }
        Ok(())
    }
}

type HistogramFamily = Family<RequestLabels, Histogram, fn() -> Histogram>;

pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: HistogramFamily,
    pool_connections: Family<PoolLabels, Gauge>,
    db: Database,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

fn latency_histogram() -> Histogram {
    // 0.25 ms to about 8 s.
    Histogram::new(exponential_buckets(0.000_25, 2.0, 16))
}

impl Metrics {
    pub fn new(db: Database) -> Self {
        let mut registry = Registry::default();
        let requests = Family::<RequestLabels, Counter>::default();
        let latency: HistogramFamily = Family::new_with_constructor(latency_histogram);
        let pool_connections = Family::<PoolLabels, Gauge>::default();
        registry.register("http_requests", "HTTP requests answered", requests.clone());
        registry.register(
            "http_request_duration_seconds",
            "Time to answer HTTP requests",
            latency.clone(),
        );
        registry.register(
            "db_pool_connections",
            "Database pool connections by state (idle, in_use, max)",
            pool_connections.clone(),
        );
        registry.register_collector(Box::new(Claims(db.clone())));
        Self {
            registry,
            requests,
            latency,
            pool_connections,
            db,
        }
    }

    fn observe(&self, labels: RequestLabels, seconds: f64) {
        self.requests.get_or_create(&labels).inc();
        self.latency.get_or_create(&labels).observe(seconds);
    }

    /// The exposition text, with pool gauges read now.
    pub fn render(&self) -> String {
        for stats in self.db.pool_stats() {
            let set = |state: &str, value: u32| {
                self.pool_connections
                    .get_or_create(&PoolLabels {
                        pool: stats.pool.to_owned(),
                        state: state.to_owned(),
                    })
                    .set(i64::from(value));
            };
            set("idle", stats.idle);
            set("in_use", stats.size.saturating_sub(stats.idle));
            set("max", stats.max);
        }
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &self.registry)
            .expect("writing to a String succeeds");
        out
    }
}

pub async fn middleware(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().as_str().to_owned();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let response = next.run(request).await;
    let labels = RequestLabels {
        method,
        route,
        status: response.status().as_u16(),
    };
    state
        .metrics
        .observe(labels, started.elapsed().as_secs_f64());
    response
}
