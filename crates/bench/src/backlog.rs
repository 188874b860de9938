//! A backlog of events written straight into the database while no server runs, each
//! fanned out to the subscriptions as the API would, so that a server started afterwards
//! finds that many deliveries due at once.

use anyhow::{Context, Result};
use domain::{Clock, SystemClock};
use serde_json::json;
use storage::events::{Actor, Audience, NewEvent};
use storage::outbox;
use storage::{Database, StoreOptions, sellers};

/// Events per transaction.
const BATCH: usize = 250;

/// Loads `count` events, each about a product of its own.
pub async fn load(database_url: &str, count: usize) -> Result<()> {
    load_about(database_url, count, |n| {
        i64::try_from(n).unwrap_or(i64::MAX)
    })
    .await
}

/// Loads `count` events; the `n`th is about the product `about(n)`.
pub async fn load_about(
    database_url: &str,
    count: usize,
    about: impl Fn(usize) -> i64,
) -> Result<()> {
    let db = Database::connect(database_url, &StoreOptions::default()).await?;
    let seller = sellers::first(&db)
        .await?
        .context("the database has no seller")?;
    let mut written = 0;
    while written < count {
        let mut tx = db.begin().await?;
        for n in written..(written + BATCH).min(count) {
            let item_id = about(n);
            let item = json!({"id": item_id, "title": format!("Backlog {n}")});
            let event = NewEvent {
                topic: "products.updated",
                account_id: seller.account_id,
                seller_id: Some(seller.id),
                shop_id: None,
                shop_subdomain: None,
                audience: Audience::Owner,
                item_type: "product",
                item_id,
                item_slug: None,
                actor: Actor::default(),
                item: &item,
            };
            outbox::record(&mut tx, &event, SystemClock.now()).await?;
        }
        tx.commit().await?;
        written = (written + BATCH).min(count);
    }
    db.close().await;
    Ok(())
}
