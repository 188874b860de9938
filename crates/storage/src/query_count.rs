//! Counts the queries a piece of work sends to the database, so that tests can hold a
//! request to a constant number whatever the page size (no N+1). Every query passes
//! through `Handle::open`; code that sends several statements on one handle says so.

use std::cell::Cell;
use std::future::Future;

tokio::task_local! {
    static QUERIES: Cell<u32>;
}

/// Runs `work` and answers its output with the number of queries it sent.
pub async fn counting<F: Future>(work: F) -> (F::Output, u32) {
    QUERIES
        .scope(Cell::new(0), async {
            let output = work.await;
            (output, QUERIES.with(Cell::get))
        })
        .await
}

/// Notes `n` queries, when counting (also those another task sent on this one's behalf).
pub fn note(n: u32) {
    let _ = QUERIES.try_with(|count| count.set(count.get() + n));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn counts_inside_the_scope_only() {
        note(1);
        let ((), n) = counting(async {
            note(2);
            note(1);
        })
        .await;
        assert_eq!(n, 3);
    }
}
