-- Which accounts' data changed: each account's commits counted, so that a conditional read
-- learns whether what it showed can have changed with one small read instead of reading it
-- again (the API's revalidation shortcut). Statement triggers on every table that holds an
-- account's data (storage::changes::TABLES names them; a test holds both lists together)
-- add one to the account's count in the committing session's shard: sessions writing the
-- same account at once mostly bump different rows, so they do not queue on one. A reader
-- sums the shards; the sum only grows, and a commit makes its part visible at once.

CREATE TABLE account_versions (
    account_id BIGINT NOT NULL,
    shard SMALLINT NOT NULL,
    version BIGINT NOT NULL,
    PRIMARY KEY (account_id, shard)
);

-- Each table's triggers run a function of their own with a static statement over the
-- statement's transition table: PostgreSQL prepares it once per session, where one shared
-- function would plan a dynamic statement at every firing.
DO $$
DECLARE
    t RECORD;
    account_of TEXT;
    accounts TEXT;
    event TEXT;
BEGIN
    FOR t IN SELECT * FROM (VALUES
        ('accounts', 'id', NULL),
        ('users', 'account_id', NULL),
        ('sellers', 'account_id', NULL),
        ('shops', 'account_id', NULL),
        ('oauth_apps', 'account_id', NULL),
        ('product_types', 'account_id', NULL),
        ('products', 'account_id', NULL),
        ('seller_product_counts', 'account_id', NULL),
        ('product_shops', 'product_id', 'products'),
        ('product_tags', 'account_id', NULL),
        ('variants', 'account_id', NULL),
        ('product_assets', 'account_id', NULL),
        ('product_asset_data', 'asset_id', 'product_assets'),
        ('collections', 'account_id', NULL),
        ('collection_products', 'collection_id', 'collections'),
        ('price_lists', 'account_id', NULL),
        ('price_list_items', 'price_list_id', 'price_lists'),
        ('webhooks', 'account_id', NULL),
        ('orders', 'account_id', NULL),
        ('order_lines', 'order_id', 'orders')
    ) AS tables (name, by_column, parent) LOOP
        -- %1$s: the transition table.
        IF t.parent IS NULL THEN
            account_of := format('SELECT %I AS account_id FROM %%1$s', t.by_column);
        ELSE
            account_of := format(
                'SELECT p.account_id FROM %%1$s c JOIN %I p ON p.id = c.%I',
                t.parent, t.by_column);
        END IF;
        FOREACH event IN ARRAY ARRAY['insert', 'delete', 'update'] LOOP
            accounts := CASE event
                WHEN 'insert' THEN format(account_of, 'new_rows')
                WHEN 'delete' THEN format(account_of, 'old_rows')
                ELSE format(account_of, 'old_rows') || ' UNION ' || format(account_of, 'new_rows')
            END;
            EXECUTE format(
                'CREATE FUNCTION %I() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN '
                'INSERT INTO account_versions (account_id, shard, version) '
                'SELECT DISTINCT account_id, (pg_backend_pid() %% 16)::smallint, 1 '
                'FROM (%s) changed WHERE account_id IS NOT NULL ORDER BY account_id '
                'ON CONFLICT (account_id, shard) '
                'DO UPDATE SET version = account_versions.version + 1; '
                'RETURN NULL; END $f$',
                t.name || '_' || event || '_noted', accounts);
            EXECUTE format(
                'CREATE TRIGGER %I AFTER %s ON %I REFERENCING %s '
                'FOR EACH STATEMENT EXECUTE FUNCTION %I()',
                t.name || '_' || event || '_noted', upper(event), t.name,
                CASE event
                    WHEN 'insert' THEN 'NEW TABLE AS new_rows'
                    WHEN 'delete' THEN 'OLD TABLE AS old_rows'
                    ELSE 'OLD TABLE AS old_rows NEW TABLE AS new_rows'
                END,
                t.name || '_' || event || '_noted');
        END LOOP;
    END LOOP;
END
$$;
