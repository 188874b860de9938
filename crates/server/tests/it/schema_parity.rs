//! The SQLite and PostgreSQL schemas agree. Both backends are migrated afresh and described
//! in logical terms (tables, columns with their logical type, nullability and default,
//! indexes, foreign keys and checks); any fact one has and the other lacks fails the test
//! unless it is one of the dialect differences declared below, each with its reason.

use std::collections::{BTreeMap, BTreeSet};

use crate::support::{Backend, TestDb};

/// Each dialect's type names (lowercase), as the logical type they store.
const LOGICAL_TYPES: &[(&str, &str)] = &[
    ("integer", "int"),
    ("bigint", "int"),
    ("smallint", "int"),
    ("text", "text"),
    ("character varying", "text"),
    ("blob", "bytes"),
    ("bytea", "bytes"),
    ("boolean", "bool"),
];

/// SQLite has no boolean type: a flag is an INTEGER holding 0 or 1.
const FLAG: &str = "SQLite stores a flag as an INTEGER 0 or 1";

/// Product search: each backend's own index of the products' search words.
const PRODUCT_WORDS: &str = "product search: PostgreSQL's words table, walked by prefix in \
     product order; SQLite's FTS5 table product_search, which yields matches in that order";

/// Commit counts per account: PostgreSQL's table, kept by triggers; SQLite's writer tells
/// its process directly.
const ACCOUNT_VERSIONS: &str = "commit counts per account: PostgreSQL's table, kept by \
     statement triggers; SQLite's one writer connection tells the serving process directly";

