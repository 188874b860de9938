//! Persistence on SQLite (embedded) or PostgreSQL through one code path. SQL is written
//! once with `$N` placeholders; where the dialects differ, a `match` on the backend keeps
//! the difference in one named place. One module per aggregate.

#[macro_use]
mod macros;
mod bulk;
pub mod changes;
pub mod claim_counts;
mod db;
mod error;
pub mod json;
pub mod locks;
pub mod query_count;
pub mod secret_box;
pub mod secrets;
pub mod sql;
mod transaction;
mod unique;
mod write;

#[cfg(test)]
mod conformance;
#[cfg(test)]
mod test_databases;

pub mod account_versions;
pub mod accounts;
pub mod apps;
pub mod authorization_codes;
pub mod batches;
pub mod catalog_load;
pub mod collections;
pub mod customer_password_resets;
pub mod customers;
pub mod events;
pub mod exchange_rates;
pub mod idempotency;
pub mod leases;
pub mod mail_outbox;
pub mod order_documents;
pub mod order_load;
pub mod orders;
pub mod outbox;
pub mod payment_methods;
pub mod payments;
pub mod price_lists;
pub mod product_assets;
pub mod product_types;
pub mod products;
pub mod purchase_load;
pub mod refresh_tokens;
pub mod sealed_secrets;
pub mod sellers;
pub mod settings;
pub mod shipping_tables;
pub mod shop_admin_invitations;
pub mod shop_admins;
pub mod shops;
pub mod sign_in_failures;
pub mod signing_keys;
pub mod slugs;
pub mod subscription_fees;
pub mod subscription_purchases;
pub mod succession;
pub mod tenant_rows;
pub mod tokens;
pub mod users;
pub mod variants;
pub mod web_sessions;
pub mod webhook_deliveries;
pub mod webhooks;

pub use db::{Backend, Database, Exec, PoolStats, StoreOptions, Tx, redact_url};
pub use error::{Error, Result};
pub use transaction::{MAX_ATTEMPTS, Scoped, ScopedExt, TxError};
pub use unique::UniqueIndex;

/// What a principal may see: one account, optionally narrowed to one seller.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tenant {
    pub account_id: i64,
    pub seller_id: Option<i64>,
}
