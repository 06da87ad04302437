//! The episode's calendar: days since 1970-01-01, shown as `YYYY-MM-DD`.
//!
//! The guest has no clock, so "today" is fixed (Monday 9 March 2026) and every date in an
//! episode is an offset from it. Banking needs no time of day: payments are booked by date.

use std::fmt;

use agentbench_env_sdk::dates::{self, days_from_civil};
use serde::{Deserialize, Serialize};

pub(crate) use agentbench_env_sdk::dates::days_in_month;

/// A day, as days since 1970-01-01.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub(crate) struct Day(pub i32);

/// The episode's today.
pub(crate) const TODAY: Day = Day(days_from_civil(2026, 3, 9));
/// Today as the initial observation shows it.
pub(crate) const TODAY_TEXT: &str = "Monday 2026-03-09";
/// How far ahead a payment can be scheduled, in days.
pub(crate) const MAX_SCHEDULE_DAYS: i32 = 366;

impl Day {
    pub(crate) const fn ymd(year: i32, month: u32, day_of_month: u32) -> Day {
        Day(days_from_civil(year, month, day_of_month))
    }

    pub(crate) fn plus(self, days: i32) -> Day {
        Day(self.0 + days)
    }

    pub(crate) fn text(self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Day {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&dates::format_date(self.0))
    }
}

/// Parses `YYYY-MM-DD`.
pub(crate) fn parse_day(text: &str) -> Result<Day, String> {
    dates::parse_date(text.trim())
        .map(Day)
        .ok_or_else(|| format!("invalid date `{text}`: expected YYYY-MM-DD"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn today_is_monday_9_march_2026() {
        assert_eq!(TODAY.text(), "2026-03-09");
        // 1970-01-01 was a Thursday, so Mondays are the days congruent to 4 modulo 7.
        assert_eq!(TODAY.0.rem_euclid(7), 4);
    }

    #[test]
    fn days_round_trip_and_invalid_dates_are_refused() {
        for day in TODAY.0 - 800..TODAY.0 + 800 {
            let text = Day(day).text();
            assert_eq!(parse_day(&text), Ok(Day(day)), "{text}");
        }
        for text in ["2026-02-30", "2026-3-4", "tomorrow", "2026-13-01"] {
            assert!(parse_day(text).is_err(), "{text}");
        }
    }
}