/// What only one backend has, or has otherwise, and why: (SQLite's fact, PostgreSQL's
/// fact, the reason), each fact as the `*_facts` functions write it.
const DIALECT_DIFFERENCES: &[(Option<&str>, Option<&str>, &str)] = &[
    (
        Some("column authorization_codes.redirect_uri_given: int not null"),
        Some("column authorization_codes.redirect_uri_given: bool not null"),
        FLAG,
    ),
    (
        Some("column oauth_apps.public: int not null default 0"),
        Some("column oauth_apps.public: bool not null default 0"),
        FLAG,
    ),
    (
        Some("column oauth_apps.trusted: int not null default 0"),
        Some("column oauth_apps.trusted: bool not null default 0"),
        FLAG,
    ),
    (
        Some("column customers.opt_in: int not null default 0"),
        Some("column customers.opt_in: bool not null default 0"),
        FLAG,
    ),
    (
        Some("column shipping_tables.enabled: int not null default 1"),
        Some("column shipping_tables.enabled: bool not null default 1"),
        FLAG,
    ),
    (
        Some("column products.all_shops: int not null"),
        Some("column products.all_shops: bool not null"),
        FLAG,
    ),
    (
        Some("column variants.available_if_no_stock: int not null"),
        Some("column variants.available_if_no_stock: bool not null"),
        FLAG,
    ),
    (
        Some("column payment_methods.enabled: int not null default 1"),
        Some("column payment_methods.enabled: bool not null default 1"),
        FLAG,
    ),
    (
        Some("column webhooks.notify_origin: int not null"),
        Some("column webhooks.notify_origin: bool not null"),
        FLAG,
    ),
    (
        Some("column subscription_fees.by_percentage: int not null default 0"),
        Some("column subscription_fees.by_percentage: bool not null default 0"),
        FLAG,
    ),
    (
        Some("column subscription_fees.allow_non_recurring_payment: int not null default 0"),
        Some("column subscription_fees.allow_non_recurring_payment: bool not null default 0"),
        FLAG,
    ),
    (
        Some("column subscription_fees.allow_changing_day: int not null default 0"),
        Some("column subscription_fees.allow_changing_day: bool not null default 0"),
        FLAG,
    ),
    (
        Some("column subscription_fees.extend_on_reenable: int not null default 0"),
        Some("column subscription_fees.extend_on_reenable: bool not null default 0"),
        FLAG,
    ),
    (
        Some("column subscription_purchases.paid_setup_fee: int not null default 0"),
        Some("column subscription_purchases.paid_setup_fee: bool not null default 0"),
        FLAG,
    ),
    (None, Some("table account_versions"), ACCOUNT_VERSIONS),
    (
        None,
        Some("column account_versions.account_id: int not null primary key"),
        ACCOUNT_VERSIONS,
    ),
    (
        None,
        Some("column account_versions.shard: int not null primary key"),
        ACCOUNT_VERSIONS,
    ),
    (
        None,
        Some("column account_versions.version: int not null"),
        ACCOUNT_VERSIONS,
    ),
    (None, Some("table product_words"), PRODUCT_WORDS),
    (
        None,
        Some("column product_words.account_id: int not null primary key"),
        PRODUCT_WORDS,
    ),
    (
        None,
        Some("column product_words.word: text not null primary key"),
        PRODUCT_WORDS,
    ),
    (
        None,
        Some("column product_words.product_id: int not null primary key"),
        PRODUCT_WORDS,
    ),
    (
        None,
        Some("foreign key product_words (product_id) references products (id) on delete cascade"),
        PRODUCT_WORDS,
    ),
    (
        None,
        Some("index product_words.product_words_product_idx (product_id, word)"),
        PRODUCT_WORDS,
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_and_postgres_schemas_agree() {
    // Runs where PostgreSQL does (the harness decides); SQLite is always at hand.
    crate::support::run(Backend::Postgres, compare).await
}

async fn compare(postgres: TestDb) {
    let sqlite = migrated(TestDb::create(Backend::Sqlite).await).await;
    let postgres = migrated(postgres).await;
    let sqlite = sqlite_facts(&sqlite).await;
    let postgres = postgres_facts(&postgres).await;
    for kind in ["table ", "column ", "index ", "foreign key ", "check "] {
        assert!(
            sqlite.iter().any(|f| f.starts_with(kind))
                && postgres.iter().any(|f| f.starts_with(kind)),
            "no `{kind}` facts were read: the description queries are broken"
        );
    }
    let only_sqlite: BTreeSet<&String> = sqlite.difference(&postgres).collect();
    let only_postgres: BTreeSet<&String> = postgres.difference(&sqlite).collect();
    let declared_sqlite: BTreeSet<&str> = DIALECT_DIFFERENCES.iter().filter_map(|d| d.0).collect();
    let declared_postgres: BTreeSet<&str> =
        DIALECT_DIFFERENCES.iter().filter_map(|d| d.1).collect();
    let mut undeclared = Vec::new();
    for (backend, only, declared) in [
        ("SQLite", &only_sqlite, &declared_sqlite),
        ("PostgreSQL", &only_postgres, &declared_postgres),
    ] {
        for fact in only.iter().filter(|f| !declared.contains(f.as_str())) {
            undeclared.push(format!("only on {backend}: {fact}"));
        }
    }
    let stale: Vec<&str> = declared_sqlite
        .iter()
        .filter(|fact| !only_sqlite.iter().any(|f| f == *fact))
        .chain(
            declared_postgres
                .iter()
                .filter(|fact| !only_postgres.iter().any(|f| f == *fact)),
        )
        .copied()
        .collect();
    assert!(
        undeclared.is_empty() && stale.is_empty(),
        "the schemas differ:\n{}\ndeclared differences that no longer hold:\n{}",
        undeclared.join("\n"),
        stale.join("\n")
    );
}

async fn migrated(db: TestDb) -> TestDb {
    let store = storage::Database::connect(&db.url, &storage::StoreOptions::default())
        .await
        .expect("connect");
    store.migrate().await.expect("migrate");
    store.close().await;
    db
}

fn logical_type(declared: &str) -> &'static str {
    let declared = declared.to_lowercase();
    LOGICAL_TYPES
        .iter()
        .find(|(name, _)| *name == declared)
        .map(|(_, logical)| *logical)
        .unwrap_or_else(|| panic!("add the type `{declared}` to LOGICAL_TYPES"))
}

/// A column default as both dialects can write it: no casts, booleans as 0 and 1.
fn normalized_default(default: Option<String>) -> String {
    let Some(default) = default else {
        return String::new();
    };
    let mut text = default.trim().to_owned();
    while let Some(cast) = text.rfind("::") {
        if text[cast..].contains('\'') {
            break;
        }
        text.truncate(cast);
    }
    match text.to_lowercase().as_str() {
        "false" => " default 0".to_owned(),
        "true" => " default 1".to_owned(),
        _ => format!(" default {text}"),
    }
}

/// Words both dialects write alike in a predicate, so `IS NULL` differs from `IS NOT NULL`.
const NULL_TESTS: &[&str] = &["not", "null"];

/// An index predicate or check in comparable form: the table's columns it names, and its
/// literals (the dialects spell operators, casts and parentheses differently).
fn signature(expression: &str, columns: &BTreeSet<String>) -> String {
    let mut named = BTreeSet::new();
    let mut literals = BTreeSet::new();
    let mut chars = expression.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if c == '\'' {
            let mut literal = String::from("'");
            for (_, c) in chars.by_ref() {
                literal.push(c);
                if c == '\'' {
                    break;
                }
            }
            literals.insert(literal);
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let mut end = start + c.len_utf8();
            while let Some(&(i, next)) = chars.peek() {
                if next.is_ascii_alphanumeric() || next == '_' {
                    end = i + next.len_utf8();
                    chars.next();
                } else {
                    break;
                }
            }
            let word = expression[start..end].to_lowercase();
            if columns.contains(&word) {
                named.insert(word);
            } else if word.chars().all(|c| c.is_ascii_digit())
                || NULL_TESTS.contains(&word.as_str())
            {
                literals.insert(word);
            }
        }
    }
    let named: Vec<String> = named.into_iter().collect();
    let literals: Vec<String> = literals.into_iter().collect();
    format!("on ({}) with [{}]", named.join(", "), literals.join(", "))
}

