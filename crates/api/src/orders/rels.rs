//! The orders area's link relations, each building its links and its docs page.

crate::rels::define_rels! {
    ORDERS_ORDERS = ("orders", "orders", Get, "Orders",
        "The orders of the account's shops, newest first, as a paginated list; each with its lines embedded. \
         Parameters: status (checkout, placed, closed, shipped, cancelled; pending and invalid are accepted for \
         placed and cancelled; comma-separated), shop_ids, code (comma-separated), contact_id, product_id \
         (orders with a line of one of these products), payment_method (test_gateway, bank_transfer, \
         cash_on_delivery; comma-separated), payment_method_id (comma-separated), total.gte/.lte, \
         net_total.gte/.lte, shipping_total.gte/.lte, discount_total.gte/.lte (minor units), created_on.gte/.lte and updated_on.gte/.lte (RFC 3339 or YYYY-MM-DD), sort (id, code, total, \
         created_on, updated_on, each .asc or .desc; default id.desc), page, per_page (1 to 200, default 20). \
         Needs orders.read.");
    ORDERS_ORDER = ("orders", "order", Get, "Order",
        "One order: shop_id, code (sequential per shop from 1001, as a string), status (checkout, placed, \
         closed, shipped or cancelled), currency_code (the shop's, or another the shop has an exchange rate \
         to: exchange_rate then holds from_currency, to_currency and the rate the prices were converted \
         with), shipping_table_id and shipping_description (the shipping table that priced the shipping, \
         and its name then), weight_in_grams (the lines' weight), email, contact_name, phone_number, \
         shipping_address and billing_address (name, company, street, street_2, locality, region, \
         postal_code, country_code, phone_number), note, amounts in minor units (net_total: the lines' \
         totals; discount_total and tax_total: 0, as prices include taxes and price lists set the unit \
         price itself; shipping_total; total = net_total + shipping_total \
         + tax_total - discount_total), tracking_code, courier_name, tracking_url, app_id (the app that \
         created it), payment_method_id and payment_info {name, type} (the payment method chosen, as it \
         was then), paid_total (approved charges), refunded_total, outstanding (what the buyer still owes; 0 \
         once cancelled), created_on, updated_on and the time it was placed_on, closed_on, shipped_on and \
         cancelled_on; a renewal order names the subscription_purchase_id it bills and the cycle's date \
         (renewal_on, YYYY-MM-DD), else both are null. Its lines are embedded under lines, each a snapshot taken when the line was written \
         (product_id, variant_id, title, variant_title, sku, unit_price, quantity, subscription_fee_id, \
         setup_fee, line_total = unit_price × quantity + setup_fee): later catalog changes do not change \
         them. Needs orders.read.");
    ORDERS_CREATE_ORDER = ("orders", "create_order", Post, "Create an order",
        "Creates an order in checkout in this shop. Body: lines (required: [{variant_id, quantity (default \
         1, up to 10^9), subscription_fee_id (optional: one of the variant's subscription fees, chosen to \
         subscribe; its setup_fee is charged once on the line, and paying the order in full opens a \
         subscription purchase for the line; a variant whose fees all refuse allow_non_recurring_payment \
         must name one)}], 1 to 250 lines, each variant once; variants of the shop's seller whose product \
         is available in the shop and priced in its currency), email, contact_name, phone_number, \
         shipping_address, billing_address, note, shipping_table_id (an enabled shipping table of the shop \
         that ships to the shipping address and has a rate for the order's weight or net total) or \
         shipping_total (set by hand, minor units of the order's currency, default 0), currency_code (the \
         shop's by default; another needs the shop's exchange rate to it, and each unit price and the \
         shipping are converted once, rounded half up to the currency's minor unit), payment_method_id (an \
         enabled payment method of the shop; else 422). Each line's \
         unit price is what the seller's price lists give a buyer of that quantity now (see \
         price_lists:prices), else the variant's price. Any problem answers 422 naming each field (as \
         lines[i].variant_id) and writes nothing. Answers 201 and records orders.created.checkout. Honours \
         Idempotency-Key. Needs orders.write.");
    ORDERS_UPDATE = ("orders", "update", Put, "Update the order",
        "In checkout: any of lines (replaces them all, priced again), email, contact_name, phone_number, \
         shipping_address, billing_address, note, shipping_table_id (null: shipping by hand), \
         shipping_total (only without a table), currency_code (null: the shop's) and payment_method_id (an \
         enabled method of the shop, or null); the cart is priced again when its lines, buyer, shipping, \
         address or currency change. In any other status only email, \
         contact_name, phone_number and note may change; the other fields answer 422. null clears an \
         optional field. The status changes only through the order's move links. Honours If-Match. \
         Records orders.updated when something changed. Needs orders.write.");
    ORDERS_DELETE = ("orders", "delete", Delete, "Delete the order",
        "Deletes an order still in checkout (422 otherwise: cancel it instead). Answers with the deleted \
         order and records orders.deleted, whose item_slug is the code. Honours If-Match. Needs orders.write.");
    ORDERS_PLACE = ("orders", "place", Put, "Place the order",
        "checkout → placed. Prices the order once more with the catalog, its shipping table and the \
         exchange rate as they are now (a table or rate gone since is a 422 on shipping_table_id or \
         currency_code); after this its amounts never change. Takes each line's quantity from its variant's stock in one atomic step per \
         variant: if any variant not sold on backorder has too little stock (or is gone), answers 422 naming \
         lines[i].quantity (or lines[i].variant_id) and nothing changes. Sets placed_on and records \
         orders.updated.placed. No body. Honours If-Match. Needs orders.write.");
    ORDERS_CLOSE = ("orders", "close", Put, "Close the order",
        "placed → closed (paid or confirmed). Sets closed_on and records orders.updated.closed. No body. \
         Honours If-Match. Needs orders.write.");
    ORDERS_SHIP = ("orders", "ship", Put, "Ship the order",
        "closed → shipped. Body (all optional): tracking_code, courier_name, tracking_url (http or https). \
         Sets shipped_on and records orders.updated.shipped. Honours If-Match. Needs orders.write.");
    ORDERS_TRACKING = ("orders", "tracking", Put, "Set the shipment's tracking",
        "Body: tracking_code, courier_name, tracking_url (http or https), notify (default false). A closed \
         order ships with it (orders.updated.shipped); a shipped one has its tracking changed \
         (orders.updated). With notify, the order's email is mailed the shipment and its tracking (422 on \
         notify when the order has no email). Any other status is a 422 on status. Honours If-Match. Needs \
         orders.write.");
    ORDERS_CANCEL = ("orders", "cancel", Put, "Cancel the order",
        "checkout, placed or closed → cancelled; a shipped order cannot be cancelled (422 on status). The \
         stock a placed order took goes back to its variants (those since deleted excepted). Each approved \
         payment is refunded (a refund payment per charge, recorded orders.refunds.created): through the \
         gateway before the answer (retried later if the gateway fails), or recorded as owed by the \
         merchant for a manual method. Sets cancelled_on and records orders.updated.cancelled. No body. Honours If-Match. Needs orders.write.");
}
