//! The server under test as a separate child process (this binary re-run as `__commerce`,
//! or another build's bench binary run the same way), so the load generator and the server
//! never share a runtime, an allocator or a heap figure: starting it, seeding it, reading
//! its peak memory and stopping it.

use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout, Command};

/// The first argument that makes this binary run the `commerce` CLI instead.
pub const SELF_EXEC_ARG: &str = "__commerce";

const START_TIMEOUT: Duration = Duration::from_secs(60);
const SEED_TIMEOUT: Duration = Duration::from_secs(120);
/// Loading a million products or orders takes minutes; this bounds it all the same.
const LOAD_TIMEOUT: Duration = Duration::from_secs(3600);
const STOP_TIMEOUT: Duration = Duration::from_secs(15);
const READY_PREFIX: &str = "commerce listening on ";

/// What `commerce seed --demo --json` prints.
#[derive(Debug, Deserialize)]
pub struct DemoData {
    pub user: DemoUser,
    pub app: DemoApp,
    pub sellers: Vec<DemoSeller>,
    pub shops: Vec<DemoShop>,
}

#[derive(Debug, Deserialize)]
pub struct DemoSeller {
    pub id: i64,
}

#[derive(Debug, Deserialize)]
pub struct DemoUser {
    pub email: String,
    pub password: String,
}

#[derive(Debug, Deserialize)]
pub struct DemoApp {
    pub client_id: String,
    pub client_secret: String,
}

#[derive(Debug, Deserialize)]
pub struct DemoShop {
    pub id: i64,
    pub subdomain: String,
}

/// The build whose `commerce` CLI seeds and serves: this one, or another build's bench
/// binary (`--compare-with`), which takes the same first argument.
#[derive(Clone, Debug)]
pub struct Build {
    program: PathBuf,
}

impl Build {
    pub fn this() -> Result<Self> {
        Ok(Self {
            program: std::env::current_exe().context("locate the bench binary")?,
        })
    }

    pub fn other(program: PathBuf) -> Self {
        Self { program }
    }

    pub fn name(&self) -> String {
        self.program.display().to_string()
    }

    /// Starts the server.
    pub async fn start(&self, database_url: &str) -> Result<Server> {
        self.start_with(database_url, &[]).await
    }

    /// Starts the server with extra `commerce serve` flags.
    pub async fn start_with(&self, database_url: &str, extra: &[&str]) -> Result<Server> {
        Server::start(self.commerce(), database_url, extra).await
    }

    /// The program, set up to run the `commerce` CLI with quiet logs.
    fn commerce(&self) -> Command {
        let mut command = Command::new(&self.program);
        command
            .arg(OsStr::new(SELF_EXEC_ARG))
            .env("COMMERCE_LOG", "warn")
            .env("COMMERCE_ENCRYPTION_KEY", encryption_key());
        command
    }

    /// Seeds the demo data into the database at `database_url`.
    pub async fn seed(&self, database_url: &str) -> Result<DemoData> {
        seed(self.commerce(), database_url).await
    }

    /// Adds `count` generated products to the seller (`commerce seed --products`);
    /// answers how long the load took, in seconds.
    pub async fn seed_products(
        &self,
        database_url: &str,
        seller_id: i64,
        count: usize,
    ) -> Result<f64> {
        let (count, seller) = (count.to_string(), seller_id.to_string());
        let flags = ["--products", &count, "--seller", &seller];
        seed_generated(self.commerce(), database_url, &flags).await
    }

    /// Adds `count` generated orders to the shop (`commerce seed --orders`); answers how
    /// long the load took, in seconds.
    pub async fn seed_orders(&self, database_url: &str, shop_id: i64, count: usize) -> Result<f64> {
        let (count, shop) = (count.to_string(), shop_id.to_string());
        let flags = ["--orders", &count, "--shop", &shop];
        seed_generated(self.commerce(), database_url, &flags).await
    }

    /// Adds `count` subscription purchases due today to the shop (`commerce seed
    /// --purchases`); answers how long the load took, in seconds.
    pub async fn seed_purchases(
        &self,
        database_url: &str,
        shop_id: i64,
        count: usize,
    ) -> Result<f64> {
        let (count, shop) = (count.to_string(), shop_id.to_string());
        let flags = ["--purchases", &count, "--shop", &shop];
        seed_generated(self.commerce(), database_url, &flags).await
    }
}

