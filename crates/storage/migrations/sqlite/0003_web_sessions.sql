-- Signed-in sessions of the authorization pages (login, consent, developer credentials).
CREATE TABLE web_sessions (
    digest BLOB PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users (id),
    created_on INTEGER NOT NULL,
    expires_on INTEGER NOT NULL
);
CREATE INDEX web_sessions_expires_idx ON web_sessions (expires_on);
