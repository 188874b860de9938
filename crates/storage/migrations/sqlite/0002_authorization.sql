-- The authorization service: encrypted client secrets, refresh-token families,
-- authorization codes, personal access tokens, revocation, sign-in throttling.

ALTER TABLE oauth_apps ADD COLUMN client_secret_ciphertext BLOB;
ALTER TABLE oauth_apps ADD COLUMN system_role TEXT;
ALTER TABLE oauth_apps ADD COLUMN public INTEGER NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX oauth_apps_system_role_key ON oauth_apps (system_role);

ALTER TABLE access_tokens ADD COLUMN kind TEXT NOT NULL DEFAULT 'access' CHECK (kind IN ('access', 'personal'));
ALTER TABLE access_tokens ADD COLUMN name TEXT;
ALTER TABLE access_tokens ADD COLUMN token_digest BLOB;
ALTER TABLE access_tokens ADD COLUMN family_id TEXT;
ALTER TABLE access_tokens ADD COLUMN renewed_on INTEGER;
ALTER TABLE access_tokens ADD COLUMN last_used_on INTEGER;
CREATE INDEX access_tokens_revoked_idx ON access_tokens (revoked_on) WHERE revoked_on IS NOT NULL;
CREATE INDEX access_tokens_family_idx ON access_tokens (family_id) WHERE family_id IS NOT NULL;
CREATE INDEX access_tokens_personal_idx ON access_tokens (user_id, kind, id);

CREATE TABLE refresh_tokens (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    digest BLOB NOT NULL,
    family_id TEXT NOT NULL,
    app_id INTEGER NOT NULL REFERENCES oauth_apps (id),
    user_id INTEGER NOT NULL REFERENCES users (id),
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    seller_id INTEGER REFERENCES sellers (id),
    scopes TEXT NOT NULL,
    created_on INTEGER NOT NULL,
    expires_on INTEGER NOT NULL,
    used_on INTEGER,
    revoked_on INTEGER
);
CREATE UNIQUE INDEX refresh_tokens_digest_key ON refresh_tokens (digest);
CREATE INDEX refresh_tokens_family_idx ON refresh_tokens (family_id);

CREATE TABLE authorization_codes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    digest BLOB NOT NULL,
    family_id TEXT NOT NULL,
    app_id INTEGER NOT NULL REFERENCES oauth_apps (id),
    user_id INTEGER NOT NULL REFERENCES users (id),
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    seller_id INTEGER REFERENCES sellers (id),
    scopes TEXT NOT NULL,
    redirect_uri TEXT NOT NULL,
    redirect_uri_given INTEGER NOT NULL,
    code_challenge TEXT,
    created_on INTEGER NOT NULL,
    expires_on INTEGER NOT NULL,
    used_on INTEGER
);
CREATE UNIQUE INDEX authorization_codes_digest_key ON authorization_codes (digest);

CREATE TABLE sign_in_failures (
    key TEXT PRIMARY KEY,
    failures INTEGER NOT NULL,
    window_started INTEGER NOT NULL,
    locked_until INTEGER
);

CREATE TABLE settings (
    name TEXT PRIMARY KEY,
    value BLOB NOT NULL
);
