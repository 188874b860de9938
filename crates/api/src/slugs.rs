//! Slugs unique per seller, for products and collections.

use domain::catalog::product::SLUG_MAX;
use storage::{Tx, slugs};

use crate::kernel::error::{ApiError, ApiResult};
use crate::products::write::taken;

/// The slug to store: a given one as it is (a taken one fails on the unique index and
/// is reported), a derived one made free with a number (`-2` to `-10`), or with a random
/// suffix after that.
pub async fn unique_slug(
    tx: &mut Tx,
    table: &'static str,
    seller_id: i64,
    slug: &str,
    given: bool,
    except: Option<i64>,
) -> ApiResult<String> {
    if given {
        return Ok(slug.to_owned());
    }
    let base: String = slug.chars().take(SLUG_MAX - 9).collect();
    let candidates: Vec<String> = std::iter::once(slug.to_owned())
        .chain((2..=10).map(|n| format!("{base}-{n}")))
        .collect();
    Ok(
        match slugs::first_free(tx, table, seller_id, &candidates, except).await? {
            Some(free) => free,
            None => format!("{base}-{}", hex::encode(oauth::secrets::random_bytes(3))),
        },
    )
}

/// Turns a unique violation on a written slug into its answer: a 422 when the client chose
/// the slug; when it was derived, a concurrent write took it between `unique_slug` and the
/// insert, and the write runs again (finding the next free one).
pub fn slug_taken(table: &'static str, given: bool) -> impl Fn(storage::Error) -> ApiError {
    move |err| {
        if !given && err.is_unique_violation_on(table, "slug") {
            ApiError::write_conflict()
        } else {
            taken(table, "slug")(err)
        }
    }
}
