//! Webhook subscriptions: a shop's targets for events of a topic, their sealed secrets and
//! credentials, and their health (status, consecutive failures), which every delivery
//! attempt updates under the row's lock.

use domain::Timestamp;
use domain::webhook::{
    AttemptOutcome, AuthType, FailurePolicy, Health, Ordering, SubscriptionStatus,
};

use crate::Tenant;
use crate::db::{Backend, Database, Exec, Tx};
use crate::error::Result;
use crate::sql::{Arg, Filter, Params, Sort, Window, list_sql};
use crate::tenant_rows::{self, TenantTable};
use crate::webhook_deliveries;
use crate::write::Columns;

#[derive(Clone, PartialEq, sqlx::FromRow)]
pub struct Webhook {
    pub id: i64,
    pub account_id: i64,
    pub seller_id: i64,
    pub shop_id: i64,
    pub app_id: Option<i64>,
    pub topic: String,
    pub url: String,
    pub notify_origin: bool,
    #[sqlx(try_from = "String")]
    pub auth_type: AuthType,
    pub auth_username: Option<String>,
    pub auth_password_sealed: Option<Vec<u8>>,
    pub secret_sealed: Vec<u8>,
    pub previous_secret_sealed: Option<Vec<u8>>,
    pub previous_secret_expires_on: Option<Timestamp>,
    #[sqlx(try_from = "String")]
    pub ordering: Ordering,
    #[sqlx(try_from = "String")]
    pub status: SubscriptionStatus,
    pub error_count: i64,
    pub exhausted_count: i64,
    pub last_error: Option<String>,
    pub last_error_on: Option<Timestamp>,
    pub paused_until: Option<Timestamp>,
    pub created_on: Timestamp,
    pub updated_on: Timestamp,
}

impl std::fmt::Debug for Webhook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Webhook")
            .field("id", &self.id)
            .field("shop_id", &self.shop_id)
            .field("topic", &self.topic)
            .field("status", &self.status)
            .finish_non_exhaustive()
    }
}

impl Webhook {
    pub fn health(&self) -> Health {
        Health {
            status: self.status,
            error_count: u32::try_from(self.error_count).unwrap_or(u32::MAX),
            exhausted_count: u32::try_from(self.exhausted_count).unwrap_or(u32::MAX),
        }
    }

    pub fn settings(&self) -> WebhookSettings {
        WebhookSettings {
            topic: self.topic.clone(),
            url: self.url.clone(),
            notify_origin: self.notify_origin,
            auth_type: self.auth_type,
            auth_username: self.auth_username.clone(),
            auth_password_sealed: self.auth_password_sealed.clone(),
            ordering: self.ordering,
        }
    }
}

macro_rules! columns {
    () => {
        "id, account_id, seller_id, shop_id, app_id, topic, url, notify_origin, auth_type, auth_username, \
         auth_password_sealed, secret_sealed, previous_secret_sealed, previous_secret_expires_on, ordering, status, \
         error_count, exhausted_count, last_error, last_error_on, paused_until, created_on, updated_on"
    };
}

/// Fields a webhook list may be sorted by; each is indexed with the account.
pub const SORT_FIELDS: &[&str] = &["id"];

/// What a client chooses about a subscription.
#[derive(Clone, Debug, PartialEq)]
pub struct WebhookSettings {
    pub topic: String,
    pub url: String,
    pub notify_origin: bool,
    pub auth_type: AuthType,
    pub auth_username: Option<String>,
    pub auth_password_sealed: Option<Vec<u8>>,
    pub ordering: Ordering,
}

pub struct NewWebhook<'a> {
    pub account_id: i64,
    pub seller_id: i64,
    pub shop_id: i64,
    pub app_id: Option<i64>,
    pub settings: &'a WebhookSettings,
    pub secret_sealed: &'a [u8],
}

#[derive(Clone, Debug, Default)]
pub struct WebhookFilter {
    pub shop_ids: Option<Vec<i64>>,
    pub statuses: Option<Vec<SubscriptionStatus>>,
    pub topics: Option<Vec<String>>,
}

