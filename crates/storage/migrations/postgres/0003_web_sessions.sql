-- Signed-in sessions of the authorization pages (login, consent, developer credentials).
CREATE TABLE web_sessions (
    digest BYTEA PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users (id),
    created_on BIGINT NOT NULL,
    expires_on BIGINT NOT NULL
);
CREATE INDEX web_sessions_expires_idx ON web_sessions (expires_on);
