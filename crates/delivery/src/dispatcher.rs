//! The dispatcher: a loop on every node that claims due work with leases — verification
//! pings of pending subscriptions and due deliveries — sends it, and records what
//! happened. It wakes when work is committed (in this process, or on any node through
//! PostgreSQL) and polls slowly otherwise.
//!
//! Guarantees: a delivery exists only for a committed event; every one is attempted until
//! it succeeds or its schedule runs out; a node that dies mid-attempt loses its lease,
//! and another node sends again (with the same `webhook-id`). A slow or failing target
//! holds at most `per_webhook` of the `max_in_flight` slots.

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use domain::Clock;
use domain::webhook::{AttemptOutcome, FailurePolicy, Trigger, retry_delay_secs};
use storage::secret_box::SecretBox;
use storage::webhook_deliveries::{self, AttemptRecord, Delivery, Next};
use storage::webhooks::{self, Webhook};
use storage::{Database, events, shops};
use tokio::sync::{Notify, Semaphore};

use crate::request::{self, Answer, Envelope};
use crate::signature::WebhookSecret;
use crate::ssrf::{self, Guard};
use crate::verify;

#[derive(Clone, Debug)]
pub struct DispatcherConfig {
    /// Names this node in leases.
    pub node: String,
    /// Where `_links` in bodies point.
    pub public_url: String,
    pub guard: Guard,
    pub policy: FailurePolicy,
    pub connect_timeout: Duration,
    pub total_timeout: Duration,
    /// How long a claim holds: longer than an attempt can take.
    pub lease: Duration,
    /// Deliveries claimed at once.
    pub batch: i64,
    /// Attempts in flight for one subscription (on this node).
    pub per_webhook: usize,
    /// Attempts in flight on this node.
    pub max_in_flight: usize,
    /// How often to look for work when nothing wakes the dispatcher.
    pub poll: Duration,
}

