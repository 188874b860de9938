-- PostgreSQL counts each account's commits in a table its triggers keep (its 0012), so that
-- a conditional read can learn whether the account's data changed with one small read.
-- SQLite's one writer connection tells the serving process directly (temporary triggers
-- and its update hook: storage::changes): nothing changes here.
SELECT 1;
