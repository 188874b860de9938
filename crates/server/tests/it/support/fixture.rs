//! What a test takes, made by the harness before the test runs: the backend alone, a bare
//! database, a started server, or the backend and Redis. Whether PostgreSQL (and Redis)
//! is reachable is decided here, once.

use std::future::Future;

use tokio::sync::OnceCell;

use super::test_redis::{self, TestRedis, WithRedis};
use super::{Backend, TestDb, TestServer, postgres_admin_url};

/// A test's argument, made for one backend.
pub trait Fixture: Sized {
    /// Why the test cannot run on this machine (a service it needs does not answer,
    /// outside CI), asked before it runs; `None` when it can.
    fn missing() -> impl Future<Output = Option<String>> + Send {
        async { None }
    }

    fn make(backend: Backend) -> impl Future<Output = Self> + Send;
}

/// For tests that start their own server (custom configuration, several nodes) or
/// database.
impl Fixture for Backend {
    async fn make(backend: Backend) -> Self {
        backend
    }
}

/// A fresh, empty database.
impl Fixture for TestDb {
    async fn make(backend: Backend) -> Self {
        TestDb::create(backend).await
    }
}

/// A started server with the default test configuration and the demo data.
impl Fixture for TestServer {
    async fn make(backend: Backend) -> Self {
        TestServer::start(backend).await
    }
}

/// The backend, and Redis with a key prefix of the test's own.
impl Fixture for WithRedis {
    async fn missing() -> Option<String> {
        let url = test_redis::redis_url();
        (!test_redis::reachable().await).then(|| format!("Redis is not reachable at {url}"))
    }

    async fn make(backend: Backend) -> Self {
        WithRedis {
            backend,
            redis: TestRedis::new(),
        }
    }
}

/// Runs `test` on `backend` with the argument it takes, unless the backend or a service
/// the argument needs is unavailable (PostgreSQL or Redis unreachable outside CI: a
/// notice, and the test passes without running).
pub async fn run<A, F, Fut>(backend: Backend, test: F)
where
    A: Fixture,
    F: FnOnce(A) -> Fut,
    Fut: Future<Output = ()>,
{
    // Every test starts here, before it builds any HTTP client.
    delivery::tls::install_crypto();
    if backend == Backend::Postgres && !postgres_reachable().await {
        eprintln!(
            "notice: PostgreSQL is not reachable at {}; skipping the PostgreSQL half",
            postgres_admin_url()
        );
        return;
    }
    if let Some(notice) = A::missing().await {
        eprintln!("notice: {notice}; skipping this test");
        return;
    }
    test(A::make(backend).await).await
}

/// Whether PostgreSQL answers, asked once per test process; in CI it must.
async fn postgres_reachable() -> bool {
    static REACHABLE: OnceCell<bool> = OnceCell::const_new();
    *REACHABLE
        .get_or_init(|| async {
            let admin = postgres_admin_url();
            // One attempt (a pool would retry a refused connection until it times out).
            let attempt = tokio::time::timeout(
                std::time::Duration::from_secs(5),
                <sqlx::PgConnection as sqlx::Connection>::connect(&admin),
            )
            .await;
            match attempt {
                Ok(Ok(connection)) => {
                    let _ = sqlx::Connection::close(connection).await;
                    true
                }
                failure => {
                    if std::env::var("CI").is_ok_and(|v| v == "true") {
                        panic!("PostgreSQL must be reachable in CI at {admin}: {failure:?}");
                    }
                    false
                }
            }
        })
        .await
}
