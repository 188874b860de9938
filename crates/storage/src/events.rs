//! Events: the rows of the outbox (`outbox::record` writes them), read in `id`
//! (= `sequence`) order.

use domain::Timestamp;

use crate::db::{Database, Exec, Tx};
use crate::error::Result;
use crate::sql::{Arg, Params};
use crate::write::Columns;

/// Who caused a change.
#[derive(Clone, Copy, Debug, Default)]
pub struct Actor<'a> {
    pub user_id: Option<i64>,
    pub user_name: Option<&'a str>,
    pub app_id: Option<i64>,
}

pub struct NewEvent<'a> {
    pub topic: &'a str,
    pub account_id: i64,
    /// The seller owning a catalog item (products reach the subscriptions of its shops).
    pub seller_id: Option<i64>,
    pub shop_id: Option<i64>,
    pub shop_subdomain: Option<&'a str>,
    /// Whose subscriptions hear of it.
    pub audience: Audience<'a>,
    pub item_type: &'a str,
    pub item_id: i64,
    pub item_slug: Option<&'a str>,
    pub actor: Actor<'a>,
    /// The item as a GET showed it at the moment of the event.
    pub item: &'a serde_json::Value,
}

/// The subscriptions of the event's account that hear of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Audience<'a> {
    /// Those of the event's shop, else of every shop of its seller, else every one.
    Owner,
    /// Those of these shops (a product's, as the caller read them).
    Shops(&'a [i64]),
    /// Those of the shops a product is in as the deliveries are written: read by the
    /// statement that writes them, so under the caller's lock on the product.
    ProductShops {
        product_id: i64,
        seller_id: i64,
        /// The product is in every shop of its seller.
        all_shops: bool,
    },
}

#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Event {
    pub id: i64,
    pub topic: String,
    pub account_id: i64,
    pub seller_id: Option<i64>,
    pub shop_id: Option<i64>,
    pub shop_subdomain: Option<String>,
    pub item_type: String,
    pub item_id: i64,
    pub item_slug: Option<String>,
    pub user_id: Option<i64>,
    pub user_name: Option<String>,
    pub app_id: Option<i64>,
    pub item: String,
    pub created_on: Timestamp,
}

/// Writes the event's row inside the caller's transaction; returns its sequence number.
/// (`outbox::record` writes it with its deliveries.)
pub(crate) async fn insert(tx: &mut Tx, event: &NewEvent<'_>, now: Timestamp) -> Result<i64> {
    let item = event.item.to_string();
    let id = Columns::new()
        .set("topic", event.topic)
        .set("account_id", event.account_id)
        .set("seller_id", event.seller_id)
        .set("shop_id", event.shop_id)
        .set("shop_subdomain", event.shop_subdomain)
        .set("item_type", event.item_type)
        .set("item_id", event.item_id)
        .set("item_slug", event.item_slug)
        .set("user_id", event.actor.user_id)
        .set("user_name", event.actor.user_name)
        .set("app_id", event.actor.app_id)
        .set("item", item)
        .set("created_on", now)
        .insert_into("events")
        .fetch_id(tx)
        .await?;
    Ok(id)
}

/// An `INSERT` of the events' rows, in their order (so their sequence numbers follow it),
/// with its values bound in `p`; it returns nothing, for the caller to add `RETURNING`.
pub(crate) fn insert_sql(events: &[NewEvent<'_>], now: Timestamp, p: &mut Params) -> String {
    let rows: Vec<String> = events
        .iter()
        .map(|event| {
            let values = [
                Arg::from(event.topic),
                Arg::Int(event.account_id),
                Arg::MaybeInt(event.seller_id),
                Arg::MaybeInt(event.shop_id),
                Arg::from(event.shop_subdomain),
                Arg::from(event.item_type),
                Arg::Int(event.item_id),
                Arg::from(event.item_slug),
                Arg::MaybeInt(event.actor.user_id),
                Arg::from(event.actor.user_name),
                Arg::MaybeInt(event.actor.app_id),
                Arg::Text(event.item.to_string()),
                Arg::from(now),
            ];
            format!("({})", p.bind_all(values))
        })
        .collect();
    format!(
        "INSERT INTO events (topic, account_id, seller_id, shop_id, shop_subdomain, item_type, item_id, \
         item_slug, user_id, user_name, app_id, item, created_on) VALUES {}",
        rows.join(", ")
    )
}

/// Events of an account after a sequence number, oldest first.
pub async fn after(
    db: &Database,
    account_id: i64,
    after_id: i64,
    limit: i64,
) -> Result<Vec<Event>> {
    with_conn!(Exec::Db(db), |c| {
        sqlx::query_as::<_, Event>(
            "SELECT id, topic, account_id, seller_id, shop_id, shop_subdomain, item_type, item_id, item_slug, user_id, \
             user_name, app_id, item, created_on FROM events WHERE account_id = $1 AND id > $2 ORDER BY id LIMIT $3",
        )
        .bind(account_id)
        .bind(after_id)
        .bind(limit)
        .fetch_all(c)
        .await
    })
    .map_err(Into::into)
}

/// Events by id (the webhook dispatcher builds deliveries' bodies from them).
pub async fn by_ids<'a>(exec: impl Into<Exec<'a>>, ids: &[i64]) -> Result<Vec<Event>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut f = crate::sql::Filter::new();
    f.any_of("id", ids.iter().copied().map(crate::sql::Arg::Int));
    let sql = format!(
        "SELECT id, topic, account_id, seller_id, shop_id, shop_subdomain, item_type, item_id, item_slug, user_id, \
         user_name, app_id, item, created_on FROM events{}",
        f.where_sql()
    );
    Ok(fetch_all_bound!(exec.into(), Event, sql, f.args())?)
}
