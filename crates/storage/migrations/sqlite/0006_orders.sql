-- Orders: a shop's orders with their lines. A line keeps what it sold as it was when the
-- line was written (title, SKU, unit price), and names its product and variant without a
-- foreign key, so that the catalog can change or go while orders keep their history.

-- The last order code handed out in each shop; codes start at 1001.
CREATE TABLE order_codes (
    shop_id INTEGER PRIMARY KEY REFERENCES shops (id),
    last_code INTEGER NOT NULL
);

CREATE TABLE orders (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    seller_id INTEGER NOT NULL REFERENCES sellers (id),
    shop_id INTEGER NOT NULL REFERENCES shops (id),
    -- Sequential per shop (1001, 1002, …); shown as a string.
    code INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('checkout', 'placed', 'closed', 'shipped', 'cancelled')),
    currency_code TEXT NOT NULL,
    email TEXT,
    contact_name TEXT,
    phone_number TEXT,
    -- JSON objects (name, street, street_2, locality, region, postal_code, country_code).
    shipping_address TEXT,
    billing_address TEXT,
    note TEXT NOT NULL DEFAULT '',
    -- Minor units of currency_code; total = net_total + shipping_total + tax_total - discount_total.
    net_total INTEGER NOT NULL,
    discount_total INTEGER NOT NULL DEFAULT 0,
    shipping_total INTEGER NOT NULL DEFAULT 0,
    tax_total INTEGER NOT NULL DEFAULT 0,
    total INTEGER NOT NULL,
    tracking_code TEXT,
    courier_name TEXT,
    tracking_url TEXT,
    -- The app whose token created the order (no foreign key: the order outlives it).
    app_id INTEGER,
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL,
    placed_on INTEGER,
    closed_on INTEGER,
    shipped_on INTEGER,
    cancelled_on INTEGER
);
CREATE UNIQUE INDEX orders_code_key ON orders (shop_id, code);
CREATE INDEX orders_account_idx ON orders (account_id, id);
CREATE INDEX orders_seller_idx ON orders (seller_id, id);
CREATE INDEX orders_shop_idx ON orders (shop_id, id);
CREATE INDEX orders_account_status_idx ON orders (account_id, status, id);
CREATE INDEX orders_account_code_idx ON orders (account_id, code, id);
CREATE INDEX orders_account_total_idx ON orders (account_id, total, id);
CREATE INDEX orders_account_created_idx ON orders (account_id, created_on, id);
CREATE INDEX orders_account_updated_idx ON orders (account_id, updated_on, id);

CREATE TABLE order_lines (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    order_id INTEGER NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    -- The catalog rows sold, by id only: they may be changed or deleted since.
    product_id INTEGER NOT NULL,
    variant_id INTEGER,
    title TEXT NOT NULL,
    variant_title TEXT NOT NULL DEFAULT '',
    sku TEXT,
    unit_price INTEGER NOT NULL CHECK (unit_price >= 0),
    quantity INTEGER NOT NULL CHECK (quantity >= 1),
    line_total INTEGER NOT NULL CHECK (line_total >= 0)
);
CREATE INDEX order_lines_order_idx ON order_lines (order_id, position, id);
