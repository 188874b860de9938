-- The catalog: product types, products (with their shops, tags and search document),
-- variants, product assets, collections and price lists. Every row keeps the account and
-- the seller that own it, so that each tenancy check is one indexed comparison.

ALTER TABLE events ADD COLUMN seller_id INTEGER;

CREATE TABLE product_types (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    seller_id INTEGER NOT NULL REFERENCES sellers (id),
    name TEXT NOT NULL,
    -- The lower-case name: names are unique per seller whatever their case.
    name_key TEXT NOT NULL,
    attributes TEXT NOT NULL DEFAULT '[]',
    products_count INTEGER NOT NULL DEFAULT 0,
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL
);
CREATE UNIQUE INDEX product_types_name_key ON product_types (seller_id, name_key);
CREATE INDEX product_types_account_idx ON product_types (account_id, id);
CREATE INDEX product_types_account_name_idx ON product_types (account_id, name_key, id);
CREATE INDEX product_types_account_created_idx ON product_types (account_id, created_on, id);
CREATE INDEX product_types_account_updated_idx ON product_types (account_id, updated_on, id);

CREATE TABLE products (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    seller_id INTEGER NOT NULL REFERENCES sellers (id),
    title TEXT NOT NULL,
    slug TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL CHECK (status IN ('visible', 'hidden')),
    vendor TEXT,
    -- JSON array of tags in the client's order; product_tags indexes them.
    tags TEXT NOT NULL DEFAULT '[]',
    -- The lowest variant price and that variant's comparison price, kept by every variant write.
    price INTEGER NOT NULL,
    price_comparison INTEGER,
    currency_code TEXT NOT NULL,
    product_type_id INTEGER REFERENCES product_types (id),
    custom_attributes TEXT NOT NULL DEFAULT '{}',
    -- Available in every shop of the seller (present and future), or only in product_shops.
    all_shops INTEGER NOT NULL,
    -- Lower-case words of the title, description, tags, vendor and SKUs, for `q`.
    search_text TEXT NOT NULL DEFAULT '',
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL
);
CREATE UNIQUE INDEX products_slug_key ON products (seller_id, slug);
CREATE INDEX products_seller_idx ON products (seller_id, id);
CREATE INDEX products_account_idx ON products (account_id, id);
CREATE INDEX products_account_title_idx ON products (account_id, title, id);
CREATE INDEX products_account_price_idx ON products (account_id, price, id);
CREATE INDEX products_account_created_idx ON products (account_id, created_on, id);
CREATE INDEX products_account_updated_idx ON products (account_id, updated_on, id);
CREATE INDEX products_account_status_idx ON products (account_id, status, id);
CREATE INDEX products_account_vendor_idx ON products (account_id, vendor, id);
CREATE INDEX products_type_idx ON products (product_type_id, id);

-- Full-text search over products.search_text, kept in step by triggers (external content).
CREATE VIRTUAL TABLE product_search USING fts5(
    search_text, content = 'products', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 0'
);
CREATE TRIGGER products_search_insert AFTER INSERT ON products BEGIN
    INSERT INTO product_search (rowid, search_text) VALUES (new.id, new.search_text);
END;
CREATE TRIGGER products_search_delete AFTER DELETE ON products BEGIN
    INSERT INTO product_search (product_search, rowid, search_text) VALUES ('delete', old.id, old.search_text);
END;
CREATE TRIGGER products_search_update AFTER UPDATE OF search_text ON products BEGIN
    INSERT INTO product_search (product_search, rowid, search_text) VALUES ('delete', old.id, old.search_text);
    INSERT INTO product_search (rowid, search_text) VALUES (new.id, new.search_text);
END;

