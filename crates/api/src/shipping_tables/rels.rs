//! The shipping tables' link relations (in the shops namespace: they are shop settings).

crate::rels::define_rels! {
    SHOPS_SHIPPING_TABLES = ("shops", "shipping_tables", Get, "Shipping tables of the shop",
        "The shop's shipping tables in their order (position), as a paginated list. Parameters: enabled \
         (true or false), method (flat, weight, total; comma-separated), sort (position, id, name, \
         created_on, updated_on, each .asc or .desc; default position.asc), page, per_page. Needs \
         shops.read.");
    SHOPS_SHIPPING_TABLE = ("shops", "shipping_table", Get, "Shipping table",
        "One way the shop ships: name (what buyers see), method (flat: one price; weight: ranges of the \
         order's weight in grams; total: ranges of the order's net total in the shop's currency), zone \
         (countries as ISO 3166-1 alpha-2 codes, each with the regions it is limited to, matched in any \
         case; empty: every address), rates ([{min, max, price}], min included, max excluded or null for \
         no bound, prices in minor units of the shop's currency; never overlapping), free_over (orders \
         whose net total reaches it ship free; null: never), enabled, position. An order names a table \
         with shipping_table_id; a table that does not cover the order's shipping address or parcel is a \
         422 there. Needs shops.read.");
    SHOPS_CREATE_SHIPPING_TABLE = ("shops", "create_shipping_table", Post, "Create a shipping table",
        "Body: name, method and rates (required), zone, free_over, enabled (default true), position \
         (default last). Overlapping ranges, a flat table with more than one rate or with a range, and \
         every other problem answer 422 naming each field (as rates[i].min). At most 100 tables per shop. \
         Answers 201 and records shops.shipping_tables.created. Needs shops.write.");
    SHOPS_UPDATE_SHIPPING_TABLE = ("shops", "update_shipping_table", Put, "Update the shipping table",
        "Changes any field; the whole table is checked again. Orders already priced by it keep their \
         shipping. Honours If-Match. Records shops.shipping_tables.updated. Needs shops.write.");
    SHOPS_DELETE_SHIPPING_TABLE = ("shops", "delete_shipping_table", Delete, "Delete the shipping table",
        "Deletes the table; orders priced by it keep their shipping and its name (shipping_description), \
         and an order in checkout naming it can no longer be placed until it names another. Honours \
         If-Match. Records shops.shipping_tables.deleted. Needs shops.write.");
}
