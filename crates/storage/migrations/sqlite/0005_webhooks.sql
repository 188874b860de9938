-- Webhook subscriptions, their deliveries (one per subscription and event, created in
-- the same transaction as the event) and every delivery attempt.

CREATE TABLE webhooks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    seller_id INTEGER NOT NULL REFERENCES sellers (id),
    shop_id INTEGER NOT NULL REFERENCES shops (id),
    -- The app whose token created it (events it causes are skipped when notify_origin is false).
    app_id INTEGER REFERENCES oauth_apps (id),
    topic TEXT NOT NULL,
    url TEXT NOT NULL,
    notify_origin INTEGER NOT NULL,
    auth_type TEXT NOT NULL CHECK (auth_type IN ('none', 'basic')),
    auth_username TEXT,
    auth_password_sealed BLOB,
    secret_sealed BLOB NOT NULL,
    -- The secret before the last rotation, which still signs until it expires.
    previous_secret_sealed BLOB,
    previous_secret_expires_on INTEGER,
    ordering TEXT NOT NULL CHECK (ordering IN ('none', 'per_resource')),
    status TEXT NOT NULL CHECK (status IN ('pending', 'active', 'failed_activation', 'failed', 'disabled')),
    error_count INTEGER NOT NULL DEFAULT 0,
    exhausted_count INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    last_error_on INTEGER,
    -- Deliveries wait until then (the target asked with Retry-After).
    paused_until INTEGER,
    -- A verification ping is owed from then on (pending subscriptions).
    verify_due_on INTEGER,
    lease_owner TEXT,
    lease_expires_on INTEGER,
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL
);
CREATE INDEX webhooks_account_idx ON webhooks (account_id, id);
CREATE INDEX webhooks_account_topic_idx ON webhooks (account_id, topic, id);
CREATE INDEX webhooks_account_status_idx ON webhooks (account_id, status, id);
CREATE INDEX webhooks_shop_idx ON webhooks (shop_id, status, id);
CREATE INDEX webhooks_verify_idx ON webhooks (status, verify_due_on);

-- Replays of a subscription's failed deliveries in a time window; their progress is
-- read from the deliveries they marked.
CREATE TABLE webhook_replays (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    webhook_id INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    since_on INTEGER NOT NULL,
    until_on INTEGER NOT NULL,
    deliveries INTEGER NOT NULL,
    created_on INTEGER NOT NULL
);
CREATE INDEX webhook_replays_webhook_idx ON webhook_replays (webhook_id, id);

CREATE TABLE webhook_deliveries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    webhook_id INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id INTEGER NOT NULL REFERENCES events (id),
    topic TEXT NOT NULL,
    -- `item_type:item_id`: deliveries of a per-resource subscription go out in this order.
    resource_key TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_on INTEGER NOT NULL,
    trigger TEXT NOT NULL DEFAULT 'scheduled' CHECK (trigger IN ('scheduled', 'manual', 'replay')),
    -- The replay that sent it again, if one did.
    replay_id INTEGER,
    lease_owner TEXT,
    lease_expires_on INTEGER,
    last_status_code INTEGER,
    last_error TEXT,
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL
);
CREATE UNIQUE INDEX webhook_deliveries_event_key ON webhook_deliveries (webhook_id, event_id);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (status, next_attempt_on, id);
CREATE INDEX webhook_deliveries_resource_idx ON webhook_deliveries (webhook_id, resource_key, status, id);
CREATE INDEX webhook_deliveries_history_idx ON webhook_deliveries (webhook_id, id);
CREATE INDEX webhook_deliveries_replay_idx ON webhook_deliveries (replay_id, status) WHERE replay_id IS NOT NULL;

CREATE TABLE webhook_attempts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id INTEGER NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    trigger TEXT NOT NULL CHECK (trigger IN ('scheduled', 'manual', 'replay')),
    url TEXT NOT NULL,
    status_code INTEGER,
    duration_ms INTEGER NOT NULL,
    error_class TEXT,
    error TEXT,
    created_on INTEGER NOT NULL
);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, id);
