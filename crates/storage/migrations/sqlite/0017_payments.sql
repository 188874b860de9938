-- Payments: the payment methods a shop offers, every payment attempt of an order (charges
-- and the refunds that return them), and what an order names and has been paid.
--
-- A method's settings are JSON text of its public keys; its secret keys (a gateway's
-- secret key) are one sealed JSON object, never shown, with secrets_set naming the keys
-- it holds. The type has no CHECK: real gateways are added in code, not in the schema.
CREATE TABLE payment_methods (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    seller_id INTEGER NOT NULL REFERENCES sellers (id),
    shop_id INTEGER NOT NULL REFERENCES shops (id),
    method_type TEXT NOT NULL,
    name TEXT NOT NULL,
    instructions TEXT NOT NULL DEFAULT '',
    enabled INTEGER NOT NULL DEFAULT 1,
    position INTEGER NOT NULL,
    settings TEXT NOT NULL DEFAULT '{}',
    secrets_set TEXT NOT NULL DEFAULT '[]',
    secrets_sealed BLOB,
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL
);
CREATE INDEX payment_methods_shop_idx ON payment_methods (shop_id, position, id);
CREATE INDEX payment_methods_account_idx ON payment_methods (account_id, id);

-- Every attempt is a row, whatever its outcome. A payment names its method by id only and
-- keeps a copy of its type and name: the method may be deleted since. A refund names the
-- charge it returns (one refund per charge). Card numbers are never stored: the brand and
-- last four digits only.
CREATE TABLE payments (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    seller_id INTEGER NOT NULL REFERENCES sellers (id),
    shop_id INTEGER NOT NULL,
    order_id INTEGER NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    payment_method_id INTEGER,
    method_type TEXT NOT NULL,
    method_name TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('charge', 'refund')),
    charge_id INTEGER REFERENCES payments (id),
    -- Minor units of currency_code (the order's).
    amount INTEGER NOT NULL CHECK (amount > 0),
    currency_code TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'declined', 'failed', 'recorded')),
    -- The gateway's id of the charge or refund, or the merchant's of a manual payment.
    reference TEXT,
    card_brand TEXT,
    card_last4 TEXT,
    -- Why a charge was declined or failed (a stable code, and what the gateway said).
    failure_code TEXT,
    failure_message TEXT,
    -- Gateway calls made for a pending refund, and when the next one is due.
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_on INTEGER,
    app_id INTEGER,
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL
);
CREATE UNIQUE INDEX payments_charge_key ON payments (charge_id);
CREATE INDEX payments_order_idx ON payments (order_id, id);
-- The attempts waiting for a gateway's answer, for the sweep that settles them.
CREATE INDEX payments_pending_idx ON payments (status, next_attempt_on, id);

ALTER TABLE orders ADD COLUMN payment_method_id INTEGER;
ALTER TABLE orders ADD COLUMN payment_method_type TEXT;
ALTER TABLE orders ADD COLUMN payment_method_name TEXT;
-- Approved charges, and refunds given back or owed, in minor units of the order's currency.
ALTER TABLE orders ADD COLUMN paid_total INTEGER NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN refunded_total INTEGER NOT NULL DEFAULT 0;
CREATE INDEX orders_account_payment_type_idx ON orders (account_id, payment_method_type, id);
CREATE INDEX orders_account_payment_method_idx ON orders (account_id, payment_method_id, id);
