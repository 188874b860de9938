//! The serving process: database, authorization service, API, the background tasks of its
//! role, and a graceful shutdown that lets requests in flight finish, then stops the tasks
//! (webhook work is handed back, leases released).

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context;
use api::{ApiConfig, AppState, RateLimitConfig, RateLimiter, SharedLimits};
use delivery::ssrf::Guard;
use delivery::{Dispatcher, DispatcherConfig};
use oauth::{AuthConfig, AuthService};
use storage::secret_box::SecretBox;
use storage::{Database, StoreOptions};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::config::ServeConfig;
use crate::succession;
use crate::workers::{self, Active, LeaseTerms, MailDelivery, Placement, Registry};

/// Connects to the configured database and applies pending migrations.
pub async fn open_database(config: &ServeConfig) -> anyhow::Result<Database> {
    let options = StoreOptions {
        max_connections: config.db_max_connections,
        ..StoreOptions::default()
    };
    let db = Database::connect(&config.database_url, &options)
        .await
        .with_context(|| {
            format!(
                "cannot open the database {}",
                storage::redact_url(&config.database_url)
            )
        })?;
    db.migrate().await.context("cannot migrate the database")?;
    Ok(db)
}

/// The box of encryption keys for this database: refused when the keys are missing or do
/// not open what the database holds.
pub async fn open_secret_box(db: &Database, config: &ServeConfig) -> anyhow::Result<SecretBox> {
    let source = config.key_source()?;
    SecretBox::open_for(db, source)
        .await
        .context("cannot use the encryption keys")
}

/// A server running on a background task.
pub struct RunningServer {
    pub addr: SocketAddr,
    pub public_url: String,
    pub db: Database,
    /// This node's name in leases.
    pub node: String,
    active: Active,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<anyhow::Result<()>>,
}

impl RunningServer {
    /// Stops accepting connections, lets requests in flight finish, hands webhook work
    /// back (attempts in flight end and are recorded first), and closes the pools.
    pub async fn shutdown(mut self) -> anyhow::Result<()> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        let outcome = (&mut self.task).await.context("the server task failed")?;
        self.db.close().await;
        outcome
    }

    /// The background tasks running now (a singleton only while this node holds its lease).
    pub fn active_tasks(&self) -> Vec<&'static str> {
        self.active.names()
    }

    /// Waits until the server stops by itself (it does not, unless it fails).
    pub async fn wait(&mut self) -> anyhow::Result<()> {
        (&mut self.task).await.context("the server task failed")?
    }
}

/// Opens the database and starts serving.
pub async fn start(config: ServeConfig) -> anyhow::Result<RunningServer> {
    let db = open_database(&config).await?;
    start_with(db, &config).await
}

/// Starts serving on an opened database: the API (role `api` or `all`) or only the
/// operational endpoints (role `worker`), and the background tasks of the role.
pub async fn start_with(db: Database, config: &ServeConfig) -> anyhow::Result<RunningServer> {
    config.check().map_err(anyhow::Error::msg)?;
    delivery::tls::install_crypto();
    let listener = TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("cannot listen on {}", config.listen))?;
    let addr = listener.local_addr()?;
    let public_url = public_url(config, addr);
    let clock = config.clock.clone();
    let node = succession::node_name();
    let secret_box = open_secret_box(&db, config).await?;
    let auth = Arc::new(
        AuthService::new(
            db.clone(),
            AuthConfig {
                jwt_bearer_max_age: config.jwt_bearer_max_age,
                ..AuthConfig::new(public_url.clone(), config.access_token_ttl)
            },
            config.signing_key.clone(),
            secret_box,
            clock.clone(),
        )
        .await
        .context("cannot start the authorization service")?,
    );
    if config.role.serves_api() {
        // The issuer commands signing tokens read (a worker's address is no issuer).
        oauth::issuer::record(&db, &public_url)
            .await
            .context("cannot record the token issuer")?;
    }
    let state = AppState::new(
        db.clone(),
        auth.clone(),
        clock.clone(),
        ApiConfig {
            public_url: public_url.clone(),
            storefront_url: config.storefront_url.clone(),
            max_body_bytes: config.max_body_bytes,
            max_asset_bytes: config.max_asset_bytes,
            bench_baseline: config.bench_baseline,
            count_queries: config.count_queries,
            exact_total_cap: config.exact_total_cap,
            webhook_guard: webhook_guard(config),
            observer: config.observer.clone(),
        },
        rate_limiter(config).await?,
    );
    let registry = register_tasks(config, &db, &auth, &state, &public_url, &node)?;
    let router = if config.role.serves_api() {
        api::router(state)
    } else {
        api::ops_router(state)
    };
    let app = router.into_make_service_with_connect_info::<SocketAddr>();
    let (shutdown_tx, shutdown_rx) = oneshot::channel::<()>();
    // Before this node claims anything: what killed nodes of this host held is free.
    match succession::take_over_from_gone_nodes(&db, clock.now()).await {
        Ok(0) => {}
        Ok(nodes) => tracing::info!(nodes, "took over the claims of stopped nodes on this host"),
        Err(err) => {
            tracing::warn!(error = %err, "cannot take over the claims of stopped nodes; they run out")
        }
    }
    let tasks = registry.start(LeaseTerms {
        db: db.clone(),
        clock,
        holder: node.clone(),
        lease: config.worker_lease,
    });
    let active = tasks.active();
    let task = tokio::spawn(async move {
        let served = axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = shutdown_rx.await;
            })
            .await;
        // Webhook work is handed back, and leases released, once no request can make more.
        tasks.stop().await;
        served.context("the HTTP server failed")
    });
    tracing::info!(%addr, %public_url, role = config.role.as_str(), %node,
        backend = db.backend().as_str(), "serving");
    Ok(RunningServer {
        addr,
        public_url,
        db,
        node,
        active,
        shutdown: Some(shutdown_tx),
        task,
    })
}

