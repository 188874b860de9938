//! The test harness: a real server on a random loopback port over its own database of
//! either backend (a copy of a template holding the demo data, or an empty one), and a
//! client for it.

use std::sync::Arc;

use reqwest::{Client, Method, RequestBuilder, Response, StatusCode};
use serde_json::Value;
use server::seed::{self, DemoData};
use server::{RunningServer, ServeConfig};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

mod fixture;
pub mod openapi;
mod outbox;
pub mod smtp;
mod template;
pub mod test_redis;
mod write_hold;

pub use fixture::run;
pub use outbox::{DEADLINE, eventually};

/// Generates, for each named `async fn name(arg: A)`, a module `name` with one test per
/// backend. The argument is made before the test runs (see [`fixture::Fixture`]): `s:
/// TestServer` (started, default configuration, demo data), `db: TestDb` (empty) or
/// `backend: Backend` (the test starts what it needs). An unreachable PostgreSQL skips the
/// test there, before it runs.
///
/// A test of the older form, `async fn name(backend: Backend)` opening with `let Some(s) =
/// TestServer::start(backend).await else { return };`, becomes `async fn name(s:
/// TestServer)` without that line; with `start_with`, it keeps `backend` and drops only the
/// `Some(…)`/`else { return }`.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),+ $(,)?) => {
        $(
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn sqlite() {
                    $crate::support::run($crate::support::Backend::Sqlite, super::$name).await
                }
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn postgres() {
                    $crate::support::run($crate::support::Backend::Postgres, super::$name).await
                }
            }
        )+
    };
}

