//! `error_description` values (RFC 6749 section 5.2, RFC 6750 section 3): printable ASCII
//! but `"` and `\`, and never anything a client sent. A `Description` is made only of
//! `&'static str`s, the service's own wording (there is no conversion from `String`, so a
//! formatted value cannot become one), and keeps only the allowed characters, so neither
//! rule depends on the place an error is made.

use std::borrow::Cow;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Description(Cow<'static, str>);

impl Description {
    /// Fixed wording, joined from pieces (`["parameter ", name, " is required"]`, each a
    /// literal or a name the service defines).
    pub fn of(parts: &[&'static str]) -> Self {
        match parts {
            [one] if one.chars().all(allowed) => Self(Cow::Borrowed(one)),
            _ => Self(Cow::Owned(
                parts
                    .iter()
                    .flat_map(|part| part.chars())
                    .filter(|c| allowed(*c))
                    .collect(),
            )),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&'static str> for Description {
    fn from(text: &'static str) -> Self {
        Self::of(&[text])
    }
}

impl std::fmt::Display for Description {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The characters RFC 6749 section 5.2 allows: `%x20-21 / %x23-5B / %x5D-7E`.
pub const fn allowed(c: char) -> bool {
    matches!(c, ' '..='!' | '#'..='[' | ']'..='~')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_the_characters_the_rfc_allows() {
        assert_eq!(
            Description::from("the code expired").as_str(),
            "the code expired"
        );
        assert_eq!(
            Description::of(&["say \"hi\" \\ ", "caf\u{e9}\u{7}\n", "!"]).as_str(),
            "say hi  caf!"
        );
        let all: String = (0u8..=127)
            .map(char::from)
            .filter(|c| allowed(*c))
            .collect();
        assert_eq!(all.len(), 95 - 2, "printable ASCII and space, but two");
        assert!(!all.contains(['"', '\\']));
    }
}
