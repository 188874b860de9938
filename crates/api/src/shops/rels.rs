//! The shops area's link relations, each building its links and its docs page.

crate::rels::define_rels! {
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
}
