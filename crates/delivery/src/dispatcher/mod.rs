//! The dispatcher: a loop on every node that claims due work with leases — verification
//! pings of pending subscriptions and due deliveries — sends it, and records what
//! happened. It wakes when work is committed through its database handle (or on any node,
//! through PostgreSQL) and polls slowly otherwise.
//!
//! Guarantees: a delivery exists only for a committed event; every one is attempted until
//! it succeeds or its schedule runs out; a node that dies mid-attempt loses its lease,
//! and another node sends again (with the same `webhook-id`). A slow or failing target
//! holds at most `per_webhook` of the `max_in_flight` slots.
//!
//! A failed or disabled subscription's deliveries are parked until it is reactivated; the
//! dispatcher keeps each one's parked backlog to `max_backlog`, skipping the oldest.
//!
//! Claimed deliveries wait in per-subscription [`lanes`]; finished attempts are recorded
//! in batches by the [`recorder`]. A subscription that orders deliveries per resource
//! has a claim take a resource's backlog as a sequence — its oldest pending delivery and
//! the due ones after it — which the lane sends one after another, each as soon as the
//! one before it was answered with success; a failure sends the rest of the sequence back
//! to wait behind the retry. When a sequence went through, the node claims the resource's
//! next one straight from the resource index rather than by scanning the due deliveries,
//! which would walk past the rest of that resource's backlog every time. A node that is
//! shut down gives back what waits and lets its attempts in flight end and be recorded, so
//! that it leaves no claim for another node to wait out and no attempt to note as
//! interrupted.

mod lanes;
mod recorder;

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use domain::webhook::{DEFAULT_MAX_BACKLOG, FailurePolicy, Ordering as Sequencing};
use domain::{Clock, Timestamp};
use storage::secret_box::SecretBox;
use storage::webhook_deliveries::{self, Delivery};
use storage::webhooks::{self, Webhook};
use storage::{Database, events};
use tokio::sync::{Notify, mpsc};

use self::lanes::{Lanes, Queued};
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
    /// Parked deliveries a subscription keeps: beyond, the oldest are skipped.
    pub max_backlog: u32,
    pub connect_timeout: Duration,
    pub total_timeout: Duration,
    /// How long a claim holds: longer than an attempt can take.
    pub lease: Duration,
    /// Due deliveries one claim looks at, at most (it takes those its lanes have room for).
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
            max_backlog: DEFAULT_MAX_BACKLOG,
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
    lanes: Mutex<Lanes<Claimed>>,
    /// Rung when a lane may be refilled while more work may be due, or a sequence ended.
    freed: Notify,
    /// Ordered resources (subscription, resource key) whose sequences ended on this node:
    /// their next sequences are claimed straight from the resource index.
    ended: Mutex<Vec<(i64, String)>>,
    /// Whether due deliveries may be waiting beyond what this node holds: the last claim
    /// scanned to its limit, or left out full lanes, or some were given back.
    backlog: AtomicBool,
    /// The newest parked delivery seen: backlogs have been bounded since it was parked.
    parked_seen: AtomicI64,
    /// Set by [`Dispatcher::stop`]: nothing more is claimed or sent.
    stopping: AtomicBool,
    /// Rung when the dispatcher is asked to stop.
    stop_requested: Notify,
    finished: mpsc::UnboundedSender<Attempted>,
    /// The recorder's end of `finished`, until `run` starts it.
    to_record: Mutex<Option<mpsc::UnboundedReceiver<Attempted>>>,
}

/// A subscription as its attempts need it, prepared once per claim.
struct Target {
    webhook: Webhook,
    subdomain: String,
    /// The secrets that sign now: its own, and the one before a rotation until its grace
    /// period ends.
    secrets: Vec<WebhookSecret>,
    password: Option<String>,
}

/// A claimed delivery, ready to be sent.
struct Claimed {
    delivery: Delivery,
    target: Arc<Target>,
    event: Arc<events::Event>,
}

/// An attempt made, to be recorded.
struct Attempted {
    claimed: Claimed,
    answer: Answer,
    at: Timestamp,
}

impl Claimed {
    fn webhook(&self) -> &Webhook {
        &self.target.webhook
    }
}

impl Queued for Claimed {
    fn sequence(&self) -> Option<&str> {
        (self.webhook().ordering == Sequencing::PerResource)
            .then_some(self.delivery.resource_key.as_str())
    }
}

