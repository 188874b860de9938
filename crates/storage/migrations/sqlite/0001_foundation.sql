-- Accounts, users, sellers, shops, OAuth apps, tokens, the event outbox and idempotency keys.
-- Timestamps are microseconds since the Unix epoch (UTC). AUTOINCREMENT keeps ids from being
-- reused after deletes, so an id never names two resources.

CREATE TABLE accounts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL
);

CREATE TABLE users (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    email TEXT NOT NULL,
    name TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'staff', 'readonly')),
    last_logged_on INTEGER,
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL
);
CREATE UNIQUE INDEX users_email_key ON users (email);
CREATE INDEX users_account_idx ON users (account_id, id);

CREATE TABLE sellers (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    name TEXT NOT NULL,
    slug TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
    default_currency_code TEXT NOT NULL,
    country_code TEXT,
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL
);
CREATE UNIQUE INDEX sellers_account_slug_key ON sellers (account_id, slug);
CREATE INDEX sellers_account_name_idx ON sellers (account_id, name, id);
CREATE INDEX sellers_account_created_idx ON sellers (account_id, created_on, id);
CREATE INDEX sellers_account_updated_idx ON sellers (account_id, updated_on, id);

CREATE TABLE shops (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    seller_id INTEGER NOT NULL REFERENCES sellers (id),
    subdomain TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    locale TEXT NOT NULL,
    currency_code TEXT NOT NULL,
    timezone TEXT NOT NULL,
    contact_email TEXT,
    storefront TEXT NOT NULL CHECK (storefront IN ('hosted', 'headless')),
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL
);
CREATE UNIQUE INDEX shops_subdomain_key ON shops (subdomain);
CREATE INDEX shops_seller_idx ON shops (seller_id, id);
CREATE INDEX shops_account_name_idx ON shops (account_id, name, id);
CREATE INDEX shops_account_created_idx ON shops (account_id, created_on, id);
CREATE INDEX shops_account_updated_idx ON shops (account_id, updated_on, id);
CREATE INDEX shops_account_storefront_idx ON shops (account_id, storefront, id);

CREATE TABLE oauth_apps (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER REFERENCES accounts (id),
    name TEXT NOT NULL,
    client_id TEXT NOT NULL,
    client_secret_digest BLOB NOT NULL,
    redirect_uris TEXT NOT NULL,
    grants TEXT NOT NULL,
    scopes TEXT NOT NULL,
    trusted INTEGER NOT NULL DEFAULT 0,
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL
);
CREATE UNIQUE INDEX oauth_apps_client_id_key ON oauth_apps (client_id);
CREATE INDEX oauth_apps_account_idx ON oauth_apps (account_id, id);

CREATE TABLE signing_keys (
    kid TEXT PRIMARY KEY,
    secret BLOB NOT NULL,
    created_on INTEGER NOT NULL,
    retired_on INTEGER
);

CREATE TABLE access_tokens (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    jti TEXT NOT NULL,
    app_id INTEGER NOT NULL REFERENCES oauth_apps (id),
    user_id INTEGER REFERENCES users (id),
    account_id INTEGER REFERENCES accounts (id),
    seller_id INTEGER REFERENCES sellers (id),
    grant_type TEXT NOT NULL,
    scopes TEXT NOT NULL,
    created_on INTEGER NOT NULL,
    expires_on INTEGER,
    revoked_on INTEGER
);
CREATE UNIQUE INDEX access_tokens_jti_key ON access_tokens (jti);
CREATE INDEX access_tokens_user_idx ON access_tokens (user_id, id);
CREATE INDEX access_tokens_app_idx ON access_tokens (app_id, id);

CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    topic TEXT NOT NULL,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    shop_id INTEGER,
    shop_subdomain TEXT,
    item_type TEXT NOT NULL,
    item_id INTEGER NOT NULL,
    item_slug TEXT,
    user_id INTEGER,
    user_name TEXT,
    app_id INTEGER,
    item TEXT NOT NULL,
    created_on INTEGER NOT NULL
);
CREATE INDEX events_account_idx ON events (account_id, id);
CREATE INDEX events_shop_idx ON events (shop_id, id);

CREATE TABLE idempotency_keys (
    key_digest BLOB PRIMARY KEY,
    fingerprint BLOB NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('started', 'completed')),
    response_status INTEGER,
    response_headers TEXT,
    response_body BLOB,
    created_on INTEGER NOT NULL,
    expires_on INTEGER NOT NULL
);
CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_on);
