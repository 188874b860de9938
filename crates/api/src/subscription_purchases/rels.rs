//! The subscription purchases' link relations, in the subscriptions namespace.

crate::rels::define_rels! {
    SUBSCRIPTIONS_SUBSCRIPTION_PURCHASES = ("subscriptions", "subscription_purchases", Get,
        "Subscription purchases",
        "The account's subscription purchases, as a paginated list. Parameters: state (active, paused, \
         cancelled, finished, failed; comma-separated), shop_id, contact_id, product_id, \
         subscription_fee_id (ids, comma-separated), next_payment_on.gte/.lte (YYYY-MM-DD), \
         created_on.gte/.lte and updated_on.gte/.lte (RFC 3339 or YYYY-MM-DD), sort (id, \
         next_payment_on, created_on, updated_on, each .asc or .desc), page, per_page (1 to 200, default \
         50). Needs orders.read.");
    SUBSCRIPTIONS_SUBSCRIPTION_PURCHASE = ("subscriptions", "subscription_purchase", Get,
        "Subscription purchase",
        "A customer's subscription, opened when an order with a recurring line (one naming a \
         subscription_fee_id of its variant) is paid in full: one purchase per line. It copies its fee's \
         terms as they were then: payment_interval, payment_day (an ISO weekday for 1_week, else a day \
         of the month, clamped to the month's last day) and total_renewal_fee (minor units of \
         currency_code a cycle charges: units × the fee's renewal price, in the order's currency). \
         Renewals bill in advance: the opening order paid the first interval and the setup fee \
         (paid_setup_fee), so start_date and last_payment_on are the day it opened and next_payment_on \
         follows from on_first_renewal. total_payments counts payments made (the opening order's \
         included); remaining_payments counts renewals still to charge, 0 on an active purchase being \
         unlimited. state: active (renewed on its dates), paused (paused_by admin, customer or system, \
         since last_pause_at), cancelled, finished (no payment remains), failed (renewals failed too \
         often). renewal_discount: a percentage (0 to 100, two decimals) taken off the next \
         discount_num_charges renewals; payments_to_skip: renewals to pass without a charge. retry_on: \
         when a failed renewal is tried again (null otherwise). end_date and cancel_at are dates or null. \
         Dates are YYYY-MM-DD days in UTC. Needs orders.read.");
    SUBSCRIPTIONS_UPDATE_SUBSCRIPTION_PURCHASE = ("subscriptions", "update_subscription_purchase", Put,
        "Update the subscription purchase",
        "Writable fields, exactly: state, next_payment_on, total_renewal_fee, remaining_payments, \
         subscription_fee_id, cancel_at, payments_to_skip, paused_by, last_pause_at, renewal_discount, \
         discount_num_charges, end_date. Any other field, or a body with none of them, is a 422 naming it \
         (body for an empty one). state moves the purchase: paused (from active; paused_by admin, customer \
         or system, default admin; last_pause_at default now; records subscriptions.purchases.paused), \
         active (from paused: with the fee's extend_on_reenable the next payment, a retry and end_date \
         move by the days paused, else renewals that fell in the pause are passed and it renews on its \
         next date from today; from failed: reactivated, its failed cycle billed again on the next run; \
         records subscriptions.purchases.resumed), cancelled (now: end_date today unless given; records \
         subscriptions.purchases.cancelled). finished and failed are reached by renewals only (422), as \
         is any value that is not a state. A cancel that would stop the next payment (state cancelled, or \
         cancel_at on or before next_payment_on) is refused when fewer than the fee's \
         min_days_for_cancellation days remain before that payment. cancel_at (YYYY-MM-DD, today or later, \
         null to drop it) cancels it on that date, before that day's renewal. next_payment_on (today or \
         later) off the purchase's payment day changes that day, which the fee must allow \
         (allow_changing_day); it clears a retry. subscription_fee_id: another fee of the purchase's \
         variant, whose interval and payment day it takes, with its renewal price for the purchase's \
         units (unless total_renewal_fee is given) and the next payment moved onto the new schedule. \
         total_renewal_fee: minor units, 0 to 10^12. remaining_payments, payments_to_skip and \
         discount_num_charges: 0 to 1000. renewal_discount: a percentage, 0 to 100, two decimals at \
         most. paused_by and last_pause_at: on a paused purchase only. end_date: a date or null. A body \
         that changes nothing answers the purchase unchanged and records nothing; others record \
         subscriptions.purchases.updated. Honours If-Match. Needs orders.write.");
}
