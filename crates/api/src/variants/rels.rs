//! The variants area's link relations, each building its links and its docs page.

crate::rels::define_rels! {
    VARIANTS_VARIANT = ("variants", "variant", Get, "Variant",
        "One variant of a product: its SKU, title, options, price, stock and the rest (see \
         products:variants). Other resources that name a variant (a subscription fee) link to it with \
         this rel. Needs products.read (or public, with shop_subdomains, for a visible product).");
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
}
