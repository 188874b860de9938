//! Unique indexes: every one of both migrated schemas is declared (so the API answers its
//! violations as the registry says, never with a 500), and violations reached through the
//! API are a 422 on the field they concern, or a 409 `already_exists` where none applies,
//! with nothing written.

use std::collections::BTreeSet;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use storage::UniqueIndex;

use crate::on_both_backends;
use crate::support::{Backend, TestDb, TestServer, assert_error, error_fields};

on_both_backends!(
    every_unique_index_of_the_schema_is_declared,
    a_sku_taken_between_the_check_and_the_write_is_422_on_sku,
    taken_names_and_slugs_are_422_on_their_field,
    a_used_order_code_is_409_already_exists_and_writes_nothing,
);

/// A unique index as the database describes it.
#[derive(Debug)]
struct Found {
    table: String,
    name: String,
    columns: Vec<String>,
    primary: bool,
}

impl Found {
    /// A surrogate key the database generates: no write can collide on it.
    fn is_generated_id(&self) -> bool {
        self.primary && self.columns == ["id"]
    }
}

/// One row per indexed column: table, index, whether it is the primary key, position,
/// column.
type IndexColumn = (String, String, bool, i64, String);

/// Groups the rows of each index, its columns in index order.
fn indexes(mut rows: Vec<IndexColumn>) -> Vec<Found> {
    rows.sort_by(|a, b| (&a.0, &a.1, a.3).cmp(&(&b.0, &b.1, b.3)));
    let mut found: Vec<Found> = Vec::new();
    for (table, name, primary, _, column) in rows {
        match found.last_mut() {
            Some(last) if last.table == table && last.name == name => last.columns.push(column),
            _ => found.push(Found {
                table,
                name,
                columns: vec![column],
                primary,
            }),
        }
    }
    found
}

/// Every unique index of the migrated schema (sqlx's own bookkeeping aside), and, on
/// SQLite, the `INTEGER PRIMARY KEY`s other than `id`: those are the rowid itself, no
/// index, yet unique (PostgreSQL has an index for them).
async fn schema_indexes(db: &TestDb) -> Vec<Found> {
    match db.backend {
        Backend::Sqlite => {
            let mut found = indexes(
                db.rows(
                    "SELECT t.name, il.name, il.origin = 'pk', ii.seqno, ii.name \
                     FROM pragma_table_list t, pragma_index_list(t.name) il, \
                          pragma_index_info(il.name) ii \
                     WHERE t.schema = 'main' AND t.type = 'table' \
                       AND t.name NOT LIKE 'sqlite_%' AND t.name <> '_sqlx_migrations' \
                       AND il.\"unique\" = 1",
                )
                .await,
            );
            let rowid_keys: Vec<(String, String)> = db
                .rows(
                    "SELECT t.name, c.name FROM pragma_table_list t, pragma_table_info(t.name) c \
                     WHERE t.schema = 'main' AND t.type = 'table' AND c.pk = 1 \
                       AND upper(c.type) = 'INTEGER' AND t.name NOT LIKE 'sqlite_%' \
                       AND (SELECT COUNT(*) FROM pragma_table_info(t.name) k WHERE k.pk > 0) = 1",
                )
                .await;
            found.extend(rowid_keys.into_iter().map(|(table, column)| Found {
                name: format!("{table} rowid"),
                table,
                columns: vec![column],
                primary: true,
            }));
            found
        }
        Backend::Postgres => indexes(
            db.rows(
                "SELECT t.relname::text, i.relname::text, x.indisprimary, k.o, a.attname::text \
                 FROM pg_index x \
                 JOIN pg_class i ON i.oid = x.indexrelid \
                 JOIN pg_class t ON t.oid = x.indrelid \
                 JOIN pg_namespace n ON n.oid = t.relnamespace \
                 CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k (attnum, o) \
                 JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum \
                 WHERE x.indisunique AND n.nspname = current_schema() \
                   AND t.relname <> '_sqlx_migrations'",
            )
            .await,
        ),
    }
}

