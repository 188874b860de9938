-- Subscription fees: the recurring terms a variant is sold on. A fee belongs to one
-- variant and goes with it (or with its product) by cascade; purchases, which will refuse
-- its deletion while active, come later.

CREATE TABLE subscription_fees (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    seller_id INTEGER NOT NULL REFERENCES sellers (id),
    product_id INTEGER NOT NULL REFERENCES products (id) ON DELETE CASCADE,
    variant_id INTEGER NOT NULL REFERENCES variants (id) ON DELETE CASCADE,
    payment_interval TEXT NOT NULL
        CHECK (payment_interval IN ('1_week', '1_month', '3_months', '6_months', '12_months')),
    -- Minor units per unit and cycle, or (by_percentage) a percentage of the variant's price.
    renewal_fee INTEGER NOT NULL CHECK (renewal_fee >= 0),
    by_percentage INTEGER NOT NULL DEFAULT 0,
    setup_fee INTEGER NOT NULL DEFAULT 0 CHECK (setup_fee >= 0),
    -- 0: unlimited.
    number_of_payments INTEGER NOT NULL DEFAULT 0,
    -- An ISO weekday for 1_week, a day of the month otherwise; null: the start date's day.
    payment_day INTEGER,
    allow_non_recurring_payment INTEGER NOT NULL DEFAULT 0,
    min_days_for_cancellation INTEGER NOT NULL DEFAULT 0,
    allow_changing_day INTEGER NOT NULL DEFAULT 0,
    extend_on_reenable INTEGER NOT NULL DEFAULT 0,
    on_first_renewal TEXT NOT NULL DEFAULT 'full'
        CHECK (on_first_renewal IN ('full', 'prorate', 'skip')),
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL
);
CREATE INDEX subscription_fees_account_idx ON subscription_fees (account_id, id);
CREATE INDEX subscription_fees_account_created_idx ON subscription_fees (account_id, created_on, id);
CREATE INDEX subscription_fees_account_updated_idx ON subscription_fees (account_id, updated_on, id);
CREATE INDEX subscription_fees_account_interval_idx ON subscription_fees (account_id, payment_interval, id);
CREATE INDEX subscription_fees_seller_idx ON subscription_fees (seller_id, id);
CREATE INDEX subscription_fees_product_idx ON subscription_fees (product_id, id);
CREATE INDEX subscription_fees_variant_idx ON subscription_fees (variant_id, id);
