-- Shipping tables and exchange rates, a shop's settings for pricing its orders, and what
-- an order keeps of them: the table it ships by (its name copied, the table may go), its
-- parcel's weight, and the rate it converted its prices with.

CREATE TABLE shipping_tables (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    seller_id INTEGER NOT NULL REFERENCES sellers (id),
    shop_id INTEGER NOT NULL REFERENCES shops (id),
    name TEXT NOT NULL,
    method TEXT NOT NULL CHECK (method IN ('flat', 'weight', 'total')),
    -- JSON array of {country_code, regions[]}; empty: every address.
    zone TEXT NOT NULL,
    -- JSON array of {min, max, price}, sorted by min, never overlapping.
    rates TEXT NOT NULL,
    -- Minor units of the shop's currency: orders whose net total reaches it ship free.
    free_over INTEGER,
    enabled INTEGER NOT NULL DEFAULT 1,
    position INTEGER NOT NULL,
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL
);
CREATE INDEX shipping_tables_shop_idx ON shipping_tables (shop_id, position, id);
CREATE INDEX shipping_tables_account_idx ON shipping_tables (account_id, id);

CREATE TABLE exchange_rates (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    seller_id INTEGER NOT NULL REFERENCES sellers (id),
    shop_id INTEGER NOT NULL REFERENCES shops (id),
    -- One unit of from_currency (the shop's currency when the rate was written) buys
    -- `rate` units of to_currency; a rate from another currency than the shop's is unused.
    from_currency TEXT NOT NULL,
    to_currency TEXT NOT NULL,
    -- Millionths (domain::exchange::ExchangeRate).
    rate INTEGER NOT NULL CHECK (rate > 0),
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL
);
CREATE UNIQUE INDEX exchange_rates_currency_key ON exchange_rates (shop_id, from_currency, to_currency);
CREATE INDEX exchange_rates_account_idx ON exchange_rates (account_id, id);

-- No foreign key: a deleted table leaves its orders their copy of its name.
ALTER TABLE orders ADD COLUMN shipping_table_id INTEGER;
ALTER TABLE orders ADD COLUMN shipping_description TEXT;
ALTER TABLE orders ADD COLUMN weight_in_grams INTEGER NOT NULL DEFAULT 0;
-- The shop's currency and the rate (millionths) of currency_code the prices were
-- converted with; both null for an order in the shop's currency.
ALTER TABLE orders ADD COLUMN base_currency_code TEXT;
ALTER TABLE orders ADD COLUMN exchange_rate INTEGER;

CREATE INDEX orders_account_net_total_idx ON orders (account_id, net_total, id);
CREATE INDEX orders_account_shipping_total_idx ON orders (account_id, shipping_total, id);
CREATE INDEX orders_account_discount_total_idx ON orders (account_id, discount_total, id);
CREATE INDEX order_lines_product_idx ON order_lines (product_id, order_id);
