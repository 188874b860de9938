//! Every link relation the API emits. Each definition builds its links and its curie
//! documentation page at `{public_url}/docs/rels/{namespace}/{rel}`.

use hal::{Method, RelDef, RelRegistry};

macro_rules! rels {
    ($($ident:ident = ($ns:literal, $name:literal, $method:ident, $title:literal, $description:literal);)+) => {
        $(pub static $ident: RelDef = RelDef::new($ns, $name, Method::$method, $title, $description);)+
        pub static REGISTRY: RelRegistry = RelRegistry::new(&[$(&$ident,)+]);
    };
}

rels! {
    ROOT_PERSONAL_ACCESS_TOKENS = ("root", "personal_access_tokens", Get, "Personal access tokens",
        "The personal access tokens of the signed-in user, newest first, without their values: name, scopes, \
         state (active, expired, revoked), created_on, expires_on, last_used_on. Needs a token issued to a user \
         holding credentials.read (or credentials.write); admin does not include it.");
    ROOT_CREATE_PERSONAL_ACCESS_TOKEN = ("root", "create_personal_access_token", Post, "Create a personal access token",
        "Body: name, expires (30d, 90d, 1y or never) and scopes (comma-separated, within the user's role and the \
         scopes of the token making the request). Answers 201 with the token's value in `token`, shown this once. \
         Needs a token issued to a user holding credentials.write; admin does not include it.");
    ROOT_REVOKE = ("root", "revoke", Delete, "Revoke the token",
        "Revokes the personal access token at once on every node; answers with the revoked token. \
         Needs credentials.write; admin does not include it.");
    ROOT_APPS = ("root", "apps", Get, "OAuth apps",
        "The OAuth apps registered by the account: name, client_id, redirect_uris, scopes, grants, public. \
         Needs a token issued to a user holding credentials.read (or credentials.write); admin does not include it.");
    ROOT_CREATE_APP = ("root", "create_app", Post, "Register an OAuth app",
        "Owners and admins only. Body: name, redirect_uris (absolute, no fragment), scopes (comma-separated), grants \
         (authorization_code, refresh_token, implicit, client_credentials, urn:ietf:params:oauth:grant-type:jwt-bearer) \
         and public (true for browser and native apps, which get no secret and must use PKCE). Answers 201 with the \
         client_secret, shown this once. Needs credentials.write (admin does not include it). The scopes may not \
         include credentials.read or credentials.write: only an operator registers an app with those.");
    SELLERS_SELLERS = ("sellers", "sellers", Get, "Sellers",
        "The sellers of the account, as a paginated list. Parameters: q (name or slug contains), \
         created_on.gte/.lte and updated_on.gte/.lte (RFC 3339 or YYYY-MM-DD), sort (id, name, created_on, \
         updated_on, each .asc or .desc), page, per_page (1 to 200, default 20). Needs sellers.read.");
    SELLERS_SELLER = ("sellers", "seller", Get, "Seller",
        "One seller: name, slug, status, default currency and country, with its shops embedded. \
         Needs sellers.read.");
    SELLERS_SHOPS = ("sellers", "shops", Get, "Shops of the seller",
        "The shop list filtered to this seller. Needs shops.read.");
    SHOPS_SHOPS = ("shops", "shops", Get, "Shops",
        "The shops the token may see, as a paginated list. Parameters: q (name or subdomain contains), \
         seller_ids and subdomains (comma-separated), storefront (hosted or headless), created_on.gte/.lte and \
         updated_on.gte/.lte, sort (id, name, created_on, updated_on, each .asc or .desc), page, per_page \
         (1 to 200, default 20). Needs shops.read.");
    SHOPS_SHOP = ("shops", "shop", Get, "Shop",
        "One shop: subdomain, name, description, locale, currency_code, timezone, contact_email and storefront \
         (hosted or headless). Needs shops.read.");
    SHOPS_CREATE_SHOP = ("shops", "create_shop", Post, "Create a shop",
        "Creates a shop for this seller. Body: subdomain (required; 3 to 63 lower-case letters, digits and \
         hyphens, unique across the service), name (required), description, locale (default en), currency_code \
         (default the seller's), timezone (IANA, default UTC), contact_email, storefront (hosted or headless, \
         default hosted). Answers 201 with the shop and records shops.created. Honours Idempotency-Key. \
         Needs shops.write.");
    SHOPS_UPDATE = ("shops", "update", Put, "Update the shop",
        "Changes the shop's settings: any of name, description, locale, currency_code, timezone, contact_email \
         (null clears it) and storefront. The subdomain cannot change. Honours If-Match. Records shops.updated \
         when something changed. Needs shops.write.");
    PRODUCTS_PRODUCTS = ("products", "products", Get, "Products",
        "The products the token may see, as a paginated list. Tokens bound to an account see their sellers' \
         products, visible and hidden; tokens bound to none must name shops in shop_subdomains and see their \
         visible products. Parameters: q (every word must begin a word of the title, description, tags \
         or a SKU), status (visible or hidden), shop_ids and shop_subdomains (available in any of these shops), \
         collections (collection ids), type_ids, tags (any of them, in any case), sku, vendor, price.gte/.lte \
         (minor units, the lowest variant price), created_on.gte/.lte and updated_on.gte/.lte (RFC 3339 or \
         YYYY-MM-DD), sort (id, title, price, created_on, updated_on, each .asc or .desc), page, per_page \
         (1 to 200, default 20). Lists of values are comma-separated. Needs products.read (or public).");
    PRODUCTS_PRODUCT = ("products", "product", Get, "Product",
        "One product: title, slug, description, status, vendor, tags, price and price_comparison (of its \
         lowest-priced variant, in minor units of currency_code), discount_percentage, product type, \
         collection_ids, all_shops and shop_ids, custom_attributes, with its variants and images embedded. \
         Needs products.read (or public, with shop_subdomains).");
    PRODUCTS_CREATE_PRODUCT = ("products", "create_product", Post, "Create a product",
        "Body: title (required), seller_id (required when the account has several sellers), slug (default \
         from the title, unique per seller), description, status (visible or hidden, default hidden), vendor, \
         tags, currency_code (default the seller's), product_type_id or product_type_name (created when new), \
         custom_attributes (an object; checked against the product type's attributes), shop_ids or all_shops \
         (default every shop of the seller), collection_ids (manual collections), and variants (each as in \
         products:create_variant). Without variants the product gets one default variant priced at `price` \
         (and `price_comparison`). Answers 201 and records products.created. Needs products.write.");
    PRODUCTS_UPDATE = ("products", "update", Put, "Update the product",
        "Changes any of title, slug, description, status, vendor, tags, currency_code, product_type_id or \
         product_type_name, custom_attributes, shop_ids or all_shops, collection_ids (manual collections: the \
         product is put in those listed and taken out of the others) and, for a product with one variant, \
         price and price_comparison. null clears an optional field. Variants change through their own links. \
         Honours If-Match. Records products.updated. Needs products.write.");
    PRODUCTS_DELETE = ("products", "delete", Delete, "Delete the product",
        "Deletes the product with its variants and images, and takes it out of its collections and price \
         lists; orders keep what they recorded of it. Answers with the deleted product and records \
         products.deleted. Needs products.write.");
    PRODUCTS_VARIANTS = ("products", "variants", Get, "Variants of the product",
        "The product's variants as a paginated list, by position. Parameters: sort (position or id, .asc or \
         .desc), page, per_page. Needs products.read.");
    PRODUCTS_CREATE_VARIANT = ("products", "create_variant", Post, "Add a variant",
        "Body: title, sku (unique per seller), options (an object of option names and values, e.g. \
         {\"size\": \"M\"}), price (required, minor units), price_comparison, stock (default 0), \
         available_if_no_stock (sell on backorder, default false), weight_in_grams, barcode, position, image_ids \
         (images of the product). Answers 201 and records products.updated.variants.created. Needs \
         products.write.");
    PRODUCTS_ASSETS = ("products", "assets", Get, "Images of the product",
        "The product's images as a paginated list, by position. Needs products.read.");
    PRODUCTS_CREATE_ASSET = ("products", "create_asset", Post, "Upload an image",
        "Either JSON {\"file_name\": \"…\", \"data\": \"<base64>\"} or multipart/form-data with a `file` part. \
         JPEG, PNG, GIF and WebP images are accepted (their type is read from their bytes), up to the \
         configured size (413 beyond). Answers 201 with the image, whose `url` serves the file, and records \
         products.updated.assets.created. Needs products.write.");
    PRODUCTS_DELETE_ASSET = ("products", "delete_asset", Delete, "Delete the image",
        "Deletes the image (and removes it from its variants); answers with it and records \
         products.updated.assets.deleted. Needs products.write.");
    PRODUCTS_COLLECTIONS = ("products", "collections", Get, "Collections of the product",
        "The collections that hold this product. Needs products.read.");
    VARIANTS_UPDATE = ("variants", "update", Put, "Update the variant",
        "Changes any of the fields given at creation; stock sets the absolute level (below zero only for \
         variants sold on backorder). Honours If-Match. Records products.updated.variants.updated. Needs \
         products.write.");
    VARIANTS_DELETE = ("variants", "delete", Delete, "Delete the variant",
        "Deletes the variant and its price list items; a product's last variant cannot be deleted (422). \
         Records products.updated.variants.deleted. Needs products.write.");
    VARIANTS_ADJUST_STOCK = ("variants", "adjust_stock", Post, "Adjust the stock",
        "Body: {\"delta\": n}: adds n (negative to take) to the stock in one atomic step. Taking more than is \
         in stock from a variant not sold on backorder is refused with 422 and changes nothing. Honours \
         Idempotency-Key, so a retried adjustment applies once. Records products.updated.variants.updated. \
         Needs products.write.");
    PRODUCT_TYPES_PRODUCT_TYPES = ("product_types", "product_types", Get, "Product types",
        "The product types of the account's sellers, as a paginated list. Parameters: q (name contains), \
         names (exact, any case), seller_ids, created_on.gte/.lte, updated_on.gte/.lte, sort (id, name, \
         created_on, updated_on, each .asc or .desc), page, per_page. Needs products.read.");
    PRODUCT_TYPES_PRODUCT_TYPE = ("product_types", "product_type", Get, "Product type",
        "One product type: name (unique per seller in any case), attributes (the schema of its products' \
         custom_attributes: name, field_type string, number, boolean or select, required, options) and \
         products_count. Needs products.read.");
    PRODUCT_TYPES_CREATE_PRODUCT_TYPE = ("product_types", "create_product_type", Post, "Create a product type",
        "Body: name (required), seller_id (required when the account has several sellers), attributes. \
         Answers 201 and records product_types.created. Needs products.write.");
    PRODUCT_TYPES_UPDATE = ("product_types", "update", Put, "Update the product type",
        "Changes the name or the attributes. Products are checked against the attributes when they are next \
         written. Records product_types.updated. Needs products.write.");
    PRODUCT_TYPES_DELETE = ("product_types", "delete", Delete, "Delete the product type",
        "Deletes a type no product uses; a type still in use is refused with 422 (move or delete its products \
         first). Records product_types.deleted. Needs products.write.");
    PRODUCT_TYPES_PRODUCTS = ("product_types", "products", Get, "Products of the type",
        "The product list filtered to this type (see products:products).");
    COLLECTIONS_COLLECTIONS = ("collections", "collections", Get, "Collections",
        "The collections of the account's sellers, as a paginated list. Parameters: q (title or slug \
         contains), kind (manual or smart), product_ids (holding any of these products), seller_ids, \
         created_on.gte/.lte, updated_on.gte/.lte, sort (id, title, created_on, updated_on, each .asc or \
         .desc), page, per_page. Needs products.read.");
    COLLECTIONS_COLLECTION = ("collections", "collection", Get, "Collection",
        "One collection: title, slug, description, kind (manual or smart), rules and rule_match (all or any) \
         of a smart collection, sort_order and products_count. Needs products.read.");
    COLLECTIONS_CREATE_COLLECTION = ("collections", "create_collection", Post, "Create a collection",
        "Body: title (required), seller_id (required when the account has several sellers), slug, \
         description, kind (manual, the default, or smart), rules (smart only: each {field: title, tag, \
         vendor, type, price or stock; relation: equals, not_equals, contains, not_contains, starts_with, \
         ends_with, greater_than or less_than as the field allows; value}), rule_match (all or any), \
         sort_order (manual, title.asc/.desc, price.asc/.desc, created_on.asc/.desc). A smart collection holds \
         every product of its seller that meets its rules, kept up to date as products change. Text compares \
         without regard to the case of A to Z; price is the lowest variant price; stock matches when any \
         variant meets the rule. Answers 201 and records collections.created. Needs products.write.");
    COLLECTIONS_UPDATE = ("collections", "update", Put, "Update the collection",
        "Changes any of title, slug, description, rules, rule_match and sort_order (kind cannot change). \
         Honours If-Match. Records collections.updated. Needs products.write.");
    COLLECTIONS_DELETE = ("collections", "delete", Delete, "Delete the collection",
        "Deletes the collection; its products stay. Records collections.deleted. Needs products.write.");
    COLLECTIONS_PRODUCTS = ("collections", "products", Get, "Products of the collection",
        "The collection's products in its sort_order, as a paginated list (page, per_page). Needs \
         products.read.");
    COLLECTIONS_ADD_PRODUCT = ("collections", "add_product", Post, "Add a product",
        "Manual collections only. Body: product_id (required), position (1 is first; default last). Records \
         collections.updated.products.added. Needs products.write.");
    COLLECTIONS_REMOVE_PRODUCT = ("collections", "remove_product", Delete, "Remove a product",
        "Manual collections only: takes the product out of the collection. Records \
         collections.updated.products.removed. Needs products.write.");
    COLLECTIONS_REORDER_PRODUCTS = ("collections", "reorder_products", Put, "Reorder the products",
        "Manual collections only. Body: product_ids (members, at most 1000): they move, in this order, before \
         the other members, whose order stays. Records collections.updated. Needs products.write.");
    PRICE_LISTS_PRICE_LISTS = ("price_lists", "price_lists", Get, "Price lists",
        "The price lists of the account's sellers, as a paginated list. Parameters: q (name contains, in any \
         case), status (draft, active or inactive), kind (override or sale), seller_ids, created_on.gte/.lte \
         and updated_on.gte/.lte (RFC 3339 or YYYY-MM-DD), sort (id, name, priority, created_on, updated_on, \
         each .asc or .desc), page, per_page (1 to 200, default 20). Needs products.read.");
    PRICE_LISTS_PRICE_LIST = ("price_lists", "price_list", Get, "Price list",
        "One price list: name, description, status (draft, active or inactive), kind (override: its prices \
         replace the variants' own; sale: a price applies only where it is lower than the variant's own), \
         currency_code, starts_on and ends_on (RFC 3339; null is an open bound; the list applies from \
         starts_on included to ends_on excluded), priority (higher first; equal priorities, the older list \
         first), contact_ids (empty: every buyer; otherwise only these contacts) and items_count. When \
         several lists apply to a purchase, the first in priority order with a tier for the quantity sets \
         the price; a sale tier not below the variant's price is passed over. Needs products.read.");
    PRICE_LISTS_CREATE_PRICE_LIST = ("price_lists", "create_price_list", Post, "Create a price list",
        "Body: name (required), seller_id (required when the account has several sellers), description, \
         status (default draft), kind (default override), currency_code (ISO 4217; default the seller's \
         default currency), starts_on and ends_on (RFC 3339 date-times or null; ends_on must be after \
         starts_on), priority (integer from -1000000 to 1000000, default 0) and contact_ids (ids of the \
         seller's contacts, at most 1000; empty or absent: every buyer). Customers are not an area of the \
         API yet, so contact ids are stored as given and not checked against any contact. Answers 201 and \
         records price_lists.created. Honours Idempotency-Key. Needs products.write.");
    PRICE_LISTS_UPDATE = ("price_lists", "update", Put, "Update the price list",
        "Changes any of name, description, status, kind, currency_code (only while the list has no items, \
         whose prices are in its currency), starts_on, ends_on, priority and contact_ids; null clears \
         description, the dates and contact_ids. The seller cannot change. Honours If-Match. Records \
         price_lists.updated when something changed. Needs products.write.");
    PRICE_LISTS_DELETE = ("price_lists", "delete", Delete, "Delete the price list",
        "Deletes the list with its items; orders keep the prices they recorded. Answers with the deleted \
         list and records price_lists.deleted. Honours If-Match. Needs products.write.");
    PRICE_LISTS_ITEMS = ("price_lists", "items", Get, "Items of the price list",
        "The list's prices as a paginated list; each item is a tier {variant_id, product_id, min_quantity, \
         price, price_comparison} in minor units of the list's currency_code. Parameters: variant_ids and \
         product_ids (comma-separated), sort (id or product_id, .asc or .desc), page, per_page (1 to 200, \
         default 20). Needs products.read.");
    PRICE_LISTS_UPSERT_ITEMS = ("price_lists", "upsert_items", Put, "Write items",
        "Body: {\"items\": [{\"variant_id\", \"price\", \"price_comparison\" (optional), \"min_quantity\" \
         (optional, default 1)}]}, 1 to 200 items. An item whose variant and min_quantity the list already \
         has sets that tier's prices; any other is added. Variants must be the list's seller's, a batch may \
         name each (variant_id, min_quantity) once, prices are minor units from 0 to 10^18 and min_quantity \
         is from 1 to 10^9. All or nothing: any problem answers 422 naming each one as items[i].field and \
         writes nothing. Answers the list with every item of the batch embedded under items, and records \
         one price_lists.updated.items.upserted embedding the items inserted or changed (none when nothing \
         changed). Honours If-Match against the list. Needs products.write.");
    PRICE_LISTS_DELETE_ITEM = ("price_lists", "delete_item", Delete, "Delete an item",
        "Deletes one item (a variant's tier) of the list; answers with it and records \
         price_lists.updated.items.deleted with the list and the item embedded. Items also go when their \
         variant or product is deleted. Honours If-Match against the item. Needs products.write.");
    PRICE_LISTS_PRICES = ("price_lists", "prices", Get, "Prices the list gives",
        "A preview of what this list alone makes buyers pay. Parameters: variant_ids (required, at most 200, \
         the seller's), quantity (default 1), currency_code (default the seller's default currency), \
         contact_id (the buyer; absent: an anonymous buyer) and at (RFC 3339; default now). Answers \
         applies (whether the list prices this purchase) with reason (status, dates, currency or contact) \
         and reason_message when it does not, and per variant under items: base_price and \
         base_price_comparison (the variant's own), price and price_comparison (what the buyer pays per \
         unit), applied, outcome (applied; no_tier: no tier starts at or below the quantity; not_lower: a \
         sale tier not below the base price; list_not_applicable) and tier (the list's tier for the \
         quantity, the one with the largest min_quantity not above it, whether or not it applied). Uses the \
         same resolution as orders, with this list as the only candidate. Needs products.read.");
    ORDERS_ORDERS = ("orders", "orders", Get, "Orders",
        "The orders of the account's shops, newest first, as a paginated list; each with its lines embedded. \
         Parameters: status (checkout, placed, closed, shipped, cancelled; pending and invalid are accepted for \
         placed and cancelled; comma-separated), shop_ids, code (comma-separated), total.gte/.lte (minor \
         units), created_on.gte/.lte and updated_on.gte/.lte (RFC 3339 or YYYY-MM-DD), sort (id, code, total, \
         created_on, updated_on, each .asc or .desc; default id.desc), page, per_page (1 to 200, default 20). \
         Needs orders.read.");
    ORDERS_ORDER = ("orders", "order", Get, "Order",
        "One order: shop_id, code (sequential per shop from 1001, as a string), status (checkout, placed, \
         closed, shipped or cancelled), currency_code (the shop's), email, contact_name, phone_number, \
         shipping_address and billing_address (name, company, street, street_2, locality, region, \
         postal_code, country_code, phone_number), note, amounts in minor units (net_total: the lines' \
         totals; discount_total and tax_total: 0 for now; shipping_total; total = net_total + shipping_total \
         + tax_total - discount_total), tracking_code, courier_name, tracking_url, app_id (the app that \
         created it), created_on, updated_on and the time it was placed_on, closed_on, shipped_on and \
         cancelled_on. Its lines are embedded under lines, each a snapshot taken when the line was written \
         (product_id, variant_id, title, variant_title, sku, unit_price, quantity, line_total): later \
         catalog changes do not change them. Needs orders.read.");
    ORDERS_CREATE_ORDER = ("orders", "create_order", Post, "Create an order",
        "Creates an order in checkout in this shop. Body: lines (required: [{variant_id, quantity (default \
         1, up to 10^9)}], 1 to 250 lines, each variant once; variants of the shop's seller whose product \
         is available in the shop and priced in its currency), email, contact_name, phone_number, \
         shipping_address, billing_address, note, shipping_total (minor units, default 0). Each line's \
         unit price is what the seller's price lists give a buyer of that quantity now (see \
         price_lists:prices), else the variant's price. Any problem answers 422 naming each field (as \
         lines[i].variant_id) and writes nothing. Answers 201 and records orders.created.checkout. Honours \
         Idempotency-Key. Needs orders.write.");
    ORDERS_UPDATE = ("orders", "update", Put, "Update the order",
        "In checkout: any of lines (replaces them all, priced again), email, contact_name, phone_number, \
         shipping_address, billing_address, note and shipping_total. In any other status only email, \
         contact_name, phone_number and note may change; the other fields answer 422. null clears an \
         optional field. The status changes only through the order's move links. Honours If-Match. \
         Records orders.updated when something changed. Needs orders.write.");
    ORDERS_DELETE = ("orders", "delete", Delete, "Delete the order",
        "Deletes an order still in checkout (422 otherwise: cancel it instead). Answers with the deleted \
         order and records orders.deleted, whose item_slug is the code. Honours If-Match. Needs orders.write.");
    ORDERS_PLACE = ("orders", "place", Put, "Place the order",
        "checkout → placed. Takes each line's quantity from its variant's stock in one atomic step per \
         variant: if any variant not sold on backorder has too little stock (or is gone), answers 422 naming \
         lines[i].quantity (or lines[i].variant_id) and nothing changes. Sets placed_on and records \
         orders.updated.placed. No body. Honours If-Match. Needs orders.write.");
    ORDERS_CLOSE = ("orders", "close", Put, "Close the order",
        "placed → closed (paid or confirmed). Sets closed_on and records orders.updated.closed. No body. \
         Honours If-Match. Needs orders.write.");
    ORDERS_SHIP = ("orders", "ship", Put, "Ship the order",
        "closed → shipped. Body (all optional): tracking_code, courier_name, tracking_url (http or https). \
         Sets shipped_on and records orders.updated.shipped. Honours If-Match. Needs orders.write.");
    ORDERS_CANCEL = ("orders", "cancel", Put, "Cancel the order",
        "checkout, placed or closed → cancelled; a shipped order cannot be cancelled (422 on status). The \
         stock a placed order took goes back to its variants (those since deleted excepted). Sets \
         cancelled_on and records orders.updated.cancelled. No body. Honours If-Match. Needs orders.write.");
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

#[cfg(test)]
mod tests {
    #[test]
    fn registry_is_consistent() {
        super::REGISTRY.check().unwrap();
    }
}