fn postgres_admin_url() -> String {
    std::env::var("COMMERCE_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

/// The URL of the database `name` on the test server.
fn postgres_url(name: &str) -> String {
    let admin = postgres_admin_url();
    let base = admin.rsplit_once('/').map_or(admin.as_str(), |(b, _)| b);
    format!("{base}/{name}")
}

/// Runs one statement on the maintenance database, on a connection of its own.
async fn postgres_admin(sql: &str) {
    let pool = sqlx::PgPool::connect(&postgres_admin_url())
        .await
        .expect("connect to PostgreSQL");
    sqlx::query(sqlx::AssertSqlSafe(sql.to_owned()))
        .execute(&pool)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    pool.close().await;
}

fn random_name() -> String {
    hex_of(&oauth::secrets::random_bytes(8))
}

fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A fresh database, removed when dropped.
pub struct TestDb {
    pub url: String,
    pub backend: Backend,
    /// The encryption key its servers and commands share (PostgreSQL has no default; a
    /// SQLite database gets a key file beside it).
    pub encryption_key: Option<String>,
    /// A SQLite database's folder.
    dir: Option<tempfile::TempDir>,
    postgres_name: Option<String>,
}

/// A SQLite database's file name in its folder.
const SQLITE_FILE: &str = "commerce.db";

impl TestDb {
    /// A fresh, empty database (the harness has checked that its backend is reachable).
    pub async fn create(backend: Backend) -> Self {
        match backend {
            Backend::Sqlite => Self::sqlite(),
            Backend::Postgres => {
                let key = storage::secret_box::encode_key(&storage::secret_box::generate_key());
                Self::postgres(None, key).await
            }
        }
    }

    /// A database file in a folder of its own (its key file goes beside it).
    fn sqlite() -> Self {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let url = format!("sqlite://{}", dir.path().join(SQLITE_FILE).display());
        Self {
            url,
            backend: Backend::Sqlite,
            encryption_key: None,
            dir: Some(dir),
            postgres_name: None,
        }
    }

    /// A new PostgreSQL database, empty or copied from `template`, whose secrets are
    /// sealed with `key`.
    async fn postgres(template: Option<&str>, key: String) -> Self {
        let name = format!("commerce_test_{}", random_name());
        let copied = template.map_or(String::new(), |t| format!(" TEMPLATE {t}"));
        postgres_admin(&format!("CREATE DATABASE {name}{copied}")).await;
        Self {
            url: postgres_url(&name),
            backend: Backend::Postgres,
            encryption_key: Some(key),
            dir: None,
            postgres_name: Some(name),
        }
    }

    /// `args` of a `commerce` command, followed by this database and its encryption key.
    pub fn args<'a>(&'a self, args: &[&'a str]) -> Vec<&'a str> {
        let mut all = args.to_vec();
        all.extend(["--database-url", self.url.as_str()]);
        if let Some(key) = &self.encryption_key {
            all.extend(["--encryption-key", key.as_str()]);
        }
        all
    }

    /// Where this database's servers find their encryption keys.
    pub fn key_source(&self) -> storage::secret_box::KeySource {
        match &self.encryption_key {
            Some(key) => storage::secret_box::KeySource::configured(key).expect("a key"),
            None => storage::secret_box::KeySource::default_for(&self.url).expect("a key file"),
        }
    }

    /// The box that seals this database's secrets, as its servers open it.
    pub async fn secret_box(&self, db: &storage::Database) -> storage::secret_box::SecretBox {
        storage::secret_box::SecretBox::open_for(db, self.key_source())
            .await
            .expect("the encryption keys")
    }

    /// Runs one statement directly on the database (for assertions and fault injection).
    pub async fn execute(&self, sql: &str) {
        match self.backend {
            Backend::Sqlite => {
                let pool = sqlx::SqlitePool::connect(&self.url)
                    .await
                    .expect("connect to SQLite");
                sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_owned()))
                    .execute(&pool)
                    .await
                    .expect("statement runs");
                pool.close().await;
            }
            Backend::Postgres => {
                let pool = sqlx::PgPool::connect(&self.url)
                    .await
                    .expect("connect to PostgreSQL");
                sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_owned()))
                    .execute(&pool)
                    .await
                    .expect("statement runs");
                pool.close().await;
            }
        }
    }

    /// Makes every event insert fail, so that a write fails after its change was made in
    /// the same transaction (fault injection).
    pub async fn refuse_events(&self) {
        self.execute(match self.backend {
            Backend::Sqlite => {
                "CREATE TRIGGER refuse_events BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'refused'); END;"
            }
            Backend::Postgres => {
                "CREATE FUNCTION refuse_events() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$ \
                 LANGUAGE plpgsql; CREATE TRIGGER refuse_events BEFORE INSERT ON events \
                 FOR EACH ROW EXECUTE FUNCTION refuse_events();"
            }
        })
        .await;
    }

    /// Undoes `refuse_events`.
    pub async fn allow_events(&self) {
        self.execute(match self.backend {
            Backend::Sqlite => "DROP TRIGGER refuse_events",
            Backend::Postgres => "DROP TRIGGER refuse_events ON events",
        })
        .await;
    }

    /// Every row of a query, as tuples of columns (`(i64, String)`, …).
    pub async fn rows<T>(&self, sql: &str) -> Vec<T>
    where
        T: for<'r> sqlx::FromRow<'r, sqlx::sqlite::SqliteRow>
            + for<'r> sqlx::FromRow<'r, sqlx::postgres::PgRow>
            + Send
            + Unpin,
    {
        let sql = sqlx::AssertSqlSafe(sql.to_owned());
        match self.backend {
            Backend::Sqlite => {
                let pool = sqlx::SqlitePool::connect(&self.url)
                    .await
                    .expect("connect to SQLite");
                let rows = sqlx::query_as::<_, T>(sql)
                    .fetch_all(&pool)
                    .await
                    .expect("query runs");
                pool.close().await;
                rows
            }
            Backend::Postgres => {
                let pool = sqlx::PgPool::connect(&self.url)
                    .await
                    .expect("connect to PostgreSQL");
                let rows = sqlx::query_as::<_, T>(sql)
                    .fetch_all(&pool)
                    .await
                    .expect("query runs");
                pool.close().await;
                rows
            }
        }
    }

    /// The first column of the first row of a query returning one integer.
    pub async fn scalar(&self, sql: &str) -> i64 {
        let rows: Vec<(i64,)> = self.rows(sql).await;
        rows.first().expect("a row").0
    }
}

