//! The subscription fees' link relations (in the subscriptions namespace, which purchases
//! will share), each building its links and its docs page.

crate::rels::define_rels! {
    SUBSCRIPTIONS_SUBSCRIPTION_FEES = ("subscriptions", "subscription_fees", Get, "Subscription fees",
        "The subscription fees of the account's sellers, as a paginated list. Parameters: product_id, \
         variant_id, seller_ids (ids, comma-separated), payment_interval (1_week, 1_month, 3_months, \
         6_months, 12_months; comma-separated), created_on.gte/.lte and updated_on.gte/.lte (RFC 3339 or \
         YYYY-MM-DD), sort (id, created_on, updated_on, each .asc or .desc), page, per_page (1 to 200, \
         default 50). Needs products.read.");
    SUBSCRIPTIONS_SUBSCRIPTION_FEE = ("subscriptions", "subscription_fee", Get, "Subscription fee",
        "The recurring terms one variant is sold on. variant_id, product_id (the variant's) and seller_id \
         (the product's) never change. payment_interval: 1_week, 1_month, 3_months, 6_months or 12_months. \
         renewal_fee: minor units charged per unit each cycle, or, with by_percentage true, a percentage \
         (0 to 100) of the variant's price. renewal_fee_price (read-only): what one unit renews for now, in \
         minor units: renewal_fee, or the variant's current price times renewal_fee / 100 rounded half up, \
         so it follows the variant's price. setup_fee: minor units charged once at the start. \
         number_of_payments: renewals the subscription runs for, 0 to 1000, 0 being unlimited. \
         payment_day: for 1_week an ISO weekday (1 = Monday to 7 = Sunday), otherwise a day of the month \
         (1 to 31, to be clamped to the month's last day when billing); null: the day the subscription \
         starts on. allow_non_recurring_payment, allow_changing_day, extend_on_reenable: booleans. \
         min_days_for_cancellation: 0 to 365. on_first_renewal: full (the first renewal charges the full \
         fee one interval after the start), prorate (the first renewal falls on the first payment day \
         after the start and charges the fee in proportion to the days covered) or skip (the first \
         renewal date is not charged; billing starts on the next one). A paid order line naming the \
         fee opens a subscription purchase that copies these terms. Deleting the \
         variant or its product deletes its fees (with no event of their own). Needs products.read.");
    SUBSCRIPTIONS_CREATE_SUBSCRIPTION_FEE = ("subscriptions", "create_subscription_fee", Post,
        "Create a subscription fee",
        "Body: variant_id, payment_interval and renewal_fee (required); product_id (optional; when given it \
         must be the variant's product, else 422); by_percentage, allow_non_recurring_payment, \
         allow_changing_day, extend_on_reenable (default false); setup_fee, number_of_payments, \
         min_days_for_cancellation (default 0); payment_day (default null); on_first_renewal (default \
         full). A variant_id that names none of the account's variants is a 422 on variant_id. Every \
         problem answers 422 naming each field. Answers 201 and records subscriptions.fees.created. Needs \
         products.write.");
    SUBSCRIPTIONS_UPDATE_SUBSCRIPTION_FEE = ("subscriptions", "update_subscription_fee", Put,
        "Update the subscription fee",
        "Changes any of payment_interval, renewal_fee, setup_fee, number_of_payments, payment_day (null: \
         the start date's day), by_percentage, allow_non_recurring_payment, min_days_for_cancellation, \
         allow_changing_day, extend_on_reenable and on_first_renewal; the fee is checked whole again, so a \
         new payment_interval re-checks the current payment_day against its range. variant_id, product_id \
         and seller_id cannot be changed (422). update_purchases_fees: true also applies the fee's terms \
         (even unchanged ones) to its active purchases in the same transaction, each recording \
         subscriptions.purchases.updated when it changes: the interval and payment day (the next payment \
         moved onto the new schedule), total_renewal_fee (units × renewal_fee_price), and, for a limited \
         number_of_payments, the payments left (at least the one due); paused, cancelled, finished and \
         failed purchases are left as they are. notify_purchases: true (with update_purchases_fees) mails \
         each buyer whose purchase changed its new terms. A body that changes nothing (an empty one too) \
         answers the fee unchanged and records nothing. Honours If-Match. Records \
         subscriptions.fees.updated. Needs products.write.");
    SUBSCRIPTIONS_DELETE_SUBSCRIPTION_FEE = ("subscriptions", "delete_subscription_fee", Delete,
        "Delete the subscription fee",
        "Deletes the fee. A fee used by a purchase that may still renew (active, paused or failed) is \
         refused with a 422 on id; purchases that ended keep their copy of its terms. Honours If-Match. Records subscriptions.fees.deleted. Needs products.write.");
}
