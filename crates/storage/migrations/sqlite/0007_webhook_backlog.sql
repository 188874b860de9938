-- A subscription that is failed or disabled keeps its events as deliveries that wait
-- ("parked": next_attempt_on is the largest value, after every due time, until it is
-- reactivated), and keeps only its newest ones: the older are marked `skipped`, which a
-- replay still sends. SQLite cannot change a CHECK constraint in place, so deliveries are
-- copied into a table that allows `skipped` — with their attempts, which refer to them
-- and would otherwise go with the old table — and both keep their id counters.
CREATE TABLE webhook_deliveries_next (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    webhook_id INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id INTEGER NOT NULL REFERENCES events (id),
    topic TEXT NOT NULL,
    -- `item_type:item_id`: deliveries of a per-resource subscription go out in this order.
    resource_key TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'skipped')),
    attempts INTEGER NOT NULL DEFAULT 0,
    -- 9223372036854775807 (parked): waits for its subscription to be reactivated.
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
INSERT INTO webhook_deliveries_next SELECT id, webhook_id, event_id, topic, resource_key, status, attempts,
    next_attempt_on, trigger, replay_id, lease_owner, lease_expires_on, last_status_code, last_error, created_on,
    updated_on FROM webhook_deliveries;

CREATE TABLE webhook_attempts_next (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id INTEGER NOT NULL REFERENCES webhook_deliveries_next (id) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    trigger TEXT NOT NULL CHECK (trigger IN ('scheduled', 'manual', 'replay')),
    url TEXT NOT NULL,
    status_code INTEGER,
    duration_ms INTEGER NOT NULL,
    error_class TEXT,
    error TEXT,
    created_on INTEGER NOT NULL
);
INSERT INTO webhook_attempts_next SELECT id, delivery_id, number, trigger, url, status_code, duration_ms,
    error_class, error, created_on FROM webhook_attempts;

DELETE FROM sqlite_sequence WHERE name IN ('webhook_deliveries_next', 'webhook_attempts_next');
INSERT INTO sqlite_sequence (name, seq) SELECT name || '_next', seq FROM sqlite_sequence
    WHERE name IN ('webhook_deliveries', 'webhook_attempts');

DROP TABLE webhook_attempts;
DROP TABLE webhook_deliveries;
ALTER TABLE webhook_deliveries_next RENAME TO webhook_deliveries;
ALTER TABLE webhook_attempts_next RENAME TO webhook_attempts;

CREATE UNIQUE INDEX webhook_deliveries_event_key ON webhook_deliveries (webhook_id, event_id);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (status, next_attempt_on, id);
CREATE INDEX webhook_deliveries_resource_idx ON webhook_deliveries (webhook_id, resource_key, status, id);
CREATE INDEX webhook_deliveries_history_idx ON webhook_deliveries (webhook_id, id);
CREATE INDEX webhook_deliveries_replay_idx ON webhook_deliveries (replay_id, status) WHERE replay_id IS NOT NULL;
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, id);

-- A subscription's waiting deliveries, parked or due, in order.
CREATE INDEX webhook_deliveries_waiting_idx ON webhook_deliveries (webhook_id, next_attempt_on, id)
    WHERE status = 'pending';

-- What failed and disabled subscriptions kept so far is parked.
UPDATE webhook_deliveries SET next_attempt_on = 9223372036854775807
    WHERE status = 'pending'
    AND webhook_id IN (SELECT id FROM webhooks WHERE status IN ('failed', 'disabled', 'failed_activation'));