/// The expressions of every `CHECK (…)` in a `CREATE TABLE` statement.
fn checks_in(create_table: &str) -> Vec<String> {
    let upper = create_table.to_uppercase();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = upper[from..].find("CHECK") {
        let start = from + at + "CHECK".len();
        let Some(open) = create_table[start..].find('(').map(|i| start + i) else {
            break;
        };
        let mut depth = 0;
        let mut end = open;
        for (i, c) in create_table[open..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                end = open + i;
                break;
            }
        }
        found.push(create_table[open + 1..end].to_owned());
        from = end;
    }
    found
}

fn on_delete(action: &str) -> String {
    match action.to_lowercase().as_str() {
        "a" | "no action" => "no action".to_owned(),
        "r" | "restrict" => "restrict".to_owned(),
        "c" | "cascade" => "cascade".to_owned(),
        "n" | "set null" => "set null".to_owned(),
        "d" | "set default" => "set default".to_owned(),
        other => other.to_owned(),
    }
}

fn column_fact(
    table: &str,
    column: &str,
    declared_type: &str,
    not_null: bool,
    default: Option<String>,
    primary_key: bool,
) -> String {
    format!(
        "column {table}.{column}: {}{}{}{}",
        logical_type(declared_type),
        if not_null || primary_key {
            " not null"
        } else {
            ""
        },
        normalized_default(default),
        if primary_key { " primary key" } else { "" },
    )
}

fn index_fact(
    table: &str,
    name: Option<&str>,
    columns: &[String],
    unique: bool,
    predicate: Option<String>,
) -> String {
    format!(
        "index {table}.{} ({}){}{}",
        name.unwrap_or("<constraint>"),
        columns.join(", "),
        if unique { " unique" } else { "" },
        predicate.map(|p| format!(" where {p}")).unwrap_or_default(),
    )
}

