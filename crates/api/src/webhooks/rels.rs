//! The webhooks area's link relations, each building its links and its docs page.

crate::rels::define_rels! {
    WEBHOOKS_SUBSCRIPTIONS = ("webhooks", "subscriptions", Get, "Subscriptions of the shop",
        "The shop's webhook subscriptions, as a paginated list. Parameters: status (pending, active, \
         failed_activation, failed, disabled; comma-separated), page, per_page (1 to 200, default 50). Needs \
         hub.read.");
    WEBHOOKS_CREATE_SUBSCRIPTION = ("webhooks", "create_subscription", Post, "Subscribe to events",
        "Body: topic (required; see webhooks:topics; a topic covers the topics below it, so orders receives \
         orders.updated.shipped), url (required; http or https, not on a private, loopback or link-local \
         network), notify_origin (default true: false skips events caused by the subscribing app), auth \
         ({type: none or basic, username, password}), ordering (none, or per_resource: deliveries about one \
         resource go out one after another). Answers 201 with status pending and the signing secret \
         (whsec_…, shown this once). The service then POSTs {\"topic\": \"activation\"} with an X-Hook-Ping \
         header; a 2xx answer whose X-Hook-Pong header equals it makes the subscription active, anything else \
         failed_activation. Needs hub.write.");
    WEBHOOKS_DELETE_SUBSCRIPTION = ("webhooks", "delete_subscription", Delete, "Unsubscribe",
        "Deletes the subscription with its delivery history. Needs hub.write.");
    WEBHOOKS_WEBHOOKS = ("webhooks", "webhooks", Get, "Webhooks",
        "Every webhook subscription of the account, as a paginated list. Parameters: status, topic, shop_id \
         (comma-separated), page, per_page. Needs hub.read.");
    WEBHOOKS_WEBHOOK = ("webhooks", "webhook", Get, "Webhook",
        "One subscription by id: channel_id (its shop), topic, url, status, auth (type and username), \
         notify_origin, ordering, app_id, error_count (consecutive failed attempts), last_error, \
         last_error_on. Needs hub.read.");
    WEBHOOKS_CREATE_WEBHOOK = ("webhooks", "create_webhook", Post, "Create a webhook",
        "As webhooks:create_subscription, with the shop named by shop_id in the body. Needs hub.write.");
    WEBHOOKS_UPDATE = ("webhooks", "update", Put, "Update the webhook",
        "Changes any of topic, url, notify_origin, auth and ordering. A new url must consent again: the webhook \
         goes back to pending and is pinged. Honours If-Match. Needs hub.write.");
    WEBHOOKS_DELETE = ("webhooks", "delete", Delete, "Delete the webhook",
        "Deletes the webhook with its delivery history. Needs hub.write.");
    WEBHOOKS_REACTIVATE = ("webhooks", "reactivate", Put, "Reactivate the webhook",
        "A failed or disabled webhook becomes active again with error_count 0; the deliveries kept while it \
         was not active go out. Needs hub.write.");
    WEBHOOKS_DISABLE = ("webhooks", "disable", Put, "Disable the webhook",
        "Stops deliveries by hand. Deliveries already owed, and those of new events, wait (parked: pending \
         with no next_attempt_on) and go out after webhooks:reactivate; beyond the backlog the oldest are \
         skipped. Needs hub.write.");
    WEBHOOKS_ROTATE_SECRET = ("webhooks", "rotate_secret", Post, "Rotate the signing secret",
        "Body: grace_period_seconds (0 to 604800, default 86400). Answers with the new secret, shown this \
         once; until the grace period ends each delivery carries signatures by both secrets. Needs hub.write.");
    WEBHOOKS_DELIVERIES = ("webhooks", "deliveries", Get, "Delivery history",
        "The webhook's deliveries, newest first, each with every attempt (number, trigger, url, status code, \
         duration, error class and message, time). Parameters: status (pending, succeeded, failed, \
         skipped), topic, since (RFC 3339 or YYYY-MM-DD), sort (id.asc or id.desc), page, per_page. Needs \
         hub.read.");
    WEBHOOKS_REDELIVER = ("webhooks", "redeliver", Post, "Send the delivery again",
        "Sends the delivery again at once as a manual attempt, whatever its status. Needs hub.write.");
    WEBHOOKS_REPLAY = ("webhooks", "replay", Post, "Replay failed deliveries",
        "Body: since (required) and until (default now), RFC 3339 or YYYY-MM-DD. Every failed or skipped \
         delivery created in [since, until) is sent again; answers 201 with the replay, whose address shows its progress \
         (pending, succeeded, failed, done). Needs hub.write.");
    WEBHOOKS_TOPICS = ("webhooks", "topics", Get, "Event topics",
        "Every topic a subscription may name. Needs hub.read.");
}
