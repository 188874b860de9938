//! The `Database` handle over SQLite or PostgreSQL, transactions, and the `with_conn!`
//! macro that runs one piece of SQL code against whichever backend is in use.
//!
//! The handle also carries the wake-ups of the webhook dispatcher and of the mail worker:
//! a transaction begun on it that records their work wakes, at its commit, those of that
//! handle only (other handles and other nodes poll, or hear of it through PostgreSQL).
//!
//! SQLite gets two pools: a single writer connection (every transaction starts with
//! `BEGIN IMMEDIATE`, so writers queue instead of failing) and read-only connections that,
//! in WAL mode, never wait for the writer.

use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::migrate::Migrator;
use sqlx::pool::PoolConnection;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{PgConnection, PgPool, Postgres, Sqlite, SqliteConnection, SqlitePool};
use tokio::sync::Notify;

use crate::changes::{self, ChangeClock};
use crate::claim_counts::{ClaimCounters, ClaimCounts};
use crate::error::{Error, Result};

/// Migrations, embedded in the binary: every `NNNN_description.sql` of each backend's
/// folder, found by sqlx at compile time. Both folders have the same versions (a test
/// checks it).
static SQLITE_MIGRATOR: Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES_MIGRATOR: Migrator = sqlx::migrate!("./migrations/postgres");

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        }
    }
}

/// SQLite page caches (`cache_size` in KiB when negative): the writer's, and each
/// reader's. Small, as every connection maps the file (`MMAP_SIZE`): the operating system
/// caches its pages once for all of them, and gives that memory back under pressure.
const WRITER_CACHE: &str = "-16384";
const READER_CACHE: &str = "-4096";
/// How much of the database file each connection maps (1 GiB).
const MMAP_SIZE: &str = "1073741824";

/// A pooled PostgreSQL connection idle for this long is checked before it is handed out
/// (a round trip); one used more recently is trusted, so a busy pool sends no checks. A
/// SQLite connection is never checked: a file does not hang up.
const PING_WHEN_IDLE_FOR: Duration = Duration::from_secs(1);

/// Pool sizing and waiting limits.
#[derive(Clone, Debug)]
pub struct StoreOptions {
    /// Connections per pool (SQLite readers, or PostgreSQL connections).
    pub max_connections: u32,
    pub acquire_timeout: Duration,
    /// How long SQLite waits for another process holding the write lock.
    pub busy_timeout: Duration,
}

impl Default for StoreOptions {
    fn default() -> Self {
        Self {
            max_connections: 8,
            acquire_timeout: Duration::from_secs(10),
            busy_timeout: Duration::from_secs(5),
        }
    }
}

#[derive(Debug)]
pub struct SqlitePools {
    writer: SqlitePool,
    reader: SqlitePool,
}

/// A connection pool on one of the two backends, the wake-ups of the dispatchers and the
/// mail worker that work through it, and the count of the dispatchers' claims. Cheap to
/// clone; clones share them.
#[derive(Clone, Debug)]
pub struct Database {
    pools: Pools,
    work_committed: Arc<Notify>,
    mail_committed: Arc<Notify>,
    claims: Arc<ClaimCounters>,
    /// The clock of this process's commits, where it knows them all (SQLite).
    changes: Option<Arc<ChangeClock>>,
}

#[derive(Clone, Debug)]
enum Pools {
    Sqlite(Arc<SqlitePools>),
    Postgres(PgPool),
}

/// Size and idle connections of one pool, for metrics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolStats {
    pub pool: &'static str,
    pub size: u32,
    pub idle: u32,
    pub max: u32,
}

impl Database {
    fn new(pools: Pools, changes: Option<Arc<ChangeClock>>) -> Self {
        Self {
            pools,
            work_committed: Arc::new(Notify::new()),
            mail_committed: Arc::new(Notify::new()),
            claims: Arc::default(),
            changes,
        }
    }

