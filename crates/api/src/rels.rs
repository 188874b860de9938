//! Every link relation the API emits, gathered from the areas that declare them (each in
//! its `rels.rs`). Each definition builds its links and its curie documentation page at
//! `{public_url}/docs/rels/{namespace}/{rel}`; `rels::ORDERS_PLACE` names any area's rel.

use std::sync::LazyLock;

use hal::{RelDef, RelRegistry};

use crate::area::AREAS;
pub use crate::area::all_rels::*;

/// Declares an area's rels: a `RelDef` static for each, and the area's list of them
/// (`RELS`, which its `Area` hands to the registry).
macro_rules! define_rels {
    ($($ident:ident = ($ns:literal, $name:literal, $method:ident, $title:literal, $description:literal);)*) => {
        $(pub static $ident: hal::RelDef =
            hal::RelDef::new($ns, $name, hal::Method::$method, $title, $description);)*
        pub(super) static RELS: &[&hal::RelDef] = &[$(&$ident,)*];
    };
}
pub(crate) use define_rels;

static ALL: LazyLock<Vec<&'static RelDef>> =
    LazyLock::new(|| AREAS.iter().flat_map(|area| area.rels).copied().collect());

/// Every rel of every area, for the docs pages.
pub static REGISTRY: LazyLock<RelRegistry> = LazyLock::new(|| RelRegistry::new(ALL.as_slice()));

#[cfg(test)]
mod tests {
    #[test]
    fn registry_is_consistent() {
        super::REGISTRY.check().unwrap();
    }
}
