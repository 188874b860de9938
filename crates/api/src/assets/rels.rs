//! The images area's link relations: none of its own; its links are the `products`
//! namespace's (`products:assets`, `products:create_asset`, …), declared with products.

crate::rels::define_rels! {}
