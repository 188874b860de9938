//! The catalog's rules: product statuses, slugs, tags and prices, the words `q` searches,
//! custom attribute schemas, collection rules, price resolution and stock changes.

pub mod attributes;
pub mod collection;
pub mod pricing;
pub mod product;
pub mod search;
pub mod stock;
