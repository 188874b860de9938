//! Refuses control characters in every string and key of a JSON body, at any depth,
//! while the body is deserialised: no second parse, no copy, and the error carries the
//! path of the field (`variants[0].sku`), as every other 422 does.
//!
//! `Guarded` wraps a `Deserializer` and every visitor, sequence, map, enum and seed it
//! hands out, so each string reaches `TextKind::Free` before the target type sees it.
//! Values a type ignores (unknown fields) are read through the guard too, so no string of
//! the body escapes it. The cost is one byte scan per string.

use std::fmt;

use domain::text::TextKind;
use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Visitor};

/// The body text rule (see `domain::text`).
const RULE: TextKind = TextKind::Free;

/// A deserializer whose strings are checked; `key` says whether it reads a map key.
pub struct Guarded<D> {
    inner: D,
    key: bool,
}

impl<D> Guarded<D> {
    pub fn new(inner: D) -> Self {
        Self { inner, key: false }
    }
}

/// What a key with control characters is told (on the object holding it).
pub const KEY_MESSAGE: &str =
    "must not have keys with control characters (tab, line feed and carriage return are allowed)";

/// Whether a key is refused (`KEY_MESSAGE`), for readers that check keys themselves.
pub fn refuses_key(key: &str) -> bool {
    RULE.refuses(key)
}

fn check<E: de::Error>(text: &str, key: bool) -> Result<(), E> {
    match (RULE.refuses(text), key) {
        (false, _) => Ok(()),
        (true, false) => Err(E::custom(RULE.message())),
        (true, true) => Err(E::custom(KEY_MESSAGE)),
    }
}

macro_rules! forward {
    ($($method:ident $(($($arg:ident: $ty:ty),*))?),* $(,)?) => {
        $(
            fn $method<V: Visitor<'de>>(self, $($($arg: $ty,)*)? visitor: V) -> Result<V::Value, D::Error> {
                self.inner.$method($($($arg,)*)? Guard { inner: visitor, key: self.key })
            }
        )*
    };
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Guarded<D> {
    type Error = D::Error;

    forward! {
        deserialize_any, deserialize_bool, deserialize_i8, deserialize_i16, deserialize_i32,
        deserialize_i64, deserialize_i128, deserialize_u8, deserialize_u16, deserialize_u32,
        deserialize_u64, deserialize_u128, deserialize_f32, deserialize_f64, deserialize_char,
        deserialize_str, deserialize_string, deserialize_bytes, deserialize_byte_buf,
        deserialize_option, deserialize_unit, deserialize_seq, deserialize_map,
        deserialize_identifier,
        deserialize_unit_struct(name: &'static str),
        deserialize_newtype_struct(name: &'static str),
        deserialize_tuple(len: usize),
        deserialize_tuple_struct(name: &'static str, len: usize),
        deserialize_struct(name: &'static str, fields: &'static [&'static str]),
        deserialize_enum(name: &'static str, variants: &'static [&'static str]),
    }

    /// Ignored values are read as any value, so that their strings are checked too.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_any(Guard {
            inner: visitor,
            key: self.key,
        })
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// A visitor whose strings are checked before `inner` sees them.
struct Guard<V> {
    inner: V,
    key: bool,
}

macro_rules! pass {
    ($($method:ident($ty:ty)),* $(,)?) => {
        $(
            fn $method<E: de::Error>(self, value: $ty) -> Result<V::Value, E> {
                self.inner.$method(value)
            }
        )*
    };
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Guard<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    pass! {
        visit_bool(bool), visit_i8(i8), visit_i16(i16), visit_i32(i32), visit_i64(i64),
        visit_i128(i128), visit_u8(u8), visit_u16(u16), visit_u32(u32), visit_u64(u64),
        visit_u128(u128), visit_f32(f32), visit_f64(f64), visit_bytes(&[u8]),
        visit_byte_buf(Vec<u8>),
    }

    fn visit_borrowed_bytes<E: de::Error>(self, value: &'de [u8]) -> Result<V::Value, E> {
        self.inner.visit_borrowed_bytes(value)
    }

    fn visit_char<E: de::Error>(self, value: char) -> Result<V::Value, E> {
        check(value.encode_utf8(&mut [0; 4]), self.key)?;
        self.inner.visit_char(value)
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<V::Value, E> {
        check(value, self.key)?;
        self.inner.visit_str(value)
    }

    fn visit_borrowed_str<E: de::Error>(self, value: &'de str) -> Result<V::Value, E> {
        check(value, self.key)?;
        self.inner.visit_borrowed_str(value)
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<V::Value, E> {
        check(&value, self.key)?;
        self.inner.visit_string(value)
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        self.inner.visit_some(Guarded {
            inner: deserializer,
            key: self.key,
        })
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<V::Value, D::Error> {
        self.inner.visit_newtype_struct(Guarded {
            inner: deserializer,
            key: self.key,
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.inner.visit_seq(Seq(seq))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.inner.visit_map(Map(map))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.inner.visit_enum(Enum(data))
    }
}

/// A seed whose deserializer is guarded.
struct Seed<S> {
    inner: S,
    key: bool,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        self.inner.deserialize(Guarded {
            inner: deserializer,
            key: self.key,
        })
    }
}

fn value<S>(inner: S) -> Seed<S> {
    Seed { inner, key: false }
}

struct Seq<A>(A);

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Seq<A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(value(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

struct Map<A>(A);

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Map<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(Seed {
            inner: seed,
            key: true,
        })
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.0.next_value_seed(value(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

struct Enum<A>(A);

impl<'de, A: EnumAccess<'de>> EnumAccess<'de> for Enum<A> {
    type Error = A::Error;
    type Variant = Variant<A::Variant>;

    fn variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<(T::Value, Self::Variant), A::Error> {
        let (tag, variant) = self.0.variant_seed(value(seed))?;
        Ok((tag, Variant(variant)))
    }
}

struct Variant<A>(A);

impl<'de, A: de::VariantAccess<'de>> de::VariantAccess<'de> for Variant<A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.0.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.0.newtype_variant_seed(value(seed))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.0.tuple_variant(
            len,
            Guard {
                inner: visitor,
                key: false,
            },
        )
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.0.struct_variant(
            fields,
            Guard {
                inner: visitor,
                key: false,
            },
        )
    }
}
