//! The shop admins' link relations, each building its links and its docs page.

crate::rels::define_rels! {
    SHOPS_ADMINS = ("shops", "admins", Get, "Admins of the shop",
        "The shop's roster: the account's users who manage it, as a paginated list. Parameters: role (owner, \
         admin, staff, readonly; several comma-separated), status (invited or active), sort (id, created_on, \
         email, each .asc or .desc), page, per_page (1 to 200, default 20). Needs shops.read.");
    SHOPS_ADMIN = ("shops", "admin", Get, "Shop admin",
        "One admin of the shop: id, shop_id, user_id, the user's email and name, role (owner, admin, staff or \
         readonly), status (invited until the user accepts the mailed invitation, then active), invited_on, \
         accepted_on (null while invited). Needs shops.read.");
    SHOPS_CREATE_ADMIN = ("shops", "create_admin", Post, "Invite an admin",
        "Body: email (required), role (required: owner, admin, staff or readonly), name (a new user's name). A \
         user of the account joins at once (status active). An address no user has becomes a new user of the \
         account (with the shop role as account role, but admin for owner: a shop invitation never makes an \
         account owner) and is mailed a link to the invitation page, where they choose their password within \
         7 days (status invited until then). An address already on the roster, or one that cannot be invited \
         (another account's user, say), is a 422 on email. Only owners make owners. Answers 201 and records \
         shops.admins.created. Needs shops.write, and a user must own the account or be an active owner or \
         admin of the shop (else 403 role_forbidden).");
    SHOPS_UPDATE_ADMIN = ("shops", "update_admin", Put, "Change the admin's role",
        "Body: role. Only owners make or unmake owners, and the shop's last active owner cannot be demoted \
         (422 on role). Honours If-Match. Records shops.admins.updated when the role changed. Needs \
         shops.write and a user who manages the shop (else 403 role_forbidden).");
    SHOPS_DELETE_ADMIN = ("shops", "delete_admin", Delete, "Remove the admin",
        "Takes the admin off the shop's roster; their user stays in the account (a pending invitation can no \
         longer be accepted once it was the user's last). The shop's last active owner cannot be removed (422 \
         on role). Answers the admin as it was; honours If-Match; records shops.admins.deleted. Needs \
         shops.write and a user who manages the shop (else 403 role_forbidden).");
}
