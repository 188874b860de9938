//! Time as the service sees it: microsecond timestamps and an injectable clock, so that
//! time-driven behaviour is testable without sleeping.

use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};

use serde::{Serialize, Serializer};
use time::format_description::well_known::Rfc3339;
use time::{Date, OffsetDateTime, UtcOffset};

/// Microseconds since the Unix epoch, UTC. Stored as BIGINT on every backend, so ordering
/// and range filters are plain integer comparisons; with the `sqlx` feature it binds and
/// decodes as that integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "sqlx", derive(sqlx::Type), sqlx(transparent))]
pub struct Timestamp(i64);

impl Timestamp {
    pub const fn from_micros(micros: i64) -> Self {
        Self(micros)
    }

    pub const fn as_micros(self) -> i64 {
        self.0
    }

    pub const fn as_secs(self) -> i64 {
        self.0.div_euclid(1_000_000)
    }

    pub fn from_secs(secs: i64) -> Self {
        Self(secs.saturating_mul(1_000_000))
    }

    pub fn plus_secs(self, secs: i64) -> Self {
        Self(self.0.saturating_add(secs.saturating_mul(1_000_000)))
    }

    /// Later by `span`, to the microsecond (saturating).
    pub fn plus(self, span: std::time::Duration) -> Self {
        let micros = i64::try_from(span.as_micros()).unwrap_or(i64::MAX);
        Self(self.0.saturating_add(micros))
    }

    /// Truncated to whole seconds, as HTTP dates and the API show it.
    pub fn truncated_to_secs(self) -> Self {
        Self::from_secs(self.as_secs())
    }

    /// RFC 3339 in UTC with second precision: `2026-11-22T10:00:00Z`.
    pub fn to_rfc3339(self) -> String {
        self.rfc3339().as_str().to_owned()
    }

    /// As `to_rfc3339`, written on the stack: documents show hundreds of timestamps, and
    /// a `String` for each showed in profiles of list pages.
    pub fn rfc3339(self) -> Rfc3339Text {
        let dt = OffsetDateTime::from_unix_timestamp(self.as_secs())
            .unwrap_or(OffsetDateTime::UNIX_EPOCH);
        let mut text = Rfc3339Text {
            bytes: [0; Rfc3339Text::CAPACITY],
            len: 0,
        };
        match u16::try_from(dt.year()) {
            Ok(year) if year <= 9999 => {
                let mut out = *b"0000-00-00T00:00:00Z";
                let mut put = |at: usize, digits: usize, mut value: u16| {
                    for i in (at..at + digits).rev() {
                        out[i] = b'0' + (value % 10) as u8;
                        value /= 10;
                    }
                };
                put(0, 4, year);
                put(5, 2, u16::from(u8::from(dt.month())));
                put(8, 2, u16::from(dt.day()));
                put(11, 2, u16::from(dt.hour()));
                put(14, 2, u16::from(dt.minute()));
                put(17, 2, u16::from(dt.second()));
                text.bytes[..out.len()].copy_from_slice(&out);
                text.len = out.len();
            }
            // Outside the years the API takes (see `MIN`, `MAX`): written as before.
            _ => {
                use std::fmt::Write as _;
                let _ = write!(
                    text,
                    "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
                    dt.year(),
                    u8::from(dt.month()),
                    dt.day(),
                    dt.hour(),
                    dt.minute(),
                    dt.second()
                );
            }
        }
        text
    }

    /// The earliest instant the API takes or shows: 0000-01-01T00:00:00Z.
    pub const MIN: Self = Self(-62_167_219_200 * 1_000_000);
    /// The latest: 9999-12-31T23:59:59.999999Z. RFC 3339 writes no year outside
    /// 0000–9999, so an instant that an offset moves out of them could not be shown.
    pub const MAX: Self = Self(253_402_300_800 * 1_000_000 - 1);

    /// What a value `parse` refuses is told.
    pub const MESSAGE: &'static str =
        "must be an RFC 3339 date-time or a YYYY-MM-DD date, in the years 0000 to 9999";

    /// Accepts an RFC 3339 date-time (any offset) or a bare `YYYY-MM-DD` (midnight UTC),
    /// between `MIN` and `MAX`.
    pub fn parse(input: &str) -> Option<Self> {
        let parsed = if let Ok(dt) = OffsetDateTime::parse(input, &Rfc3339) {
            i64::try_from(dt.unix_timestamp_nanos() / 1_000)
                .ok()
                .map(Self)
        } else {
            let format = time::macros::format_description!("[year]-[month]-[day]");
            let date = Date::parse(input, &format).ok()?;
            let dt = date.midnight().assume_offset(UtcOffset::UTC);
            Some(Self::from_secs(dt.unix_timestamp()))
        };
        parsed.filter(|t| (Self::MIN..=Self::MAX).contains(t))
    }
}

/// Decoding from the BIGINT column.
impl From<i64> for Timestamp {
    fn from(micros: i64) -> Self {
        Self(micros)
    }
}