/// A test fails if its server gave an answer the OpenAPI document does not describe
/// (unless it is failing already).
impl Drop for TestServer {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            self.assert_documented();
        }
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let Some(name) = self.postgres_name.take() else {
            return;
        };
        let admin = postgres_admin_url();
        // Drop runs outside any runtime we may block, so use a thread with its own.
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .ok()?;
            rt.block_on(async {
                let pool = sqlx::PgPool::connect(&admin).await.ok()?;
                sqlx::query(sqlx::AssertSqlSafe(format!(
                    "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                )))
                .execute(&pool)
                .await
                .ok()?;
                pool.close().await;
                Some(())
            })
        })
        .join();
    }
}

/// A running server with demo data.
pub struct TestServer {
    pub url: String,
    /// The server's clock (the wall clock unless the test set a manual one).
    pub clock: Arc<dyn domain::Clock>,
    pub demo: DemoData,
    pub client: Client,
    /// Checks every answer against the OpenAPI document.
    pub check: Arc<openapi::DocumentCheck>,
    server: Option<RunningServer>,
    pub db: Arc<TestDb>,
}

impl TestServer {
    pub async fn start(backend: Backend) -> Self {
        Self::start_with(backend, |_| {}).await
    }

    /// Starts with the test defaults changed by `configure`, on a copy of the backend's
    /// template database (migrated, with the demo data).
    pub async fn start_with(backend: Backend, configure: impl FnOnce(&mut ServeConfig)) -> Self {
        let (db, demo) = TestDb::copy_of_template(backend).await;
        let db = Arc::new(db);
        let mut config = ServeConfig::defaults();
        config.listen = "127.0.0.1:0".parse().expect("loopback address");
        config.database_url = db.url.clone();
        config.db_max_connections = 4;
        config.count_queries = true;
        configure(&mut config);
        Self::launch(db, config, Some(demo)).await
    }

    /// Starts another server on the same database (a second node), and seeds another
    /// demo account there for it.
    pub async fn start_on(db: Arc<TestDb>, config: ServeConfig) -> Self {
        Self::launch(db, config, None).await
    }

    /// Starts a server on `db` with `demo`, or with demo data seeded now.
    async fn launch(db: Arc<TestDb>, mut config: ServeConfig, demo: Option<DemoData>) -> Self {
        if config.encryption_key.is_none() && config.encryption_key_file.is_none() {
            config.encryption_key = db.encryption_key.clone();
        }
        let check = Arc::new(openapi::DocumentCheck::default());
        config.observer = Some(check.clone());
        let running = server::start(config.clone())
            .await
            .expect("the server starts");
        let demo = match demo {
            Some(demo) => demo,
            None => {
                let secret_box = db.secret_box(&running.db).await;
                seed::demo(&running.db, &secret_box, &domain::SystemClock)
                    .await
                    .expect("demo data")
            }
        };
        Self {
            clock: config.clock.clone(),
            url: format!("http://{}", running.addr),
            demo,
            client: Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("an HTTP client"),
            check,
            server: Some(running),
            db,
        }
    }

    /// The running node (its name in leases, the tasks it runs).
    pub fn running(&self) -> &RunningServer {
        self.server.as_ref().expect("the server runs until stopped")
    }

    pub async fn stop(mut self) {
        if let Some(server) = self.server.take() {
            server.shutdown().await.expect("a clean shutdown");
        }
    }