-- How many products each seller has, by status: the unfiltered list's total without a count.
CREATE TABLE seller_product_counts (
    seller_id INTEGER PRIMARY KEY REFERENCES sellers (id),
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    visible INTEGER NOT NULL DEFAULT 0,
    hidden INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX seller_product_counts_account_idx ON seller_product_counts (account_id);

CREATE TABLE product_shops (
    product_id INTEGER NOT NULL REFERENCES products (id) ON DELETE CASCADE,
    shop_id INTEGER NOT NULL REFERENCES shops (id),
    PRIMARY KEY (product_id, shop_id)
);
CREATE INDEX product_shops_shop_idx ON product_shops (shop_id, product_id);

CREATE TABLE product_tags (
    product_id INTEGER NOT NULL REFERENCES products (id) ON DELETE CASCADE,
    -- The lower-case tag: filters match tags whatever their case.
    tag_key TEXT NOT NULL,
    -- The product's owners, so that a tag filter's total is counted from this index alone.
    account_id INTEGER NOT NULL,
    seller_id INTEGER NOT NULL,
    PRIMARY KEY (product_id, tag_key)
);
CREATE INDEX product_tags_account_tag_idx ON product_tags (account_id, tag_key, seller_id, product_id);

CREATE TABLE variants (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    seller_id INTEGER NOT NULL REFERENCES sellers (id),
    product_id INTEGER NOT NULL REFERENCES products (id) ON DELETE CASCADE,
    sku TEXT,
    title TEXT NOT NULL,
    options TEXT NOT NULL DEFAULT '{}',
    price INTEGER NOT NULL CHECK (price >= 0),
    price_comparison INTEGER CHECK (price_comparison >= 0),
    stock INTEGER NOT NULL,
    available_if_no_stock INTEGER NOT NULL,
    weight_in_grams INTEGER,
    barcode TEXT,
    position INTEGER NOT NULL,
    image_ids TEXT NOT NULL DEFAULT '[]',
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL,
    -- Stock goes below zero only for variants sold on backorder.
    CHECK (available_if_no_stock OR stock >= 0)
);
CREATE UNIQUE INDEX variants_sku_key ON variants (seller_id, sku) WHERE sku IS NOT NULL;
CREATE INDEX variants_product_idx ON variants (product_id, position, id);
CREATE INDEX variants_sku_idx ON variants (sku, product_id);

CREATE TABLE product_assets (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    seller_id INTEGER NOT NULL REFERENCES sellers (id),
    product_id INTEGER NOT NULL REFERENCES products (id) ON DELETE CASCADE,
    file_name TEXT NOT NULL,
    content_type TEXT NOT NULL,
    byte_size INTEGER NOT NULL,
    width INTEGER,
    height INTEGER,
    -- Hex SHA-256 of the bytes: names the file in its public address.
    digest TEXT NOT NULL,
    position INTEGER NOT NULL,
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL
);
CREATE INDEX product_assets_product_idx ON product_assets (product_id, position, id);

-- The bytes apart from the metadata, so that listing assets never reads them.
CREATE TABLE product_asset_data (
    asset_id INTEGER PRIMARY KEY REFERENCES product_assets (id) ON DELETE CASCADE,
    data BLOB NOT NULL
);

CREATE TABLE collections (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    seller_id INTEGER NOT NULL REFERENCES sellers (id),
    title TEXT NOT NULL,
    slug TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    kind TEXT NOT NULL CHECK (kind IN ('manual', 'smart')),
    rules TEXT NOT NULL DEFAULT '[]',
    rule_match TEXT NOT NULL DEFAULT 'all' CHECK (rule_match IN ('all', 'any')),
    sort_order TEXT NOT NULL,
    products_count INTEGER NOT NULL DEFAULT 0,
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL
);
CREATE UNIQUE INDEX collections_slug_key ON collections (seller_id, slug);
CREATE INDEX collections_account_idx ON collections (account_id, id);
CREATE INDEX collections_account_title_idx ON collections (account_id, title, id);
CREATE INDEX collections_account_created_idx ON collections (account_id, created_on, id);
CREATE INDEX collections_account_updated_idx ON collections (account_id, updated_on, id);
CREATE INDEX collections_seller_kind_idx ON collections (seller_id, kind, id);

-- Membership of manual collections as curated, of smart collections as computed from
-- their rules at every change of a product or of the rules.
CREATE TABLE collection_products (
    collection_id INTEGER NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
    product_id INTEGER NOT NULL REFERENCES products (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    PRIMARY KEY (collection_id, product_id)
);
CREATE INDEX collection_products_product_idx ON collection_products (product_id, collection_id);
CREATE INDEX collection_products_position_idx ON collection_products (collection_id, position, product_id);

CREATE TABLE price_lists (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    seller_id INTEGER NOT NULL REFERENCES sellers (id),
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL CHECK (status IN ('draft', 'active', 'inactive')),
    kind TEXT NOT NULL CHECK (kind IN ('override', 'sale')),
    currency_code TEXT NOT NULL,
    starts_on INTEGER,
    ends_on INTEGER,
    priority INTEGER NOT NULL DEFAULT 0,
    -- JSON array of contact ids; empty means every buyer.
    contact_ids TEXT NOT NULL DEFAULT '[]',
    items_count INTEGER NOT NULL DEFAULT 0,
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL
);
CREATE INDEX price_lists_account_idx ON price_lists (account_id, id);
CREATE INDEX price_lists_account_name_idx ON price_lists (account_id, name, id);
CREATE INDEX price_lists_account_priority_idx ON price_lists (account_id, priority, id);
CREATE INDEX price_lists_account_created_idx ON price_lists (account_id, created_on, id);
CREATE INDEX price_lists_account_updated_idx ON price_lists (account_id, updated_on, id);
CREATE INDEX price_lists_seller_status_idx ON price_lists (seller_id, status, id);

CREATE TABLE price_list_items (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    price_list_id INTEGER NOT NULL REFERENCES price_lists (id) ON DELETE CASCADE,
    variant_id INTEGER NOT NULL REFERENCES variants (id) ON DELETE CASCADE,
    -- The variant's product, for filtering; the variant's cascade removes the item.
    product_id INTEGER NOT NULL,
    min_quantity INTEGER NOT NULL CHECK (min_quantity >= 1),
    price INTEGER NOT NULL CHECK (price >= 0),
    price_comparison INTEGER CHECK (price_comparison >= 0),
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL
);
CREATE UNIQUE INDEX price_list_items_tier_key ON price_list_items (price_list_id, variant_id, min_quantity);
CREATE INDEX price_list_items_variant_idx ON price_list_items (variant_id, price_list_id);
CREATE INDEX price_list_items_product_idx ON price_list_items (price_list_id, product_id, id);
CREATE INDEX price_list_items_list_idx ON price_list_items (price_list_id, id);
