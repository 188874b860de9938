//! The customers area's link relations, each building its links and its docs page.

crate::rels::define_rels! {
    CUSTOMERS_CUSTOMERS = ("customers", "customers", Get, "Customers",
        "The customers (contacts) of the account's sellers, as a paginated list, each with its addresses. \
         Parameters: q (part of the name, email, phone number or company, any case), email (exact, any \
         case; several comma-separated), tags (any of them, any case), status (active, disabled, invited), \
         seller_ids, created_on.gte/.lte, updated_on.gte/.lte, sort (id, name, email, created_on, updated_on, \
         orders_count, total_spent, each .asc or .desc), page, per_page. Needs customers.read.");
    CUSTOMERS_CUSTOMER = ("customers", "customer", Get, "Customer",
        "One customer of a seller (shared by all its shops): name, first_name, last_name, email (unique per \
         seller in any case), phone_number, company, opt_in, status, tags, note, addresses with the default \
         shipping and billing ones, orders_count (orders placed, closed or shipped), total_spent (closed and \
         shipped orders in currency_code, the seller's currency) and spent_by_currency (every currency's \
         total). Needs customers.read.");
    CUSTOMERS_CREATE_CUSTOMER = ("customers", "create_customer", Post, "Create a customer",
        "Body: seller_id (required when the account has several sellers), name (else \"first last\"), \
         first_name, last_name, email, phone_number, company, opt_in, status, tags, note, addresses (at \
         most 50; the first is the default unless others are marked default_shipping/default_billing). A \
         customer needs an email, a phone number or a name. Answers 201 and records customers.created. Needs \
         customers.write.");
    CUSTOMERS_UPDATE = ("customers", "update", Put, "Update the customer",
        "Changes any field but addresses (see customers:addresses) and seller_id. A name that was made \
         from first_name and last_name follows them when they change; a name given outright stays. \
         default_shipping_address_id and default_billing_address_id name one of the customer's addresses or \
         null. Records customers.updated. Needs customers.write.");
    CUSTOMERS_DELETE = ("customers", "delete", Delete, "Delete the customer",
        "Deletes the customer and its addresses. Its orders stay with their own copy of the contact, no \
         longer linked (contact_id null). Records customers.deleted. Needs customers.write.");
    CUSTOMERS_ORDERS = ("customers", "orders", Get, "Orders of the customer",
        "The order list (see orders:orders: same parameters) narrowed to the customer's orders. Needs \
         customers.read and orders.read.");
    CUSTOMERS_ADDRESSES = ("customers", "addresses", Get, "Addresses of the customer",
        "The customer's addresses, in the order they were added. Needs customers.read.");
    CUSTOMERS_ADDRESS = ("customers", "address", Get, "Customer address",
        "One address of a customer: name, company, street, street_2, locality, region, postal_code, \
         country_code (ISO 3166-1 alpha-2), phone_number, and whether it is the default for shipping or \
         billing. Needs customers.read.");
    CUSTOMERS_CREATE_ADDRESS = ("customers", "create_address", Post, "Add an address",
        "Body: the address parts, default_shipping, default_billing. A customer's first address becomes its \
         default for both; at most 50 addresses. Answers 201 with the address; records customers.updated \
         (with the customer). Needs customers.write.");
    CUSTOMERS_UPDATE_ADDRESS = ("customers", "update_address", Put, "Update the address",
        "Changes address parts (null clears one) and default_shipping/default_billing. Answers the address; \
         records customers.updated (with the customer). Needs customers.write.");
    CUSTOMERS_DELETE_ADDRESS = ("customers", "delete_address", Delete, "Delete the address",
        "Deletes the address; a default it was is left unset. Answers the address as it was; records \
         customers.updated (with the customer). Needs customers.write.");
}
