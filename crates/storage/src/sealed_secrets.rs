//! Every sealed column of the database, and the work that spans them all: which keys seal
//! them, resealing under the sealing key (a key rotation), and the one-time upgrade of
//! what an earlier version stored raw (signing keys, kept answers) or sealed under a key
//! kept in the database itself.

use std::collections::BTreeMap;

use sqlx::{Postgres, Sqlite};

use crate::db::{Database, Exec, Tx};
use crate::error::Result;
use crate::secret_box::{self, KEY_BYTES, KeyId, SecretBox, SecretBoxError};

/// Marks a database whose secrets are all in the current sealed format.
const FORMAT_SETTING: &str = "sealed_format";
/// Where an earlier version kept its generated encryption key.
const LEGACY_KEY_SETTING: &str = "secret_box_key";

/// How a column's rows are named.
#[derive(Clone, Copy)]
enum RowKey {
    Integer,
    Text,
    Bytes,
}

/// What an earlier version stored in a column.
#[derive(Clone, Copy)]
enum Legacy {
    Raw,
    Sealed,
    /// Only versions that seal in the current format write the column: nothing to upgrade.
    Absent,
}

struct SealedColumn {
    table: &'static str,
    key: &'static str,
    key_kind: RowKey,
    column: &'static str,
    legacy: Legacy,
}

/// A new sealed column is added here, or rotations and dumps leave it behind (a test
/// checks that every binary column is here or known to hold no secret).
const COLUMNS: &[SealedColumn] = &[
    SealedColumn {
        table: "signing_keys",
        key: "kid",
        key_kind: RowKey::Text,
        column: "secret",
        legacy: Legacy::Raw,
    },
    SealedColumn {
        table: "oauth_apps",
        key: "id",
        key_kind: RowKey::Integer,
        column: "client_secret_ciphertext",
        legacy: Legacy::Sealed,
    },
    SealedColumn {
        table: "webhooks",
        key: "id",
        key_kind: RowKey::Integer,
        column: "secret_sealed",
        legacy: Legacy::Sealed,
    },
    SealedColumn {
        table: "webhooks",
        key: "id",
        key_kind: RowKey::Integer,
        column: "previous_secret_sealed",
        legacy: Legacy::Sealed,
    },
    SealedColumn {
        table: "webhooks",
        key: "id",
        key_kind: RowKey::Integer,
        column: "auth_password_sealed",
        legacy: Legacy::Sealed,
    },
    SealedColumn {
        table: "idempotency_keys",
        key: "key_digest",
        key_kind: RowKey::Bytes,
        column: "response_body",
        legacy: Legacy::Raw,
    },
    // Mail bodies may carry one-time tokens (erased once the mail is sent).
    SealedColumn {
        table: "mail_outbox",
        key: "id",
        key_kind: RowKey::Integer,
        column: "body_sealed",
        legacy: Legacy::Absent,
    },
    // A payment method's secret settings (a gateway's secret key).
    SealedColumn {
        table: "payment_methods",
        key: "id",
        key_kind: RowKey::Integer,
        column: "secrets_sealed",
        legacy: Legacy::Absent,
    },
];

/// The `table.column` names of every sealed column.
pub fn sealed_columns() -> impl Iterator<Item = String> {
    COLUMNS.iter().map(|c| format!("{}.{}", c.table, c.column))
}

/// Whether the database's secrets are in the current format (an empty database is made
/// current by the first start).
pub(crate) async fn is_current(db: &Database) -> Result<bool> {
    Ok(crate::settings::get(db, FORMAT_SETTING).await?.is_some())
}

/// How many sealed values each key sealed; values with no key header (which only an
/// interrupted upgrade could leave) count under `None`.
pub async fn key_ids_in_use(db: &Database) -> Result<BTreeMap<Option<KeyId>, u64>> {
    let mut counts = BTreeMap::new();
    for column in COLUMNS {
        let values: Vec<Vec<u8>> = with_conn!(Exec::Db(db), |c| {
            sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                "SELECT {col} FROM {table} WHERE {col} IS NOT NULL",
                col = column.column,
                table = column.table
            )))
            .fetch_all(c)
            .await
        })?;
        for value in values {
            *counts.entry(KeyId::of_sealed(&value)).or_insert(0) += 1;
        }
    }
    Ok(counts)
}

