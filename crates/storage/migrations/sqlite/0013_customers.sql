-- Customers: a seller's contacts across its shops, their addresses, their tags (indexed
-- for filters) and what they spent in each currency. Orders name their customer; an
-- order keeps its own copy of the contact, so deleting the customer only unlinks it.

CREATE TABLE customers (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    seller_id INTEGER NOT NULL REFERENCES sellers (id),
    name TEXT,
    -- The lower-case name, for sorting and search whatever the case.
    name_key TEXT,
    first_name TEXT,
    last_name TEXT,
    email TEXT,
    -- The lower-case email: unique per seller whatever its case.
    email_key TEXT,
    phone_number TEXT,
    company TEXT,
    opt_in INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL CHECK (status IN ('active', 'disabled', 'invited')),
    -- JSON array of tags in the client's order; customer_tags indexes them.
    tags TEXT NOT NULL DEFAULT '[]',
    note TEXT NOT NULL DEFAULT '',
    default_shipping_address_id INTEGER,
    default_billing_address_id INTEGER,
    -- Kept by every move of the customer's orders (domain::customer::Standing).
    orders_count INTEGER NOT NULL DEFAULT 0 CHECK (orders_count >= 0),
    -- The seller's default currency when the customer was created: total_spent's.
    currency_code TEXT NOT NULL,
    -- Minor units of currency_code; every currency's total in customer_spending.
    total_spent INTEGER NOT NULL DEFAULT 0 CHECK (total_spent >= 0),
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL
);
CREATE UNIQUE INDEX customers_email_key ON customers (seller_id, email_key);
CREATE INDEX customers_account_idx ON customers (account_id, id);
CREATE INDEX customers_seller_idx ON customers (seller_id, id);
CREATE INDEX customers_account_name_idx ON customers (account_id, name_key, id);
CREATE INDEX customers_account_email_idx ON customers (account_id, email_key, id);
CREATE INDEX customers_account_status_idx ON customers (account_id, status, id);
CREATE INDEX customers_account_orders_count_idx ON customers (account_id, orders_count, id);
CREATE INDEX customers_account_total_spent_idx ON customers (account_id, total_spent, id);
CREATE INDEX customers_account_created_idx ON customers (account_id, created_on, id);
CREATE INDEX customers_account_updated_idx ON customers (account_id, updated_on, id);

CREATE TABLE customer_tags (
    customer_id INTEGER NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
    -- The lower-case tag: filters match tags whatever their case.
    tag_key TEXT NOT NULL,
    account_id INTEGER NOT NULL,
    seller_id INTEGER NOT NULL,
    PRIMARY KEY (customer_id, tag_key)
);
CREATE INDEX customer_tags_account_tag_idx ON customer_tags (account_id, tag_key, seller_id, customer_id);

CREATE TABLE customer_addresses (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    customer_id INTEGER NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
    account_id INTEGER NOT NULL,
    name TEXT,
    company TEXT,
    street TEXT,
    street_2 TEXT,
    locality TEXT,
    region TEXT,
    postal_code TEXT,
    country_code TEXT,
    phone_number TEXT,
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL
);
CREATE INDEX customer_addresses_customer_idx ON customer_addresses (customer_id, id);

-- Totals of the customer's paid orders per currency (the seller's own included).
CREATE TABLE customer_spending (
    customer_id INTEGER NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
    currency_code TEXT NOT NULL,
    account_id INTEGER NOT NULL,
    total INTEGER NOT NULL CHECK (total >= 0),
    PRIMARY KEY (customer_id, currency_code)
);

ALTER TABLE orders ADD COLUMN contact_id INTEGER REFERENCES customers (id) ON DELETE SET NULL;
CREATE INDEX orders_account_contact_idx ON orders (account_id, contact_id, id);
CREATE INDEX orders_contact_idx ON orders (contact_id);
