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
}
