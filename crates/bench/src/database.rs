//! A fresh, throw-away database per backend, so every run measures the same small data set
//! and leaves nothing behind.

use std::time::Duration;

use anyhow::{Context, Result};
use reqwest::Url;
use sqlx::{AssertSqlSafe, Connection, PgConnection};
use tempfile::TempDir;

use crate::args::Backend;

const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// A database the server can be pointed at; call [`ScratchDatabase::remove`] when done.
pub struct ScratchDatabase {
    pub url: String,
    place: Place,
}

enum Place {
    /// Removed with the folder when dropped.
    Sqlite(TempDir),
    Postgres {
        admin_url: String,
        name: String,
    },
}

impl ScratchDatabase {
    /// `Ok(None)` when PostgreSQL is unreachable: that backend is skipped, with a notice.
    pub async fn create(backend: Backend, postgres_url: &str) -> Result<Option<Self>> {
        match backend {
            Backend::Sqlite => {
                let dir = tempfile::Builder::new()
                    .prefix("commerce-bench-")
                    .tempdir()
                    .context("create a temporary folder for the SQLite database")?;
                let url = format!("sqlite://{}/bench.db", dir.path().display());
                Ok(Some(Self {
                    url,
                    place: Place::Sqlite(dir),
                }))
            }
            Backend::Postgres => {
                let mut admin = match connect(postgres_url).await {
                    Ok(conn) => conn,
                    Err(err) => {
                        println!(
                            "notice: PostgreSQL is not reachable at {} ({err:#}); skipping it",
                            redacted(postgres_url)
                        );
                        return Ok(None);
                    }
                };
                let name = format!("commerce_bench_{}", random_hex(8));
                sqlx::query(AssertSqlSafe(format!("CREATE DATABASE {name}")))
                    .execute(&mut admin)
                    .await
                    .with_context(|| format!("create the database {name}"))?;
                admin.close().await.ok();
                let mut url = Url::parse(postgres_url)
                    .with_context(|| format!("{postgres_url} is not a URL"))?;
                url.set_path(&name);
                Ok(Some(Self {
                    url: url.into(),
                    place: Place::Postgres {
                        admin_url: postgres_url.to_owned(),
                        name,
                    },
                }))
            }
        }
    }

    /// Deletes the database (the server using it must have stopped).
    pub async fn remove(self) -> Result<()> {
        match self.place {
            Place::Sqlite(dir) => dir.close().context("remove the SQLite folder"),
            Place::Postgres { admin_url, name } => {
                let mut admin = connect(&admin_url).await?;
                sqlx::query(AssertSqlSafe(format!(
                    "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                )))
                .execute(&mut admin)
                .await
                .with_context(|| format!("drop the database {name}"))?;
                admin.close().await.ok();
                Ok(())
            }
        }
    }
}

async fn connect(url: &str) -> Result<PgConnection> {
    tokio::time::timeout(CONNECT_TIMEOUT, PgConnection::connect(url))
        .await
        .context("timed out")?
        .context("cannot connect")
}

/// The URL without its password, fit to print.
fn redacted(url: &str) -> String {
    match Url::parse(url) {
        Ok(mut url) => {
            if url.password().is_some() {
                let _ = url.set_password(Some("***"));
            }
            url.into()
        }
        Err(_) => "the PostgreSQL URL".into(),
    }
}

fn random_hex(bytes: usize) -> String {
    oauth::secrets::random_bytes(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