    /// Fails the test if any answer did not match the OpenAPI document.
    pub fn assert_documented(&self) {
        let problems = self.check.problems();
        assert!(
            problems.is_empty(),
            "answers the OpenAPI document does not describe:\n{}",
            problems.join("\n")
        );
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.url)
    }

    pub fn request(&self, method: Method, path: &str, token: &str) -> RequestBuilder {
        self.client
            .request(method, self.url(path))
            .bearer_auth(token)
    }

    pub fn get(&self, path: &str, token: &str) -> RequestBuilder {
        self.request(Method::GET, path, token)
    }

    /// POSTs form parameters to the token endpoint.
    pub async fn token_request(&self, params: &[(&str, &str)]) -> Response {
        self.client
            .post(self.url("/oauth/token"))
            .form(params)
            .send()
            .await
            .expect("the token endpoint answers")
    }

    /// A password grant through the app `(client_id, client_secret)`, with `extra` parameters.
    pub async fn password_grant(
        &self,
        app: (&str, &str),
        username: &str,
        password: &str,
        extra: &[(&str, &str)],
    ) -> Response {
        let mut params = vec![
            ("grant_type", "password"),
            ("client_id", app.0),
            ("client_secret", app.1),
            ("username", username),
            ("password", password),
        ];
        params.extend_from_slice(extra);
        self.token_request(&params).await
    }

    /// Sends `body` as it is, with the given content type.
    pub async fn send_raw(
        &self,
        method: Method,
        path: &str,
        token: &str,
        content_type: &str,
        body: impl Into<reqwest::Body>,
    ) -> (StatusCode, Value) {
        let response = self
            .request(method, path, token)
            .header("content-type", content_type)
            .body(body)
            .send()
            .await
            .expect("the server answers");
        json(response).await
    }

    /// The server's `/metrics` exposition text.
    pub async fn metrics(&self) -> String {
        self.client
            .get(self.url("/metrics"))
            .send()
            .await
            .expect("the server answers")
            .text()
            .await
            .expect("the metrics are text")
    }

    /// A password-grant token of the demo owner through the demo app.
    pub async fn owner_token(&self) -> String {
        self.password_token(
            &self.demo.user.email.clone(),
            &self.demo.user.password.clone(),
            None,
        )
        .await
    }

    /// A password-grant token of another demo account's owner, through its own app.
    pub async fn owner_token_of(&self, demo: &DemoData) -> String {
        access_token(
            self.password_grant(
                (&demo.app.client_id, &demo.app.client_secret),
                &demo.user.email,
                &demo.user.password,
                &[],
            )
            .await,
        )
        .await
    }

    pub async fn password_token(
        &self,
        username: &str,
        password: &str,
        scope: Option<&str>,
    ) -> String {
        let app = (
            self.demo.app.client_id.as_str(),
            self.demo.app.client_secret.as_str(),
        );
        let extra: Vec<(&str, &str)> = scope.map(|s| ("scope", s)).into_iter().collect();
        access_token(self.password_grant(app, username, password, &extra).await).await
    }

    pub async fn client_credentials_token(
        &self,
        client_id: &str,
        secret: &str,
        scope: Option<&str>,
    ) -> String {
        let mut params = vec![
            ("grant_type", "client_credentials"),
            ("client_id", client_id),
            ("client_secret", secret),
        ];
        if let Some(scope) = scope {
            params.push(("scope", scope));
        }
        access_token(self.token_request(&params).await).await
    }

    /// The database of this server, opened separately, with its secret box.
    pub async fn open_storage(&self) -> (storage::Database, oauth::secret_box::SecretBox) {
        let db = storage::Database::connect(&self.db.url, &storage::StoreOptions::default())
            .await
            .expect("connect");
        let secret_box = self.db.secret_box(&db).await;
        (db, secret_box)
    }

    /// Registers an app through the same code path as `commerce apps create`.
    pub async fn register_app(
        &self,
        account: Option<i64>,
        scopes: &str,
        grants: &str,
        trusted: bool,
    ) -> (String, String) {
        let (id, secret) = self.register(account, scopes, grants, trusted, false).await;
        (id, secret.expect("a confidential client has a secret"))
    }

    /// Registers an app, public or confidential, redirecting to `https://app.example/callback`.
    pub async fn register(
        &self,
        account: Option<i64>,
        scopes: &str,
        grants: &str,
        trusted: bool,
        public: bool,
    ) -> (String, Option<String>) {
        let redirects = ["https://app.example/callback"];
        self.register_with_redirects_and_kind(account, scopes, grants, trusted, public, &redirects)
            .await
    }

    /// Registers an untrusted client with these redirect URIs.
    pub async fn register_with_redirects(
        &self,
        account: Option<i64>,
        scopes: &str,
        grants: &str,
        public: bool,
        redirects: &[&str],
    ) -> (String, Option<String>) {
        self.register_with_redirects_and_kind(account, scopes, grants, false, public, redirects)
            .await
    }

    async fn register_with_redirects_and_kind(
        &self,
        account: Option<i64>,
        scopes: &str,
        grants: &str,
        trusted: bool,
        public: bool,
        redirects: &[&str],
    ) -> (String, Option<String>) {
        let (db, secret_box) = self.open_storage().await;
        let registration = oauth::apps::AppRegistration {
            name: "Test App".into(),
            account_id: account,
            scopes: domain::ScopeSet::parse(scopes).expect("scopes"),
            grants: oauth::grant::GrantType::parse_list(grants).expect("grants"),
            redirect_uris: redirects.iter().map(|r| (*r).to_owned()).collect(),
            trusted,
            public,
        };
        assert!(oauth::apps::check(&registration).is_empty());
        let mut tx = db.begin().await.expect("begin");
        let registered = oauth::apps::register(
            &mut tx,
            &secret_box,
            &registration,
            domain::Timestamp::from_secs(0),
        )
        .await
        .expect("register");
        tx.commit().await.expect("commit");
        db.close().await;
        (registered.app.client_id, registered.client_secret)
    }

    /// Stores an authorization code for the demo owner, as the authorization endpoint does
    /// when the owner approves (`expires_in` seconds from now, on the server's clock).
    pub async fn issue_code(
        &self,
        client_id: &str,
        scopes: &str,
        redirect_uri: Option<&str>,
        challenge: Option<&str>,
        expires_in: i64,
    ) -> String {
        let (db, _) = self.open_storage().await;
        let app = storage::apps::find_by_client_id(&db, client_id)
            .await
            .unwrap()
            .expect("the app exists");
        let user = storage::users::find_by_email(&db, &self.demo.user.email)
            .await
            .unwrap()
            .expect("the owner");
        let raw = oauth::secrets::random_token(32);
        let now = self.clock.now();
        let mut tx = db.begin().await.unwrap();
        storage::authorization_codes::insert(
            &mut tx,
            &storage::authorization_codes::NewCode {
                digest: &oauth::secrets::sha256(raw.as_bytes()),
                family_id: &oauth::new_family_id(),
                app_id: app.id,
                user_id: user.id,
                account_id: user.account_id,
                seller_id: None,
                scopes,
                redirect_uri: redirect_uri.unwrap_or("https://app.example/callback"),
                redirect_uri_given: redirect_uri.is_some(),
                code_challenge: challenge,
                expires_on: now.plus_secs(expires_in),
            },
            now,
        )
        .await
        .unwrap();
        tx.commit().await.unwrap();
        db.close().await;
        raw
    }

    /// Seeds a second, independent demo account on this server's database.
    pub async fn seed_another_account(&self) -> DemoData {
        let (db, secret_box) = self.open_storage().await;
        let demo = seed::demo(&db, &secret_box, &domain::SystemClock)
            .await
            .expect("demo data");
        db.close().await;
        demo
    }

    /// Adds a user to the demo account.
    pub async fn add_user(&self, email: &str, password: &str, role: &str) {
        let db = storage::Database::connect(&self.db.url, &storage::StoreOptions::default())
            .await
            .expect("connect");
        let hash = oauth::password::hash(password.to_owned()).await;
        let mut tx = db.begin().await.expect("begin");
        storage::users::insert(
            &mut tx,
            &storage::users::NewUser {
                account_id: self.demo.account_id,
                email,
                name: "Test User",
                password_hash: &hash,
                role: role.parse().expect("role"),
            },
            domain::Timestamp::from_secs(0),
        )
        .await
        .expect("insert user");
        tx.commit().await.expect("commit");
        db.close().await;
    }

    pub fn shop_id(&self) -> i64 {
        self.demo.shops[0].id
    }

    pub fn seller_id(&self) -> i64 {
        self.demo.sellers[0].id
    }

    /// Sends `body` (or nothing) as JSON; answers the status and the JSON answer.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        token: &str,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        let mut request = self.request(method, path, token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        json(request.send().await.expect("the server answers")).await
    }

    pub async fn get_json(&self, path: &str, token: &str) -> (StatusCode, Value) {
        self.call(Method::GET, path, token, None).await
    }

    /// Creates a product, asserting that it was created.
    pub async fn create_product(&self, token: &str, body: Value) -> Value {
        let (status, product) = self
            .call(Method::POST, "/v2/products", token, Some(body))
            .await;
        assert_eq!(status, StatusCode::CREATED, "{product}");
        product
    }

    /// How many queries a GET costs, as the server counts them.
    pub async fn queries_of(&self, path: &str, token: &str) -> u32 {
        // What the handler costs, not a remembered answer.
        let response = self
            .get(path, token)
            .header("cache-control", "no-cache")
            .send()
            .await
            .expect("the server answers");
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        response.headers()["x-db-queries"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap()
    }

    /// How many events with `topic` the outbox holds.
    pub async fn event_count(&self, topic: &str) -> i64 {
        self.db
            .scalar(&format!(
                "SELECT COUNT(*) FROM events WHERE topic = '{topic}'"
            ))
            .await
    }
}

