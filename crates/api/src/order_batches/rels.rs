//! The order batches' link relations (in the `orders` namespace).

crate::rels::define_rels! {
    ORDERS_BATCH_UPDATES = ("orders", "batch_updates", Post, "Move many orders",
        "Moves many of this shop's orders to one status. Body: ids (1 to 10000 order ids, each once) and \
         status (placed, closed, shipped or cancelled; Bootic's pending and invalid are accepted for placed \
         and cancelled), or Bootic's form additions: {status}. Each order makes the state machine's move \
         (its stock taken or given back, its own event, as orders:place, orders:close, orders:ship and \
         orders:cancel do) on its own: one order's failure undoes no other's move. An order already in the \
         status counts as moved, with no second event. Answers 200 with ids, status, additions and, embedded, \
         valid_items (the orders now in the status, as orders:order shows them) and invalid_items (id and \
         errors, as [{field, messages}], for each order left as it was: not one of the shop's, or a move \
         its status does not allow, or an order the server failed on, to be moved again). Input refused as a whole answers 422 naming each field (ids[i] for a \
         bad or repeated id) and writes nothing. Over 100 ids, the orders are moved by a batch job: the answer \
         is 202 with the job (batches:batch, also at the Location header), pending, and batches.created is \
         recorded; the job moves each order as above, saving its progress as it goes, and records \
         batches.finished when every order was tried. Needs orders.write (batches.read to follow the job).");
}
