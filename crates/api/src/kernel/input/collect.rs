//! Every field a JSON body fails on, for a body that did not read straight into its type.
//!
//! The body, already a `Value`, is read into the type again, pass after pass. A pass
//! stops at the first value that fails; its field is recorded and neutralised for the
//! next pass, which then gets past it:
//!
//! - a value of the wrong type (or outside the type's values, or holding control
//!   characters) is hidden: its key, or its array item, is skipped;
//! - a required field that is missing, or that was hidden, gets a stand-in made from what
//!   the type asks for (`""`, `0`, `false`, `null`, `[]`, `{}` with stand-ins for its own
//!   required fields, an enum's first variant);
//! - a key with control characters is skipped, and its object is named;
//! - a stand-in the type refuses (a required field of a closed set of values) hides the
//!   object or item holding it instead.
//!
//! Failures inside stand-ins, and failures of a value whose content already failed, are
//! the walk's own doing and are not reported. Paths are spelt as the domain's field errors
//! spell them (`variants[0].price`; the body itself is `body`).
//!
//! Passes are bounded: at most `MAX_FIELDS` fields are listed, and the passes walk at most
//! `WORK_BUDGET` bytes of body in all, however many fields are at fault (8 passes for a
//! body at the default 1 MiB limit, up to `MAX_PASSES` for a usual one; `MIN_PASSES`
//! whatever the size). When a bound stops the walk, what was found is answered, and the
//! answer says more may follow.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::Write as _;

use domain::FieldErrors;
use serde::de::value::{BorrowedStrDeserializer, StrDeserializer};
use serde::de::{
    DeserializeOwned, DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor,
};
use serde_json::{Error, Map, Value};

use super::super::text_guard::{self, Guarded};

/// The most fields one answer lists.
pub const MAX_FIELDS: usize = 50;
/// How many bytes of body the passes may walk in all.
const WORK_BUDGET: usize = 8 << 20;
/// The passes any body gets, and the most any gets (each field listed can take a few:
/// found, stood in for, its stand-in refused).
const MIN_PASSES: usize = 4;
const MAX_PASSES: usize = 4 * MAX_FIELDS;

/// What a required field that was left out is told.
pub const MISSING: &str = "can't be blank";

/// What the walk found.
#[derive(Debug, Default)]
pub struct Findings {
    /// Each field at fault, in the order found.
    pub errors: FieldErrors,
    /// Whether a required field is missing.
    pub missing: bool,
    /// Whether the walk got to the end (else a bound, or a failure of the body as a
    /// whole, stopped it, and more fields may be at fault).
    pub complete: bool,
}

/// Walks `body` (`size` bytes as sent) as `T`, listing every field `T` cannot read.
pub fn collect<T: DeserializeOwned>(body: &Value, size: usize) -> Findings {
    let passes = (WORK_BUDGET / size.max(1)).clamp(MIN_PASSES, MAX_PASSES);
    let mut plan = Node::default();
    let mut findings = Findings::default();
    for _ in 0..passes {
        let fault = RefCell::new(None);
        let root = Place::Root;
        let walker = Walker {
            value: body,
            node: Some(&plan),
            place: &root,
            fault: &fault,
        };
        let err = match T::deserialize(walker) {
            Ok(_) => {
                findings.complete = true;
                return findings;
            }
            Err(err) => noted(&fault, &root, err),
        };
        let fault = fault.into_inner().unwrap_or_else(|| Fault {
            path: Vec::new(),
            message: err.to_string(),
            key: None,
        });
        if findings.apply(&mut plan, fault) == Flow::Stop
            || findings.errors.errors().len() >= MAX_FIELDS
        {
            return findings;
        }
    }
    findings
}

/// One step of a path.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Segment {
    Key(String),
    Index(usize),
}

/// A field's name: `variants[0].price`, or `body` for the body itself.
fn field_name(path: &[Segment]) -> String {
    if path.is_empty() {
        return "body".to_owned();
    }
    let mut name = String::new();
    for segment in path {
        match segment {
            Segment::Key(key) => {
                if !name.is_empty() {
                    name.push('.');
                }
                name.push_str(key);
            }
            Segment::Index(i) => {
                let _ = write!(name, "[{i}]");
            }
        }
    }
    name
}

/// The place a pass is at: a chain of borrowed steps back to the root, made into a path
/// only when something fails there.
enum Place<'p> {
    Root,
    Key(&'p Place<'p>, &'p str),
    Index(&'p Place<'p>, usize),
}

