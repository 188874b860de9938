//! The batches area's link relations, each building its links and its docs page.

crate::rels::define_rels! {
    BATCHES_BATCHES = ("batches", "batches", Get, "Batch jobs",
        "The account's batch jobs, newest first, as a paginated list; each shows its progress, its \
         invalid items being on its own page (batches:batch). Parameters: state (pending, running \
         or finished), shop_ids, sort (id.asc or id.desc), page, per_page. Needs batches.read.");
    BATCHES_BATCH = ("batches", "batch", Get, "Batch job",
        "One batch job, started by a request over more items than it does itself (orders:batch_updates \
         with over 100 ids): kind (order_status), shop_id, status (the status the orders are moved to), \
         state (pending, then running, then finished), total, processed, succeeded, failed, created_on, \
         updated_on, finished_on, and, embedded, invalid_items (id and errors, as [{field, messages}], for \
         each item left as it was), in the order of the request's ids. A worker does the items in chunks \
         of 50 and saves the progress after each; poll until state is finished, or subscribe to \
         batches.finished. Needs batches.read.");
}
