-- Product search by a words table instead of the GIN index of a tsvector. A search word is
-- a prefix; the GIN index lists every product matching it before a count or a page can
-- stop, so a broad word cost in proportion to its matches. Here each distinct word of a
-- product's search document is a row, in bytewise order (COLLATE "C", so that the words
-- beginning with a prefix are one range of the key), with each word's products in id
-- order: a count or a page walks them in that order and stops after the rows it needs.

-- No product is written while its words are filled in and their triggers created.
LOCK TABLE products IN SHARE MODE;

CREATE TABLE product_words (
    account_id BIGINT NOT NULL,
    word TEXT COLLATE "C" NOT NULL,
    product_id BIGINT NOT NULL
);

-- The existing products' words, before the indexes: one sort builds each of them.
INSERT INTO product_words (account_id, word, product_id)
SELECT DISTINCT p.account_id, w.word, p.id
FROM products p CROSS JOIN LATERAL unnest(string_to_array(p.search_text, ' ')) AS w (word)
WHERE w.word <> '';

ALTER TABLE product_words ADD PRIMARY KEY (account_id, word, product_id);
ALTER TABLE product_words ADD FOREIGN KEY (product_id) REFERENCES products (id) ON DELETE CASCADE;
-- A product's words: whether it has a word with a prefix, and the cascade of its delete.
CREATE INDEX product_words_product_idx ON product_words (product_id, word);

-- The words follow products.search_text in the statement that writes it (every write of
-- the searchable text goes through that column, as SQLite's full-text triggers rely on).
-- Inserts are handled per statement, so that a bulk load inserts its words at once.
CREATE FUNCTION product_words_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO product_words (account_id, word, product_id)
    SELECT DISTINCT n.account_id, w.word, n.id
    FROM inserted n CROSS JOIN LATERAL unnest(string_to_array(n.search_text, ' ')) AS w (word)
    WHERE w.word <> '';
    RETURN NULL;
END
$$;
CREATE TRIGGER products_words_insert AFTER INSERT ON products
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION product_words_insert();

CREATE FUNCTION product_words_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM product_words WHERE product_id = OLD.id;
    INSERT INTO product_words (account_id, word, product_id)
    SELECT DISTINCT NEW.account_id, w.word, NEW.id
    FROM unnest(string_to_array(NEW.search_text, ' ')) AS w (word)
    WHERE w.word <> '';
    RETURN NULL;
END
$$;
CREATE TRIGGER products_words_update AFTER UPDATE OF search_text ON products
    FOR EACH ROW WHEN (OLD.search_text IS DISTINCT FROM NEW.search_text)
    EXECUTE FUNCTION product_words_update();

DROP INDEX products_search_idx;
ALTER TABLE products DROP COLUMN search_vector;