impl Attempted {
    /// Whether the target took it: what lets the next about an ordered resource go.
    fn delivered(&self) -> bool {
        self.answer.error.is_none()
    }
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
        let (finished, to_record) = mpsc::unbounded_channel();
        Ok(Arc::new(Self {
            lanes: Mutex::new(Lanes::new(config.per_webhook, config.max_in_flight)),
            db,
            secrets,
            clock,
            config,
            client,
            freed: Notify::new(),
            ended: Mutex::new(Vec::new()),
            backlog: AtomicBool::new(false),
            parked_seen: AtomicI64::new(0),
            stopping: AtomicBool::new(false),
            stop_requested: Notify::new(),
            finished,
            to_record: Mutex::new(Some(to_record)),
        }))
    }

    /// Runs until [`stop`](Self::stop) is called: then gives back the deliveries waiting
    /// in its lanes, waits (for the request timeout at most) until the attempts in flight
    /// are recorded, and returns.
    pub async fn run(self: Arc<Self>) {
        let relay = tokio::spawn(webhook_deliveries::relay_notifications(self.db.clone()));
        if let Some(to_record) = self.to_record.lock().expect("never poisoned").take() {
            tokio::spawn(recorder::run(self.clone(), to_record));
        }
        let mut woken_by_work = true;
        while !self.stopping.load(Ordering::SeqCst) {
            // Listen before looking, so that work committed meanwhile is not missed.
            let woken = self.db.dispatcher_woken();
            let freed = self.freed.notified();
            let stop = self.stop_requested.notified();
            if let Err(err) = self.clone().tick(woken_by_work).await {
                tracing::warn!(error = %err, "webhook dispatch failed; retrying");
            }
            woken_by_work = tokio::select! {
                () = woken => true,
                () = freed => false,
                () = stop => false,
                () = tokio::time::sleep(self.config.poll) => true,
            };
        }
        relay.abort();
        self.hand_back().await;
    }

    /// Asks [`run`](Self::run) to hand its work back and return.
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        self.stop_requested.notify_one();
    }

    /// Gives back every delivery waiting in the lanes, and waits until the attempts in
    /// flight are recorded (or the longest an attempt may take has passed).
    async fn hand_back(&self) {
        let waiting: Vec<Delivery> = self
            .lanes()
            .take_waiting()
            .into_iter()
            .map(|c| c.delivery)
            .collect();
        if let Err(err) = self.give_back(waiting).await {
            tracing::warn!(error = %err, "cannot give back webhook deliveries; their claims run out");
        }
        let deadline =
            tokio::time::Instant::now() + self.config.total_timeout + self.config.connect_timeout;
        while self.lanes().sending() > 0 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    fn lanes(&self) -> std::sync::MutexGuard<'_, Lanes<Claimed>> {
        self.lanes.lock().expect("the lanes are never poisoned")
    }

    /// Claims and starts whatever is due now; pings pending subscriptions and bounds
    /// parked backlogs too unless only a lane was freed.
    async fn tick(self: Arc<Self>, with_pings: bool) -> storage::Result<()> {
        let now = self.clock.now();
        let lease_until = now.plus(self.config.lease);
        if with_pings {
            // Sending goes on even if bounding fails: the backlog waits for the next look.
            if let Err(err) = self.bound_backlogs(now).await {
                tracing::warn!(error = %err, "cannot bound parked webhook backlogs; retrying");
            }
            for webhook in
                webhooks::claim_verifications(&self.db, &self.config.node, now, lease_until, 16)
                    .await?
            {
                let this = self.clone();
                tokio::spawn(async move { this.verify(webhook, lease_until).await });
            }
        }
        self.continue_sequences(now, lease_until).await?;
        // Bounded: each round fills lanes or finds nothing more.
        for _ in 0..16 {
            let (full, mut quota, sequence) = {
                let lanes = self.lanes();
                // Freed lanes were refilled meanwhile: a claim would only scan past their
                // backlogs. Nor is there more to find than ended sequences' next ones,
                // unless the last look said so. New work, or the poll, looks anyway.
                if !with_pings && (!lanes.refillable() || !self.backlog.load(Ordering::SeqCst)) {
                    break;
                }
                (lanes.full(), lanes.quota(), lanes.capacity())
            };
            let claim = webhook_deliveries::claim(
                &self.db,
                &self.config.node,
                self.claim_terms(now, lease_until, sequence),
                &full,
                |webhook| quota.take(webhook),
            )
            .await?;
            let took = !claim.deliveries.is_empty();
            let gave_back = self.accept(claim.deliveries).await?;
            self.backlog.store(
                claim.more || !full.is_empty() || gave_back,
                Ordering::SeqCst,
            );
            self.pump();
            if !claim.more || !took {
                break;
            }
        }
        Ok(())
    }

    /// What a claim of this node may take: a batch to scan, sequences of up to `sequence`.
    fn claim_terms(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
        sequence: usize,
    ) -> webhook_deliveries::ClaimTerms {
        webhook_deliveries::ClaimTerms {
            now,
            lease_until,
            scan: self.config.batch,
            sequence: i64::try_from(sequence).unwrap_or(i64::MAX),
        }
    }

    /// Claims the next sequences of the ordered resources whose sequences ended here, from
    /// the resource index: a hot resource's backlog is not scanned past once per
    /// sequence. What it leaves for want of room is left to a scan.
    async fn continue_sequences(
        self: &Arc<Self>,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> storage::Result<()> {
        let ended = std::mem::take(&mut *self.ended.lock().expect("never poisoned"));
        let batch = usize::try_from(self.config.batch)
            .unwrap_or(usize::MAX)
            .max(1);
        for resources in ended.chunks(batch) {
            let (mut quota, sequence) = {
                let lanes = self.lanes();
                (lanes.quota(), lanes.capacity())
            };
            let claimed = async {
                let claim = webhook_deliveries::claim_next_sequences(
                    &self.db,
                    &self.config.node,
                    self.claim_terms(now, lease_until, sequence),
                    resources,
                    |webhook| quota.take(webhook),
                )
                .await?;
                let gave_back = self.accept(claim.deliveries).await?;
                Ok::<_, storage::Error>(claim.more || gave_back)
            }
            .await;
            // Whatever was left, or not looked at after a failure, a scan finds.
            if claimed.as_ref().map_or(true, |&left| left) {
                self.backlog.store(true, Ordering::SeqCst);
            }
            self.pump();
            claimed?;
        }
        Ok(())
    }

    /// Skips the oldest parked deliveries of subscriptions that parked more since the last
    /// look than their backlog holds. Every node does it; it is the same work done again.
    /// A delivery whose transaction commits after a newer one was seen is counted at its
    /// subscription's next event.
    async fn bound_backlogs(&self, now: Timestamp) -> storage::Result<()> {
        let seen = self.parked_seen.load(Ordering::SeqCst);
        let Some(parked) = webhook_deliveries::parked_after(&self.db, seen).await? else {
            return Ok(());
        };
        let skipped = webhook_deliveries::skip_beyond_backlog(
            &self.db,
            &parked.webhook_ids,
            self.config.max_backlog,
            now,
        )
        .await?;
        if skipped > 0 {
            tracing::info!(
                skipped,
                "skipped parked webhook deliveries beyond the backlog"
            );
        }
        self.parked_seen.fetch_max(parked.newest, Ordering::SeqCst);
        Ok(())
    }

    /// Puts claimed deliveries into their lanes; gives back those beyond a lane's share,
    /// and answers whether it did.
    async fn accept(&self, claimed: Vec<Delivery>) -> storage::Result<bool> {
        if claimed.is_empty() {
            return Ok(false);
        }
        let mut webhook_ids: Vec<i64> = claimed.iter().map(|d| d.webhook_id).collect();
        webhook_ids.sort_unstable();
        webhook_ids.dedup();
        let event_ids: Vec<i64> = claimed.iter().map(|d| d.event_id).collect();
        let (targets, events) = tokio::try_join!(
            webhooks::in_shops_by_ids(&self.db, &webhook_ids),
            events::by_ids(&self.db, &event_ids),
        )?;
        let targets: HashMap<i64, Arc<Target>> = targets
            .into_iter()
            .map(|found| {
                let target = Target {
                    subdomain: found.shop_subdomain,
                    secrets: self.secrets_of(&found.webhook),
                    password: self.password_of(&found.webhook),
                    webhook: found.webhook,
                };
                (target.webhook.id, Arc::new(target))
            })
            .collect();
        let events: HashMap<i64, Arc<events::Event>> =
            events.into_iter().map(|e| (e.id, Arc::new(e))).collect();
        let mut refused: Vec<Delivery> = Vec::new();
        {
            let mut lanes = self.lanes();
            let stopping = self.stopping.load(Ordering::SeqCst);
            for delivery in claimed {
                // What follows a refused delivery about an ordered resource must not
                // overtake it.
                let behind_refused = || {
                    refused.iter().any(|r| {
                        r.webhook_id == delivery.webhook_id
                            && r.resource_key == delivery.resource_key
                    })
                };
                let (Some(target), Some(event)) = (
                    targets.get(&delivery.webhook_id),
                    events.get(&delivery.event_id),
                ) else {
                    refused.push(delivery);
                    continue;
                };
                let ordered = target.webhook.ordering == Sequencing::PerResource;
                if stopping || (ordered && behind_refused()) {
                    refused.push(delivery);
                    continue;
                }
                let claimed = Claimed {
                    target: target.clone(),
                    event: event.clone(),
                    delivery,
                };
                if let Err(claimed) = lanes.admit(claimed.webhook().id, claimed) {
                    refused.push(claimed.delivery);
                }
            }
        }
        let gave_back = !refused.is_empty();
        self.give_back(refused).await?;
        Ok(gave_back)
    }

    async fn give_back(&self, deliveries: Vec<Delivery>) -> storage::Result<()> {
        let refs: Vec<&Delivery> = deliveries.iter().collect();
        webhook_deliveries::release(&self.db, &self.config.node, &refs).await
    }

    /// Starts every waiting delivery its lane lets go now. One whose claim would run out
    /// before an attempt could end is given back rather than risk a double send.
    fn pump(self: &Arc<Self>) {
        if self.stopping.load(Ordering::SeqCst) {
            return;
        }
        let deadline = self.clock.now().plus(self.config.total_timeout);
        let (ready, stale) = self.lanes().ready(|claimed| {
            claimed
                .delivery
                .lease_expires_on
                .is_some_and(|until| until > deadline)
        });
        for (webhook_id, claimed) in ready {
            let this = self.clone();
            tokio::spawn(async move {
                let answer = this.send(&claimed).await;
                let at = this.clock.now();
                if answer.error.is_none()
                    && let Some(sequence) = claimed.sequence()
                {
                    this.lanes().answered(webhook_id, sequence);
                    this.pump();
                }
                let stop = answer.status == Some(410)
                    || (matches!(answer.status, Some(429 | 503))
                        && answer.retry_after_secs(at.as_secs()).is_some());
                // The recorder ends only with the dispatcher.
                let _ = this.finished.send(Attempted {
                    claimed,
                    answer,
                    at,
                });
                if stop {
                    this.halt(webhook_id).await;
                }
            });
        }
        if !stale.is_empty() {
            self.backlog.store(true, Ordering::SeqCst);
            let this = self.clone();
            tokio::spawn(async move {
                let stale = stale.into_iter().map(|c| c.delivery).collect();
                if let Err(err) = this.give_back(stale).await {
                    tracing::warn!(error = %err, "cannot give back webhook deliveries");
                }
            });
        }
    }

    /// An attempt was recorded (or given up on): its slot is free. Slots are held until
    /// then, so that a crash cuts short at most a lane's share. What waited behind a
    /// failed attempt about an ordered resource goes back.
    fn recorded(self: &Arc<Self>, attempted: &Attempted) {
        let recorded = self.lanes().finished(
            attempted.claimed.webhook().id,
            attempted.claimed.sequence(),
            attempted.delivered(),
        );
        if recorded.sequence_ended
            && let Some(key) = attempted.claimed.sequence()
        {
            self.ended
                .lock()
                .expect("never poisoned")
                .push((attempted.claimed.webhook().id, key.to_owned()));
            self.freed.notify_one();
        } else if recorded.refill && self.backlog.load(Ordering::SeqCst) {
            self.freed.notify_one();
        }
        if !recorded.held_back.is_empty() {
            let this = self.clone();
            tokio::spawn(async move {
                let held_back = recorded.held_back.into_iter().map(|c| c.delivery).collect();
                if let Err(err) = this.give_back(held_back).await {
                    tracing::warn!(error = %err, "cannot give back webhook deliveries");
                }
            });
        }
        self.pump();
    }

    /// Sends nothing more of a subscription's that waits on this node.
    async fn halt(&self, webhook_id: i64) {
        let waiting: Vec<Delivery> = self
            .lanes()
            .halt(webhook_id)
            .into_iter()
            .map(|c| c.delivery)
            .collect();
        if waiting.is_empty() {
            return;
        }
        if let Err(err) = self.give_back(waiting).await {
            tracing::warn!(error = %err, "cannot give back webhook deliveries");
        }
    }

    /// One attempt at a delivery.
    async fn send(&self, claimed: &Claimed) -> Answer {
        let Claimed {
            delivery,
            target,
            event,
        } = claimed;
        let webhook = &target.webhook;
        let webhook_href = format!("{}/v2/webhooks/{}", self.config.public_url, webhook.id);
        let body = request::event_body(event, (webhook.shop_id, &target.subdomain), &webhook_href);
        let secret_refs: Vec<&WebhookSecret> = target.secrets.iter().collect();
        let message_id = format!("evt_{}", event.id);
        let hook_headers = [
            ("x-hook-topic", event.topic.clone()),
            ("x-hook-delivery", delivery.id.to_string()),
            ("x-hook-attempt", (delivery.attempts + 1).to_string()),
            ("x-hook-shop-id", webhook.shop_id.to_string()),
        ];
        let envelope = Envelope {
            message_id: &message_id,
            timestamp: self.clock.now().as_secs(),
            secrets: &secret_refs,
            basic: basic(webhook, target.password.as_deref()),
            hook_headers: &hook_headers,
        };
        request::post(
            &self.client,
            &self.config.guard,
            &webhook.url,
            body,
            &envelope,
        )
        .await
    }

    /// The verification ping of a pending subscription, and its record.
    async fn verify(&self, webhook: Webhook, lease_until: Timestamp) {
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
                lease_until,
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
        let now = self.clock.now();
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
