-- A JWT-bearer renewal chain: a token renewed from another names the chain's first token
-- (its jti) in `chain_id`, which is NULL on a token renewed from none. Renewal follows a
-- chain to its newest token, so that a client presenting an older one renews that.
ALTER TABLE access_tokens ADD COLUMN chain_id TEXT;
CREATE INDEX access_tokens_chain_idx ON access_tokens (chain_id) WHERE chain_id IS NOT NULL;
