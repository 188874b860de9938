//! Calendar dates as the API writes and reads them (`YYYY-MM-DD`). Subscriptions renew on
//! dates, not instants: a date is a day in UTC, stored as its `YYYY-MM-DD` text on every
//! backend, so that ordering and range filters are text comparisons that agree with the
//! calendar.

use std::fmt;

use serde::{Serialize, Serializer};
use time::{Date, Duration, UtcOffset};

use crate::Timestamp;

/// A day of the calendar, in the years 0000 to 9999.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CalendarDate(Date);

impl CalendarDate {
    /// What a value `parse` refuses is told.
    pub const MESSAGE: &'static str = "must be a YYYY-MM-DD date, in the years 0000 to 9999";

    pub fn new(date: Date) -> Self {
        Self(date)
    }

    pub const fn date(self) -> Date {
        self.0
    }

    /// The UTC day `at` falls on.
    pub fn of(at: Timestamp) -> Self {
        let midnight = Date::from_calendar_date(1970, time::Month::January, 1)
            .expect("1970-01-01 is a date")
            .midnight()
            .assume_offset(UtcOffset::UTC);
        let day = midnight + Duration::seconds(at.as_secs());
        Self(day.date())
    }

    /// The instant the day starts, in UTC.
    pub fn start(self) -> Timestamp {
        let at = self.0.midnight().assume_offset(UtcOffset::UTC);
        Timestamp::from_secs(at.unix_timestamp())
    }

    /// `days` later (earlier when negative), within the dates `time` holds.
    pub fn plus_days(self, days: i64) -> Self {
        Self(self.0.saturating_add(Duration::days(days)))
    }

    /// Days from `self` to `later` (negative when `later` is earlier).
    pub fn days_until(self, later: Self) -> i64 {
        (later.0 - self.0).whole_days()
    }

    /// Accepts `YYYY-MM-DD` only, in the years 0000 to 9999.
    pub fn parse(input: &str) -> Option<Self> {
        let format = time::macros::format_description!("[year]-[month]-[day]");
        if input.len() != 10 {
            return None;
        }
        Date::parse(input, &format).ok().map(Self)
    }
}

impl fmt::Display for CalendarDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.0;
        write!(
            f,
            "{:04}-{:02}-{:02}",
            d.year(),
            u8::from(d.month()),
            d.day()
        )
    }
}

/// Decoding from the stored text.
impl TryFrom<String> for CalendarDate {
    type Error = String;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        Self::parse(&text).ok_or_else(|| format!("{text:?} is not a YYYY-MM-DD date"))
    }
}

impl Serialize for CalendarDate {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl schemars::JsonSchema for CalendarDate {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "CalendarDate".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "format": "date" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_reads_and_writes_as_iso_text() {
        let date = CalendarDate::parse("2027-02-28").unwrap();
        assert_eq!(date.to_string(), "2027-02-28");
        assert_eq!(date.plus_days(1).to_string(), "2027-03-01");
        assert!(CalendarDate::parse("2027-02-29").is_none());
        assert!(CalendarDate::parse("2027-2-28").is_none());
        assert!(CalendarDate::parse("2027-02-28T00:00:00Z").is_none());
        assert_eq!(
            CalendarDate::parse("0001-01-01").unwrap().to_string(),
            "0001-01-01"
        );
    }

    #[test]
    fn an_instant_falls_on_its_utc_day() {
        let day = CalendarDate::parse("2026-11-27").unwrap();
        assert_eq!(CalendarDate::of(day.start()), day);
        assert_eq!(CalendarDate::of(day.start().plus_secs(86_399)), day);
        assert_eq!(
            CalendarDate::of(day.start().plus_secs(-1)),
            day.plus_days(-1)
        );
        assert_eq!(day.days_until(day.plus_days(30)), 30);
    }
}
