//! The order documents area's link relations, each building its links and its docs page.

crate::rels::define_rels! {
    ORDERS_DOCUMENTS = ("orders", "documents", Get, "Order documents",
        "The order's documents (invoices and packing slips), oldest first, as a paginated list. \
         Parameters: sort (id.asc or id.desc), page, per_page. Needs orders.read.");
    ORDERS_DOCUMENT = ("orders", "document", Get, "Order document",
        "One document of the order: kind (invoice or packing_slip), number (per shop and kind, without \
         gaps, from 1001: INV-1001, PS-1001), format (pdf), status (pending until it is generated, then \
         ready, or failed with failure_reason after three attempts), byte_size, created_on, generated_on. \
         A ready document links its file (orders:document_file). Needs orders.read.");
    ORDERS_CREATE_DOCUMENT = ("orders", "create_document", Post, "Generate a document",
        "Body: kind (invoice: for an order placed, closed or shipped; packing_slip: closed or shipped; \
         otherwise 422 on kind). Numbers the document at once and answers 202 with it pending; a worker \
         generates its PDF shortly after (poll the document). Each request makes a new document with the \
         next number. Records orders.documents.created, then orders.documents.generated when it is ready. \
         Honours Idempotency-Key. Needs orders.write.");
    ORDERS_DOCUMENT_FILE = ("orders", "document_file", Get, "Document file",
        "The document's PDF file (application/pdf, inline, named by its number). Needs orders.read.");
}
