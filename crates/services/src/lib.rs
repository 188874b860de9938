//! The application's operations, area by area, with no HTTP in them. Each takes an
//! [`Actor`] (a user or app through the API, or the system itself for background work) and
//! typed input, runs one transaction through the storage's runner, records its event in
//! that transaction, and returns domain values — with, for writes that record one, the
//! document the event carried ([`Shown`]), which a request answers with rather than render
//! the resource twice. HTTP handlers parse, call and answer; workers call the same
//! functions.
//!
//! Event payloads are the resource as a GET shows it. How a resource looks is the HTTP
//! layer's knowledge (links, curies, the public URL), so it comes in as a [`Present`]
//! implementation rather than as a dependency on the HTTP crate.

mod actor;
pub mod catalog;
mod error;
pub mod events;
mod lanes;
mod precondition;
mod present;
pub mod sellers;
mod shown;
pub mod slugs;
pub mod taken;

pub mod assets;
pub mod batches;
pub mod collections;
pub mod customers;
pub mod exchange_rates;
pub mod order_batches;
pub mod order_documents;
pub mod orders;
pub mod payment_methods;
pub mod payments;
pub mod price_lists;
pub mod product_types;
pub mod products;
pub mod shipping_tables;
pub mod shops;
pub mod subscription_fees;
pub mod subscription_purchases;
pub mod subscription_renewals;
pub mod variants;
pub mod webhooks;

use std::sync::Arc;

use domain::{Clock, Timestamp};
use storage::{Database, Scoped, Tx};

pub use actor::{Actor, Who};
pub use error::{ServiceError, ServiceResult};
pub use precondition::{Precondition, Unconditional};
pub use present::Present;
pub use shown::Shown;

/// What every operation needs: the database, the clock, and how resources look.
#[derive(Clone)]
pub struct Services {
    db: Database,
    clock: Arc<dyn Clock>,
    present: Arc<dyn Present>,
    /// Stock adjustments waiting to be applied, by variant (shared by clones).
    stock_lanes: Arc<variants::stock::StockLanes>,
}

impl Services {
    pub fn new(db: Database, clock: Arc<dyn Clock>, present: Arc<dyn Present>) -> Self {
        Self {
            db,
            clock,
            present,
            stock_lanes: variants::stock::lanes(),
        }
    }

    pub fn db(&self) -> &Database {
        &self.db
    }

    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }

    /// Runs `work` as one transaction of the storage's runner: committed, rolled back, or
    /// run again after losing to a concurrent write.
    async fn write<'env, T>(
        &self,
        work: impl for<'t> FnMut(&'t mut Tx) -> Scoped<'env, 't, ServiceResult<T>>,
    ) -> ServiceResult<T> {
        self.db.transaction(work).await
    }
}

/// One operation's frame: who acts, through which services, at what instant (one instant
/// per operation, so that every row and event it writes carries the same time).
#[derive(Clone, Copy)]
pub(crate) struct Op<'a> {
    pub services: &'a Services,
    pub actor: &'a Actor,
    pub now: Timestamp,
}

impl<'a> Op<'a> {
    pub fn new(services: &'a Services, actor: &'a Actor) -> Self {
        Self {
            services,
            actor,
            now: services.now(),
        }
    }

    pub fn present(&self) -> &'a dyn Present {
        self.services.present.as_ref()
    }
}