/// Creates a `pending` subscription whose verification ping is due now.
pub async fn insert(tx: &mut Tx, new: &NewWebhook<'_>, now: Timestamp) -> Result<Webhook> {
    let webhook = written(new.settings)
        .set("account_id", new.account_id)
        .set("seller_id", new.seller_id)
        .set("shop_id", new.shop_id)
        .set("app_id", new.app_id)
        .set("secret_sealed", new.secret_sealed)
        .set("status", SubscriptionStatus::Pending.as_str())
        .set("verify_due_on", now)
        .set("created_on", now)
        .set("updated_on", now)
        .insert_into("webhooks")
        .fetch_row(tx, columns!())
        .await?;
    tx.wake_dispatcher_on_commit();
    Ok(webhook)
}

/// Writes new settings over a subscription the caller has locked.
pub async fn update_settings(
    tx: &mut Tx,
    id: i64,
    settings: &WebhookSettings,
    now: Timestamp,
) -> Result<Webhook> {
    written(settings)
        .set("updated_on", now)
        .update("webhooks", id)
        .fetch_row(tx, columns!())
        .await
}

/// The columns a subscription's settings write, on insert and update alike.
fn written(settings: &WebhookSettings) -> Columns {
    Columns::new()
        .set("topic", &settings.topic)
        .set("url", &settings.url)
        .set("notify_origin", settings.notify_origin)
        .set("auth_type", settings.auth_type.as_str())
        .set("auth_username", &settings.auth_username)
        .set(
            "auth_password_sealed",
            settings.auth_password_sealed.as_deref(),
        )
        .set("ordering", settings.ordering.as_str())
}

/// Sets a subscription's status and counters (reactivation, manual disabling), and parks
/// or unparks its deliveries to match. The caller has locked it.
pub async fn set_health(tx: &mut Tx, id: i64, health: Health, now: Timestamp) -> Result<Webhook> {
    let webhook = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, Webhook>(concat!(
            "UPDATE webhooks SET status = $2, error_count = $3, exhausted_count = $4, paused_until = NULL, \
             updated_on = $5 WHERE id = $1 RETURNING ",
            columns!()
        ))
        .bind(id)
        .bind(health.status.as_str())
        .bind(i64::from(health.error_count))
        .bind(i64::from(health.exhausted_count))
        .bind(now.as_micros())
        .fetch_one(c)
        .await
    })?;
    if health.status == SubscriptionStatus::Active {
        webhook_deliveries::unpark(tx, id, now).await?;
        tx.wake_dispatcher_on_commit();
    } else {
        webhook_deliveries::park(tx, &[id]).await?;
    }
    Ok(webhook)
}

/// Replaces the signing secret; the old one keeps signing until `grace_until`.
pub async fn rotate_secret(
    tx: &mut Tx,
    id: i64,
    secret_sealed: &[u8],
    previous_sealed: &[u8],
    grace_until: Timestamp,
    now: Timestamp,
) -> Result<Webhook> {
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, Webhook>(concat!(
            "UPDATE webhooks SET secret_sealed = $2, previous_secret_sealed = $3, previous_secret_expires_on = $4, \
             updated_on = $5 WHERE id = $1 RETURNING ",
            columns!()
        ))
        .bind(id)
        .bind(secret_sealed)
        .bind(previous_sealed)
        .bind(grace_until.as_micros())
        .bind(now.as_micros())
        .fetch_one(c)
        .await
    })
    .map_err(Into::into)
}

/// Puts a subscription back to `pending` with a verification ping due now (its URL
/// changed, and the new target must consent); what it had parked waits for that. The
/// caller has locked it.
pub async fn await_verification(tx: &mut Tx, id: i64, now: Timestamp) -> Result<Webhook> {
    let webhook = with_conn!(Exec::Tx(tx), |c| {
        sqlx::query_as::<_, Webhook>(concat!(
            "UPDATE webhooks SET status = 'pending', verify_due_on = $2, error_count = 0, exhausted_count = 0, \
             paused_until = NULL, lease_owner = NULL, lease_expires_on = NULL, updated_on = $2 WHERE id = $1 \
             RETURNING ",
            columns!()
        ))
        .bind(id)
        .bind(now.as_micros())
        .fetch_one(c)
        .await
    })?;
    webhook_deliveries::unpark(tx, id, now).await?;
    tx.wake_dispatcher_on_commit();
    Ok(webhook)
}

/// Where its rows are deleted, with `tenant_rows::delete`.
pub const TABLE: TenantTable = TenantTable::new("webhooks");

pub async fn find<'a>(
    exec: impl Into<Exec<'a>>,
    tenant: Tenant,
    id: i64,
) -> Result<Option<Webhook>> {
    tenant_rows::find(exec, "webhooks", columns!(), tenant, id).await
}

