//! A backlog of events written straight into the database while no server runs, each
//! fanned out to the subscriptions as the API would, so that a server started afterwards
//! finds that many deliveries due at once.

use anyhow::{Context, Result};
use domain::{Clock, SystemClock};
use serde_json::json;
use storage::events::{Actor, NewEvent};
use storage::outbox;
use storage::{Database, StoreOptions, sellers};

/// Events per transaction.
const BATCH: usize = 250;

pub async fn load(database_url: &str, count: usize) -> Result<()> {
    let db = Database::connect(database_url, &StoreOptions::default()).await?;
    let seller = sellers::first(&db)
        .await?
        .context("the database has no seller")?;
    let mut written = 0;
    while written < count {
        let mut tx = db.begin().await?;
        for n in written..(written + BATCH).min(count) {
            let item = json!({"id": n, "title": format!("Backlog {n}")});
            let event = NewEvent {
                topic: "products.updated",
                account_id: seller.account_id,
                seller_id: Some(seller.id),
                shop_id: None,
                shop_subdomain: None,
                shop_ids: None,
                item_type: "product",
                item_id: i64::try_from(n).unwrap_or(i64::MAX),
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