/// A timestamp's RFC 3339 text, held on the stack (see [`Timestamp::rfc3339`]).
pub struct Rfc3339Text {
    bytes: [u8; Self::CAPACITY],
    len: usize,
}

impl Rfc3339Text {
    /// Room for any year `time` represents (six digits and a sign).
    const CAPACITY: usize = 32;

    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len]).expect("only ASCII is written")
    }
}

impl fmt::Write for Rfc3339Text {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        let room = self.bytes.get_mut(self.len..end).ok_or(fmt::Error)?;
        room.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.rfc3339().as_str())
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.rfc3339().as_str())
    }
}

/// An RFC 3339 time in UTC, as the API writes and reads it.
impl schemars::JsonSchema for Timestamp {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Timestamp".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "format": "date-time" })
    }
}

/// Where "now" comes from.
pub trait Clock: Send + Sync + fmt::Debug {
    fn now(&self) -> Timestamp;
}

/// The wall clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let nanos = OffsetDateTime::now_utc().unix_timestamp_nanos();
        Timestamp::from_micros(i64::try_from(nanos / 1_000).unwrap_or(i64::MAX))
    }
}

/// A clock that moves only when told to, for tests of time-driven behaviour.
#[derive(Debug, Default)]
pub struct ManualClock(AtomicI64);

impl ManualClock {
    pub fn new(start: Timestamp) -> Self {
        Self(AtomicI64::new(start.as_micros()))
    }

    pub fn advance_secs(&self, secs: i64) {
        self.0
            .fetch_add(secs.saturating_mul(1_000_000), Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_micros(self.0.load(Ordering::SeqCst))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_parses_rfc3339_and_dates() {
        let t = Timestamp::parse("2026-11-22T10:00:00.123456Z").unwrap();
        assert_eq!(t.to_rfc3339(), "2026-11-22T10:00:00Z");
        assert_eq!(t.as_micros() % 1_000_000, 123_456);
        let offset = Timestamp::parse("2026-11-22T12:00:00+02:00").unwrap();
        assert_eq!(offset.to_rfc3339(), "2026-11-22T10:00:00Z");
        let day = Timestamp::parse("2026-11-22").unwrap();
        assert_eq!(day.to_rfc3339(), "2026-11-22T00:00:00Z");
        assert!(Timestamp::parse("22/11/2026").is_none());
        assert_eq!(
            Timestamp::parse("0000-01-01T00:00:00Z"),
            Some(Timestamp::MIN)
        );
        assert_eq!(Timestamp::MIN.to_rfc3339(), "0000-01-01T00:00:00Z");
        assert_eq!(Timestamp::MAX.to_rfc3339(), "9999-12-31T23:59:59Z");
        assert_eq!(
            Timestamp::parse("9999-12-31T23:59:59.999999Z"),
            Some(Timestamp::MAX)
        );
        for outside in [
            "9999-12-31T23:59:59-00:01",
            "0000-01-01T00:00:00+00:01",
            "10000-01-01",
            "-0001-01-01",
            "+10000-01-01T00:00:00Z",
        ] {
            assert_eq!(Timestamp::parse(outside), None, "{outside}");
        }
        assert!(Timestamp::parse("2026-13-01").is_none());
    }

    #[test]
    fn spans_are_added_to_the_microsecond() {
        let t = Timestamp::from_micros(1_000_000);
        assert_eq!(
            t.plus(std::time::Duration::from_millis(250)).as_micros(),
            1_250_000
        );
        assert_eq!(
            t.plus(std::time::Duration::from_micros(1)).as_micros(),
            1_000_001
        );
        assert_eq!(t.plus(std::time::Duration::MAX).as_micros(), i64::MAX);
    }

    #[test]
    fn manual_clock_moves_only_when_told() {
        let clock = ManualClock::new(Timestamp::from_secs(100));
        assert_eq!(clock.now().as_secs(), 100);
        clock.advance_secs(10);
        assert_eq!(clock.now().as_secs(), 110);
    }

    proptest::proptest! {
        /// The text written on the stack is what formatting the calendar fields gives,
        /// inside the API's years and outside them (where `time` still has a date).
        #[test]
        fn rfc3339_text_matches_the_calendar(secs in -400_000_000_000i64..400_000_000_000) {
            let reference = match OffsetDateTime::from_unix_timestamp(secs) {
                Ok(dt) => format!(
                    "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
                    dt.year(),
                    u8::from(dt.month()),
                    dt.day(),
                    dt.hour(),
                    dt.minute(),
                    dt.second()
                ),
                Err(_) => "1970-01-01T00:00:00Z".to_owned(),
            };
            let t = Timestamp::from_secs(secs);
            let text = t.rfc3339();
            proptest::prop_assert_eq!(text.as_str(), reference.as_str());
            proptest::prop_assert_eq!(t.to_string(), reference);
        }
    }
}
