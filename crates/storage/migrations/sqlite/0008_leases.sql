-- Singleton background jobs run under a lease: one row per job, naming the node that
-- holds it until `expires_on` (microseconds). A node takes a lease that is free or has
-- run out, renews its own before it does, and deletes it when it stops.
CREATE TABLE leases (
    name TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    acquired_on INTEGER NOT NULL,
    expires_on INTEGER NOT NULL
);