impl Place<'_> {
    fn path(&self) -> Vec<Segment> {
        let mut path = Vec::new();
        let mut at = self;
        loop {
            match at {
                Place::Root => break,
                Place::Key(parent, key) => {
                    path.push(Segment::Key((*key).to_owned()));
                    at = parent;
                }
                Place::Index(parent, i) => {
                    path.push(Segment::Index(*i));
                    at = parent;
                }
            }
        }
        path.reverse();
        path
    }
}

/// What the next pass does with a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    /// Skip it, as if it were not in the body.
    Hide,
    /// Read a stand-in instead (or add one where it is missing).
    StandIn,
}

/// The plan of the next pass: a tree of what to do where, mostly empty.
#[derive(Debug, Default)]
struct Node {
    action: Option<Action>,
    keys: BTreeMap<String, Node>,
    items: BTreeMap<usize, Node>,
}

impl Node {
    fn at(&self, path: &[Segment]) -> Option<&Node> {
        path.iter().try_fold(self, |node, segment| match segment {
            Segment::Key(key) => node.keys.get(key),
            Segment::Index(i) => node.items.get(i),
        })
    }

    fn entry(&mut self, path: &[Segment]) -> &mut Node {
        path.iter().fold(self, |node, segment| match segment {
            Segment::Key(key) => node.keys.entry(key.clone()).or_default(),
            Segment::Index(i) => node.items.entry(*i).or_default(),
        })
    }

    /// Whether the value at `path`, or one holding it, is stood in for.
    fn stood_in(&self, path: &[Segment]) -> bool {
        let mut node = self;
        for segment in path {
            let next = match segment {
                Segment::Key(key) => node.keys.get(key),
                Segment::Index(i) => node.items.get(i),
            };
            match next {
                Some(next) if next.action == Some(Action::StandIn) => return true,
                Some(next) => node = next,
                None => return false,
            }
        }
        false
    }

    fn action(&self, path: &[Segment]) -> Option<Action> {
        self.at(path).and_then(|node| node.action)
    }
}

fn hidden(node: Option<&Node>) -> bool {
    node.is_some_and(|node| node.action == Some(Action::Hide))
}

/// Where a pass failed and what it was told.
#[derive(Debug)]
struct Fault {
    path: Vec<Segment>,
    message: String,
    /// A key with control characters in the object at `path`.
    key: Option<String>,
}

/// Records that `err` came out of the value at `place`, unless a value inside it was
/// already recorded as its origin.
fn noted(fault: &RefCell<Option<Fault>>, place: &Place<'_>, err: Error) -> Error {
    let message = err.to_string();
    let mut slot = fault.borrow_mut();
    if slot.as_ref().is_none_or(|f| f.message != message) {
        *slot = Some(Fault {
            path: place.path(),
            message,
            key: None,
        });
    }
    err
}

#[derive(Debug, PartialEq, Eq)]
enum Flow {
    Continue,
    Stop,
}

/// The field serde's "missing field `x`" names.
fn missing_field(message: &str) -> Option<&str> {
    message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.strip_suffix('`'))
}

impl Findings {
    fn report(&mut self, path: &[Segment], message: &str) {
        let field = field_name(path);
        let known = self
            .errors
            .errors()
            .iter()
            .any(|e| e.field == field && e.messages.iter().any(|m| m == message));
        if !known {
            self.errors.add(field, message);
        }
    }

    /// Records `fault` (unless the walk caused it) and changes the plan to get past it.
    fn apply(&mut self, plan: &mut Node, fault: Fault) -> Flow {
        let Fault { path, message, key } = fault;
        if let Some(key) = key {
            self.report(&path, &message);
            let mut entry = path;
            entry.push(Segment::Key(key));
            return hide(plan, &entry);
        }
        if let Some(name) = missing_field(&message) {
            let mut field = path.clone();
            field.push(Segment::Key(name.to_owned()));
            match plan.action(&field) {
                // Hidden for a fault already listed: a stand-in, and nothing more to say.
                Some(Action::Hide) => plan.entry(&field).action = Some(Action::StandIn),
                Some(Action::StandIn) => return refused_stand_in(plan, field),
                None => {
                    if !plan.stood_in(&path) {
                        self.report(&field, MISSING);
                        self.missing = true;
                    }
                    plan.entry(&field).action = Some(Action::StandIn);
                }
            }
            return Flow::Continue;
        }
        if plan.stood_in(&path) {
            return refused_stand_in(plan, path);
        }
        // A value whose content already failed (and was hidden or stood in for) fails as
        // a whole only because of it.
        if plan.at(&path).is_none() {
            self.report(&path, &message);
        }
        hide(plan, &path)
    }
}

