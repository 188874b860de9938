-- Customer accounts: a customer's password (an argon2id PHC string, never shown), the
-- single-use reset tokens it is set through (kept as digests), and the customer each
-- access token of a customer session speaks for, so that a new password, a disabled
-- account or a deleted customer ends them all (revoked first: a revoked row is what every
-- node's revocation list reads, so the foreign key only unlinks it).

ALTER TABLE customers ADD COLUMN password_hash TEXT;

CREATE TABLE customer_password_resets (
    -- SHA-256 of the token mailed to the customer.
    digest BLOB PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
    account_id INTEGER NOT NULL,
    created_on INTEGER NOT NULL,
    expires_on INTEGER NOT NULL,
    used_on INTEGER
);
CREATE INDEX customer_password_resets_customer_idx ON customer_password_resets (customer_id);

ALTER TABLE access_tokens ADD COLUMN customer_id INTEGER REFERENCES customers (id) ON DELETE SET NULL;
CREATE INDEX access_tokens_customer_idx ON access_tokens (customer_id, id);
