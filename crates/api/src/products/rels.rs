//! The products area's link relations, each building its links and its docs page.

crate::rels::define_rels! {
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
}
