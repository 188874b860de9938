//! The catalog's rules: product statuses, slugs, tags and prices, the words `q` searches,
//! custom attribute schemas, collection rules and price resolution.

pub mod attributes;
pub mod collection;
pub mod pricing;
pub mod product;
pub mod search;
