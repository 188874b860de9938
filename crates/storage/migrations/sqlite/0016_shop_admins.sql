-- Shop admins: the account's users who manage each shop, with a role (the account roles'
-- vocabulary), invited until they accept. A user appears at most once per shop. The
-- codes that invite a new user in are mailed once and kept only as their SHA-256.

CREATE TABLE shop_admins (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id),
    shop_id INTEGER NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'staff', 'readonly')),
    invited_on INTEGER NOT NULL,
    -- NULL until the invited user accepts (status invited, then active).
    accepted_on INTEGER,
    created_on INTEGER NOT NULL,
    updated_on INTEGER NOT NULL
);
CREATE UNIQUE INDEX shop_admins_user_key ON shop_admins (shop_id, user_id);
CREATE INDEX shop_admins_shop_idx ON shop_admins (shop_id, id);
CREATE INDEX shop_admins_shop_role_idx ON shop_admins (shop_id, role, id);
CREATE INDEX shop_admins_shop_accepted_idx ON shop_admins (shop_id, accepted_on, id);
CREATE INDEX shop_admins_shop_created_idx ON shop_admins (shop_id, created_on, id);
CREATE INDEX shop_admins_user_idx ON shop_admins (user_id, accepted_on);

CREATE TABLE shop_admin_invitations (
    -- SHA-256 of the code mailed to the invited user.
    digest BLOB PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    account_id INTEGER NOT NULL,
    created_on INTEGER NOT NULL,
    expires_on INTEGER NOT NULL,
    used_on INTEGER
);
CREATE INDEX shop_admin_invitations_user_idx ON shop_admin_invitations (user_id);

-- Every shop so far is owned by its account's owners, as if each had made it.
INSERT INTO shop_admins (account_id, shop_id, user_id, role, invited_on, accepted_on, created_on, updated_on)
SELECT account_id, shop_id, user_id, 'owner', since, since, since, since
FROM (
    SELECT s.account_id AS account_id, s.id AS shop_id, u.id AS user_id,
           CASE WHEN u.created_on > s.created_on THEN u.created_on ELSE s.created_on END AS since
    FROM shops s
    JOIN users u ON u.account_id = s.account_id AND u.role = 'owner'
) AS owners
ORDER BY shop_id, user_id;
