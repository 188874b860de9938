//! HAL building blocks, free of any commerce knowledge: links and curies, a registry of
//! link relations that also documents them, resource and list builders, and RFC 6570
//! URI templates.

mod link;
mod list;
mod rel;
mod resource;
mod template;

pub use link::{Curie, Link, Method};
pub use list::{ListPage, TotalItems, list_resource};
pub use rel::{RelDef, RelRegistry};
pub use resource::{Curies, Resource};
pub use template::{Template, TemplateError, TemplateValue};
