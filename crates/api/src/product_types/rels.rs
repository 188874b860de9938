//! The product types area's link relations, each building its links and its docs page.

crate::rels::define_rels! {
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
}
