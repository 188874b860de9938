//! Slugs unique per seller (products, collections): finding a free one among candidates.

use crate::db::{Exec, Tx};
use crate::error::Result;
use crate::sql::{Arg, Filter};

/// The first of `candidates` no other row of `table` of the seller uses, in one query.
pub async fn first_free(
    tx: &mut Tx,
    table: &'static str,
    seller_id: i64,
    candidates: &[String],
    except_id: Option<i64>,
) -> Result<Option<String>> {
    let mut f = Filter::new();
    f.eq("seller_id", Arg::Int(seller_id))
        .any_of("slug", candidates.iter().cloned().map(Arg::Text));
    if let Some(id) = except_id {
        f.condition(|p| format!("id <> {}", p.bind(Arg::Int(id))));
    }
    let sql = format!("SELECT slug FROM {table}{}", f.where_sql());
    let taken: Vec<(String,)> = fetch_all_bound!(Exec::Tx(tx), (String,), sql, f.args())?;
    Ok(candidates
        .iter()
        .find(|c| !taken.iter().any(|(t,)| t == *c))
        .cloned())
}