type SqliteColumn = (String, String, String, bool, Option<String>, i64);
type SqliteIndex = (String, String, bool, String, Option<String>);
type SqliteIndexColumn = (String, i64, Option<String>);
type SqliteForeignKey = (String, i64, i64, String, String, Option<String>, String);

async fn sqlite_facts(db: &TestDb) -> BTreeSet<String> {
    // Ordinary tables only: a full-text index is a virtual table with shadow tables.
    const TABLES: &str = "FROM pragma_table_list t WHERE t.schema = 'main' AND t.type = 'table' \
         AND t.name NOT LIKE 'sqlite_%' AND t.name <> '_sqlx_migrations'";
    let mut facts = BTreeSet::new();
    let tables: Vec<(String, String)> = db
        .rows(&format!(
            "SELECT t.name, s.sql FROM ({}) t JOIN sqlite_schema s ON s.name = t.name",
            format_args!("SELECT t.name {TABLES}")
        ))
        .await;
    let columns: Vec<SqliteColumn> = db
        .rows(&format!(
            "SELECT t.name, c.name, c.type, c.\"notnull\", c.dflt_value, c.pk \
             FROM ({}) t, pragma_table_info(t.name) c",
            format_args!("SELECT t.name {TABLES}")
        ))
        .await;
    let mut by_table: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (table, column, declared, not_null, default, pk) in columns {
        facts.insert(column_fact(
            &table,
            &column,
            &declared,
            not_null,
            default,
            pk > 0,
        ));
        by_table.entry(table).or_default().insert(column);
    }
    for (table, sql) in &tables {
        facts.insert(format!("table {table}"));
        for check in checks_in(sql) {
            facts.insert(format!(
                "check {table} {}",
                signature(&check, &by_table[table])
            ));
        }
    }
    let indexes: Vec<SqliteIndex> = db
        .rows(&format!(
            "SELECT t.name, il.name, il.\"unique\", il.origin, s.sql \
             FROM ({}) t, pragma_index_list(t.name) il \
             LEFT JOIN sqlite_schema s ON s.type = 'index' AND s.name = il.name",
            format_args!("SELECT t.name {TABLES}")
        ))
        .await;
    let index_columns: Vec<SqliteIndexColumn> = db
        .rows(&format!(
            "SELECT il.name, ii.seqno, ii.name FROM ({}) t, pragma_index_list(t.name) il, \
             pragma_index_info(il.name) ii",
            format_args!("SELECT t.name {TABLES}")
        ))
        .await;
    for (table, name, unique, origin, sql) in indexes {
        if origin == "pk" {
            continue;
        }
        let mut columns: Vec<&SqliteIndexColumn> =
            index_columns.iter().filter(|c| c.0 == name).collect();
        columns.sort_by_key(|c| c.1);
        let columns: Vec<String> = columns
            .iter()
            .map(|c| c.2.clone().unwrap_or_else(|| "<expression>".into()))
            .collect();
        let predicate = sql.as_deref().and_then(|sql| {
            let at = sql.to_uppercase().rfind(" WHERE ")?;
            Some(signature(&sql[at + 7..], &by_table[&table]))
        });
        let name = (origin == "c").then_some(name.as_str());
        facts.insert(index_fact(&table, name, &columns, unique, predicate));
    }
    let foreign_keys: Vec<SqliteForeignKey> = db
        .rows(&format!(
            "SELECT t.name, f.id, f.seq, f.\"table\", f.\"from\", f.\"to\", f.on_delete \
             FROM ({}) t, pragma_foreign_key_list(t.name) f",
            format_args!("SELECT t.name {TABLES}")
        ))
        .await;
    let mut grouped: BTreeMap<(String, i64), Vec<&SqliteForeignKey>> = BTreeMap::new();
    for key in &foreign_keys {
        grouped.entry((key.0.clone(), key.1)).or_default().push(key);
    }
    for ((table, _), mut parts) in grouped {
        parts.sort_by_key(|p| p.2);
        let from: Vec<&str> = parts.iter().map(|p| p.4.as_str()).collect();
        let to: Vec<&str> = parts
            .iter()
            .map(|p| p.5.as_deref().unwrap_or("id"))
            .collect();
        facts.insert(format!(
            "foreign key {table} ({}) references {} ({}) on delete {}",
            from.join(", "),
            parts[0].3,
            to.join(", "),
            on_delete(&parts[0].6)
        ));
    }
    facts
}

