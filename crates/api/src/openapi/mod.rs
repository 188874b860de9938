//! The OpenAPI 3.1 document of every route (`GET /openapi.json`), generated from the
//! descriptions routes are registered with (`area::Routes`) and from the JSON schemas of
//! the types the handlers read and write; nothing in it is written by hand.

mod document;
mod operation;

pub use document::{document, operation_url};
pub use operation::{Answer, Documented, Op, QueryParam, SHOP_SUBDOMAINS, schema};
