-- Order documents: an order's invoices and packing slips, numbered per shop and kind
-- without gaps (a counter bumped in the transaction that writes the document, which is
-- never deleted), generated as PDF files by a worker off the request path and kept with
-- their bytes beside them (so that listing never reads the bytes).

CREATE TABLE order_document_numbers (
    shop_id INTEGER NOT NULL REFERENCES shops (id),
    kind TEXT NOT NULL,
    last_number INTEGER NOT NULL,
    PRIMARY KEY (shop_id, kind)
);

CREATE TABLE order_documents (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    seller_id INTEGER NOT NULL REFERENCES sellers (id),
    shop_id INTEGER NOT NULL REFERENCES shops (id),
    order_id INTEGER NOT NULL REFERENCES orders (id),
    -- invoice or packing_slip
    kind TEXT NOT NULL,
    number INTEGER NOT NULL,
    -- pending, ready or failed
    status TEXT NOT NULL,
    -- Rendering attempts made; a pending document is tried again from next_attempt_on.
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_on INTEGER NOT NULL,
    failure_reason TEXT,
    byte_size INTEGER,
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL,
    generated_on INTEGER
);
CREATE UNIQUE INDEX order_documents_number_key ON order_documents (shop_id, kind, number);
-- An order's documents, oldest first, within the tenant.
CREATE INDEX order_documents_order_idx ON order_documents (order_id, id);
CREATE INDEX order_documents_account_idx ON order_documents (account_id, id);
-- The worker's due documents, in due order.
CREATE INDEX order_documents_due_idx ON order_documents (next_attempt_on, id) WHERE status = 'pending';

CREATE TABLE order_document_files (
    document_id INTEGER PRIMARY KEY REFERENCES order_documents (id),
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    data BLOB NOT NULL
);
CREATE INDEX order_document_files_account_idx ON order_document_files (account_id);
