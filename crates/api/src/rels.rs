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
         state (active, expired, revoked), created_on, expires_on, last_used_on. Needs a token issued to a user.");
    ROOT_CREATE_PERSONAL_ACCESS_TOKEN = ("root", "create_personal_access_token", Post, "Create a personal access token",
        "Body: name, expires (30d, 90d, 1y or never) and scopes (comma-separated, within the user's role and the \
         scopes of the token making the request). Answers 201 with the token's value in `token`, shown this once.");
    ROOT_REVOKE = ("root", "revoke", Delete, "Revoke the token",
        "Revokes the personal access token at once on every node; answers with the revoked token.");
    ROOT_APPS = ("root", "apps", Get, "OAuth apps",
        "The OAuth apps registered by the account: name, client_id, redirect_uris, scopes, grants, public.");
    ROOT_CREATE_APP = ("root", "create_app", Post, "Register an OAuth app",
        "Owners and admins only. Body: name, redirect_uris (absolute, no fragment), scopes (comma-separated), grants \
         (authorization_code, refresh_token, implicit, client_credentials, urn:ietf:params:oauth:grant-type:jwt-bearer) \
         and public (true for browser and native apps, which get no secret and must use PKCE). Answers 201 with the \
         client_secret, shown this once.");
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
}

#[cfg(test)]
mod tests {
    #[test]
    fn registry_is_consistent() {
        super::REGISTRY.check().unwrap();
    }
}
