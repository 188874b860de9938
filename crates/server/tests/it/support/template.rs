//! Per-backend template databases: a test process migrates a database and seeds the demo
//! data into it once per backend, and each server started with the demo data runs on a
//! copy (PostgreSQL: `CREATE DATABASE … TEMPLATE`; SQLite: the file and the key file
//! beside it). Nothing is kept between runs: a template's name holds its process id and a
//! random part, and templates of processes that are gone are dropped when a run makes its
//! own (no hook runs at exit, so each run leaves its templates to the next).
//!
//! A copy shares with its template, and so with the other copies, only what seeding made:
//! the demo account, its credentials and the encryption key that seals them. The signing
//! keys, which tell one server's tokens from another's, are made by each server at its
//! first start, on its own copy.

use std::path::{Path, PathBuf};

use server::seed::{self, DemoData};
use storage::secret_box::{KeySource, SecretBox};
use tokio::sync::OnceCell;

use super::{Backend, SQLITE_FILE, TestDb, postgres_admin, postgres_url, random_name};

/// A migrated database with the demo data; no connection to it is kept open, as
/// PostgreSQL copies only a database no one uses.
struct Template {
    /// The SQLite database file, or the PostgreSQL database name.
    source: String,
    encryption_key: Option<String>,
    demo: DemoData,
}

static SQLITE: OnceCell<Template> = OnceCell::const_new();
static POSTGRES: OnceCell<Template> = OnceCell::const_new();

/// How templates' names (SQLite: their folders') begin, before `<pid>_<random>`.
const PREFIX: &str = "commerce_tpl_";

impl TestDb {
    /// A copy of the backend's template, and the demo data it holds.
    pub async fn copy_of_template(backend: Backend) -> (Self, DemoData) {
        let cell = match backend {
            Backend::Sqlite => &SQLITE,
            Backend::Postgres => &POSTGRES,
        };
        let template = cell.get_or_init(|| Template::make(backend)).await;
        let db = match backend {
            Backend::Sqlite => {
                let db = Self::sqlite();
                let file = db.sqlite_file();
                copy(Path::new(&template.source), &file).await;
                copy(&key_file(Path::new(&template.source)), &key_file(&file)).await;
                db
            }
            Backend::Postgres => {
                let key = template.encryption_key.clone().expect("a configured key");
                Self::postgres(Some(&template.source), key).await
            }
        };
        (db, template.demo.clone())
    }

    /// The file of a SQLite database.
    fn sqlite_file(&self) -> PathBuf {
        self.dir
            .as_ref()
            .expect("a SQLite database has a folder")
            .path()
            .join(SQLITE_FILE)
    }
}

impl Template {
    async fn make(backend: Backend) -> Self {
        let name = format!("{PREFIX}{}_{}", std::process::id(), random_name());
        match backend {
            Backend::Sqlite => {
                let root = std::env::temp_dir().join("commerce-test-templates");
                drop_stale_folders(&root);
                let dir = root.join(&name);
                std::fs::create_dir_all(&dir).expect("a template folder");
                let file = dir.join(SQLITE_FILE);
                let url = format!("sqlite://{}", file.display());
                let keys = KeySource::default_for(&url).expect("a key file beside it");
                let demo = migrate_and_seed(&url, keys).await;
                Self {
                    source: file.display().to_string(),
                    encryption_key: None,
                    demo,
                }
            }
            Backend::Postgres => {
                drop_stale_databases().await;
                postgres_admin(&format!("CREATE DATABASE {name}")).await;
                let key = storage::secret_box::encode_key(&storage::secret_box::generate_key());
                let keys = KeySource::configured(&key).expect("a key");
                let demo = migrate_and_seed(&postgres_url(&name), keys).await;
                Self {
                    source: name,
                    encryption_key: Some(key),
                    demo,
                }
            }
        }
    }
}

/// Migrates the database at `url`, seeds the demo data as a server's first start would
/// find it, and closes every connection (SQLite's log folded into the file first, so
/// that the file alone is the database).
async fn migrate_and_seed(url: &str, keys: KeySource) -> DemoData {
    let db = storage::Database::connect(url, &storage::StoreOptions::default())
        .await
        .expect("connect to the template");
    db.migrate().await.expect("migrate the template");
    let secret_box = SecretBox::open_for(&db, keys)
        .await
        .expect("the template's keys");
    let demo = seed::demo(&db, &secret_box, &domain::SystemClock)
        .await
        .expect("demo data");
    if db.backend() == storage::Backend::Sqlite {
        let pool = sqlx::SqlitePool::connect(url).await.expect("reconnect");
        sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
            .execute(&pool)
            .await
            .expect("checkpoint");
        pool.close().await;
    }
    db.close().await;
    demo
}

/// `database.key` beside `database.db`, as `KeySource::default_for` finds it.
fn key_file(database: &Path) -> PathBuf {
    database.with_extension("key")
}

async fn copy(from: &Path, to: &Path) {
    tokio::fs::copy(from, to)
        .await
        .unwrap_or_else(|e| panic!("copy {} to {}: {e}", from.display(), to.display()));
}

/// Whether the process that made a template named `name` is gone (known only where
/// `/proc` lists processes; elsewhere nothing is taken for gone).
fn made_by_a_gone_process(name: &str) -> bool {
    let Some(pid) = name
        .strip_prefix(PREFIX)
        .and_then(|rest| rest.split('_').next())
        .and_then(|pid| pid.parse::<u32>().ok())
    else {
        return false;
    };
    Path::new("/proc/self").exists() && !Path::new(&format!("/proc/{pid}")).exists()
}

fn drop_stale_folders(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        if made_by_a_gone_process(&entry.file_name().to_string_lossy()) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

async fn drop_stale_databases() {
    let pool = sqlx::PgPool::connect(&super::postgres_admin_url())
        .await
        .expect("connect to PostgreSQL");
    let names: Vec<String> =
        sqlx::query_scalar("SELECT datname FROM pg_database WHERE datname LIKE 'commerce_tpl_%'")
            .fetch_all(&pool)
            .await
            .expect("list the databases");
    pool.close().await;
    for name in names.into_iter().filter(|n| made_by_a_gone_process(n)) {
        postgres_admin(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await;
    }
}