    /// Connects to `sqlite://path` (file and folder created when missing) or `postgres://…`.
    pub async fn connect(url: &str, options: &StoreOptions) -> Result<Self> {
        if url.starts_with("sqlite:") {
            Self::connect_sqlite(url, options).await
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            let connect = PgConnectOptions::from_str(url)?.application_name("commerce");
            let pool = PgPoolOptions::new()
                .test_before_acquire(false)
                .before_acquire(|conn, meta| {
                    Box::pin(async move {
                        if meta.idle_for >= PING_WHEN_IDLE_FOR {
                            sqlx::Connection::ping(conn).await?;
                        }
                        Ok(true)
                    })
                })
                .max_connections(options.max_connections)
                .acquire_timeout(options.acquire_timeout)
                .connect_with(connect)
                .await?;
            Ok(Database::new(Pools::Postgres(pool), None))
        } else {
            Err(Error::Config(format!(
                "unsupported database URL `{}`: use sqlite://PATH or postgres://…",
                redact_url(url)
            )))
        }
    }

    async fn connect_sqlite(url: &str, options: &StoreOptions) -> Result<Self> {
        let base = SqliteConnectOptions::from_str(url)?
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(options.busy_timeout);
        let path = base.get_filename().to_path_buf();
        let changes = Arc::new(ChangeClock::default());
        let in_memory = path.as_os_str().is_empty() || path == Path::new(":memory:");
        if in_memory {
            // One connection serves reads and writes: separate pools would see separate databases.
            let pool = writer_pool(&changes)
                .acquire_timeout(options.acquire_timeout)
                .connect_with(base.in_memory(true))
                .await?;
            let pools = SqlitePools {
                writer: pool.clone(),
                reader: pool,
            };
            return Ok(Database::new(Pools::Sqlite(Arc::new(pools)), Some(changes)));
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::Config(format!("cannot create {}: {e}", dir.display())))?;
        }
        // Every connection maps the file, so pages are read from the operating system's
        // cache of it (shared, reclaimable, counted as file pages) rather than through a
        // system call each. Each connection's own page cache is anonymous memory that
        // stays once filled: together they bound what the database holds in the
        // process, `WRITER_CACHE` + `max_connections` × `READER_CACHE`.
        let writer = writer_pool(&changes)
            .acquire_timeout(options.acquire_timeout)
            .connect_with(
                base.clone()
                    .create_if_missing(true)
                    .pragma("cache_size", WRITER_CACHE)
                    .pragma("mmap_size", MMAP_SIZE),
            )
            .await?;
        let reader = SqlitePoolOptions::new()
            .test_before_acquire(false)
            .max_connections(options.max_connections.max(1))
            .acquire_timeout(options.acquire_timeout)
            .connect_with(
                base.read_only(true)
                    .pragma("cache_size", READER_CACHE)
                    .pragma("mmap_size", MMAP_SIZE),
            )
            .await?;
        let pools = Arc::new(SqlitePools { writer, reader });
        changes::watch_foreign_commits(Arc::downgrade(&pools), |p| &p.writer, changes.clone());
        Ok(Database::new(Pools::Sqlite(pools), Some(changes)))
    }

    pub fn backend(&self) -> Backend {
        match &self.pools {
            Pools::Sqlite(_) => Backend::Sqlite,
            Pools::Postgres(_) => Backend::Postgres,
        }
    }

    /// Applies pending migrations (PostgreSQL takes an advisory lock, so nodes may race).
    pub async fn migrate(&self) -> Result<()> {
        match &self.pools {
            Pools::Sqlite(p) => {
                SQLITE_MIGRATOR.run(&p.writer).await?;
                // The writer connected before the tables existed.
                changes::install_triggers(&mut *p.writer.acquire().await?).await?;
            }
            Pools::Postgres(p) => POSTGRES_MIGRATOR.run(p).await?,
        }
        Ok(())
    }

    /// Starts a write transaction.
    pub async fn begin(&self) -> Result<Tx> {
        let inner = match &self.pools {
            Pools::Sqlite(p) => {
                let tx = p.writer.begin_with("BEGIN IMMEDIATE").await?;
                if let Some(changes) = &self.changes {
                    changes.began();
                }
                TxInner::Sqlite(tx)
            }
            Pools::Postgres(p) => TxInner::Postgres(p.begin().await?),
        };
        Ok(self.tx(inner))
    }

    /// Starts a write transaction of the webhook dispatcher's bookkeeping, whose loss in
    /// a database crash its leases repair (the claims run out; what was sent is sent
    /// again): on PostgreSQL its commit does not wait for the WAL to reach the disk
    /// (SQLite in WAL mode never waits for the disk at commit). Its statements walk the
    /// due and primary-key indexes, and PostgreSQL is told so: a backlog arrives faster
    /// than statistics follow, and a plan guessed for a few rows sorts every due delivery.
    pub async fn begin_lease_work(&self) -> Result<Tx> {
        let inner = match &self.pools {
            Pools::Sqlite(_) => return self.begin().await,
            Pools::Postgres(p) => TxInner::Postgres(
                p.begin_with(
                    "BEGIN; SET LOCAL synchronous_commit = off; SET LOCAL enable_sort = off; \
                     SET LOCAL enable_bitmapscan = off",
                )
                .await?,
            ),
        };
        Ok(self.tx(inner))
    }

    fn tx(&self, inner: TxInner) -> Tx {
        Tx {
            inner,
            wakes_dispatcher: false,
            work_committed: self.work_committed.clone(),
            wakes_mailer: false,
            mail_committed: self.mail_committed.clone(),
            changes: self.changes.clone(),
        }
    }

    /// Whether the database answers.
    pub async fn ping(&self) -> Result<()> {
        with_conn!(Exec::Db(self), |c| sqlx::query("SELECT 1")
            .execute(c)
            .await
            .map(|_| ()))?;
        Ok(())
    }

    /// The connections the pool that serves requests may open (on SQLite, the readers':
    /// its writes all go through one).
    pub fn max_connections(&self) -> usize {
        let max = match &self.pools {
            Pools::Sqlite(p) => p.reader.options().get_max_connections(),
            Pools::Postgres(p) => p.options().get_max_connections(),
        };
        usize::try_from(max).unwrap_or(usize::MAX)
    }

    pub fn pool_stats(&self) -> Vec<PoolStats> {
        fn stats<DB: sqlx::Database>(pool: &'static str, p: &sqlx::Pool<DB>) -> PoolStats {
            PoolStats {
                pool,
                size: p.size(),
                idle: u32::try_from(p.num_idle()).unwrap_or(u32::MAX),
                max: p.options().get_max_connections(),
            }
        }
        match &self.pools {
            Pools::Sqlite(p) => vec![
                stats("sqlite_writer", &p.writer),
                stats("sqlite_reader", &p.reader),
            ],
            Pools::Postgres(p) => vec![stats("postgres", p)],
        }
    }

    pub async fn close(&self) {
        match &self.pools {
            Pools::Sqlite(p) => {
                p.reader.close().await;
                p.writer.close().await;
            }
            Pools::Postgres(p) => p.close().await,
        }
    }

    /// The clock of the commits made through this handle, where this process makes them
    /// all (SQLite); `None` where other nodes write too.
    pub fn change_clock(&self) -> Option<&Arc<ChangeClock>> {
        self.changes.as_ref()
    }

    /// The PostgreSQL pool, for what only PostgreSQL has (LISTEN); `None` on SQLite.
    pub(crate) fn postgres_pool(&self) -> Option<&PgPool> {
        match &self.pools {
            Pools::Postgres(p) => Some(p),
            Pools::Sqlite(_) => None,
        }
    }

    /// Wakes the dispatchers working through this handle (work was committed through it,
    /// or another node said so).
    pub fn wake_dispatcher(&self) {
        self.work_committed.notify_waiters();
    }

    /// Resolves when dispatcher work is committed through this handle (or announced by
    /// another node) after this call: listen before looking, so that work committed
    /// meanwhile is not missed.
    pub fn dispatcher_woken(&self) -> tokio::sync::futures::Notified<'_> {
        self.work_committed.notified()
    }

    /// Resolves when mail is committed through this handle after this call (listen
    /// before looking, as for [`Self::dispatcher_woken`]).
    pub fn mailer_woken(&self) -> tokio::sync::futures::Notified<'_> {
        self.mail_committed.notified()
    }

    /// The delivery claims made through this handle so far, by how they found their work.
    pub fn claim_counts(&self) -> ClaimCounts {
        self.claims.counts()
    }

    pub(crate) fn claim_counters(&self) -> &ClaimCounters {
        &self.claims
    }
}

