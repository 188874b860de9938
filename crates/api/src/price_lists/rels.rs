//! The price lists area's link relations, each building its links and its docs page.

crate::rels::define_rels! {
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
         seller's customers, at most 1000; empty or absent: every buyer; an order linked to one of them is \
         priced by the list; an id that names none of the seller's customers is a 422). Answers 201 and \
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
}