/// The rate limiter: buckets in Redis when one is configured (connected now; a Redis
/// that does not answer is logged, and this node limits on its own until it does), in
/// this process otherwise.
async fn rate_limiter(config: &ServeConfig) -> anyhow::Result<RateLimiter> {
    let limits = RateLimitConfig {
        quota: config.rate_limit_quota,
        window: config.rate_limit_window,
    };
    let Some(url) = &config.redis_url else {
        return Ok(RateLimiter::new(limits));
    };
    let limiter = RateLimiter::shared(
        limits,
        &SharedLimits {
            url: url.clone(),
            key_prefix: config.redis_key_prefix.clone(),
            timeout: config.redis_timeout,
        },
    )
    .map_err(anyhow::Error::msg)?;
    limiter.connect().await;
    Ok(limiter)
}

/// Every background task of this node's role, in one place. Nodes serving the API keep
/// their view of tokens and keys fresh; worker nodes run the workers: the webhook
/// dispatcher on each of them, singletons such as housekeeping, order documents, batch jobs, subscription renewals
/// and (when SMTP is configured) mail delivery on one at a time.
fn register_tasks(
    config: &ServeConfig,
    db: &Database,
    auth: &Arc<AuthService>,
    state: &AppState,
    public_url: &str,
    node: &str,
) -> anyhow::Result<Registry> {
    let mut registry = Registry::new();
    // Every node opens sealed secrets (webhook secrets too), so every node follows a
    // rotated key file.
    let a = auth.clone();
    registry.register("encryption-keys", Placement::EveryNode, move |cancel| {
        workers::reload_encryption_keys(a.clone(), cancel)
    });
    if config.role.serves_api() {
        let a = auth.clone();
        registry.register("signing-keys", Placement::EveryNode, move |cancel| {
            workers::refresh_signing_keys(a.clone(), cancel)
        });
        let a = auth.clone();
        registry.register("revocations", Placement::EveryNode, move |cancel| {
            workers::refresh_revocations(a.clone(), cancel)
        });
        let a = auth.clone();
        registry.register("token-use", Placement::EveryNode, move |cancel| {
            workers::record_token_use(a.clone(), cancel)
        });
    }
    if config.role.runs_workers() {
        let dispatcher = Dispatcher::new(
            db.clone(),
            auth.secret_box().clone(),
            config.clock.clone(),
            DispatcherConfig {
                node: node.to_owned(),
                policy: config.webhook_policy,
                max_backlog: config.webhook_max_backlog,
                poll: config.webhook_poll,
                total_timeout: config.webhook_timeout,
                connect_timeout: config.webhook_connect_timeout(),
                lease: config.webhook_lease,
                ..DispatcherConfig::new(public_url.to_owned(), webhook_guard(config))
            },
        )
        .context("cannot build the webhook client")?;
        registry.register(WEBHOOK_DISPATCHER, Placement::EveryNode, move |cancel| {
            dispatch(dispatcher.clone(), cancel)
        });
        match config.mailer() {
            Some((smtp, from)) => {
                let mailer = Arc::new(MailDelivery::new(
                    db.clone(),
                    auth.secret_box().clone(),
                    config.clock.clone(),
                    node.to_owned(),
                    smtp,
                    from.clone(),
                    config.mail_poll,
                )?);
                tracing::info!(smtp = %smtp, from = %from, "mail is sent through SMTP");
                registry.register(MAIL_DELIVERY, Placement::Singleton, move |cancel| {
                    workers::deliver_mail(mailer.clone(), cancel)
                });
            }
            None => tracing::info!(
                "no SMTP server configured (--smtp-url): mail waits in the outbox for an \
                 operator (`commerce mail list`)"
            ),
        }
        let services = state.services.clone();
        registry.register(ORDER_DOCUMENTS, Placement::Singleton, move |cancel| {
            workers::generate_documents(services.clone(), cancel)
        });
        let services = state.services.clone();
        registry.register(BATCHES, Placement::Singleton, move |cancel| {
            workers::run_batches(services.clone(), cancel)
        });
        let (db, clock, period) = (
            db.clone(),
            config.clock.clone(),
            config.housekeeping_interval,
        );
        registry.register(HOUSEKEEPING, Placement::Singleton, move |cancel| {
            workers::housekeeping(db.clone(), clock.clone(), period, cancel)
        });
        let (services, secret_box, period) = (
            state.services.clone(),
            auth.secret_box().clone(),
            config.payments_poll,
        );
        registry.register(PAYMENTS, Placement::Singleton, move |cancel| {
            workers::settle_payments(services.clone(), secret_box.clone(), period, cancel)
        });
        let (services, secret_box) = (state.services.clone(), auth.secret_box().clone());
        registry.register(RENEWALS, Placement::Singleton, move |cancel| {
            workers::renew_subscriptions(services.clone(), secret_box.clone(), cancel)
        });
    }
    Ok(registry)
}

