//! Enums that travel as lower-case text (in JSON, query strings and database columns),
//! declared once with `text_enum!` so that every such enum parses, prints and reports a
//! bad value the same way.

use std::fmt;

/// A value outside an enum's vocabulary; displays the values allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownValue(pub &'static [&'static str]);

impl fmt::Display for UnknownValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "must be one of: {}", self.0.join(", "))
    }
}

impl std::error::Error for UnknownValue {}

/// Declares `enum Name { Variant => "text", … }` with `as_str`, `Display`, `Serialize`,
/// `Deserialize`, `FromStr` and `TryFrom<String>` (for database columns), all on the same
/// vocabulary; a bad value's message lists the values allowed.
#[macro_export]
macro_rules! text_enum {
    ($(#[$meta:meta])* $vis:vis enum $name:ident {
        $($(#[$variant_meta:meta])* $variant:ident => $text:literal),+ $(,)?
    }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $name { $($(#[$variant_meta])* $variant),+ }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            pub const NAMES: &'static [&'static str] = &[$($text),+];

            pub const fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = <::std::borrow::Cow<'de, str>>::deserialize(d)?;
                text.parse().map_err(::serde::de::Error::custom)
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $crate::text_enum::UnknownValue;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($text => Ok($name::$variant),)+
                    _ => Err($crate::text_enum::UnknownValue(Self::NAMES)),
                }
            }
        }

        impl $crate::schemars::JsonSchema for $name {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn schema_id() -> ::std::borrow::Cow<'static, str> {
                concat!(module_path!(), "::", stringify!($name)).into()
            }

            fn json_schema(_: &mut $crate::schemars::SchemaGenerator) -> $crate::schemars::Schema {
                $crate::schemars::json_schema!({ "type": "string", "enum": Self::NAMES })
            }
        }

        impl TryFrom<String> for $name {
            type Error = $crate::text_enum::UnknownValue;
            fn try_from(s: String) -> Result<Self, Self::Error> {
                s.parse()
            }
        }
    };
}

#[cfg(test)]
mod tests {
    text_enum! {
        enum Colour { Red => "red", DarkBlue => "dark_blue" }
    }

    #[test]
    fn parses_prints_and_names_the_vocabulary() {
        assert_eq!("dark_blue".parse::<Colour>(), Ok(Colour::DarkBlue));
        assert_eq!(Colour::Red.to_string(), "red");
        let err = "Red".parse::<Colour>().unwrap_err();
        assert_eq!(err.to_string(), "must be one of: red, dark_blue");
        assert_eq!(Colour::ALL.len(), 2);
    }
}