/// Seals every secret not sealed with the sealing key anew with it, in one transaction;
/// how many were. A value changed meanwhile by another writer is left to it (the update
/// only applies to the value that was read).
pub async fn reseal(db: &Database, secret_box: &SecretBox) -> Result<u64, SecretBoxError> {
    let sealing = secret_box.sealing_key_id();
    let mut tx = db.begin().await?;
    let mut resealed = 0;
    for column in COLUMNS {
        resealed += rewrite_column(&mut tx, column, |value| {
            if KeyId::of_sealed(value) == Some(sealing) {
                return Ok(None);
            }
            let plaintext = secret_box.open(value)?;
            Ok(Some(secret_box.seal(&plaintext)))
        })
        .await?;
    }
    tx.commit().await?;
    Ok(resealed)
}

/// Brings a database written by an earlier version to the current format, once: raw
/// values sealed, values sealed under the key it kept in the database (or under one of
/// `configured`, as it was then given) sealed anew, and that key deleted. Nodes starting
/// together do it once: the first to mark the database does the work in the same
/// transaction, and the others wait for it and find it done.
pub(crate) async fn upgrade(
    db: &Database,
    secret_box: &SecretBox,
    configured: &[[u8; KEY_BYTES]],
) -> Result<(), SecretBoxError> {
    if is_current(db).await? {
        return Ok(());
    }
    let mut tx = db.begin().await?;
    let marked = with_conn!(Exec::Tx(&mut tx), |c| {
        sqlx::query(
            "INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
        )
        .bind(FORMAT_SETTING)
        .bind(&b"1"[..])
        .execute(c)
        .await
        .map(|done| done.rows_affected())
    })
    .map_err(crate::Error::from)?;
    if marked == 0 {
        return Ok(());
    }
    let stored_key: Option<Vec<u8>> = with_conn!(Exec::Tx(&mut tx), |c| {
        sqlx::query_scalar("SELECT value FROM settings WHERE name = $1")
            .bind(LEGACY_KEY_SETTING)
            .fetch_optional(c)
            .await
    })
    .map_err(crate::Error::from)?;
    let legacy_keys: Vec<&[u8]> = stored_key
        .as_deref()
        .into_iter()
        .chain(configured.iter().map(|k| &k[..]))
        .collect();
    let mut upgraded = 0;
    for column in COLUMNS {
        upgraded += rewrite_column(&mut tx, column, |value| {
            let plaintext = match column.legacy {
                Legacy::Raw => value.to_vec(),
                // Sealed as it is now: left as it is.
                Legacy::Absent => return Ok(None),
                Legacy::Sealed => legacy_keys
                    .iter()
                    .find_map(|key| secret_box::open_legacy(key, value))
                    .ok_or_else(|| {
                        SecretBoxError::KeyFile(format!(
                            "a secret sealed by an earlier version ({}.{}) opens with neither \
                             the key it kept in the database nor the configured keys: start \
                             once with the key it was sealed with",
                            column.table, column.column
                        ))
                    })?,
            };
            Ok(Some(secret_box.seal(&plaintext)))
        })
        .await?;
    }
    with_conn!(Exec::Tx(&mut tx), |c| {
        sqlx::query("DELETE FROM settings WHERE name = $1")
            .bind(LEGACY_KEY_SETTING)
            .execute(c)
            .await
            .map(|done| done.rows_affected())
    })
    .map_err(crate::Error::from)?;
    tx.commit().await?;
    if upgraded > 0 || stored_key.is_some() {
        tracing::info!(
            secrets = upgraded,
            "sealed the secrets of an earlier version with the encryption key outside the database"
        );
    }
    Ok(())
}

/// Replaces each value of `column` by what `rewrite` makes of it (`None`: leave it).
async fn rewrite_column(
    tx: &mut Tx,
    column: &SealedColumn,
    mut rewrite: impl FnMut(&[u8]) -> Result<Option<Vec<u8>>, SecretBoxError>,
) -> Result<u64, SecretBoxError> {
    match column.key_kind {
        RowKey::Integer => rewrite_rows::<i64>(tx, column, &mut rewrite).await,
        RowKey::Text => rewrite_rows::<String>(tx, column, &mut rewrite).await,
        RowKey::Bytes => rewrite_rows::<Vec<u8>>(tx, column, &mut rewrite).await,
    }
}