/// Hides the value at `path` and whatever was planned inside it; the body itself cannot
/// be hidden.
fn hide(plan: &mut Node, path: &[Segment]) -> Flow {
    if path.is_empty() {
        return Flow::Stop;
    }
    *plan.entry(path) = Node {
        action: Some(Action::Hide),
        ..Node::default()
    };
    Flow::Continue
}

/// The type refused the stand-in at `path`: hides the nearest value holding it that is
/// not itself a stand-in.
fn refused_stand_in(plan: &mut Node, mut path: Vec<Segment>) -> Flow {
    loop {
        path.pop();
        if path.is_empty() {
            return Flow::Stop;
        }
        if plan.action(&path) != Some(Action::StandIn) {
            return hide(plan, &path);
        }
    }
}

/// A value that is read for none: what stand-ins are made at.
static NULL: Value = Value::Null;

/// Reads a `Value` as a pass plans it, noting where it fails. Strings are checked for
/// control characters as the direct read checks them (`Guarded`).
struct Walker<'de, 'p> {
    value: &'de Value,
    node: Option<&'p Node>,
    place: &'p Place<'p>,
    fault: &'p RefCell<Option<Fault>>,
}

impl<'de: 'p, 'p> Walker<'de, 'p> {
    fn stands_in(&self) -> bool {
        self.node
            .is_some_and(|node| node.action == Some(Action::StandIn))
    }

    fn guarded(&self) -> Guarded<&'de Value> {
        Guarded::new(self.value)
    }

    fn items<V: Visitor<'de>>(self, items: &'de [Value], visitor: V) -> Result<V::Value, Error> {
        let mut access = Items {
            items: items.iter().enumerate(),
            node: self.node,
            place: self.place,
            fault: self.fault,
        };
        let value = visitor.visit_seq(&mut access)?;
        if access.next_shown().is_none() {
            Ok(value)
        } else {
            Err(Error::invalid_length(
                items.len(),
                &"fewer elements in array",
            ))
        }
    }

    fn entries<V: Visitor<'de>>(
        self,
        map: Option<&'de Map<String, Value>>,
        visitor: V,
    ) -> Result<V::Value, Error> {
        let mut access = Entries {
            map,
            entries: map.map(|m| m.iter()),
            injected: self.node.map(|node| node.keys.iter()),
            node: self.node,
            place: self.place,
            fault: self.fault,
            pending: None,
        };
        let value = visitor.visit_map(&mut access)?;
        if access.next_shown().is_none() {
            Ok(value)
        } else {
            let len = map.map_or(0, Map::len);
            Err(Error::invalid_length(len, &"fewer elements in map"))
        }
    }
}

/// Hints that only a scalar answers: read through `Guarded`, or stood in for by `$stand_in`.
macro_rules! scalars {
    ($($method:ident($($arg:ident: $ty:ty),*) => |$visitor:ident| $stand_in:expr;)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, Error> {
                if self.stands_in() {
                    let $visitor = visitor;
                    return $stand_in;
                }
                self.guarded().$method($($arg,)* visitor)
            }
        )*
    };
}

impl<'de: 'p, 'p> Deserializer<'de> for Walker<'de, 'p> {
    type Error = Error;

    scalars! {
        deserialize_bool() => |v| v.visit_bool(false);
        deserialize_i8() => |v| v.visit_i64(0);
        deserialize_i16() => |v| v.visit_i64(0);
        deserialize_i32() => |v| v.visit_i64(0);
        deserialize_i64() => |v| v.visit_i64(0);
        deserialize_i128() => |v| v.visit_i64(0);
        deserialize_u8() => |v| v.visit_u64(0);
        deserialize_u16() => |v| v.visit_u64(0);
        deserialize_u32() => |v| v.visit_u64(0);
        deserialize_u64() => |v| v.visit_u64(0);
        deserialize_u128() => |v| v.visit_u64(0);
        deserialize_f32() => |v| v.visit_f64(0.0);
        deserialize_f64() => |v| v.visit_f64(0.0);
        deserialize_char() => |v| v.visit_char(' ');
        deserialize_str() => |v| v.visit_borrowed_str("");
        deserialize_string() => |v| v.visit_borrowed_str("");
        deserialize_identifier() => |v| v.visit_borrowed_str("");
        deserialize_unit() => |v| v.visit_unit();
        deserialize_unit_struct(name: &'static str) => |v| v.visit_unit();
        deserialize_enum(name: &'static str, variants: &'static [&'static str]) => |v| match variants.first() {
            Some(first) => v.visit_enum(BorrowedStrDeserializer::new(first)),
            None => Err(Error::custom("an enum without variants")),
        };
    }

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.stands_in() {
            return visitor.visit_unit();
        }
        match self.value {
            Value::Array(items) => self.items(items, visitor),
            Value::Object(map) => self.entries(Some(map), visitor),
            _ => self.guarded().deserialize_any(visitor),
        }
    }

    /// Ignored values (unknown fields) are walked too, so that their strings are checked.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_any(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.stands_in() || self.value.is_null() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            _ if self.stands_in() => self.items(&[], visitor),
            Value::Array(items) => self.items(items, visitor),
            _ => self.guarded().deserialize_seq(visitor),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            _ if self.stands_in() => visitor.visit_borrowed_bytes(&[]),
            Value::Array(items) => self.items(items, visitor),
            _ => self.guarded().deserialize_bytes(visitor),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            _ if self.stands_in() => self.entries(None, visitor),
            Value::Object(map) => self.entries(Some(map), visitor),
            _ => self.guarded().deserialize_map(visitor),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.value {
            _ if self.stands_in() => self.entries(None, visitor),
            Value::Object(map) => self.entries(Some(map), visitor),
            Value::Array(items) => self.items(items, visitor),
            _ => self.guarded().deserialize_struct(name, fields, visitor),
        }
    }
}