/// The registry (`storage::UniqueIndex`, which the API maps to fields exhaustively) names
/// each unique index of the schema exactly — by the columns SQLite reports and the name
/// PostgreSQL reports — and nothing the schema lacks. A migration adding an index fails
/// here until it is declared.
async fn every_unique_index_of_the_schema_is_declared(db: TestDb) {
    let database = storage::Database::connect(&db.url, &storage::StoreOptions::default())
        .await
        .expect("connect");
    database.migrate().await.expect("migrate");
    database.close().await;

    let mut declared = BTreeSet::new();
    for found in schema_indexes(&db).await {
        if found.is_generated_id() {
            continue;
        }
        let columns: Vec<&str> = found.columns.iter().map(String::as_str).collect();
        let index = UniqueIndex::by_columns(&found.table, &columns).unwrap_or_else(|| {
            panic!("{found:?} is not declared in storage::UniqueIndex (nor answered by the API)")
        });
        // SQLite keeps the name of a `CREATE UNIQUE INDEX`; PostgreSQL names them all.
        let named = db.backend == Backend::Postgres
            || !(found.primary || found.name.starts_with("sqlite_autoindex_"));
        if named {
            assert_eq!(index.name(), found.name, "{found:?}");
        }
        declared.insert(index.name());
    }
    let all: BTreeSet<&str> = UniqueIndex::ALL
        .iter()
        .filter(|i| db.backend == Backend::Postgres || !i.postgres_only())
        .map(|i| i.name())
        .collect();
    assert_eq!(
        declared, all,
        "every declared index exists in the schema, once"
    );
}

async fn variant_skus(s: &TestServer, sku: &str) -> i64 {
    s.db.scalar(&format!(
        "SELECT COUNT(*) FROM variants WHERE sku = '{sku}'"
    ))
    .await
}

/// A concurrent write giving another variant the SKU after the write checked it was free,
/// played by a trigger: the unique index refuses the write, which answers 422 on `sku`
/// (the registry, with no mapping at the call site) and leaves everything as it was.
async fn a_sku_taken_between_the_check_and_the_write_is_422_on_sku(s: TestServer) {
    let token = s.owner_token().await;
    let product = s
        .create_product(
            &token,
            json!({"title": "Existing", "variants": [{"sku": "EXISTING", "price": 1}]}),
        )
        .await;
    s.db.execute(match s.db.backend {
        Backend::Sqlite => {
            "CREATE TRIGGER steal_sku BEFORE INSERT ON variants WHEN NEW.sku = 'CONTESTED' \
             BEGIN UPDATE variants SET sku = NEW.sku \
             WHERE sku = 'EXISTING' AND seller_id = NEW.seller_id; END;"
        }
        Backend::Postgres => {
            "CREATE FUNCTION steal_sku() RETURNS trigger AS $$ BEGIN \
             UPDATE variants SET sku = NEW.sku \
             WHERE sku = 'EXISTING' AND seller_id = NEW.seller_id; \
             RETURN NEW; END $$ LANGUAGE plpgsql; \
             CREATE TRIGGER steal_sku BEFORE INSERT ON variants FOR EACH ROW \
             WHEN (NEW.sku = 'CONTESTED') EXECUTE FUNCTION steal_sku();"
        }
    })
    .await;
    let products_before = s.db.scalar("SELECT COUNT(*) FROM products").await;
    let variants_before = s.db.scalar("SELECT COUNT(*) FROM variants").await;

    let new_variant = s
        .call(
            Method::POST,
            &format!("/v2/products/{}/variants", product["id"]),
            &token,
            Some(json!({"sku": "CONTESTED", "price": 2})),
        )
        .await;
    let new_product = s
        .call(
            Method::POST,
            "/v2/products",
            &token,
            Some(json!({"title": "New", "variants": [{"sku": "CONTESTED", "price": 2}]})),
        )
        .await;
    for (status, body) in [new_variant, new_product] {
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(error_fields(&body), ["sku"], "{body}");
        assert_eq!(
            body["_embedded"]["errors"][0]["messages"],
            json!(["has already been taken"])
        );
    }
    assert_eq!(variant_skus(&s, "CONTESTED").await, 0);
    assert_eq!(
        variant_skus(&s, "EXISTING").await,
        1,
        "the trigger's change is undone too"
    );
    assert_eq!(
        s.db.scalar("SELECT COUNT(*) FROM products").await,
        products_before
    );
    assert_eq!(
        s.db.scalar("SELECT COUNT(*) FROM variants").await,
        variants_before
    );
}

