//! The hostile values the fuzz test sends, and the fixed-seed generator that picks among
//! them (one stream per route), so that every run sends the same requests and a failure
//! replays exactly.

use serde_json::{Value, json};

/// xorshift64*: tiny, deterministic, and good enough to spread picks.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }

    /// The stream of one route: the run's seed mixed with the route's method and path
    /// (FNV-1a), so that a route's picks do not depend on the routes before it, and a
    /// route added to the table changes no other's.
    pub fn for_route(seed: u64, method: &str, path: &str) -> Self {
        let mut hash: u64 = 0xCBF2_9CE4_8422_2325;
        for byte in method.bytes().chain([b' ']).chain(path.bytes()) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01B3);
        }
        Self::new(seed ^ hash)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).expect("below n")
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// `count` distinct items (all of them when there are fewer).
    pub fn sample<'a, T>(&mut self, items: &'a [T], count: usize) -> Vec<&'a T> {
        let mut indices: Vec<usize> = (0..items.len()).collect();
        for i in (1..indices.len()).rev() {
            indices.swap(i, self.below(i + 1));
        }
        indices.into_iter().take(count).map(|i| &items[i]).collect()
    }
}

/// Marks hostile text, so that an answer echoing it can be recognised.
pub const MARK: &str = "zqx";

/// Control characters as raw text, with whether free text (JSON strings, page forms)
/// may hold them.
pub const CONTROLS: [(char, bool); 9] = [
    ('\0', false),
    ('\u{1}', false),
    ('\u{8}', false),
    ('\u{1b}', false),
    ('\u{7f}', false),
    ('\u{85}', false),
    ('\u{9f}', false),
    ('\n', true),
    ('\t', true),
];

/// A text holding `control` between ordinary characters.
pub fn with_control(control: char) -> String {
    format!("{MARK}{control}{MARK}")
}

/// Path segments where an id belongs: none names a resource.
pub const PATH_IDS: [&str; 16] = [
    "0",
    "-1",
    "-9223372036854775808",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551616",
    "99999999999999999999999999999",
    "1.5",
    "1e3",
    "0x10",
    "abc",
    "%00",
    "1%00",
    "%0A",
    "%FF%FE",
    "%E2%80%AE1",
];

/// Query values: numbers past every range, malformed numbers and dates, dates past what
/// RFC 3339 writes, invalid UTF-8, and lists with holes. Control characters are added
/// separately.
pub const QUERY_VALUES: [&str; 26] = [
    "0",
    "-1",
    "1000000001",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "99999999999999999999999999999",
    "1e400",
    "1.5",
    "NaN",
    "+5",
    "1,-1,9223372036854775808",
    "1,,2,%20",
    "0000-01-01",
    "9999-12-31",
    "9999-12-31T23:59:59-23:59",
    "0000-01-01T00:00:00%2B23:59",
    "10000-01-01",
    "-0001-01-01",
    "2026-02-30",
    "%FF%FE",
    "%E2%80%AE",
    "a.asc.desc",
    "",
    "%25",
];

/// Values a JSON field is replaced with: numbers past every range, wrong types and
/// shapes. Control characters in strings are added separately.
pub fn json_values() -> Vec<Value> {
    vec![
        json!(i64::MAX),
        json!(i64::MIN),
        json!(u64::MAX),
        json!(9_223_372_036_854_775_808_u64),
        json!(-1),
        json!(0),
        json!(1.5),
        json!(1e300),
        json!(-1e300),
        json!(true),
        json!(null),
        json!([]),
        json!({}),
        json!([i64::MAX, -1, 0]),
        json!({"a": {"b": [1, {"c": null}]}}),
        json!(""),
        json!("9223372036854775808"),
        json!("\u{FEFF}\u{202E}"),
        json!("x".repeat(70_000)),
    ]
}

/// Bodies that are not what any endpoint takes, sent raw.
pub fn raw_bodies() -> Vec<Vec<u8>> {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n)).into_bytes();
    let deep_objects = |n: usize| {
        let mut body = String::new();
        for _ in 0..n {
            body.push_str("{\"a\":");
        }
        body.push('1');
        body.push_str(&"}".repeat(n));
        body.into_bytes()
    };
    vec![
        Vec::new(),
        b"   ".to_vec(),
        b"null".to_vec(),
        b"[]".to_vec(),
        b"\"text\"".to_vec(),
        b"99999999999999999999999999".to_vec(),
        b"1e999".to_vec(),
        b"{".to_vec(),
        b"{}}".to_vec(),
        b"{\"a\":1,}".to_vec(),
        b"\xff\xfe\x00{}".to_vec(),
        b"{\"name\":\"\xc3\x28\"}".to_vec(),
        b"{\"name\":\"\\ud800\"}".to_vec(),
        b"{\"name\":\"a\x01b\"}".to_vec(),
        b"{\"a\\u0000b\":1}".to_vec(),
        b"{\"x\":{\"y\\u0007\":[\"\\u007f\"]}}".to_vec(),
        deep(100),
        deep(100_000),
        deep_objects(200),
    ]
}
