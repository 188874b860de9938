//! Rebuilds the crate when a migration is added or removed: `sqlx::migrate!` embeds the
//! folders' files at compile time, and Cargo watches only files it was told about.

fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