async fn created(s: &TestServer, token: &str, path: &str, body: Value) -> Value {
    let (status, created) = s.call(Method::POST, path, token, Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    created
}

/// What the unique indexes on names and slugs refuse is a 422 on that field, on creation
/// and on update alike (mapped by each call site until the registry did it for all).
async fn taken_names_and_slugs_are_422_on_their_field(s: TestServer) {
    let token = s.owner_token().await;
    created(&s, &token, "/v2/product_types", json!({"name": "Shirts"})).await;
    let hats = created(&s, &token, "/v2/product_types", json!({"name": "Hats"})).await;
    created(
        &s,
        &token,
        "/v2/collections",
        json!({"title": "Summer", "slug": "summer"}),
    )
    .await;
    let winter = created(&s, &token, "/v2/collections", json!({"title": "Winter"})).await;
    let events_before = s.db.scalar("SELECT COUNT(*) FROM events").await;

    let hats_path = format!("/v2/product_types/{}", hats["id"]);
    let winter_path = format!("/v2/collections/{}", winter["id"]);
    let cases = [
        (
            Method::POST,
            "/v2/product_types",
            json!({"name": "shirts"}),
            "name",
        ),
        (
            Method::PUT,
            hats_path.as_str(),
            json!({"name": "SHIRTS"}),
            "name",
        ),
        (
            Method::POST,
            "/v2/collections",
            json!({"title": "Another summer", "slug": "summer"}),
            "slug",
        ),
        (
            Method::PUT,
            winter_path.as_str(),
            json!({"slug": "summer"}),
            "slug",
        ),
    ];
    for (method, path, body, field) in cases {
        let (status, answer) = s.call(method.clone(), path, &token, Some(body)).await;
        assert_eq!(
            (status, error_fields(&answer)),
            (StatusCode::UNPROCESSABLE_ENTITY, vec![field.to_owned()]),
            "{method} {path}: {answer}"
        );
    }
    assert_eq!(s.get_json(&hats_path, &token).await.1["name"], "Hats");
    assert_eq!(s.get_json(&winter_path, &token).await.1["slug"], "winter");
    assert_eq!(s.db.scalar("SELECT COUNT(*) FROM product_types").await, 2);
    assert_eq!(
        s.db.scalar("SELECT COUNT(*) FROM events").await,
        events_before
    );
}

/// An order code is the server's, not the client's: with the shop's counter set back so
/// that the next code is one already used, the index refuses every attempt and the answer
/// is a 409 `already_exists` (it was a 500), with no order written and no stock taken.
async fn a_used_order_code_is_409_already_exists_and_writes_nothing(s: TestServer) {
    let token = s.owner_token().await;
    let product = s
        .create_product(
            &token,
            json!({"title": "Mug", "status": "visible",
                   "variants": [{"sku": "MUG", "price": 900, "stock": 5}]}),
        )
        .await;
    let variant = product["_embedded"]["variants"][0]["id"].as_i64().unwrap();
    let path = format!("/v2/shops/{}/orders", s.shop_id());
    let order = json!({"lines": [{"variant_id": variant, "quantity": 1}]});
    created(&s, &token, &path, order.clone()).await;
    s.db.execute(&format!(
        "UPDATE order_codes SET last_code = last_code - 1 WHERE shop_id = {}",
        s.shop_id()
    ))
    .await;
    let stock = format!("SELECT stock FROM variants WHERE id = {variant}");
    let stock_before = s.db.scalar(&stock).await;
    let orders_before = s.db.scalar("SELECT COUNT(*) FROM orders").await;
    let events_before = s.db.scalar("SELECT COUNT(*) FROM events").await;

    let answer = s.call(Method::POST, &path, &token, Some(order)).await;
    assert_error(&answer, StatusCode::CONFLICT, "already_exists");
    assert_eq!(answer.1["status"], 409);
    assert_eq!(
        s.db.scalar("SELECT COUNT(*) FROM orders").await,
        orders_before
    );
    assert_eq!(
        s.db.scalar("SELECT COUNT(*) FROM events").await,
        events_before
    );
    assert_eq!(s.db.scalar(&stock).await, stock_before);
}