/// A row key that binds and decodes on both backends.
trait Key:
    for<'r> sqlx::Decode<'r, Sqlite>
    + for<'q> sqlx::Encode<'q, Sqlite>
    + sqlx::Type<Sqlite>
    + for<'r> sqlx::Decode<'r, Postgres>
    + for<'q> sqlx::Encode<'q, Postgres>
    + sqlx::Type<Postgres>
    + Send
    + Sync
    + Unpin
    + 'static
{
}

impl<T> Key for T where
    T: for<'r> sqlx::Decode<'r, Sqlite>
        + for<'q> sqlx::Encode<'q, Sqlite>
        + sqlx::Type<Sqlite>
        + for<'r> sqlx::Decode<'r, Postgres>
        + for<'q> sqlx::Encode<'q, Postgres>
        + sqlx::Type<Postgres>
        + Send
        + Sync
        + Unpin
        + 'static
{
}

async fn rewrite_rows<K: Key>(
    tx: &mut Tx,
    column: &SealedColumn,
    rewrite: &mut impl FnMut(&[u8]) -> Result<Option<Vec<u8>>, SecretBoxError>,
) -> Result<u64, SecretBoxError> {
    let SealedColumn {
        table, key, column, ..
    } = column;
    let rows: Vec<(K, Vec<u8>)> = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {key}, {column} FROM {table} WHERE {column} IS NOT NULL"
        )))
        .fetch_all(c)
        .await
    })
    .map_err(crate::Error::from)?;
    let update = format!("UPDATE {table} SET {column} = $1 WHERE {key} = $2 AND {column} = $3");
    let mut rewritten = 0;
    for (row, value) in rows {
        let Some(fresh) = rewrite(&value)? else {
            continue;
        };
        rewritten += with_conn!(Exec::Tx(tx), |c| {
            sqlx::query(sqlx::AssertSqlSafe(update.clone()))
                .bind(&fresh)
                .bind(&row)
                .bind(&value)
                .execute(c)
                .await
                .map(|done| done.rows_affected())
        })
        .map_err(crate::Error::from)?;
    }
    Ok(rewritten)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secret_box::{KeySource, seal_legacy};
    use crate::{StoreOptions, apps, idempotency, signing_keys};
    use domain::Timestamp;

    const OLD: [u8; 32] = [1; 32];
    const NEW: [u8; 32] = [2; 32];

    async fn database(dir: &tempfile::TempDir) -> Database {
        let url = format!("sqlite://{}/commerce.db", dir.path().display());
        let db = Database::connect(&url, &StoreOptions::default())
            .await
            .unwrap();
        db.migrate().await.unwrap();
        db
    }

    async fn execute(db: &Database, sql: &str, value: &[u8]) {
        async fn run(db: &Database, sql: &str, value: &[u8]) -> Result<()> {
            let mut tx = db.begin().await?;
            with_conn!(Exec::Tx(&mut tx), |c| {
                sqlx::query(sqlx::AssertSqlSafe(sql.to_owned()))
                    .bind(value)
                    .execute(c)
                    .await
                    .map(|_| ())
            })?;
            tx.commit().await
        }
        run(db, sql, value).await.unwrap();
    }

    /// A database as an earlier version left it: a raw signing key, a client secret sealed
    /// under the key it kept in `settings`, and a raw kept answer.
    async fn earlier_version(db: &Database, stored_key: &[u8; 32]) {
        execute(
            db,
            "INSERT INTO settings (name, value) VALUES ('secret_box_key', $1)",
            stored_key,
        )
        .await;
        let mut tx = db.begin().await.unwrap();
        signing_keys::insert(&mut tx, "k1", b"raw signing key", Timestamp::from_secs(1))
            .await
            .unwrap();
        let sealed = seal_legacy(stored_key, b"client secret");
        apps::insert(
            &mut tx,
            &apps::NewApp {
                account_id: None,
                name: "App",
                client_id: "client",
                client_secret_digest: &[0; 32],
                redirect_uris: &[],
                grants: &["client_credentials"],
                scopes: "public",
                trusted: false,
                public: false,
                client_secret_ciphertext: Some(&sealed),
                system_role: None,
            },
            Timestamp::from_secs(1),
        )
        .await
        .unwrap();
        tx.commit().await.unwrap();
        let now = Timestamp::from_secs(1);
        idempotency::claim(db, b"key", b"fingerprint", now, 3600)
            .await
            .unwrap();
        let answer = idempotency::StoredResponse {
            status: 201,
            headers: Vec::new(),
            sealed_body: b"{\"token\":\"raw\"}".to_vec(),
        };
        idempotency::complete(db, b"key", &answer).await.unwrap();
    }

    /// Every sealed value, column by column.
    async fn values(db: &Database) -> Vec<Vec<u8>> {
        async fn read(db: &Database) -> Result<Vec<Vec<u8>>> {
            let mut all = Vec::new();
            for column in COLUMNS {
                let mut found: Vec<Vec<u8>> = with_conn!(Exec::Db(db), |c| {
                    sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                        "SELECT {col} FROM {table} WHERE {col} IS NOT NULL ORDER BY {key}",
                        col = column.column,
                        table = column.table,
                        key = column.key
                    )))
                    .fetch_all(c)
                    .await
                })?;
                all.append(&mut found);
            }
            Ok(all)
        }
        read(db).await.unwrap()
    }

    #[tokio::test]
    async fn an_earlier_versions_secrets_are_sealed_with_the_key_outside_the_database() {
        let dir = tempfile::tempdir().unwrap();
        let db = database(&dir).await;
        earlier_version(&db, &[9; 32]).await;
        let secret_box = SecretBox::open_for(&db, KeySource::Configured(vec![OLD]))
            .await
            .unwrap();
        assert!(
            crate::settings::get(&db, LEGACY_KEY_SETTING)
                .await
                .unwrap()
                .is_none()
        );
        let mut opened: Vec<Vec<u8>> = values(&db)
            .await
            .iter()
            .map(|v| secret_box.open(v).unwrap())
            .collect();
        opened.sort();
        assert_eq!(
            opened,
            vec![
                b"client secret".to_vec(),
                b"raw signing key".to_vec(),
                b"{\"token\":\"raw\"}".to_vec()
            ]
        );
        let in_use = key_ids_in_use(&db).await.unwrap();
        assert_eq!(
            in_use.into_iter().collect::<Vec<_>>(),
            vec![(Some(KeyId::of(&OLD)), 3)]
        );
        // Done once: a second start changes nothing.
        let before = values(&db).await;
        SecretBox::open_for(&db, KeySource::Configured(vec![OLD]))
            .await
            .unwrap();
        assert_eq!(values(&db).await, before);
    }

    #[tokio::test]
    async fn a_configured_key_of_an_earlier_version_opens_its_secrets() {
        let dir = tempfile::tempdir().unwrap();
        let db = database(&dir).await;
        earlier_version(&db, &OLD).await;
        // Then configured: the earlier version kept no key in the database.
        execute(&db, "DELETE FROM settings WHERE value = $1", &OLD).await;
        let secret_box = SecretBox::open_for(&db, KeySource::Configured(vec![OLD]))
            .await
            .unwrap();
        assert!(values(&db).await.iter().all(|v| secret_box.open(v).is_ok()));
        // Without the key it was sealed with, the upgrade refuses and changes nothing.
        let dir = tempfile::tempdir().unwrap();
        let db = database(&dir).await;
        earlier_version(&db, &OLD).await;
        execute(&db, "DELETE FROM settings WHERE value = $1", &OLD).await;
        let before = values(&db).await;
        assert!(
            SecretBox::open_for(&db, KeySource::Configured(vec![NEW]))
                .await
                .is_err()
        );
        assert_eq!(values(&db).await, before);
        assert!(!is_current(&db).await.unwrap());
    }

    #[tokio::test]
    async fn resealing_moves_every_secret_to_the_first_key() {
        let dir = tempfile::tempdir().unwrap();
        let db = database(&dir).await;
        earlier_version(&db, &[9; 32]).await;
        SecretBox::open_for(&db, KeySource::Configured(vec![OLD]))
            .await
            .unwrap();
        let both = SecretBox::open_for(&db, KeySource::Configured(vec![NEW, OLD]))
            .await
            .unwrap();
        assert_eq!(reseal(&db, &both).await.unwrap(), 3);
        assert_eq!(
            reseal(&db, &both).await.unwrap(),
            0,
            "nothing left to reseal"
        );
        let new_alone = SecretBox::open_for(&db, KeySource::Configured(vec![NEW]))
            .await
            .unwrap();
        assert!(values(&db).await.iter().all(|v| new_alone.open(v).is_ok()));
        let refused = SecretBox::open_for(&db, KeySource::Configured(vec![OLD]))
            .await
            .unwrap_err()
            .to_string();
        assert!(refused.contains("3 secret(s)"), "{refused}");
    }

    #[tokio::test]
    async fn a_lost_key_file_is_not_replaced_by_a_new_key() {
        let dir = tempfile::tempdir().unwrap();
        let db = database(&dir).await;
        let source =
            KeySource::default_for(&format!("sqlite://{}/commerce.db", dir.path().display()))
                .unwrap();
        let secret_box = SecretBox::open_for(&db, source.clone()).await.unwrap();
        let sealed = secret_box.seal(b"raw signing key");
        let mut tx = db.begin().await.unwrap();
        signing_keys::insert(&mut tx, "k1", &sealed, Timestamp::from_secs(1))
            .await
            .unwrap();
        tx.commit().await.unwrap();
        assert!(SecretBox::open_for(&db, source.clone()).await.is_ok());
        std::fs::remove_file(source.file().unwrap()).unwrap();
        let refused = SecretBox::open_for(&db, source.clone()).await.unwrap_err();
        assert!(
            matches!(refused, SecretBoxError::MissingKeyFile(_)),
            "{refused}"
        );
        assert!(!source.file().unwrap().exists());
    }

    /// Binary columns that hold digests, fingerprints or public bytes, never a secret.
    const NO_SECRET: &[&str] = &[
        "oauth_apps.client_secret_digest",
        "access_tokens.token_digest",
        "refresh_tokens.digest",
        "authorization_codes.digest",
        "web_sessions.digest",
        "customer_password_resets.digest",
        "shop_admin_invitations.digest",
        "idempotency_keys.key_digest",
        "idempotency_keys.fingerprint",
        "product_asset_data.data",
        // Invoices and packing slips hold a buyer's name and addresses, as the order's own
        // row does in plain text: personal data behind the API's scopes, not a secret.
        "order_document_files.data",
        "settings.value",
        "_sqlx_migrations.checksum",
    ];

    #[tokio::test]
    async fn every_binary_column_is_sealed_or_holds_no_secret() {
        async fn binary_columns(db: &Database) -> Result<Vec<String>> {
            let columns: Vec<(String, String)> = with_conn!(Exec::Db(db), |c| {
                // Full-text indexes keep their own binary tables beside them.
                sqlx::query_as(
                    "SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p \
                     WHERE m.type = 'table' AND p.type = 'BLOB' AND NOT EXISTS (\
                     SELECT 1 FROM sqlite_master v WHERE v.sql LIKE 'CREATE VIRTUAL TABLE%' \
                     AND m.name LIKE v.name || '\\_%' ESCAPE '\\')",
                )
                .fetch_all(c)
                .await
            })?;
            Ok(columns
                .into_iter()
                .map(|(t, c)| format!("{t}.{c}"))
                .collect())
        }
        let dir = tempfile::tempdir().unwrap();
        let db = database(&dir).await;
        let sealed: Vec<String> = sealed_columns().collect();
        let columns = binary_columns(&db).await.unwrap();
        assert!(columns.len() > NO_SECRET.len());
        for column in columns {
            assert!(
                sealed.contains(&column) || NO_SECRET.contains(&column.as_str()),
                "{column} is binary: add it to the sealed columns, or to NO_SECRET if it \
                 holds no secret"
            );
        }
    }
}