/// An array's items, those the plan hides skipped; paths keep the items' places.
struct Items<'de, 'p> {
    items: std::iter::Enumerate<std::slice::Iter<'de, Value>>,
    node: Option<&'p Node>,
    place: &'p Place<'p>,
    fault: &'p RefCell<Option<Fault>>,
}

impl<'de: 'p, 'p> Items<'de, 'p> {
    fn next_shown(&mut self) -> Option<(usize, &'de Value, Option<&'p Node>)> {
        let node = self.node;
        self.items.by_ref().find_map(|(i, value)| {
            let child = node.and_then(|n| n.items.get(&i));
            (!hidden(child)).then_some((i, value, child))
        })
    }
}

impl<'de: 'p, 'p> SeqAccess<'de> for Items<'de, 'p> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        let Some((i, value, node)) = self.next_shown() else {
            return Ok(None);
        };
        let place = Place::Index(self.place, i);
        let walker = Walker {
            value,
            node,
            place: &place,
            fault: self.fault,
        };
        seed.deserialize(walker)
            .map(Some)
            .map_err(|err| noted(self.fault, &place, err))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// An object's entries, those the plan hides skipped, then the stand-ins it adds.
struct Entries<'de, 'p> {
    map: Option<&'de Map<String, Value>>,
    entries: Option<serde_json::map::Iter<'de>>,
    injected: Option<std::collections::btree_map::Iter<'p, String, Node>>,
    node: Option<&'p Node>,
    place: &'p Place<'p>,
    fault: &'p RefCell<Option<Fault>>,
    /// The entry whose key was just read.
    pending: Option<(&'p str, &'de Value, Option<&'p Node>)>,
}

impl<'de: 'p, 'p> Entries<'de, 'p> {
    fn next_shown(&mut self) -> Option<(&'de String, &'de Value, Option<&'p Node>)> {
        let node = self.node;
        self.entries.as_mut()?.find_map(|(key, value)| {
            let child = node.and_then(|n| n.keys.get(key.as_str()));
            (!hidden(child)).then_some((key, value, child))
        })
    }

    /// The next field the plan stands in for that the object lacks.
    fn next_injected(&mut self) -> Option<(&'p String, &'p Node)> {
        let map = self.map;
        self.injected.as_mut()?.find(|(key, node)| {
            node.action == Some(Action::StandIn) && !map.is_some_and(|m| m.contains_key(*key))
        })
    }
}

impl<'de: 'p, 'p> MapAccess<'de> for Entries<'de, 'p> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        if let Some((key, value, node)) = self.next_shown() {
            if text_guard::refuses_key(key) {
                *self.fault.borrow_mut() = Some(Fault {
                    path: self.place.path(),
                    message: text_guard::KEY_MESSAGE.to_owned(),
                    key: Some(key.clone()),
                });
                return Err(Error::custom(text_guard::KEY_MESSAGE));
            }
            self.pending = Some((key.as_str(), value, node));
            return seed
                .deserialize(BorrowedStrDeserializer::new(key))
                .map(Some);
        }
        if let Some((key, node)) = self.next_injected() {
            self.pending = Some((key.as_str(), &NULL, Some(node)));
            return seed.deserialize(StrDeserializer::new(key)).map(Some);
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let (key, value, node) = self
            .pending
            .take()
            .ok_or_else(|| Error::custom("a value was asked for before its key"))?;
        let place = Place::Key(self.place, key);
        let walker = Walker {
            value,
            node,
            place: &place,
            fault: self.fault,
        };
        seed.deserialize(walker)
            .map_err(|err| noted(self.fault, &place, err))
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.map(Map::len)
    }
}