/// A write transaction; dropped without `commit` it rolls back.
#[derive(Debug)]
pub struct Tx {
    inner: TxInner,
    /// Work for the webhook dispatcher was written: wake it once this commits.
    wakes_dispatcher: bool,
    /// The wake-up of the handle this transaction was begun on.
    work_committed: Arc<Notify>,
    /// Mail was written: wake the mail worker of this handle once this commits.
    wakes_mailer: bool,
    mail_committed: Arc<Notify>,
    /// The clock its commit advances, where there is one.
    changes: Option<Arc<ChangeClock>>,
}

#[derive(Debug)]
enum TxInner {
    Sqlite(sqlx::Transaction<'static, Sqlite>),
    Postgres(sqlx::Transaction<'static, Postgres>),
}

impl Tx {
    pub async fn commit(self) -> Result<()> {
        match self.inner {
            TxInner::Sqlite(t) => t.commit().await?,
            TxInner::Postgres(t) => t.commit().await.map_err(outcome_unknown)?,
        }
        if let Some(changes) = &self.changes {
            changes.committed();
        }
        if self.wakes_dispatcher {
            self.work_committed.notify_waiters();
        }
        if self.wakes_mailer {
            self.mail_committed.notify_waiters();
        }
        Ok(())
    }

    /// Ends the transaction without its changes, releasing its locks now (dropping it
    /// rolls back too, but only when its connection is next used).
    pub async fn rollback(self) -> Result<()> {
        match self.inner {
            TxInner::Sqlite(t) => t.rollback().await?,
            TxInner::Postgres(t) => t.rollback().await?,
        }
        Ok(())
    }

    pub fn backend(&self) -> Backend {
        match self.inner {
            TxInner::Sqlite(_) => Backend::Sqlite,
            TxInner::Postgres(_) => Backend::Postgres,
        }
    }

    /// Wakes the webhook dispatchers of this transaction's handle after the commit (other
    /// nodes hear of it through the database).
    pub(crate) fn wake_dispatcher_on_commit(&mut self) {
        self.wakes_dispatcher = true;
    }

    /// Wakes the mail worker of this transaction's handle after the commit (a worker on
    /// another node finds the mail at its next poll).
    pub(crate) fn wake_mailer_on_commit(&mut self) {
        self.wakes_mailer = true;
    }
}

/// Where a query runs: on the pool (reads) or inside a transaction.
pub enum Exec<'a> {
    Db(&'a Database),
    Tx(&'a mut Tx),
}

impl Exec<'_> {
    pub fn backend(&self) -> Backend {
        match self {
            Exec::Db(db) => db.backend(),
            Exec::Tx(tx) => tx.backend(),
        }
    }

    /// The same place, borrowed again, so that one function can send several queries.
    pub fn reborrow(&mut self) -> Exec<'_> {
        match self {
            Exec::Db(db) => Exec::Db(db),
            Exec::Tx(tx) => Exec::Tx(tx),
        }
    }
}

impl<'a> From<&'a Database> for Exec<'a> {
    fn from(db: &'a Database) -> Self {
        Exec::Db(db)
    }
}

