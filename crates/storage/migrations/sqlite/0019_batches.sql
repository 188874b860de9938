-- Batch jobs: work over many of a shop's orders that runs off the request path. A worker
-- does the items in chunks and saves its progress after each, so a job survives a restart
-- and its state can be followed; rows are kept as the record of what was done.

CREATE TABLE batches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    seller_id INTEGER NOT NULL REFERENCES sellers (id),
    shop_id INTEGER NOT NULL REFERENCES shops (id),
    -- order_status
    kind TEXT NOT NULL,
    -- The status the orders are moved to.
    target_status TEXT NOT NULL,
    -- pending, running or finished
    state TEXT NOT NULL,
    -- The items' ids, a JSON array, done in its order.
    item_ids TEXT NOT NULL,
    total INTEGER NOT NULL,
    processed INTEGER NOT NULL DEFAULT 0,
    succeeded INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0,
    -- The failed items, [{id, errors: [{field, messages}]}], in item order.
    invalid_items TEXT NOT NULL DEFAULT '[]',
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL,
    finished_on INTEGER
);
CREATE INDEX batches_account_idx ON batches (account_id, id);
CREATE INDEX batches_account_state_idx ON batches (account_id, state, id);
-- The worker's unfinished jobs, oldest first.
CREATE INDEX batches_unfinished_idx ON batches (id) WHERE state <> 'finished';