/// The `access_token` of a successful token response.
pub async fn access_token(response: Response) -> String {
    let status = response.status();
    let body: Value = response.json().await.expect("a JSON token response");
    assert_eq!(status, StatusCode::OK, "token request failed: {body}");
    body["access_token"]
        .as_str()
        .expect("an access token")
        .to_owned()
}

/// A path template with its variables filled: ids with 1, names with `x`.
pub fn filled(template: &str) -> String {
    template
        .split('/')
        .map(
            |segment| match segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                Some(name) if name == "id" || name.ends_with("_id") => "1".to_owned(),
                Some(_) => "x".to_owned(),
                None => segment.to_owned(),
            },
        )
        .collect::<Vec<_>>()
        .join("/")
}

/// Status and JSON body of a response.
pub async fn json(response: Response) -> (StatusCode, Value) {
    let status = response.status();
    let text = response.text().await.expect("a body");
    let body = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
    };
    (status, body)
}

/// Asserts an error answer's status and `error` code.
pub fn assert_error(answer: &(StatusCode, Value), status: StatusCode, code: &str) {
    expect_error(answer.0, &answer.1, status, code);
}

/// Asserts that `body`, answered with `status`, is the error `code` with `expected` status.
pub fn expect_error(status: StatusCode, body: &Value, expected: StatusCode, code: &str) {
    assert_eq!(
        (status, body["error"].as_str()),
        (expected, Some(code)),
        "{body}"
    );
}

/// The fields named in a 422 body.
pub fn error_fields(body: &Value) -> Vec<String> {
    body["_embedded"]["errors"]
        .as_array()
        .map(|errors| {
            errors
                .iter()
                .filter_map(|e| e["field"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The ids of a list's items, in order.
pub fn item_ids(list: &Value) -> Vec<i64> {
    list["_embedded"]["items"]
        .as_array()
        .unwrap_or_else(|| panic!("a list: {list}"))
        .iter()
        .map(|item| item["id"].as_i64().unwrap())
        .collect()
}