impl<'a> From<&'a mut Tx> for Exec<'a> {
    fn from(tx: &'a mut Tx) -> Self {
        Exec::Tx(tx)
    }
}

/// A connection held for one query: pooled, or borrowed from a transaction.
pub(crate) enum Handle<'a> {
    SqlitePooled(PoolConnection<Sqlite>),
    PostgresPooled(PoolConnection<Postgres>),
    SqliteTx(&'a mut SqliteConnection),
    PostgresTx(&'a mut PgConnection),
}

pub(crate) enum Conn<'c> {
    Sqlite(&'c mut SqliteConnection),
    Postgres(&'c mut PgConnection),
}

impl<'a> Handle<'a> {
    pub(crate) async fn open(exec: Exec<'a>) -> Result<Self> {
        crate::query_count::note(1);
        Ok(match exec {
            Exec::Db(db) => match &db.pools {
                Pools::Sqlite(p) => Handle::SqlitePooled(p.reader.acquire().await?),
                Pools::Postgres(p) => Handle::PostgresPooled(p.acquire().await?),
            },
            Exec::Tx(Tx {
                inner: TxInner::Sqlite(t),
                ..
            }) => Handle::SqliteTx(&mut *t),
            Exec::Tx(Tx {
                inner: TxInner::Postgres(t),
                ..
            }) => Handle::PostgresTx(&mut *t),
        })
    }

    pub(crate) fn conn(&mut self) -> Conn<'_> {
        match self {
            Handle::SqlitePooled(c) => Conn::Sqlite(&mut *c),
            Handle::PostgresPooled(c) => Conn::Postgres(&mut *c),
            Handle::SqliteTx(c) => Conn::Sqlite(c),
            Handle::PostgresTx(c) => Conn::Postgres(c),
        }
    }
}

/// SQLite's one writer connection, reporting its commits to `changes`. It is kept for
/// the pool's life: a new one cannot vouch for what the old one saw (see `changes`).
fn writer_pool(changes: &Arc<ChangeClock>) -> SqlitePoolOptions {
    let changes = changes.clone();
    SqlitePoolOptions::new()
        .test_before_acquire(false)
        .max_connections(1)
        .max_lifetime(None)
        .idle_timeout(None)
        .after_connect(move |conn, _| {
            let changes = changes.clone();
            Box::pin(async move { changes.attach(conn).await })
        })
}

/// A commit whose connection was lost may have been applied: a failure whose outcome is
/// unknown, not a busy database that a client should simply try again.
fn outcome_unknown(err: sqlx::Error) -> Error {
    match Error::from(err) {
        Error::Busy(err) => Error::Database(err),
        other => other,
    }
}

/// A database URL with any password hidden, for messages.
pub fn redact_url(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            let credentials = &url[scheme_end + 3..at];
            match credentials.split_once(':') {
                Some((user, _)) => {
                    format!("{}://{user}:***@{}", &url[..scheme_end], &url[at + 1..])
                }
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_passwords() {
        assert_eq!(
            redact_url("postgres://u:secret@h/db"),
            "postgres://u:***@h/db"
        );
        assert_eq!(redact_url("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(redact_url("sqlite://./data/x.db"), "sqlite://./data/x.db");
    }

    fn files(folder: &str) -> Vec<String> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("migrations")
            .join(folder);
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// The file each embedded migration came from (sqlx turns `_` into spaces in its
    /// description).
    fn embedded(migrator: &Migrator) -> Vec<String> {
        migrator
            .iter()
            .map(|m| format!("{:04}_{}.sql", m.version, m.description.replace(' ', "_")))
            .collect()
    }

    fn versions(migrator: &Migrator) -> Vec<i64> {
        migrator.iter().map(|m| m.version).collect()
    }

    /// Every file is embedded (a misnamed one would be skipped silently), and both backends
    /// have the same versions.
    #[test]
    fn embedded_migrations_match_their_folders_and_each_other() {
        assert_eq!(embedded(&SQLITE_MIGRATOR), files("sqlite"));
        assert_eq!(embedded(&POSTGRES_MIGRATOR), files("postgres"));
        assert_eq!(versions(&SQLITE_MIGRATOR), versions(&POSTGRES_MIGRATOR));
    }
}
