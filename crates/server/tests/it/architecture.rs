//! The shape of the code, checked: within a crate, no two top-level modules import each
//! other, so each crate's modules form layers that can be read (and changed) bottom up;
//! and no storage function writes through the pool a query reads from.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

#[test]
fn no_two_modules_of_a_crate_import_each_other() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    for name in [
        "hal", "domain", "storage", "oauth", "delivery", "services", "api", "server", "bench",
    ] {
        let deps = module_dependencies(&crates.join(name).join("src"));
        for (a, uses) in &deps {
            for b in uses {
                if a < b && deps.get(b).is_some_and(|back| back.contains(a)) {
                    found.push((name.to_owned(), format!("{a} ↔ {b}")));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "modules that import each other: {found:?}"
    );
}

/// On SQLite the pool behind `Exec::Db` is opened read-only (writes go through a
/// transaction, or the write helpers, on the single writer), so a write sent there fails
/// on SQLite alone, and only when its path runs: this finds such a function before then.
#[test]
fn storage_writes_never_go_through_the_read_pool() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../storage/src");
    let mut found = Vec::new();
    for file in rust_files(&src) {
        let code = code_of(&file);
        for function in code.split("async fn ").skip(1) {
            let name = function.split(['(', '<']).next().unwrap_or_default();
            let writes = function.contains("INSERT INTO")
                || function.contains("DELETE FROM")
                || (function.contains("UPDATE ") && function.contains(" SET "));
            if writes && function.contains("Exec::Db(") {
                let file = file
                    .strip_prefix(&src)
                    .unwrap_or(&file)
                    .display()
                    .to_string();
                found.push(format!("{file}: {name}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "storage functions that write through the read pool: {found:?}"
    );
}

/// For each top-level module of the crate at `src`, the other top-level modules its
/// code (tests and comments aside) names through `crate::`.
fn module_dependencies(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let modules: Vec<(String, Vec<PathBuf>)> = fs::read_dir(src)
        .expect("the crate's sources")
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let path = entry.path();
            let name = path.file_stem()?.to_str()?.to_owned();
            if path.is_dir() {
                Some((name, rust_files(&path)))
            } else if path.extension()? == "rs" && !matches!(name.as_str(), "lib" | "main") {
                Some((name, vec![path]))
            } else {
                None
            }
        })
        .collect();
    modules
        .iter()
        .map(|(name, files)| {
            let code: String = files.iter().map(|f| code_of(f)).collect();
            let uses = modules
                .iter()
                .map(|(other, _)| other)
                .filter(|other| *other != name && names(&code, &format!("crate::{other}")))
                .cloned()
                .collect();
            (name.clone(), uses)
        })
        .collect()
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir)
        .expect("a module folder")
        .filter_map(Result::ok)
    {
        let path = entry.path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// A file's code without its tests and line comments.
fn code_of(file: &Path) -> String {
    let text = fs::read_to_string(file).expect("a source file");
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    text.lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `code` names `path` as a whole path segment (`crate::orders`, not
/// `crate::orders_x`).
fn names(code: &str, path: &str) -> bool {
    code.match_indices(path).any(|(at, _)| {
        !code[at + path.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}
