//! The background work of a node, registered in one place: each task is named, runs on
//! every node of its role or as a singleton under a lease, and stops cooperatively when
//! the node's cancellation token is cancelled (a task that ignores it delays shutdown,
//! so every loop here selects on it).

mod batches;
mod drain;
mod housekeeping;
mod mail_delivery;
mod order_documents;
mod payments;
mod renewals;
mod singleton;
mod upkeep;

use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use domain::Clock;
use storage::Database;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

pub use batches::run_batches;
pub use housekeeping::housekeeping;
pub use mail_delivery::{MailDelivery, deliver_mail};
pub use order_documents::generate_documents;
pub use payments::settle_payments;
pub use renewals::renew_subscriptions;
pub use upkeep::{
    ENCRYPTION_KEY_RELOAD, record_token_use, refresh_revocations, refresh_signing_keys,
    reload_encryption_keys,
};

/// A task's body: called with the token that tells it to stop (a singleton's body is
/// called again each time its lease is taken).
pub type Job = Arc<dyn Fn(CancellationToken) -> BoxedTask + Send + Sync>;
pub type BoxedTask = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Where a task runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// On every node that registers it.
    EveryNode,
    /// On one node at a time among those that register it: whichever holds its lease.
    Singleton,
}

/// How singletons hold their leases on this node.
#[derive(Clone, Debug)]
pub struct LeaseTerms {
    pub db: Database,
    pub clock: Arc<dyn Clock>,
    /// This node's name in leases.
    pub holder: String,
    /// How long a lease holds unless renewed; it is renewed, and a free one looked for,
    /// every third of it.
    pub lease: Duration,
}

struct Registered {
    name: &'static str,
    placement: Placement,
    job: Job,
}

/// The tasks a node will run.
#[derive(Default)]
pub struct Registry {
    tasks: Vec<Registered>,
}

impl Registry {
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `job` under `name` (unique: it names the singleton's lease).
    pub fn register<F, Fut>(&mut self, name: &'static str, placement: Placement, job: F)
    where
        F: Fn(CancellationToken) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.tasks.push(Registered {
            name,
            placement,
            job: Arc::new(move |cancel| Box::pin(job(cancel))),
        });
    }

    /// Starts every task; singletons contend for their leases on `terms`.
    pub fn start(self, terms: LeaseTerms) -> Running {
        let cancel = CancellationToken::new();
        let active = Active::default();
        let handles = self
            .tasks
            .into_iter()
            .map(|task| {
                let cancel = cancel.child_token();
                let handle = match task.placement {
                    Placement::EveryNode => {
                        let active = active.clone();
                        tokio::spawn(async move {
                            active.insert(task.name);
                            (task.job)(cancel).await;
                            active.remove(task.name);
                        })
                    }
                    Placement::Singleton => tokio::spawn(singleton::contend(
                        task.name,
                        task.job,
                        terms.clone(),
                        cancel,
                        active.clone(),
                    )),
                };
                (task.name, handle)
            })
            .collect();
        Running {
            cancel,
            handles,
            active,
        }
    }
}

/// The names of the tasks running now on this node (a singleton only while it holds its
/// lease).
#[derive(Clone, Debug, Default)]
pub struct Active(Arc<Mutex<BTreeSet<&'static str>>>);

impl Active {
    fn insert(&self, name: &'static str) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(name);
    }

    fn remove(&self, name: &'static str) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(name);
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .copied()
            .collect()
    }
}

/// The started tasks of a node.
pub struct Running {
    cancel: CancellationToken,
    handles: Vec<(&'static str, JoinHandle<()>)>,
    active: Active,
}

impl Running {
    /// Which tasks run now.
    pub fn active(&self) -> Active {
        self.active.clone()
    }

    /// Tells every task to stop and waits until each has (singletons release their
    /// leases; the dispatcher hands its work back).
    pub async fn stop(self) {
        self.cancel.cancel();
        for (name, handle) in self.handles {
            if let Err(err) = handle.await {
                tracing::warn!(task = name, error = %err, "a background task failed");
            }
        }
    }
}
