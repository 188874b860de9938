//! An order's payments' link relations (in the orders namespace), each building its links
//! and its docs page.

crate::rels::define_rels! {
    ORDERS_PAYMENTS = ("orders", "payments", Get, "Payments of the order",
        "Every payment attempt of the order, oldest first, as a paginated list: charges whatever their outcome \
         and the refunds that return them. Parameters: sort (id.asc or id.desc), page, per_page. Needs \
         orders.read.");
    ORDERS_PAYMENT = ("orders", "payment", Get, "Payment",
        "One payment attempt of an order: kind (charge or refund; a refund names the charge it returns in \
         charge_id), payment_method_id and method {type, name} (a copy: the method may be deleted since), \
         amount and currency_code (the order's), status (pending: waiting for the gateway; approved; \
         declined; failed: the gateway failed or its answer was lost, nothing was charged; recorded: a refund \
         of a manual payment, owed by the merchant), reference (the gateway's, or the merchant's for a \
         manual payment), card {brand, last4} or null (card numbers are never kept), failure_code and \
         failure_message, created_on, updated_on. Needs orders.read.");
    ORDERS_CREATE_PAYMENT = ("orders", "create_payment", Post, "Pay the order",
        "Charges a placed, closed or shipped order through the payment method it names. Body: amount (minor \
         units, 1 to what is outstanding; default: all of it), card {number, exp_month, exp_year, cvc} for a \
         method that takes cards (the test gateway: 4242424242424242 approves, 4000000000000002 and \
         4000000000009995 are declined, 4000000000000119 fails), reference for a manual method (bank \
         transfer, cash on delivery: the merchant records money received; no card). Every attempt is \
         recorded and records orders.payments.created. Answers 201 with an approved payment; 402 \
         payment_declined or 502 gateway_error with the recorded attempt embedded under payment; 409 \
         payment_in_progress (with Retry-After) while another charge holds the amount. Paying the total \
         closes a placed order (orders.updated.closed). Concurrent requests charge the order once. Honours \
         Idempotency-Key. Needs orders.write.");
}
