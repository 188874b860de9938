-- PostgreSQL moves product search to a words table walked in product order (its 0011).
-- SQLite's FTS5 index (product_search, 0004) already yields a word's matches in rowid
-- order, so that a count or a page stops after the rows it needs: nothing changes here.
SELECT 1;
