//! Which accounts' data changed, in the order this process committed the changes: what
//! lets a conditional read answer `304` without reading what it would show (the API's
//! validation shortcut).
//!
//! On SQLite every write goes through this process's one writer connection. A temporary
//! trigger on each table that holds an account's data notes the account in a temporary
//! table, the connection's update hook hears of it, and the transaction's commit makes
//! the change known — after the commit, so that nothing reading the new mark can still
//! read the old rows. A reader takes the mark *before* it reads: whatever committed
//! later carries a later mark, and invalidates what it read.
//!
//! Another process writing the file (a `commerce` command) is noticed by the writer
//! connection's `data_version`, which changes only for other connections' commits: a
//! watch reads it several times a second, and a change there counts as a change to every
//! account.
//!
//! PostgreSQL has other nodes writing, so no process knows every commit: there, statement
//! triggers count each account's commits in `account_versions` (its migration 0012), and
//! `account_versions::CommitCounts` reads the count — one small read, taken before a
//! conditional read reads.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;

use sqlx::{SqliteConnection, SqlitePool};

/// Where a table's rows name the account they belong to.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Owner {
    /// The row's own column.
    Column(&'static str),
    /// The account of the row of `parent` whose `id` is in `column`.
    Parent {
        column: &'static str,
        parent: &'static str,
    },
    /// Bookkeeping that no representation the shortcut may serve reads: keys, leases,
    /// sessions, tokens, the events' outbox, webhook deliveries and the mail outbox.
    Untracked,
}

/// Every table and whose data it holds. A test holds this list to the schema, so a new
/// table cannot be forgotten.
pub(crate) const TABLES: &[(&str, Owner)] = &[
    ("accounts", Owner::Column("id")),
    ("users", Owner::Column("account_id")),
    ("sellers", Owner::Column("account_id")),
    ("shops", Owner::Column("account_id")),
    ("oauth_apps", Owner::Column("account_id")),
    ("product_types", Owner::Column("account_id")),
    ("products", Owner::Column("account_id")),
    ("seller_product_counts", Owner::Column("account_id")),
    (
        "product_shops",
        Owner::Parent {
            column: "product_id",
            parent: "products",
        },
    ),
    ("product_tags", Owner::Column("account_id")),
    ("variants", Owner::Column("account_id")),
    ("product_assets", Owner::Column("account_id")),
    (
        "product_asset_data",
        Owner::Parent {
            column: "asset_id",
            parent: "product_assets",
        },
    ),
    ("collections", Owner::Column("account_id")),
    (
        "collection_products",
        Owner::Parent {
            column: "collection_id",
            parent: "collections",
        },
    ),
    ("price_lists", Owner::Column("account_id")),
    (
        "price_list_items",
        Owner::Parent {
            column: "price_list_id",
            parent: "price_lists",
        },
    ),
    ("webhooks", Owner::Column("account_id")),
    ("orders", Owner::Column("account_id")),
    (
        "order_lines",
        Owner::Parent {
            column: "order_id",
            parent: "orders",
        },
    ),
    ("customers", Owner::Column("account_id")),
    ("customer_tags", Owner::Column("account_id")),
    ("customer_addresses", Owner::Column("account_id")),
    ("customer_spending", Owner::Column("account_id")),
    ("payment_methods", Owner::Column("account_id")),
    ("payments", Owner::Column("account_id")),
    ("shipping_tables", Owner::Column("account_id")),
    ("exchange_rates", Owner::Column("account_id")),
    ("customer_password_resets", Owner::Untracked),
    ("shop_admins", Owner::Column("account_id")),
    ("shop_admin_invitations", Owner::Untracked),
    ("order_codes", Owner::Untracked),
    ("order_documents", Owner::Column("account_id")),
    ("batches", Owner::Column("account_id")),
    ("order_document_files", Owner::Column("account_id")),
    ("order_document_numbers", Owner::Untracked),
    ("subscription_fees", Owner::Column("account_id")),
    ("subscription_purchases", Owner::Column("account_id")),
    ("signing_keys", Owner::Untracked),
    ("access_tokens", Owner::Untracked),
    ("refresh_tokens", Owner::Untracked),
    ("authorization_codes", Owner::Untracked),
    ("sign_in_failures", Owner::Untracked),
    ("web_sessions", Owner::Untracked),
    ("idempotency_keys", Owner::Untracked),
    ("settings", Owner::Untracked),
    ("leases", Owner::Untracked),
    ("events", Owner::Untracked),
    ("webhook_replays", Owner::Untracked),
    ("webhook_deliveries", Owner::Untracked),
    ("webhook_attempts", Owner::Untracked),
    ("product_words", Owner::Untracked),
    ("account_versions", Owner::Untracked),
    ("mail_outbox", Owner::Untracked),
];

