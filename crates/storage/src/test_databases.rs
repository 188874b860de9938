//! Fresh migrated databases of both backends for the storage's own tests (PostgreSQL
//! only when reachable; in CI it must be).

use crate::{Database, StoreOptions};

/// A migrated database with its URL (and the folder a SQLite one lives in).
pub struct TestDatabase {
    pub db: Database,
    pub url: String,
    /// Bind it for as long as the database is used: dropping it removes the folder.
    pub _dir: Option<tempfile::TempDir>,
}

/// One fresh database of each available backend.
pub async fn both() -> Vec<TestDatabase> {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}/test.db", dir.path().display());
    let mut all = vec![TestDatabase {
        db: migrated(&url).await,
        url,
        _dir: Some(dir),
    }];
    if let Some(url) = postgres_database().await {
        all.push(TestDatabase {
            db: migrated(&url).await,
            url,
            _dir: None,
        });
    }
    all
}

async fn migrated(url: &str) -> Database {
    let db = Database::connect(url, &StoreOptions::default())
        .await
        .unwrap();
    db.migrate().await.unwrap();
    db
}

/// A new PostgreSQL database's URL, or `None` when PostgreSQL is unreachable (outside CI).
async fn postgres_database() -> Option<String> {
    let admin = std::env::var("COMMERCE_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
    let connected = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        sqlx::postgres::PgPoolOptions::new()
            .max_connections(1)
            .connect(&admin),
    )
    .await;
    let Ok(Ok(pool)) = connected else {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("PostgreSQL must be reachable in CI at {admin}");
        }
        eprintln!("notice: PostgreSQL is not reachable; skipping the PostgreSQL half");
        return None;
    };
    let name = format!("commerce_storage_{}", hex(&crate::secrets::random_bytes(6)));
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
    let base = admin.rsplit_once('/').map_or(admin.as_str(), |(b, _)| b);
    Some(format!("{base}/{name}"))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
