//! Databases created before migrations were found in their folders (when `db.rs` listed
//! them by hand) keep migrating: sqlx recognises each applied migration by version and
//! checksum, and the folders give the same ones.

use std::str::FromStr;

use sqlx::SqlSafeStr;
use sqlx::migrate::{Migration, MigrationType, Migrator};

use crate::on_both_backends;
use crate::support::{Backend, TestDb};

on_both_backends!(a_database_of_the_hand_listed_migrations_migrates_on);

/// The migrator as `db.rs` built it from its hand-written list, for the first seven
/// migrations.
macro_rules! hand_listed {
    ($folder:literal) => {
        [
            (
                1,
                "foundation",
                include_str!(concat!(
                    "../../../storage/migrations/",
                    $folder,
                    "/0001_foundation.sql"
                )),
            ),
            (
                2,
                "authorization",
                include_str!(concat!(
                    "../../../storage/migrations/",
                    $folder,
                    "/0002_authorization.sql"
                )),
            ),
            (
                3,
                "web_sessions",
                include_str!(concat!(
                    "../../../storage/migrations/",
                    $folder,
                    "/0003_web_sessions.sql"
                )),
            ),
            (
                4,
                "catalog",
                include_str!(concat!(
                    "../../../storage/migrations/",
                    $folder,
                    "/0004_catalog.sql"
                )),
            ),
            (
                5,
                "webhooks",
                include_str!(concat!(
                    "../../../storage/migrations/",
                    $folder,
                    "/0005_webhooks.sql"
                )),
            ),
            (
                6,
                "orders",
                include_str!(concat!(
                    "../../../storage/migrations/",
                    $folder,
                    "/0006_orders.sql"
                )),
            ),
            (
                7,
                "webhook_backlog",
                include_str!(concat!(
                    "../../../storage/migrations/",
                    $folder,
                    "/0007_webhook_backlog.sql"
                )),
            ),
        ]
    };
}

fn migrator(list: [(i64, &'static str, &'static str); 7]) -> Migrator {
    Migrator::with_migrations(
        list.into_iter()
            .map(|(version, description, sql)| {
                Migration::new(
                    version,
                    description.into(),
                    MigrationType::Simple,
                    sql.into_sql_str(),
                    false,
                )
            })
            .collect(),
    )
}

async fn a_database_of_the_hand_listed_migrations_migrates_on(db: TestDb) {
    match db.backend {
        Backend::Sqlite => {
            let options = sqlx::sqlite::SqliteConnectOptions::from_str(&db.url)
                .expect("a SQLite URL")
                .create_if_missing(true);
            let pool = sqlx::SqlitePool::connect_with(options)
                .await
                .expect("connect");
            migrator(hand_listed!("sqlite"))
                .run(&pool)
                .await
                .expect("the hand-listed migrations run");
            pool.close().await;
        }
        Backend::Postgres => {
            let pool = sqlx::PgPool::connect(&db.url).await.expect("connect");
            migrator(hand_listed!("postgres"))
                .run(&pool)
                .await
                .expect("the hand-listed migrations run");
            pool.close().await;
        }
    }
    for _ in 0..2 {
        let store = storage::Database::connect(&db.url, &storage::StoreOptions::default())
            .await
            .expect("connect");
        store
            .migrate()
            .await
            .expect("the folder's migrations accept what the hand list applied");
        store.close().await;
    }
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../storage/migrations")
        .join(match db.backend {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        });
    let files = std::fs::read_dir(folder)
        .expect("the migrations folder")
        .count();
    let applied = db
        .scalar("SELECT COUNT(*) FROM _sqlx_migrations WHERE success")
        .await;
    assert_eq!(applied, i64::try_from(files).expect("a count"));
}
