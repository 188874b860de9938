//! The collections area's link relations, each building its links and its docs page.

crate::rels::define_rels! {
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
}
