-- Transactional mail: written in the transaction of the change that sends it (so a mail
-- exists exactly when its change committed), delivered over SMTP by one worker, retried
-- on a schedule, and kept for operators to read. The text body may carry one-time
-- tokens: it is sealed with the encryption key, and erased once the mail is sent.
CREATE TABLE mail_outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER REFERENCES accounts (id),
    -- What the mail is for, e.g. `customer_password_reset`.
    purpose TEXT NOT NULL,
    to_address TEXT NOT NULL,
    subject TEXT NOT NULL,
    body_sealed BLOB,
    created_on INTEGER NOT NULL,
    -- Attempts started: a claim counts its attempt, so one cut short by a crash counts too.
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_on INTEGER NOT NULL,
    sent_on INTEGER,
    -- Given up: every attempt failed, or the mail cannot be sent at all.
    failed_on INTEGER,
    last_error TEXT,
    -- The node sending it and until when its claim holds (another node may then send it).
    lease_owner TEXT,
    lease_expires_on INTEGER,
    CHECK (sent_on IS NULL OR failed_on IS NULL)
);
-- The delivery worker's claim: due mails in due order, only those still to be sent.
CREATE INDEX mail_outbox_due_idx ON mail_outbox (next_attempt_on, id)
    WHERE sent_on IS NULL AND failed_on IS NULL;
-- The operators' listing, newest first, of every mail or of those not delivered.
CREATE INDEX mail_outbox_created_idx ON mail_outbox (created_on, id);
CREATE INDEX mail_outbox_undelivered_idx ON mail_outbox (created_on, id) WHERE sent_on IS NULL;
-- The claims a node holds, by node (a node restarted on the same host takes them over).
CREATE INDEX mail_outbox_holder_idx ON mail_outbox (lease_owner) WHERE lease_owner IS NOT NULL;
