//! The authorization service's pages: sign-in, consent at the authorization endpoint, and
//! the developer credentials page. Server-rendered HTML, no scripts.

pub mod authorize;
mod html;
pub mod login;
mod session;

use std::collections::HashMap;
use std::collections::hash_map::Entry;

/// Query or form parameters of a page request: empty values count as absent, repeated
/// names are remembered (a repeated parameter is an error).
pub struct Params {
    values: HashMap<String, String>,
    repeated: Vec<String>,
}

impl Params {
    pub fn parse(bytes: &[u8]) -> Self {
        let mut values = HashMap::new();
        let mut repeated = Vec::new();
        for (name, value) in form_urlencoded::parse(bytes) {
            if value.is_empty() {
                continue;
            }
            let name = name.into_owned();
            match values.entry(name) {
                Entry::Occupied(taken) => repeated.push(taken.key().clone()),
                Entry::Vacant(slot) => {
                    slot.insert(value.into_owned());
                }
            }
        }
        Self { values, repeated }
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    pub fn is_repeated(&self, name: &str) -> bool {
        self.repeated.iter().any(|r| r == name)
    }

    pub fn first_repeated(&self) -> Option<&str> {
        self.repeated.first().map(String::as_str)
    }
}

/// Where the sign-in page may send the browser afterwards: only our own pages, so the
/// login form is no open redirect.
pub fn safe_continue(target: Option<&str>) -> &str {
    match target {
        Some(t) if t.starts_with("/oauth/") && !t.contains("//") && !t.contains('\\') => t,
        _ => "/oauth/credentials",
    }
}
