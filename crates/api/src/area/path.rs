//! A route path written once: the router matches its pattern, and links to it are built
//! from the same constant, so a typo is a compile error or a failing route test rather
//! than a broken link.

use crate::kernel::urls::Urls;

/// A path under `/v2`, such as `/orders/{id}/place`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Path(&'static str);

impl Path {
    pub const fn new(pattern: &'static str) -> Self {
        Self(pattern)
    }

    /// As axum matches it, and as a URI template (`{id}` is a template variable).
    pub const fn pattern(self) -> &'static str {
        self.0
    }

    /// The path with its `{…}` segments filled by `ids`, in order.
    pub fn with(self, ids: &[i64]) -> String {
        let mut out = String::with_capacity(self.0.len() + 8 * ids.len());
        self.write_to(&mut out, ids);
        out
    }

    /// Appends the path filled by `ids` to `out` (links are built in one allocation; a
    /// page of products builds hundreds, so the short pattern is scanned byte by byte).
    fn write_to(self, out: &mut String, ids: &[i64]) {
        use std::fmt::Write as _;
        let mut ids = ids.iter();
        let mut rest = self.0;
        while let Some(open) = rest.bytes().position(|b| b == b'{') {
            out.push_str(&rest[..open]);
            let close = rest.as_bytes()[open..]
                .iter()
                .position(|&b| b == b'}')
                .map_or(rest.len(), |n| open + n + 1);
            match ids.next() {
                Some(id) => {
                    let _ = write!(out, "{id}");
                }
                None => out.push_str(&rest[open..close]),
            }
            rest = &rest[close..];
        }
        out.push_str(rest);
        debug_assert!(ids.next().is_none(), "more ids than segments in {}", self.0);
    }
}

impl Urls {
    /// `{public_url}/v2` and `path` filled with `ids`.
    pub fn at(&self, path: Path, ids: &[i64]) -> String {
        let base = self.base();
        let mut out = String::with_capacity(base.len() + path.0.len() + 8 * ids.len());
        out.push_str(base);
        path.write_to(&mut out, ids);
        out
    }

    /// `path` as a URI template (its `{…}` segments left for the client to fill).
    pub fn template(&self, path: Path) -> String {
        self.api(path.pattern())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_filled_in_order() {
        let path = Path::new("/products/{id}/variants/{variant_id}");
        assert_eq!(path.with(&[7, 42]), "/products/7/variants/42");
        assert_eq!(Path::new("/orders").with(&[]), "/orders");
        assert_eq!(
            Path::new("/orders/{id}/place").with(&[1001]),
            "/orders/1001/place"
        );
    }
}
