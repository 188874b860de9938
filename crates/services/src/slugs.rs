//! Slugs unique per seller, for products and collections.

use domain::catalog::product::{SLUG_MAX, slugify};
use storage::{Tx, UniqueIndex, slugs};

use crate::{ServiceError, ServiceResult};

/// The slug of a title, or `product` (for products and collections alike) for a title without letters or digits.
pub fn derived_slug(title: &str) -> String {
    let slug = slugify(title);
    if slug.is_empty() {
        "product".to_owned()
    } else {
        slug
    }
}

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
) -> ServiceResult<String> {
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
            None => format!("{base}-{}", hex::encode(storage::secrets::random_bytes(3))),
        },
    )
}

/// The error of a failed write of a slug from `unique_slug`, on the table of `index`. A
/// taken slug the client gave is its own (the field error every unique violation gets);
/// a derived one was taken by a concurrent write between `unique_slug` and the write,
/// which runs again and finds the next free one.
pub fn slug_refused(err: storage::Error, index: UniqueIndex, given: bool) -> ServiceError {
    let err = ServiceError::from(err);
    if given { err } else { err.derived(index) }
}
