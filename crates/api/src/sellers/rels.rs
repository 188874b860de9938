//! The sellers area's link relations, each building its links and its docs page.

crate::rels::define_rels! {
    SELLERS_SELLERS = ("sellers", "sellers", Get, "Sellers",
        "The sellers of the account, as a paginated list. Parameters: q (name or slug contains), \
         created_on.gte/.lte and updated_on.gte/.lte (RFC 3339 or YYYY-MM-DD), sort (id, name, created_on, \
         updated_on, each .asc or .desc), page, per_page (1 to 200, default 20). Needs sellers.read.");
    SELLERS_SELLER = ("sellers", "seller", Get, "Seller",
        "One seller: name, slug, status, default currency and country, with its shops embedded. \
         Needs sellers.read.");
    SELLERS_SHOPS = ("sellers", "shops", Get, "Shops of the seller",
        "The shop list filtered to this seller. Needs shops.read.");
}