impl DispatcherConfig {
    pub fn new(public_url: String, guard: Guard) -> Self {
        Self {
            node: hex(&storage::secrets::random_bytes(8)),
            public_url,
            guard,
            policy: FailurePolicy::default(),
            connect_timeout: Duration::from_secs(5),
            total_timeout: Duration::from_secs(15),
            lease: Duration::from_secs(60),
            batch: 64,
            per_webhook: 4,
            max_in_flight: 256,
            poll: Duration::from_secs(1),
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub struct Dispatcher {
    db: Database,
    secrets: SecretBox,
    clock: Arc<dyn Clock>,
    config: DispatcherConfig,
    client: reqwest::Client,
    slots: Arc<Semaphore>,
    /// Attempts in flight per subscription.
    busy: Mutex<HashMap<i64, usize>>,
    /// Rung when an attempt ends: its subscription may send the next one.
    freed: Notify,
}

impl Dispatcher {
    pub fn new(
        db: Database,
        secrets: SecretBox,
        clock: Arc<dyn Clock>,
        config: DispatcherConfig,
    ) -> Result<Arc<Self>, reqwest::Error> {
        let client = ssrf::client(
            config.guard.clone(),
            config.connect_timeout,
            config.total_timeout,
        )?;
        Ok(Arc::new(Self {
            slots: Arc::new(Semaphore::new(config.max_in_flight)),
            db,
            secrets,
            clock,
            config,
            client,
            busy: Mutex::new(HashMap::new()),
            freed: Notify::new(),
        }))
    }

    /// Runs until the task is aborted.
    pub async fn run(self: Arc<Self>) {
        tokio::spawn(webhook_deliveries::relay_notifications(self.db.clone()));
        loop {
            // Listen before looking, so that work committed meanwhile is not missed.
            let woken = webhook_deliveries::woken();
            let freed = self.freed.notified();
            if let Err(err) = self.clone().tick().await {
                tracing::warn!(error = %err, "webhook dispatch failed; retrying");
            }
            tokio::select! {
                () = woken => {}
                () = freed => {}
                () = tokio::time::sleep(self.config.poll) => {}
            }
        }
    }

    /// Claims and starts whatever is due now.
    async fn tick(self: Arc<Self>) -> storage::Result<()> {
        let now = self.clock.now();
        let lease_until = now.plus_secs(i64::try_from(self.config.lease.as_secs()).unwrap_or(60));
        for webhook in
            webhooks::claim_verifications(&self.db, &self.config.node, now, lease_until, 16).await?
        {
            let this = self.clone();
            tokio::spawn(async move { this.verify(webhook).await });
        }
        loop {
            let free = self.slots.available_permits();
            if free == 0 {
                return Ok(());
            }
            let busy: Vec<i64> = self
                .busy
                .lock()
                .expect("the busy map is never poisoned")
                .iter()
                .filter(|(_, n)| **n >= self.config.per_webhook)
                .map(|(id, _)| *id)
                .collect();
            let limit = self
                .config
                .batch
                .min(i64::try_from(free).unwrap_or(i64::MAX));
            let claimed = webhook_deliveries::claim(
                &self.db,
                &self.config.node,
                now,
                lease_until,
                limit,
                &busy,
            )
            .await?;
            if claimed.is_empty() {
                return Ok(());
            }
            let full_batch = i64::try_from(claimed.len()).unwrap_or(0) == limit;
            self.clone().start(claimed).await?;
            if !full_batch {
                return Ok(());
            }
        }
    }

    /// Starts the claimed deliveries within each subscription's share; gives back the rest.
    async fn start(self: Arc<Self>, claimed: Vec<Delivery>) -> storage::Result<()> {
        let mut webhook_ids: Vec<i64> = claimed.iter().map(|d| d.webhook_id).collect();
        webhook_ids.sort_unstable();
        webhook_ids.dedup();
        let event_ids: Vec<i64> = claimed.iter().map(|d| d.event_id).collect();
        let (targets, events) = tokio::try_join!(
            webhooks::by_ids(&self.db, &webhook_ids),
            events::by_ids(&self.db, &event_ids),
        )?;
        let mut shop_ids: Vec<i64> = targets.iter().map(|w| w.shop_id).collect();
        shop_ids.sort_unstable();
        shop_ids.dedup();
        let shops = shops::by_ids(&self.db, &shop_ids).await?;
        let targets: HashMap<i64, Arc<Webhook>> =
            targets.into_iter().map(|w| (w.id, Arc::new(w))).collect();
        let events: HashMap<i64, Arc<events::Event>> =
            events.into_iter().map(|e| (e.id, Arc::new(e))).collect();
        let subdomains: HashMap<i64, String> =
            shops.into_iter().map(|s| (s.id, s.subdomain)).collect();
        let mut returned = Vec::new();
        for delivery in claimed {
            let (Some(webhook), Some(event)) = (
                targets.get(&delivery.webhook_id),
                events.get(&delivery.event_id),
            ) else {
                returned.push(delivery.id);
                continue;
            };
            let admitted = {
                let mut busy = self.busy.lock().expect("the busy map is never poisoned");
                let count = busy.entry(webhook.id).or_default();
                (*count < self.config.per_webhook)
                    .then(|| *count += 1)
                    .is_some()
            };
            let permit = match (admitted, self.slots.clone().try_acquire_owned()) {
                (true, Ok(permit)) => permit,
                (admitted, _) => {
                    if admitted {
                        self.done(webhook.id);
                    }
                    returned.push(delivery.id);
                    continue;
                }
            };
            let this = self.clone();
            let (webhook, event) = (webhook.clone(), event.clone());
            let subdomain = subdomains
                .get(&webhook.shop_id)
                .cloned()
                .unwrap_or_default();
            tokio::spawn(async move {
                let id = webhook.id;
                if let Err(err) = this.deliver(&delivery, &webhook, &event, &subdomain).await {
                    tracing::warn!(error = %err, delivery = delivery.id, "cannot record a webhook attempt");
                }
                this.done(id);
                drop(permit);
            });
        }
        webhook_deliveries::release(&self.db, &self.config.node, &returned).await
    }

    fn done(&self, webhook_id: i64) {
        {
            let mut busy = self.busy.lock().expect("the busy map is never poisoned");
            if let Some(count) = busy.get_mut(&webhook_id) {
                *count = count.saturating_sub(1);
                if *count == 0 {
                    busy.remove(&webhook_id);
                }
            }
        }
        self.freed.notify_one();
    }

    /// One attempt at a delivery, and its record.
    async fn deliver(
        &self,
        delivery: &Delivery,
        webhook: &Webhook,
        event: &events::Event,
        subdomain: &str,
    ) -> storage::Result<()> {
        let webhook_href = format!("{}/v2/webhooks/{}", self.config.public_url, webhook.id);
        let body = request::event_body(event, (webhook.shop_id, subdomain), &webhook_href);
        let secrets = self.secrets_of(webhook);
        let secret_refs: Vec<&WebhookSecret> = secrets.iter().collect();
        let password = self.password_of(webhook);
        let number = delivery.attempts + 1;
        let message_id = format!("evt_{}", event.id);
        let hook_headers = [
            ("x-hook-topic", event.topic.clone()),
            ("x-hook-delivery", delivery.id.to_string()),
            ("x-hook-attempt", number.to_string()),
            ("x-hook-shop-id", webhook.shop_id.to_string()),
        ];
        let envelope = Envelope {
            message_id: &message_id,
            timestamp: self.clock.now().as_secs(),
            secrets: &secret_refs,
            basic: basic(webhook, password.as_deref()),
            hook_headers: &hook_headers,
        };
        let answer = request::post(
            &self.client,
            &self.config.guard,
            &webhook.url,
            body,
            &envelope,
        )
        .await;
        self.record(delivery, webhook, &answer).await
    }

    /// Records an attempt and its consequences in one transaction.
    async fn record(
        &self,
        delivery: &Delivery,
        webhook: &Webhook,
        answer: &Answer,
    ) -> storage::Result<()> {
        let now = self.clock.now();
        let scheduled = delivery.trigger == Trigger::Scheduled;
        let attempts = u32::try_from(delivery.attempts + 1).unwrap_or(u32::MAX);
        let retry_after = answer.retry_after_secs(now.as_secs());
        let (outcome, next) = match (&answer.error, answer.status) {
            (None, _) => (AttemptOutcome::Delivered, Next::Succeeded),
            (Some(_), Some(410)) => (AttemptOutcome::Gone, Next::Park),
            (Some(_), _) => {
                let delay = if scheduled {
                    retry_delay_secs(attempts, jitter(), retry_after)
                } else {
                    None
                };
                match delay {
                    Some(secs) => (
                        AttemptOutcome::Failed { exhausted: false },
                        Next::RetryAt(now.plus_secs(secs)),
                    ),
                    None => (
                        AttemptOutcome::Failed {
                            exhausted: scheduled,
                        },
                        Next::Exhausted,
                    ),
                }
            }
        };
        // A target that asks to be left alone (429 or 503 with Retry-After) gets nothing
        // else from this subscription until then.
        let pause_until = match (answer.status, retry_after) {
            (Some(429 | 503), Some(secs)) => {
                Some(now.plus_secs(secs.min(domain::webhook::RETRY_AFTER_MAX_SECS)))
            }
            _ => None,
        };
        let error = answer.error.as_ref().map(|(_, message)| message.as_str());
        let record = AttemptRecord {
            trigger: delivery.trigger,
            url: &webhook.url,
            status_code: answer.status.map(i64::from),
            duration_ms: i64::try_from(answer.duration.as_millis()).unwrap_or(i64::MAX),
            error_class: answer.error.as_ref().map(|(class, _)| *class),
            error,
        };
        let mut tx = self.db.begin().await?;
        let held =
            webhook_deliveries::finish(&mut tx, delivery, &self.config.node, &record, next, now)
                .await?;
        if !held {
            // The lease ran out and another node took the delivery over.
            return Ok(());
        }
        webhooks::record_outcome(
            &mut tx,
            webhook.id,
            outcome,
            self.config.policy,
            error,
            pause_until,
            now,
        )
        .await?;
        tx.commit().await
    }

    /// The verification ping of a pending subscription, and its record.
    async fn verify(&self, webhook: Webhook) {
        let password = self.password_of(&webhook);
        let secrets = self.secrets_of(&webhook);
        let secret_refs: Vec<&WebhookSecret> = secrets.iter().collect();
        let outcome = verify::ping(
            &self.client,
            &self.config.guard,
            &webhook,
            &secret_refs,
            basic(&webhook, password.as_deref()),
            self.clock.now(),
        )
        .await;
        let now = self.clock.now();
        let recorded = async {
            let mut tx = self.db.begin().await?;
            webhooks::finish_verification(
                &mut tx,
                webhook.id,
                &self.config.node,
                outcome.err().as_deref(),
                now,
            )
            .await?;
            tx.commit().await
        };
        if let Err(err) = recorded.await {
            tracing::warn!(error = %err, webhook = webhook.id, "cannot record a verification");
        }
    }

    /// The secrets that sign a webhook's requests now: its own, and the one before a
    /// rotation until its grace period ends.
    fn secrets_of(&self, webhook: &Webhook) -> Vec<WebhookSecret> {
        let now = self.clock.now().as_micros();
        let previous = webhook.previous_secret_sealed.as_deref().filter(|_| {
            webhook
                .previous_secret_expires_on
                .is_some_and(|until| until > now)
        });
        std::iter::once(webhook.secret_sealed.as_slice())
            .chain(previous)
            .filter_map(|sealed| self.secrets.open(sealed).ok())
            .filter_map(|bytes| String::from_utf8(bytes).ok())
            .filter_map(|text| WebhookSecret::from_str(&text).ok())
            .collect()
    }

    fn password_of(&self, webhook: &Webhook) -> Option<String> {
        let sealed = webhook.auth_password_sealed.as_deref()?;
        String::from_utf8(self.secrets.open(sealed).ok()?).ok()
    }
}

fn basic<'a>(webhook: &'a Webhook, password: Option<&'a str>) -> Option<(&'a str, &'a str)> {
    match (
        webhook.auth_type,
        webhook.auth_username.as_deref(),
        password,
    ) {
        (domain::webhook::AuthType::Basic, Some(user), Some(password)) => Some((user, password)),
        _ => None,
    }
}

/// A number in `[0, 1)` that spreads retries.
fn jitter() -> f64 {
    let bytes = storage::secrets::random_bytes(4);
    f64::from(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
        / (f64::from(u32::MAX) + 1.0)
}