pub async fn find_for_update(tx: &mut Tx, tenant: Tenant, id: i64) -> Result<Option<Webhook>> {
    tenant_rows::find_for_update(tx, "webhooks", columns!(), tenant, id).await
}

/// A subscription with its shop's subdomain, as its deliveries need it.
#[derive(Clone, sqlx::FromRow)]
pub struct WebhookInShop {
    #[sqlx(flatten)]
    pub webhook: Webhook,
    pub shop_subdomain: String,
}

/// Subscriptions by id, whoever owns them, with their shops' subdomains (the
/// dispatcher): one query.
pub async fn in_shops_by_ids<'a>(
    exec: impl Into<Exec<'a>>,
    ids: &[i64],
) -> Result<Vec<WebhookInShop>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut f = Filter::new();
    f.any_of("id", ids.iter().copied().map(Arg::Int));
    let sql = format!(
        "SELECT w.*, s.subdomain AS shop_subdomain FROM (SELECT {} FROM webhooks{}) w \
         JOIN shops s ON s.id = w.shop_id",
        columns!(),
        f.where_sql()
    );
    Ok(fetch_all_bound!(exec.into(), WebhookInShop, sql, f.args())?)
}

pub async fn list(
    db: &Database,
    tenant: Tenant,
    filter: &WebhookFilter,
    sort: Sort,
    window: Window,
) -> Result<(Vec<Webhook>, u64)> {
    let mut f = Filter::new();
    f.eq("account_id", Arg::Int(tenant.account_id))
        .eq_opt("seller_id", tenant.seller_id.map(Arg::Int));
    if let Some(ids) = &filter.shop_ids {
        f.any_of("shop_id", ids.iter().copied().map(Arg::Int));
    }
    if let Some(statuses) = &filter.statuses {
        f.any_of(
            "status",
            statuses.iter().map(|s| Arg::Text(s.as_str().to_owned())),
        );
    }
    if let Some(topics) = &filter.topics {
        f.any_of("topic", topics.iter().cloned().map(Arg::Text));
    }
    let sql = list_sql(columns!(), "webhooks", &f, sort, window);
    fetch_list!(Exec::Db(db), Webhook, sql, f)
}

/// Takes up to `limit` subscriptions whose verification ping is due, leased to `node`
/// until `lease_until` (several nodes never ping the same subscription at once).
pub async fn claim_verifications(
    db: &Database,
    node: &str,
    now: Timestamp,
    lease_until: Timestamp,
    limit: i64,
) -> Result<Vec<Webhook>> {
    let lock = match db.backend() {
        Backend::Sqlite => "",
        Backend::Postgres => " FOR UPDATE SKIP LOCKED",
    };
    let sql = format!(
        "UPDATE webhooks SET lease_owner = $1, lease_expires_on = $2 WHERE id IN (SELECT id FROM webhooks \
         WHERE status = 'pending' AND verify_due_on <= $3 AND (lease_expires_on IS NULL OR lease_expires_on <= $3) \
         ORDER BY verify_due_on, id LIMIT $4{lock}) RETURNING {}",
        columns!()
    );
    let mut tx = db.begin().await?;
    let claimed = with_conn!(Exec::Tx(&mut tx), |c| {
        sqlx::query_as::<_, Webhook>(sqlx::AssertSqlSafe(sql))
            .bind(node)
            .bind(lease_until.as_micros())
            .bind(now.as_micros())
            .bind(limit)
            .fetch_all(c)
            .await
    })?;
    tx.commit().await?;
    Ok(claimed)
}