async fn seed(mut commerce: Command, database_url: &str) -> Result<DemoData> {
    let output = commerce
        .args(["seed", "--demo", "--json", "--database-url", database_url])
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output();
    let output = tokio::time::timeout(SEED_TIMEOUT, output)
        .await
        .context("seeding timed out")?
        .context("run `commerce seed`")?;
    if !output.status.success() {
        bail!("`commerce seed` failed ({})", output.status);
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(stdout.trim()).with_context(|| format!("parse the seed output {stdout:?}"))
}

/// Runs `commerce seed` with `flags` that load generated data: the load's seconds.
async fn seed_generated(mut commerce: Command, database_url: &str, flags: &[&str]) -> Result<f64> {
    #[derive(Deserialize)]
    struct Loaded {
        seconds: f64,
    }
    let what = flags.first().copied().unwrap_or_default();
    let output = commerce
        .args(["seed", "--json", "--database-url", database_url])
        .args(flags)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output();
    let output = tokio::time::timeout(LOAD_TIMEOUT, output)
        .await
        .with_context(|| format!("`commerce seed {what}` timed out"))?
        .with_context(|| format!("run `commerce seed {what}`"))?;
    if !output.status.success() {
        bail!("`commerce seed {what}` failed ({})", output.status);
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let loaded: Loaded = serde_json::from_str(stdout.trim())
        .with_context(|| format!("parse the seed output {stdout:?}"))?;
    Ok(loaded.seconds)
}

/// A running `commerce serve`. Dropping it kills the process; [`Server::stop`] ends it
/// gracefully.
pub struct Server {
    child: Child,
    pid: u32,
    /// The base URL, e.g. `http://127.0.0.1:41234`.
    pub url: String,
    /// Kept open so that the server never writes into a closed pipe.
    _stdout: Lines<BufReader<ChildStdout>>,
}

impl Server {
    async fn start(mut commerce: Command, database_url: &str, extra: &[&str]) -> Result<Self> {
        let mut child = commerce
            .args(["serve", "--database-url", database_url])
            .args(extra)
            .args(["--listen", "127.0.0.1:0"])
            .args(["--rate-limit", "1000000000/1s"])
            .args(["--bench-baseline", "--log-format", "text"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .context("start `commerce serve`")?;
        let pid = child.id().context("the server exited at once")?;
        let stdout = child.stdout.take().context("the server's stdout")?;
        let mut lines = BufReader::new(stdout).lines();
        let url = match tokio::time::timeout(START_TIMEOUT, listening_url(&mut lines)).await {
            Ok(Ok(url)) => url,
            Ok(Err(err)) => {
                let status = child.wait().await.ok();
                return Err(err.context(format!("the server did not start (exit: {status:?})")));
            }
            Err(_) => bail!(
                "the server did not say it was listening within {}s",
                START_TIMEOUT.as_secs()
            ),
        };
        Ok(Self {
            child,
            pid,
            url,
            _stdout: lines,
        })
    }

    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Resets the peak resident set size the kernel tracks (best effort: it needs a Linux
    /// `/proc` that lets us write `clear_refs`).
    pub fn reset_peak_memory(&self) {
        let _ = std::fs::write(format!("/proc/{}/clear_refs", self.pid), "5");
    }

    /// The peak resident set size since start or the last reset, in bytes (`VmHWM`).
    pub fn peak_memory(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid)).ok()?;
        let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
        let kib: u64 = line.trim().trim_end_matches("kB").trim().parse().ok()?;
        Some(kib * 1024)
    }

    /// SIGKILL: the server stops at once, leaving whatever it held.
    pub async fn kill(mut self) -> Result<()> {
        self.child.kill().await.context("kill the server")
    }

    /// SIGTERM, then a bounded wait for the graceful shutdown; SIGKILL if it overruns.
    pub async fn stop(mut self) -> Result<ExitStatus> {
        let term = Command::new("kill")
            .args(["-TERM", &self.pid.to_string()])
            .status()
            .await;
        if matches!(term, Ok(status) if status.success()) {
            if let Ok(status) = tokio::time::timeout(STOP_TIMEOUT, self.child.wait()).await {
                return status.context("wait for the server");
            }
            eprintln!(
                "warning: the server did not stop within {}s of SIGTERM; killing it",
                STOP_TIMEOUT.as_secs()
            );
        }
        self.child.kill().await.context("kill the server")?;
        self.child.wait().await.context("wait for the server")
    }
}

/// Reads stdout up to the line announcing the listening address.
async fn listening_url(lines: &mut Lines<BufReader<ChildStdout>>) -> Result<String> {
    while let Some(line) = lines
        .next_line()
        .await
        .context("read the server's stdout")?
    {
        if let Some(rest) = line.strip_prefix(READY_PREFIX) {
            let url = rest.split_whitespace().next().unwrap_or_default();
            if !url.starts_with("http://") {
                bail!("unexpected listening line {line:?}");
            }
            return Ok(url.to_owned());
        }
    }
    bail!("the server closed its stdout before listening")
}

/// One encryption key for every server and command of this run (PostgreSQL has no
/// default; its scratch databases live only as long as the run).
fn encryption_key() -> &'static str {
    static KEY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    KEY.get_or_init(|| storage::secret_box::encode_key(&storage::secret_box::generate_key()))
}
