//! Redis for the tests of shared rate limits (at `COMMERCE_TEST_REDIS_URL`, by default
//! `redis://127.0.0.1:6379`): looked for once per test process (outside CI, one that does
//! not answer skips those tests with a notice; in CI it must answer), a key prefix of each
//! test's own so that tests running at once never meet, and a relay that takes Redis away
//! from a server and brings it back.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::OnceCell;
use tokio::task::{JoinHandle, JoinSet};
use tokio_util::sync::CancellationToken;

use super::{Backend, random_name};

/// Where the tests find Redis.
pub(super) fn redis_url() -> String {
    std::env::var("COMMERCE_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// A test's argument: the backend, and Redis (the harness has checked that it answers).
pub struct WithRedis {
    pub backend: Backend,
    pub redis: TestRedis,
}

/// Redis, with a key prefix of this test's own; its keys are deleted when dropped.
pub struct TestRedis {
    pub url: String,
    pub prefix: String,
    client: redis::Client,
}

impl TestRedis {
    pub(super) fn new() -> Self {
        let url = redis_url();
        Self {
            client: redis::Client::open(url.as_str()).expect("a Redis URL"),
            prefix: format!("commerce-test-{}:", random_name()),
            url,
        }
    }

    /// `host:port` of Redis.
    pub fn address(&self) -> String {
        self.client.get_connection_info().addr().to_string()
    }

    /// The URL of Redis reached through `address` instead.
    pub fn url_through(&self, address: &str) -> String {
        assert!(
            self.url.contains(&self.address()),
            "{} names Redis by host and port",
            self.url
        );
        self.url.replacen(&self.address(), address, 1)
    }

    async fn connection(&self) -> redis::aio::MultiplexedConnection {
        self.client
            .get_multiplexed_async_connection()
            .await
            .expect("connect to Redis")
    }

    /// The keys under this test's prefix.
    pub async fn keys(&self) -> Vec<String> {
        redis::cmd("KEYS")
            .arg(format!("{}*", self.prefix))
            .query_async(&mut self.connection().await)
            .await
            .expect("KEYS")
    }

    /// The tokens a bucket kept in Redis holds.
    pub async fn tokens(&self, key: &str) -> f64 {
        let tokens: String = redis::cmd("HGET")
            .arg(key)
            .arg("tokens")
            .query_async(&mut self.connection().await)
            .await
            .expect("HGET");
        tokens.parse().expect("a number")
    }
}

impl Drop for TestRedis {
    fn drop(&mut self) {
        let client = self.client.clone();
        let pattern = format!("{}*", self.prefix);
        // Drop runs outside any runtime we may block, so the blocking client on a thread.
        let _ = std::thread::spawn(move || {
            let mut connection = client
                .get_connection_with_timeout(Duration::from_secs(2))
                .ok()?;
            let keys: Vec<String> = redis::cmd("KEYS")
                .arg(&pattern)
                .query(&mut connection)
                .ok()?;
            if !keys.is_empty() {
                redis::cmd("DEL")
                    .arg(&keys)
                    .query::<()>(&mut connection)
                    .ok()?;
            }
            Some(())
        })
        .join();
    }
}

/// Whether Redis answers, asked once per test process; in CI it must.
pub(super) async fn reachable() -> bool {
    static REACHABLE: OnceCell<bool> = OnceCell::const_new();
    let url = redis_url();
    *REACHABLE
        .get_or_init(|| async {
            let attempt = tokio::time::timeout(Duration::from_secs(5), async {
                let client = redis::Client::open(url.as_str())?;
                let mut connection = client.get_multiplexed_async_connection().await?;
                redis::cmd("PING")
                    .query_async::<String>(&mut connection)
                    .await
            })
            .await;
            match attempt {
                Ok(Ok(_)) => true,
                failure => {
                    if std::env::var("CI").is_ok_and(|v| v == "true") {
                        panic!("Redis must be reachable in CI at {url}: {failure:?}");
                    }
                    false
                }
            }
        })
        .await
}

/// A TCP relay on a loopback port to another address, which can be stopped (its
/// listener and every connection through it closed) and started again on the same port.
pub struct Relay {
    pub address: SocketAddr,
    target: String,
    running: Option<(CancellationToken, JoinHandle<()>)>,
}

impl Relay {
    /// Relays a free loopback port to `target`.
    pub async fn start(target: &str) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a free port");
        let mut relay = Self {
            address: listener.local_addr().unwrap(),
            target: target.to_owned(),
            running: None,
        };
        relay.serve(listener);
        relay
    }

    /// Closes the listener and every relayed connection.
    pub async fn stop(&mut self) {
        if let Some((stop, task)) = self.running.take() {
            stop.cancel();
            task.await.expect("the relay stops");
        }
    }

    /// Listens on the same port again.
    pub async fn resume(&mut self) {
        assert!(self.running.is_none(), "the relay is running");
        let listener = TcpListener::bind(self.address)
            .await
            .expect("the relay's port is free again");
        self.serve(listener);
    }

    fn serve(&mut self, listener: TcpListener) {
        let stop = CancellationToken::new();
        let target = self.target.clone();
        let stopped = stop.clone();
        let task = tokio::spawn(async move {
            let mut connections = JoinSet::new();
            loop {
                tokio::select! {
                    () = stopped.cancelled() => break,
                    accepted = listener.accept() => {
                        let Ok((mut inbound, _)) = accepted else { continue };
                        let target = target.clone();
                        connections.spawn(async move {
                            if let Ok(mut outbound) = TcpStream::connect(&target).await {
                                let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound)
                                    .await;
                            }
                        });
                    }
                }
            }
            drop(listener);
            connections.shutdown().await;
        });
        self.running = Some((stop, task));
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        if let Some((stop, _)) = self.running.take() {
            stop.cancel();
        }
    }
}