/// The temporary table the triggers note accounts in; its key is the account, so the
/// update hook's row id names it.
const NOTED: &str = "changed_accounts";

/// How often the writer connection is asked whether another process committed.
pub const FOREIGN_COMMITS_POLL: Duration = Duration::from_millis(100);

/// A point in the sequence of commits this process made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Mark(u64);

/// The commits' clock: the last mark at which each account's data changed.
#[derive(Debug, Default)]
pub struct ChangeClock {
    ticks: AtomicU64,
    changed_at: RwLock<HashMap<i64, Mark>>,
    /// The last mark at which another process committed: every account changed then.
    foreign_at: AtomicU64,
    /// Accounts the open write transaction changed (the writer is one connection).
    pending: Mutex<Vec<i64>>,
    /// The writer connection's `data_version` when last read (it counts per connection).
    writer_version: Mutex<Option<i64>>,
}

impl ChangeClock {
    /// Now: take it before reading, and compare with `unchanged_since` later.
    pub fn mark(&self) -> Mark {
        Mark(self.ticks.load(Ordering::Acquire))
    }

    /// Whether no commit since `since` changed the data of any of `accounts`.
    pub fn unchanged_since(&self, accounts: &[i64], since: Mark) -> bool {
        let changed_at = self
            .changed_at
            .read()
            .expect("the clock's lock is not poisoned");
        self.foreign_at.load(Ordering::Acquire) <= since.0
            && accounts
                .iter()
                .all(|account| changed_at.get(account).is_none_or(|at| *at <= since))
    }

    /// A write transaction began: what an earlier one noted and did not commit is void.
    pub(crate) fn began(&self) {
        self.pending
            .lock()
            .expect("the clock's lock is not poisoned")
            .clear();
    }

    /// The write transaction committed: its accounts changed now.
    pub(crate) fn committed(&self) {
        let accounts = std::mem::take(
            &mut *self
                .pending
                .lock()
                .expect("the clock's lock is not poisoned"),
        );
        if accounts.is_empty() {
            return;
        }
        let mut changed_at = self
            .changed_at
            .write()
            .expect("the clock's lock is not poisoned");
        // Under the lock, so that a reader never sees the tick before the accounts.
        let at = Mark(self.ticks.fetch_add(1, Ordering::AcqRel) + 1);
        for account in accounts {
            changed_at.insert(account, at);
        }
    }

    /// Another process committed: every account's data may have changed.
    fn foreign_commit(&self) {
        let _writers = self
            .changed_at
            .write()
            .expect("the clock's lock is not poisoned");
        let at = self.ticks.fetch_add(1, Ordering::AcqRel) + 1;
        self.foreign_at.store(at, Ordering::Release);
    }

    /// A writer connection was opened and its `data_version` read: what was vouched for
    /// through an earlier connection's count no longer is.
    fn writer_attached(&self, version: i64) {
        *self.lock_writer_version() = Some(version);
        self.foreign_commit();
    }

    /// The writer connection's `data_version`, read while holding that connection: a
    /// change means another connection committed.
    fn writer_version_read(&self, version: i64) {
        let mut seen = self.lock_writer_version();
        if seen.is_some_and(|seen| seen != version) {
            self.foreign_commit();
        }
        *seen = Some(version);
    }

    fn lock_writer_version(&self) -> std::sync::MutexGuard<'_, Option<i64>> {
        self.writer_version
            .lock()
            .expect("the clock's lock is not poisoned")
    }

    fn noted(&self, account: i64) {
        let mut pending = self
            .pending
            .lock()
            .expect("the clock's lock is not poisoned");
        if !pending.contains(&account) {
            pending.push(account);
        }
    }

    /// Makes the writer connection report to this clock: the update hook, the temporary
    /// table and, once the schema exists, the triggers.
    pub(crate) async fn attach(
        self: &Arc<Self>,
        conn: &mut SqliteConnection,
    ) -> Result<(), sqlx::Error> {
        self.attach_tables(conn, TABLES).await
    }

    async fn attach_tables(
        self: &Arc<Self>,
        conn: &mut SqliteConnection,
        tables: &[(&str, Owner)],
    ) -> Result<(), sqlx::Error> {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "CREATE TEMP TABLE IF NOT EXISTS {NOTED} (account_id INTEGER PRIMARY KEY)"
        )))
        .execute(&mut *conn)
        .await?;
        let clock = Arc::clone(self);
        conn.lock_handle().await?.set_update_hook(move |change| {
            if change.database == "temp" && change.table == NOTED {
                clock.noted(change.rowid);
            }
        });
        self.writer_attached(data_version(conn).await?);
        install_triggers_of(conn, tables).await
    }
}

