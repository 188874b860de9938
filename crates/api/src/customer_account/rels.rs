//! The signed-in customer's link relations: what a customer session may do.

crate::rels::define_rels! {
    ACCOUNT_SIGN_IN = ("account", "sign_in", Post, "Sign a customer in",
        "Body: email, password. A storefront app's token (public scope) signs one of the shop's seller's \
         customers in: 201 with access_token (a bearer token for the customer's own routes only), token_type, \
         expires_in and customer_id. A wrong or unknown email or password, a customer with no password yet \
         and a disabled customer are all answered alike: 400 invalid_credentials. Repeated failures for an \
         email or from an address are throttled (429 with Retry-After).");
    ACCOUNT_RESET_PASSWORD = ("account", "reset_password", Post, "Ask for a password reset",
        "Body: email. A storefront app's token (public scope) asks for a reset of the password of the shop's \
         seller's customer with this email; answered 202 whether or not there is one. A customer who may sign \
         in is mailed a single-use code, valid for one hour (kept only as its digest). Three requests per \
         email and twenty per address within 15 minutes, then 429 with Retry-After.");
    ACCOUNT_NEW_PASSWORD = ("account", "new_password", Put, "Set a new password with a reset code",
        "Body: reset_token (the mailed code), password (at least 10 characters). 204; the code is used up, \
         the customer's other codes are void, every session of theirs ends, and an invited customer becomes \
         active. An unknown, used or expired code is a 422 on reset_token.");
    ACCOUNT_CUSTOMER = ("account", "customer", Get, "The signed-in customer",
        "The customer whose session the token is, with their addresses and order figures. Needs a customer \
         session's token.");
    ACCOUNT_UPDATE = ("account", "update", Put, "Update your profile",
        "Changes name, first_name, last_name, phone_number, company, opt_in and the default address ids; the \
         email, status, tags and note are the shop's to change (422). Needs a customer session's token.");
    ACCOUNT_PASSWORD = ("account", "password", Put, "Change your password",
        "Body: current_password, password (at least 10 characters). Ends every other session of the \
         customer; this one stays. A wrong current password is a 422 on current_password (and counts \
         towards the sign-in throttle). Needs a customer session's token.");
    ACCOUNT_ADDRESSES = ("account", "addresses", Get, "Your addresses",
        "The signed-in customer's addresses. Needs a customer session's token.");
    ACCOUNT_CREATE_ADDRESS = ("account", "create_address", Post, "Add an address",
        "As customers:create_address, for the signed-in customer. Needs a customer session's token.");
    ACCOUNT_ADDRESS = ("account", "address", Get, "One of your addresses",
        "As customers:address. Needs a customer session's token.");
    ACCOUNT_UPDATE_ADDRESS = ("account", "update_address", Put, "Update one of your addresses",
        "As customers:update_address. Needs a customer session's token.");
    ACCOUNT_DELETE_ADDRESS = ("account", "delete_address", Delete, "Delete one of your addresses",
        "As customers:delete_address. Needs a customer session's token.");
    ACCOUNT_ORDERS = ("account", "orders", Get, "Your orders",
        "The signed-in customer's orders, with the parameters of orders:orders. Needs a customer session's \
         token.");
    ACCOUNT_ORDER = ("account", "order", Get, "One of your orders",
        "One order of the signed-in customer, with its lines. Needs a customer session's token.");
    ACCOUNT_SIGN_OUT = ("account", "sign_out", Delete, "Sign out",
        "Ends this session: its token is refused from then on. Needs a customer session's token.");
}