/// The names of the workers (what `RunningServer::active_tasks` answers).
pub const WEBHOOK_DISPATCHER: &str = "webhook-dispatcher";
pub const HOUSEKEEPING: &str = "housekeeping";
pub const MAIL_DELIVERY: &str = "mail_delivery";
pub const ORDER_DOCUMENTS: &str = "order_documents";
pub const BATCHES: &str = "batches";
pub const PAYMENTS: &str = "payments";
/// Bills the due cycles of subscription purchases.
pub const RENEWALS: &str = "subscription_renewals";

/// Runs the dispatcher until `cancel`; then it hands its work back before returning.
async fn dispatch(dispatcher: Arc<Dispatcher>, cancel: CancellationToken) {
    let running = dispatcher.clone().run();
    tokio::pin!(running);
    tokio::select! {
        () = &mut running => {}
        () = cancel.cancelled() => {
            dispatcher.stop();
            running.await;
        }
    }
}

/// Which addresses webhook targets may have: public ones, the networks the operator
/// allows, or any at all.
fn webhook_guard(config: &ServeConfig) -> Guard {
    Guard {
        allow_private: config.allow_private_webhook_targets,
        allowed: config.webhook_allowed_networks.clone(),
    }
}

/// The public URL (the tokens' issuer) of a server listening on `addr`: the configured
/// one, else `http://` and the address.
pub fn public_url(config: &ServeConfig, addr: SocketAddr) -> String {
    config
        .public_url
        .clone()
        .unwrap_or_else(|| format!("http://{}", public_host(addr)))
        .trim_end_matches('/')
        .to_owned()
}

/// The host part of the default public URL: the bound address, with a wildcard
/// address replaced by loopback so the URL works from this machine.
fn public_host(addr: SocketAddr) -> String {
    if addr.ip().is_unspecified() {
        format!("127.0.0.1:{}", addr.port())
    } else {
        addr.to_string()
    }
}

/// Watches for SIGTERM and SIGINT from now on (a signal that comes before the answer is
/// first awaited still counts): resolves on either.
pub fn termination_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let watched = signal(SignalKind::terminate()).and_then(|terminate| {
            signal(SignalKind::interrupt()).map(|interrupt| (terminate, interrupt))
        });
        async move {
            match watched {
                Ok((mut terminate, mut interrupt)) => {
                    tokio::select! {
                        _ = terminate.recv() => {}
                        _ = interrupt.recv() => {}
                    }
                }
                Err(err) => {
                    tracing::warn!(error = %err, "cannot watch signals; only SIGINT stops the server");
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}