/// Watches the writer connection for other processes' commits while the database is
/// open (the watch holds the pools weakly, and ends with them). The count is compared
/// while the connection is held, so it is always compared with its own connection's
/// (a new connection sets its own when it is attached).
pub(crate) fn watch_foreign_commits<P: Send + Sync + 'static>(
    pools: Weak<P>,
    writer: impl Fn(&P) -> &SqlitePool + Send + 'static,
    clock: Arc<ChangeClock>,
) {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(FOREIGN_COMMITS_POLL).await;
            let Some(pools) = pools.upgrade() else { return };
            let pool = writer(&pools);
            if pool.is_closed() {
                return;
            }
            let Ok(mut conn) = pool.acquire().await else {
                continue;
            };
            if let Ok(version) = data_version(&mut conn).await {
                clock.writer_version_read(version);
            }
        }
    });
}

/// The connection's count of other connections' commits.
async fn data_version(conn: &mut SqliteConnection) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar("PRAGMA data_version")
        .fetch_one(conn)
        .await
}

/// Creates the triggers of every tracked table that exists (none before the first
/// migration: the writer is attached again after migrating).
pub(crate) async fn install_triggers(conn: &mut SqliteConnection) -> Result<(), sqlx::Error> {
    install_triggers_of(conn, TABLES).await
}

async fn install_triggers_of(
    conn: &mut SqliteConnection,
    tables: &[(&str, Owner)],
) -> Result<(), sqlx::Error> {
    let existing: Vec<String> =
        sqlx::query_scalar("SELECT name FROM sqlite_schema WHERE type = 'table'")
            .fetch_all(&mut *conn)
            .await?;
    for (table, owner) in tables {
        if existing.iter().any(|name| name == table) {
            for statement in triggers(table, *owner) {
                sqlx::query(sqlx::AssertSqlSafe(statement))
                    .execute(&mut *conn)
                    .await?;
            }
        }
    }
    Ok(())
}

