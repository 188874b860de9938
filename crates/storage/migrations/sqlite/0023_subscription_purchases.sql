-- Subscription purchases: what a paid order's recurring lines start, and the renewal
-- orders that bill them.
--
-- A recurring line names the fee it was sold on (no foreign key: the fee may change or go)
-- and the setup fee it charged once, beside unit price × quantity.
ALTER TABLE order_lines ADD COLUMN subscription_fee_id INTEGER;
ALTER TABLE order_lines ADD COLUMN setup_fee INTEGER NOT NULL DEFAULT 0 CHECK (setup_fee >= 0);

-- A charge made while saving its card for renewals keeps the gateway's token of the saved
-- card: a reference usable only with the method's sealed secret key, never shown.
ALTER TABLE payments ADD COLUMN saved_card TEXT;

CREATE TABLE subscription_purchases (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    seller_id INTEGER NOT NULL REFERENCES sellers (id),
    shop_id INTEGER NOT NULL REFERENCES shops (id),
    contact_id INTEGER REFERENCES customers (id) ON DELETE SET NULL,
    original_order_id INTEGER REFERENCES orders (id) ON DELETE SET NULL,
    -- The recurring line that started it: one purchase per line, however often the order
    -- is paid.
    original_line_id INTEGER NOT NULL,
    product_id INTEGER NOT NULL,
    variant_id INTEGER,
    product_name TEXT NOT NULL,
    subscription_fee_id INTEGER REFERENCES subscription_fees (id) ON DELETE SET NULL,
    state TEXT NOT NULL CHECK (state IN ('active', 'paused', 'cancelled', 'finished', 'failed')),
    paused_by TEXT CHECK (paused_by IN ('admin', 'customer', 'system')),
    last_pause_at INTEGER,
    currency_code TEXT NOT NULL,
    units INTEGER NOT NULL CHECK (units >= 1),
    -- Minor units of currency_code a whole cycle charges.
    total_renewal_fee INTEGER NOT NULL CHECK (total_renewal_fee >= 0),
    payment_interval TEXT NOT NULL
        CHECK (payment_interval IN ('1_week', '1_month', '3_months', '6_months', '12_months')),
    -- An ISO weekday for 1_week, a day of the month otherwise.
    payment_day INTEGER NOT NULL,
    paid_setup_fee INTEGER NOT NULL DEFAULT 0,
    -- Dates are YYYY-MM-DD text (UTC days).
    start_date TEXT NOT NULL,
    last_payment_on TEXT,
    next_payment_on TEXT NOT NULL,
    end_date TEXT,
    cancel_at TEXT,
    total_payments INTEGER NOT NULL DEFAULT 1,
    -- 0 while active: unlimited.
    remaining_payments INTEGER NOT NULL DEFAULT 0,
    failed_attempts INTEGER NOT NULL DEFAULT 0,
    retry_on TEXT,
    payments_to_skip INTEGER NOT NULL DEFAULT 0,
    -- Hundredths of a percent.
    renewal_discount INTEGER NOT NULL DEFAULT 0,
    discount_num_charges INTEGER NOT NULL DEFAULT 0,
    -- The next charge's share of a cycle (a prorated first renewal): days of a cycle of.
    prorated_days INTEGER,
    prorated_of INTEGER,
    -- How renewals are charged: the order's method (by id: it may go since) and the card
    -- its gateway saved, if any.
    payment_method_id INTEGER,
    saved_card TEXT,
    -- When the renewal engine is next to act on it (a retry's date, else
    -- next_payment_on); null unless active.
    due_on TEXT,
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL
);
CREATE UNIQUE INDEX subscription_purchases_line_key ON subscription_purchases (original_line_id);
CREATE INDEX subscription_purchases_account_idx ON subscription_purchases (account_id, id);
CREATE INDEX subscription_purchases_account_state_idx ON subscription_purchases (account_id, state, id);
CREATE INDEX subscription_purchases_account_shop_idx ON subscription_purchases (account_id, shop_id, id);
CREATE INDEX subscription_purchases_account_contact_idx ON subscription_purchases (account_id, contact_id, id);
CREATE INDEX subscription_purchases_account_product_idx ON subscription_purchases (account_id, product_id, id);
CREATE INDEX subscription_purchases_account_next_idx ON subscription_purchases (account_id, next_payment_on, id);
CREATE INDEX subscription_purchases_account_created_idx ON subscription_purchases (account_id, created_on, id);
CREATE INDEX subscription_purchases_account_updated_idx ON subscription_purchases (account_id, updated_on, id);
CREATE INDEX subscription_purchases_seller_idx ON subscription_purchases (seller_id, id);
CREATE INDEX subscription_purchases_fee_idx ON subscription_purchases (subscription_fee_id, state);
CREATE INDEX subscription_purchases_order_idx ON subscription_purchases (original_order_id);
CREATE INDEX subscription_purchases_contact_idx ON subscription_purchases (contact_id);
CREATE INDEX subscription_purchases_due_idx ON subscription_purchases (due_on, id);

-- A renewal order bills one cycle of one purchase: written before its charge, once per
-- (purchase, cycle date), so that a crash or a second node never bills a cycle twice.
ALTER TABLE orders ADD COLUMN subscription_purchase_id INTEGER
    REFERENCES subscription_purchases (id) ON DELETE SET NULL;
ALTER TABLE orders ADD COLUMN renewal_on TEXT;
CREATE UNIQUE INDEX orders_renewal_key ON orders (subscription_purchase_id, renewal_on);
