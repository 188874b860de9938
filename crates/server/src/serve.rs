//! The serving process: database, authorization service, API, background work, and a
//! graceful shutdown that lets requests in flight finish and hands webhook work back.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use api::{ApiConfig, AppState, RateLimitConfig};
use delivery::ssrf::Guard;
use delivery::{Dispatcher, DispatcherConfig};
use domain::Clock;
use oauth::{AuthConfig, AuthService};
use storage::secret_box::SecretBox;
use storage::{Database, StoreOptions};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::config::ServeConfig;

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

/// Starts serving on an opened database.
pub async fn start_with(db: Database, config: &ServeConfig) -> anyhow::Result<RunningServer> {
    config.check().map_err(anyhow::Error::msg)?;
    delivery::tls::install_crypto();
    let listener = TcpListener::bind(config.listen)
        .await
        .with_context(|| format!("cannot listen on {}", config.listen))?;
    let addr = listener.local_addr()?;
    let public_url = config
        .public_url
        .clone()
        .unwrap_or_else(|| format!("http://{}", public_host(addr)))
        .trim_end_matches('/')
        .to_owned();
    let clock = config.clock.clone();
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
    let state = AppState::new(
        db.clone(),
        auth.clone(),
        clock.clone(),
        ApiConfig {
            public_url: public_url.clone(),
            max_body_bytes: config.max_body_bytes,
            max_asset_bytes: config.max_asset_bytes,
            rate_limit: RateLimitConfig {
                quota: config.rate_limit_quota,
                window: config.rate_limit_window,
            },
            bench_baseline: config.bench_baseline,
            count_queries: config.count_queries,
            webhook_guard: webhook_guard(config),
        },
    );
    let dispatcher = Dispatcher::new(
        db.clone(),
        auth.secret_box().clone(),
        clock.clone(),
        DispatcherConfig {
            policy: config.webhook_policy,
            max_backlog: config.webhook_max_backlog,
            poll: config.webhook_poll,
            total_timeout: config.webhook_timeout,
            connect_timeout: config.webhook_connect_timeout(),
            lease: config.webhook_lease,
            ..DispatcherConfig::new(public_url.clone(), webhook_guard(config))
        },
    )
    .context("cannot build the webhook client")?;
    let app = api::router(state).into_make_service_with_connect_info::<SocketAddr>();
    let (shutdown_tx, shutdown_rx) = oneshot::channel::<()>();
    let background = [
        tokio::spawn(sweep_idempotency_keys(db.clone(), clock)),
        tokio::spawn(refresh_signing_keys(auth.clone())),
        tokio::spawn(reload_encryption_keys(auth.clone())),
        tokio::spawn(refresh_revocations(auth.clone())),
        tokio::spawn(record_token_use(auth)),
    ];
    let dispatching = tokio::spawn(dispatcher.clone().run());
    let task = tokio::spawn(async move {
        let served = axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = shutdown_rx.await;
            })
            .await;
        // Webhook work is handed back once no request can make more.
        dispatcher.stop();
        if let Err(err) = dispatching.await {
            tracing::warn!(error = %err, "the webhook dispatcher failed");
        }
        background.iter().for_each(JoinHandle::abort);
        served.context("the HTTP server failed")
    });
    tracing::info!(%addr, %public_url, backend = db.backend().as_str(), "serving");
    Ok(RunningServer {
        addr,
        public_url,
        db,
        shutdown: Some(shutdown_tx),
        task,
    })
}

/// Which addresses webhook targets may have: public ones, the networks the operator
/// allows, or any at all.
fn webhook_guard(config: &ServeConfig) -> Guard {
    Guard {
        allow_private: config.allow_private_webhook_targets,
        allowed: config.webhook_allowed_networks.clone(),
    }
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

/// Idempotency keys are kept 24 hours; expired ones are deleted every ten minutes.
async fn sweep_idempotency_keys(db: Database, clock: Arc<dyn Clock>) {
    let mut interval = tokio::time::interval(Duration::from_secs(600));
    loop {
        interval.tick().await;
        match storage::idempotency::purge_expired(&db, clock.now()).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(deleted = n, "expired idempotency keys deleted"),
            Err(err) => tracing::warn!(error = %err, "could not delete expired idempotency keys"),
        }
    }
}

/// Every node re-reads the signing keys each minute, so a rotated key starts signing and
/// a retired one stops verifying everywhere without a restart.
async fn refresh_signing_keys(auth: Arc<AuthService>) {
    let mut interval = tokio::time::interval(Duration::from_secs(60));
    interval.tick().await;
    loop {
        interval.tick().await;
        if let Err(err) = auth.refresh_keys().await {
            tracing::warn!(error = %err, "could not refresh the signing keys");
        }
    }
}

/// A key file is re-read every second, so that `commerce keys rotate-encryption-key`
/// reaches a running server before it reseals anything; the signing keys, resealed with
/// the new key, are then opened again.
async fn reload_encryption_keys(auth: Arc<AuthService>) {
    let mut interval = tokio::time::interval(ENCRYPTION_KEY_RELOAD);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        match auth.secret_box().reload().await {
            Ok(false) => {}
            Ok(true) => {
                tracing::info!(keys = ?auth.secret_box(), "encryption keys reloaded");
                if let Err(err) = auth.refresh_keys().await {
                    tracing::warn!(error = %err, "could not reopen the signing keys");
                }
            }
            Err(err) => tracing::warn!(error = %err, "could not reload the encryption keys"),
        }
    }
}

/// How often a server re-reads its key file (`commerce keys` waits longer than this).
pub const ENCRYPTION_KEY_RELOAD: Duration = Duration::from_secs(1);

/// Tokens revoked on other nodes are refused here within a quarter of a second.
async fn refresh_revocations(auth: Arc<AuthService>) {
    let mut interval = tokio::time::interval(Duration::from_millis(250));
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        if let Err(err) = auth.refresh_revocations().await {
            tracing::warn!(error = %err, "could not refresh the revoked tokens");
        }
    }
}

/// When personal tokens were last used is written out every ten seconds, not per request.
async fn record_token_use(auth: Arc<AuthService>) {
    let mut interval = tokio::time::interval(Duration::from_secs(10));
    loop {
        interval.tick().await;
        if let Err(err) = auth.flush_token_use().await {
            tracing::warn!(error = %err, "could not record personal token use");
        }
    }
}

/// Resolves on SIGTERM or SIGINT.
pub async fn termination_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate = match tokio::signal::unix::signal(
            tokio::signal::unix::SignalKind::terminate(),
        ) {
            Ok(s) => s,
            Err(err) => {
                tracing::warn!(error = %err, "cannot watch SIGTERM; only SIGINT stops the server");
                let _ = interrupt.await;
                return;
            }
        };
        tokio::select! {
            _ = interrupt => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
}