/// Records a verification's outcome, if the subscription is still the pending one `node`
/// leased until `lease_until` (a ping that outlasted its claim may have been repeated by
/// whoever took it over, and that one counts). A failed one parks what it was sent.
pub async fn finish_verification(
    tx: &mut Tx,
    id: i64,
    node: &str,
    lease_until: Timestamp,
    error: Option<&str>,
    now: Timestamp,
) -> Result<()> {
    let status = match error {
        None => SubscriptionStatus::Active,
        Some(_) => SubscriptionStatus::FailedActivation,
    };
    with_conn!(Exec::Tx(tx), |c| {
        sqlx::query(
            "UPDATE webhooks SET status = $3, last_error = COALESCE($4, last_error), \
             last_error_on = CASE WHEN $4 IS NULL THEN last_error_on ELSE $5 END, verify_due_on = NULL, \
             lease_owner = NULL, lease_expires_on = NULL, updated_on = $5 \
             WHERE id = $1 AND lease_owner = $2 AND lease_expires_on = $6 AND status = 'pending'",
        )
        .bind(id)
        .bind(node)
        .bind(status.as_str())
        .bind(error)
        .bind(now.as_micros())
        .bind(lease_until.as_micros())
        .execute(c)
        .await
        .map(|_| ())
    })?;
    if error.is_none() {
        tx.wake_dispatcher_on_commit();
    } else {
        webhook_deliveries::park(tx, &[id]).await?;
    }
    Ok(())
}

/// What one attempt did to its subscription.
#[derive(Clone, Debug)]
pub struct Outcome<'a> {
    pub webhook_id: i64,
    pub outcome: AttemptOutcome,
    pub error: Option<&'a str>,
    /// A target that asked to be left alone (429 or 503 with `Retry-After`) until then.
    pub pause_until: Option<Timestamp>,
    pub at: Timestamp,
}

/// Locks subscriptions before their deliveries are changed (attempts' outcomes, backlogs)
/// — in id order, and before any delivery row, as deleting a subscription does — and
/// answers them as they are.
pub async fn lock_in_id_order(tx: &mut Tx, ids: &[i64]) -> Result<Vec<Webhook>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut ids = ids.to_vec();
    ids.sort_unstable();
    ids.dedup();
    let lock = match tx.backend() {
        Backend::Sqlite => "",
        Backend::Postgres => " FOR NO KEY UPDATE",
    };
    let mut p = Params::new();
    let sql = format!(
        "SELECT {} FROM webhooks WHERE id IN ({}) ORDER BY id{lock}",
        columns!(),
        p.bind_all(ids.iter().copied().map(Arg::Int))
    );
    Ok(fetch_all_bound!(Exec::Tx(tx), Webhook, sql, p.args())?)
}

/// Applies attempts' outcomes, in order, to the health of subscriptions locked by
/// [`lock_in_id_order`]; writes only those that changed, and parks the deliveries of those
/// that are not active now (those just failed or disabled, and the late outcomes of ones
/// that were already). Answers the new health of those that changed.
pub async fn record_outcomes(
    tx: &mut Tx,
    locked: &[Webhook],
    outcomes: &[Outcome<'_>],
    policy: FailurePolicy,
    now: Timestamp,
) -> Result<Vec<(i64, Health)>> {
    let mut changed = Vec::new();
    let mut parking = Vec::new();
    for webhook in locked {
        let before = webhook.health();
        let mut health = before;
        let mut last_error = None;
        let mut pause_until: Option<Timestamp> = None;
        for o in outcomes.iter().filter(|o| o.webhook_id == webhook.id) {
            health = health.after(o.outcome, policy);
            if let Some(error) = o.error {
                last_error = Some((error, o.at));
            }
            pause_until = pause_until.max(o.pause_until);
        }
        if health.status.parks_deliveries() {
            parking.push(webhook.id);
        }
        if health == before && last_error.is_none() && pause_until.is_none() {
            continue;
        }
        let mut p = Params::new();
        let sql = format!(
            "UPDATE webhooks SET status = {}, error_count = {}, exhausted_count = {}, \
             last_error = COALESCE({}, last_error), last_error_on = COALESCE({}, last_error_on), \
             paused_until = COALESCE({}, paused_until), updated_on = {} WHERE id = {}",
            p.bind(Arg::Text(health.status.as_str().into())),
            p.bind(Arg::Int(i64::from(health.error_count))),
            p.bind(Arg::Int(i64::from(health.exhausted_count))),
            p.bind(Arg::MaybeText(last_error.map(|(e, _)| e.to_owned()))),
            p.bind(Arg::MaybeInt(last_error.map(|(_, at)| at.as_micros()))),
            p.bind(Arg::MaybeInt(pause_until.map(Timestamp::as_micros))),
            p.bind(Arg::Int(now.as_micros())),
            p.bind(Arg::Int(webhook.id)),
        );
        crate::write::execute_bound(tx, sql, p.args()).await?;
        changed.push((webhook.id, health));
    }
    webhook_deliveries::park(tx, &parking).await?;
    Ok(changed)
}