type PostgresColumn = (String, String, String, bool, Option<String>, bool, bool);
type PostgresIndex = (String, String, bool, bool, bool, Option<String>, String);
type PostgresForeignKey = (String, String, String, String, String);

async fn postgres_facts(db: &TestDb) -> BTreeSet<String> {
    let mut facts = BTreeSet::new();
    let columns: Vec<PostgresColumn> = db
        .rows(
            "SELECT c.table_name::text, c.column_name::text, c.data_type::text, c.is_nullable = 'NO', \
             c.column_default::text, c.is_identity = 'YES', \
             EXISTS (SELECT 1 FROM pg_index i JOIN pg_attribute a \
                     ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey) \
                     WHERE i.indisprimary AND i.indrelid = quote_ident(c.table_name)::regclass \
                     AND a.attname = c.column_name) \
             FROM information_schema.columns c JOIN information_schema.tables t \
             ON t.table_schema = c.table_schema AND t.table_name = c.table_name \
             WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' \
             AND c.table_name <> '_sqlx_migrations'",
        )
        .await;
    let mut by_table: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (table, column, declared, not_null, default, identity, pk) in columns {
        // An identity column is the dialect's auto-increment key, which SQLite has no
        // default for either.
        let default = if identity { None } else { default };
        facts.insert(column_fact(
            &table, &column, &declared, not_null, default, pk,
        ));
        facts.insert(format!("table {table}"));
        by_table.entry(table).or_default().insert(column);
    }
    let checks: Vec<(String, String)> = db
        .rows(
            "SELECT c.conrelid::regclass::text, pg_get_constraintdef(c.oid) FROM pg_constraint c \
             JOIN pg_namespace n ON n.oid = c.connamespace \
             WHERE c.contype = 'c' AND n.nspname = 'public'",
        )
        .await;
    for (table, check) in checks {
        facts.insert(format!(
            "check {table} {}",
            signature(&check, &by_table[&table])
        ));
    }
    let indexes: Vec<PostgresIndex> = db
        .rows(
            "SELECT t.relname::text, ic.relname::text, i.indisunique, i.indisprimary, \
             EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.contype = 'u'), \
             pg_get_expr(i.indpred, i.indrelid), \
             array_to_string(ARRAY(SELECT pg_get_indexdef(i.indexrelid, k, true) \
                   FROM generate_series(1, i.indnkeyatts) k ORDER BY k), ', ') \
             FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid \
             JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace \
             WHERE n.nspname = 'public' AND t.relname <> '_sqlx_migrations'",
        )
        .await;
    for (table, name, unique, primary, constraint, predicate, columns) in indexes {
        if primary {
            continue;
        }
        let predicate = predicate.map(|p| signature(&p, &by_table[&table]));
        let name = (!constraint).then_some(name.as_str());
        // Reserved words (`position`) come back quoted.
        facts.insert(index_fact(
            &table,
            name,
            &[columns.replace('"', "")],
            unique,
            predicate,
        ));
    }
    let foreign_keys: Vec<PostgresForeignKey> = db
        .rows(
            "SELECT c.conrelid::regclass::text, \
             array_to_string(ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, o) \
                   JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.o), ', '), \
             c.confrelid::regclass::text, \
             array_to_string(ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(n, o) \
                   JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.o), ', '), \
             c.confdeltype::text \
             FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace \
             WHERE c.contype = 'f' AND n.nspname = 'public'",
        )
        .await;
    for (table, from, references, to, action) in foreign_keys {
        facts.insert(format!(
            "foreign key {table} ({from}) references {references} ({to}) on delete {}",
            on_delete(&action)
        ));
    }
    facts
}