/// The statements creating a table's triggers: after an insert the new row's account, after
/// a delete the old row's, after an update both (a row could move). The account is noted
/// by deleting and inserting its row, so the update hook hears of it however often it
/// changes (an `OR REPLACE` would yield to the outer statement's conflict policy).
fn triggers(table: &str, owner: Owner) -> Vec<String> {
    let account_of = |row: &str| match owner {
        Owner::Column(column) => Some(format!("{row}.{column}")),
        Owner::Parent { column, parent } => Some(format!(
            "(SELECT account_id FROM {parent} WHERE id = {row}.{column})"
        )),
        Owner::Untracked => None,
    };
    let (Some(new), Some(old)) = (account_of("NEW"), account_of("OLD")) else {
        return Vec::new();
    };
    let note = |account: &str| {
        format!(
            "DELETE FROM {NOTED} WHERE account_id = {account}; \
             INSERT INTO {NOTED} (account_id) SELECT {account} WHERE {account} IS NOT NULL;"
        )
    };
    [
        ("insert", "INSERT", note(&new)),
        ("delete", "DELETE", note(&old)),
        ("update", "UPDATE", format!("{} {}", note(&old), note(&new))),
    ]
    .into_iter()
    .map(|(name, event, body)| {
        format!(
            "CREATE TEMP TRIGGER IF NOT EXISTS {table}_{name}_noted AFTER {event} ON main.{table} \
             BEGIN {body} END"
        )
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use sqlx::Connection;

    use super::*;
    use crate::test_databases;

    #[test]
    fn a_change_after_the_mark_is_seen_and_one_before_is_not() {
        let clock = ChangeClock::default();
        clock.noted(7);
        clock.committed();
        let mark = clock.mark();
        assert!(clock.unchanged_since(&[7, 8], mark));
        clock.began();
        clock.noted(8);
        clock.committed();
        assert!(clock.unchanged_since(&[7], mark));
        assert!(!clock.unchanged_since(&[7, 8], mark));
    }

    #[derive(Clone, Debug)]
    enum Step {
        Begin,
        Note(i64),
        Commit,
        Foreign,
        Mark,
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            Just(Step::Begin),
            (0..4i64).prop_map(Step::Note),
            Just(Step::Commit),
            Just(Step::Foreign),
            Just(Step::Mark),
        ]
    }

    enum Seen {
        Mark(Mark),
        Committed(Vec<i64>),
        Foreign,
    }

    proptest! {
        /// A mark sees a change to some accounts exactly when a commit after it changed
        /// one of them, or another process committed after it; notes a transaction did
        /// not commit count for nothing.
        #[test]
        fn a_mark_sees_exactly_the_commits_after_it(
            steps in proptest::collection::vec(step(), 0..60)
        ) {
            let clock = ChangeClock::default();
            let mut history = Vec::new();
            let mut noted = Vec::new();
            for step in steps {
                match step {
                    Step::Begin => {
                        clock.began();
                        noted.clear();
                    }
                    Step::Note(account) => {
                        clock.noted(account);
                        noted.push(account);
                    }
                    Step::Commit => {
                        clock.committed();
                        history.push(Seen::Committed(std::mem::take(&mut noted)));
                    }
                    Step::Foreign => {
                        clock.foreign_commit();
                        history.push(Seen::Foreign);
                    }
                    Step::Mark => history.push(Seen::Mark(clock.mark())),
                }
            }
            for (i, seen) in history.iter().enumerate() {
                let Seen::Mark(mark) = seen else { continue };
                for subset in 0..16u8 {
                    let accounts: Vec<i64> =
                        (0..4).filter(|a| subset & (1 << a) != 0).collect();
                    let changed = history[i + 1..].iter().any(|later| match later {
                        Seen::Committed(noted) => noted.iter().any(|a| accounts.contains(a)),
                        Seen::Foreign => true,
                        Seen::Mark(_) => false,
                    });
                    prop_assert_eq!(clock.unchanged_since(&accounts, *mark), !changed);
                }
            }
        }
    }

    #[test]
    fn another_processs_commit_changes_every_account() {
        let clock = ChangeClock::default();
        let mark = clock.mark();
        clock.foreign_commit();
        assert!(!clock.unchanged_since(&[1], mark));
        assert!(clock.unchanged_since(&[1], clock.mark()));
    }

    #[test]
    fn the_writers_count_of_other_commits_is_compared_with_its_own_connections() {
        let clock = ChangeClock::default();
        clock.writer_attached(1);
        let mark = clock.mark();
        clock.writer_version_read(1);
        assert!(clock.unchanged_since(&[1], mark));
        clock.writer_version_read(2);
        assert!(!clock.unchanged_since(&[1], mark));
        // A new connection counts anew: what the old one vouched for is void.
        let mark = clock.mark();
        clock.writer_attached(1);
        assert!(!clock.unchanged_since(&[1], mark));
        let mark = clock.mark();
        clock.writer_version_read(1);
        assert!(clock.unchanged_since(&[1], mark));
    }

    #[test]
    fn what_a_transaction_noted_without_committing_is_void() {
        let clock = ChangeClock::default();
        let mark = clock.mark();
        clock.noted(3);
        clock.began();
        clock.committed();
        assert!(clock.unchanged_since(&[3], mark));
    }

    /// Runs `sql` in a transaction as `Tx` does; whether it changed account 5 and not 6.
    async fn changes_account_5(
        clock: &ChangeClock,
        conn: &mut SqliteConnection,
        sql: &str,
        commit: bool,
    ) -> bool {
        let mark = clock.mark();
        sqlx::query("BEGIN IMMEDIATE")
            .execute(&mut *conn)
            .await
            .unwrap();
        clock.began();
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_owned()))
            .execute(&mut *conn)
            .await
            .unwrap();
        let end = if commit { "COMMIT" } else { "ROLLBACK" };
        sqlx::query(sqlx::AssertSqlSafe(end))
            .execute(&mut *conn)
            .await
            .unwrap();
        if commit {
            clock.committed();
        }
        assert!(clock.unchanged_since(&[6], mark));
        !clock.unchanged_since(&[5], mark)
    }

    #[tokio::test]
    async fn the_triggers_note_a_rows_account_however_it_is_found() {
        let clock = Arc::new(ChangeClock::default());
        let mut conn = SqliteConnection::connect("sqlite::memory:").await.unwrap();
        sqlx::raw_sql(
            "PRAGMA foreign_keys = ON; \
             CREATE TABLE parents (id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL); \
             CREATE TABLE children (parent_id INTEGER NOT NULL \
                 REFERENCES parents (id) ON DELETE CASCADE, n INTEGER); \
             CREATE TABLE tags (account_id INTEGER NOT NULL, tag TEXT NOT NULL, \
                 PRIMARY KEY (account_id, tag)); \
             CREATE TABLE journal (n INTEGER)",
        )
        .execute(&mut conn)
        .await
        .unwrap();
        let tables = [
            ("parents", Owner::Column("account_id")),
            (
                "children",
                Owner::Parent {
                    column: "parent_id",
                    parent: "parents",
                },
            ),
            ("tags", Owner::Column("account_id")),
            ("journal", Owner::Untracked),
        ];
        clock.attach_tables(&mut conn, &tables).await.unwrap();
        let conn = &mut conn;
        let clock = &*clock;
        for sql in [
            "INSERT INTO parents (id, account_id) VALUES (1, 5)",
            "INSERT INTO children (parent_id, n) VALUES (1, 1)",
            "UPDATE children SET n = 2",
            "DELETE FROM children",
            "INSERT INTO tags VALUES (5, 'a')",
            // A statement with its own conflict policy, and an upsert.
            "INSERT OR IGNORE INTO tags VALUES (5, 'a'), (5, 'b')",
            "INSERT INTO tags VALUES (5, 'b') ON CONFLICT DO UPDATE SET tag = 'c'",
            // The same account twice in one transaction, then a cascade.
            "INSERT INTO children (parent_id) VALUES (1); DELETE FROM parents",
        ] {
            assert!(changes_account_5(clock, conn, sql, true).await, "{sql}");
        }
        assert!(!changes_account_5(clock, conn, "INSERT INTO journal VALUES (1)", true).await);
        let rolled_back = "INSERT INTO parents (id, account_id) VALUES (2, 5)";
        assert!(!changes_account_5(clock, conn, rolled_back, false).await);
    }

    /// Each table's columns, by name.
    async fn table_columns(db: &crate::Database) -> crate::error::Result<Vec<(String, String)>> {
        let sql = match db.backend() {
            crate::Backend::Sqlite => {
                "SELECT m.name, p.name FROM sqlite_schema m, pragma_table_info(m.name) p \
                 WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' \
                 AND m.name NOT LIKE '_sqlx%' AND m.name NOT LIKE 'product_search%'"
            }
            crate::Backend::Postgres => {
                "SELECT table_name::text, column_name::text FROM information_schema.columns \
                 WHERE table_schema = 'public' AND table_name NOT LIKE '_sqlx%'"
            }
        };
        Ok(with_conn!(crate::db::Exec::Db(db), |c| {
            sqlx::query_as(sql).fetch_all(c).await
        })?)
    }

    /// Each table's triggers, by name (PostgreSQL's; SQLite's are temporary).
    async fn triggers_of(db: &crate::Database) -> crate::error::Result<Vec<(String, String)>> {
        if db.backend() == crate::Backend::Sqlite {
            return Ok(Vec::new());
        }
        Ok(with_conn!(crate::db::Exec::Db(db), |c| {
            sqlx::query_as(
                "SELECT c.relname::text, t.tgname::text FROM pg_trigger t \
                 JOIN pg_class c ON c.oid = t.tgrelid WHERE NOT t.tgisinternal",
            )
            .fetch_all(c)
            .await
        })?)
    }

    /// Every table of the schema is in `TABLES`, and what it says of each holds.
    #[tokio::test]
    async fn every_table_says_whose_data_it_holds() {
        for database in test_databases::both().await {
            let db = &database.db;
            let columns = table_columns(db).await.unwrap();
            let has =
                |table: &str, column: &str| columns.iter().any(|(t, c)| t == table && c == column);
            for (table, _) in &columns {
                assert!(
                    TABLES.iter().any(|(t, _)| t == table),
                    "{table} is not in changes::TABLES ({:?})",
                    db.backend()
                );
            }
            let triggers = triggers_of(db).await.unwrap();
            for (table, owner) in TABLES {
                if db.backend() == crate::Backend::Postgres {
                    let noted = |event: &str| {
                        triggers.iter().any(|(t, name)| {
                            t == table && *name == format!("{table}_{event}_noted")
                        })
                    };
                    let tracked = !matches!(owner, Owner::Untracked);
                    let columns_exist = columns.iter().any(|(t, _)| t == table);
                    if columns_exist {
                        for event in ["insert", "update", "delete"] {
                            assert_eq!(noted(event), tracked, "{table}: {event} trigger");
                        }
                    }
                }
                match owner {
                    Owner::Column(column) => assert!(has(table, column), "{table}.{column}"),
                    Owner::Parent { column, parent } => {
                        assert!(has(table, column), "{table}.{column}");
                        assert!(has(parent, "account_id"), "{parent}.account_id");
                    }
                    Owner::Untracked => {}
                }
            }
        }
    }
}
