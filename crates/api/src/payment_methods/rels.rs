//! The payment methods' link relations (in the shops namespace: they are shop settings),
//! each building its links and its docs page.

crate::rels::define_rels! {
    SHOPS_PAYMENT_METHODS = ("shops", "payment_methods", Get, "Payment methods of the shop",
        "The shop's payment methods in their order (position, then id), as a paginated list. Parameters: \
         sort (position or id, each .asc or .desc; default position.asc), page, per_page. Needs shops.read.");
    SHOPS_PAYMENT_METHOD = ("shops", "payment_method", Get, "Payment method",
        "One payment method of a shop: type (test_gateway, bank_transfer or cash_on_delivery), name, \
         instructions (what buyers are told), enabled (whether new orders may name it), position, settings \
         (the public settings its type declares: test_gateway publishable_key and latency_ms; bank_transfer \
         bank_name, account_holder, account_number, iban and bic; cash_on_delivery none) and secrets_set (the \
         secret settings that are set, e.g. secret_key: their values are never shown). Needs shops.read.");
    SHOPS_CREATE_PAYMENT_METHOD = ("shops", "create_payment_method", Post, "Add a payment method",
        "Body: type (required), name (default: the type's name), instructions, enabled (default true), \
         position (1 to 10^6; default after the last), settings (the keys the type declares, as strings; any \
         other key is a 422 on settings.<key>; secret keys are sealed at rest and never shown). At most 50 \
         methods per shop. Answers 201 and records shops.payment_methods.created. Needs shops.write.");
    SHOPS_UPDATE_PAYMENT_METHOD = ("shops", "update_payment_method", Put, "Update the payment method",
        "Changes name, instructions, enabled, position and settings; the type never changes (422). settings \
         merge into the current ones: a key given is set (a blank string or null unsets it), a key not given \
         stays, secret ones included; settings: null unsets them all. Honours If-Match. Records \
         shops.payment_methods.updated when something changed. Needs shops.write.");
    SHOPS_DELETE_PAYMENT_METHOD = ("shops", "delete_payment_method", Delete, "Delete the payment method",
        "Deletes the method; answers it as it was and records shops.payment_methods.deleted. Orders that \
         named it keep their copy of its type and name (payment_info), and take no new payment through it. \
         Honours If-Match. Needs shops.write.");
}
