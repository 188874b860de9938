//! Black-box tests over real HTTP: each test starts the server on a random loopback port
//! with a database of its own, once on SQLite and once on PostgreSQL.

mod binary;
mod receiver;
mod support;

mod architecture;
mod assets;
mod auth;
mod authorize;
mod browser;
mod cli;
mod collections;
mod conditional;
mod credentials;
mod credentials_scopes;
mod encryption_keys;
mod fuzz;
mod grants;
mod http_kernel;
mod idempotency;
mod lists;
mod migration_history;
mod oauth_errors;
mod openapi;
mod orders;
mod price_lists;
mod product_lists;
mod product_types;
mod products;
mod races;
mod rate_limit;
mod recorded;
mod revocation;
mod root;
mod schema_parity;
mod secrets_at_rest;
mod sellers;
mod services;
mod shops;
mod token_endpoint;
mod unique_indexes;
mod variants;
mod webdriver;
mod webhook_crashes;
mod webhooks;
mod workers;
