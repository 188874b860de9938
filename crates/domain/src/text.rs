//! Which control characters text from outside may hold, decided once for every edge.
//!
//! PostgreSQL refuses NUL in text and SQLite stores it, so without a rule of our own the
//! same request would succeed on one backend and fail on the other; the other controls
//! (escape sequences, DEL, C1) only ever arrive by accident or malice. The rule:
//!
//! - **Free text** — strings and keys of JSON bodies, fields of the HTML forms (which
//!   include multi-line text areas): no control character (Unicode `Cc`: U+0000–U+001F,
//!   U+007F–U+009F) except TAB, LF and CR.
//! - **Single values** — query parameters, fields of the OAuth endpoints' forms, values
//!   taken from headers or tokens: no control character at all.

/// Where a piece of text came from, and so which controls it may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextKind {
    /// Text that may span lines: TAB, LF and CR are allowed.
    Free,
    /// One value: no control character at all.
    Single,
}

impl TextKind {
    /// Whether `text` holds a control character this kind refuses.
    pub fn refuses(self, text: &str) -> bool {
        let bytes = text.as_bytes();
        // A byte scan: every control is one ASCII byte, or 0xC2 followed by 0x80..=0x9F.
        bytes.iter().enumerate().any(|(i, &b)| match b {
            b'\t' | b'\n' | b'\r' => self == TextKind::Single,
            0x00..=0x1F | 0x7F => true,
            0xC2 => matches!(bytes.get(i + 1), Some(0x80..=0x9F)),
            _ => false,
        })
    }

    /// What a refused value is told, for a field error.
    pub fn message(self) -> &'static str {
        match self {
            TextKind::Free => {
                "must not contain control characters (tab, line feed and carriage return are allowed)"
            }
            TextKind::Single => "must not contain control characters",
        }
    }

    /// `Ok` when `text` may be used, else the message.
    pub fn check(self, text: &str) -> Result<(), String> {
        if self.refuses(text) {
            Err(self.message().to_owned())
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::TextKind::{Free, Single};

    #[test]
    fn refuses_exactly_the_control_characters() {
        for c in (0u32..=0x10_FFFF).filter_map(char::from_u32) {
            let text = format!("a{c}b");
            let breaks = matches!(c, '\t' | '\n' | '\r');
            assert_eq!(Free.refuses(&text), c.is_control() && !breaks, "{c:?}");
            assert_eq!(Single.refuses(&text), c.is_control(), "{c:?}");
        }
    }

    #[test]
    fn plain_text_passes() {
        for text in ["", "ñandú", "line\r\nnext\tcol", "€ 5", "\u{A0}\u{2028}"] {
            assert!(!Free.refuses(text), "{text:?}");
        }
        assert!(Single.refuses("a\nb"));
        assert!(Free.check("\u{0}").is_err() && Free.check("ok").is_ok());
    }
}
