//! The desk's calendar: days since 1970-01-01, and moments in whole minutes, shown as
//! `YYYY-MM-DD` and `YYYY-MM-DD HH:MM`.
//!
//! The guest has no clock, so "today" is fixed (Monday 16 March 2026) and every date in an
//! episode is an offset from it.

use std::fmt;

use agentbench_env_sdk::dates::{self, days_from_civil, fixed_digits};
use serde::{Deserialize, Serialize};

const MINUTES_PER_DAY: u32 = 24 * 60;

/// A day, as days since 1970-01-01.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub(crate) struct Day(pub i32);

/// The episode's today.
pub(crate) const TODAY: Day = Day::civil(2026, 3, 16);
/// The moment the episode starts, as the initial observation shows it.
pub(crate) const NOW_TEXT: &str = "Monday 2026-03-16 09:00";
/// When the shift starts: tickets arrived before it.
pub(crate) const START_OF_SHIFT: Stamp = Stamp::at(TODAY, 9 * 60);

impl Day {
    /// The day `year-month-day_of_month`; the arguments must name a real date.
    pub(crate) const fn civil(year: i32, month: u32, day_of_month: u32) -> Day {
        Day(days_from_civil(year, month, day_of_month))
    }

    pub(crate) const fn minus(self, days: i32) -> Day {
        Day(self.0 - days)
    }

    /// Whole days from `self` to `later` (negative when `later` is earlier).
    pub(crate) fn days_until(self, later: Day) -> i32 {
        later.0 - self.0
    }

    /// Parses `YYYY-MM-DD`.
    #[cfg(test)]
    pub(crate) fn parse(text: &str) -> Result<Day, String> {
        dates::parse_date(text.trim())
            .map(Day)
            .ok_or_else(|| format!("invalid date `{text}`: expected YYYY-MM-DD"))
    }
}

impl fmt::Display for Day {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&dates::format_date(self.0))
    }
}

/// A moment, in whole minutes since 1970-01-01 00:00.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub(crate) struct Stamp(u32);

impl Stamp {
    /// The moment `minute_of_day` minutes after the start of `day`.
    pub(crate) const fn at(day: Day, minute_of_day: u32) -> Stamp {
        Stamp(day.0 as u32 * MINUTES_PER_DAY + minute_of_day)
    }

    pub(crate) fn day(self) -> Day {
        Day((self.0 / MINUTES_PER_DAY) as i32)
    }

    pub(crate) fn plus_minutes(self, minutes: u32) -> Stamp {
        Stamp(self.0 + minutes)
    }

    pub(crate) fn minus_minutes(self, minutes: u32) -> Stamp {
        Stamp(self.0.saturating_sub(minutes))
    }

    /// Parses `YYYY-MM-DD HH:MM`.
    pub(crate) fn parse(text: &str) -> Result<Stamp, String> {
        let error = || format!("invalid date and time `{text}`: expected YYYY-MM-DD HH:MM");
        let (date, time) = text.trim().split_once(' ').ok_or_else(error)?;
        let day = dates::parse_date(date).ok_or_else(error)?;
        let (hour, minute) = time.trim().split_once(':').ok_or_else(error)?;
        let hour = fixed_digits(hour, 2)
            .filter(|&hour| hour < 24)
            .ok_or_else(error)?;
        let minute = fixed_digits(minute, 2)
            .filter(|&minute| minute < 60)
            .ok_or_else(error)?;
        Ok(Stamp::at(Day(day), hour * 60 + minute))
    }
}

impl fmt::Display for Stamp {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let minute_of_day = self.0 % MINUTES_PER_DAY;
        write!(
            formatter,
            "{} {:02}:{:02}",
            self.day(),
            minute_of_day / 60,
            minute_of_day % 60
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn today_is_monday_16_march_2026() {
        assert_eq!(TODAY.to_string(), "2026-03-16");
        // 1970-01-01 was a Thursday, so Mondays are the days congruent to 4 modulo 7.
        assert_eq!(TODAY.0.rem_euclid(7), 4);
        assert_eq!(START_OF_SHIFT.to_string(), "2026-03-16 09:00");
        assert_eq!(Day::civil(2026, 1, 30).days_until(TODAY), 45);
    }

    #[test]
    fn dates_and_moments_round_trip_or_are_refused() {
        for day in TODAY.0 - 800..TODAY.0 + 800 {
            let text = Day(day).to_string();
            assert_eq!(Day::parse(&text), Ok(Day(day)), "{text}");
        }
        assert_eq!(
            Stamp::parse("2026-03-15 21:04").map(|stamp| stamp.to_string()),
            Ok("2026-03-15 21:04".to_owned())
        );
        for text in [
            "2026-03-15",
            "2026-02-30 10:00",
            "2026-03-15 24:00",
            "today",
        ] {
            assert!(Stamp::parse(text).is_err(), "{text}");
        }
    }
}
