//! The episode's calendar: timestamps are whole minutes since 1970-01-01 in one time zone, shown
//! as `YYYY-MM-DD HH:MM`.
//!
//! The guest has no clock, so "today" is fixed (Monday 2 March 2026) and every date in an episode
//! is an offset from it.

use std::fmt;

use agentbench_env_sdk::dates::{self, civil_from_days, days_from_civil, fixed_digits};
use serde::{Deserialize, Serialize};

const MINUTES_PER_DAY: u32 = 24 * 60;

/// The episode's today, as days since 1970-01-01.
pub(crate) const TODAY: i32 = days_from_civil(2026, 3, 2);
/// The moment the episode starts, as the initial observation shows it.
pub(crate) const NOW_TEXT: &str = "Monday 2026-03-02 09:00";
/// When the agent starts working: the user's clock reads 09:00, and the emails the agent sends
/// are dated from there on.
pub(crate) const START_OF_WORK: Timestamp = Timestamp::at(TODAY, 9 * 60);

/// A moment, in whole minutes since 1970-01-01 00:00.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub(crate) struct Timestamp(u32);

impl Timestamp {
    /// The moment `minute_of_day` minutes after the start of `day` (days since 1970-01-01).
    pub(crate) const fn at(day: i32, minute_of_day: u32) -> Timestamp {
        Timestamp(day as u32 * MINUTES_PER_DAY + minute_of_day)
    }

    /// The day it falls on, as days since 1970-01-01.
    pub(crate) fn day(self) -> i32 {
        (self.0 / MINUTES_PER_DAY) as i32
    }

    pub(crate) fn plus_minutes(self, minutes: u32) -> Timestamp {
        Timestamp(self.0 + minutes)
    }

    /// Parses `YYYY-MM-DD HH:MM`; a `T` may separate date and time, and seconds may follow.
    pub(crate) fn parse(text: &str) -> Result<Timestamp, String> {
        let error = || format!("invalid date and time `{text}`: expected YYYY-MM-DD HH:MM");
        let trimmed = text.trim();
        let (date, time) = trimmed
            .split_once(' ')
            .or_else(|| trimmed.split_once('T'))
            .ok_or_else(error)?;
        let day = dates::parse_date(date).ok_or_else(error)?;
        let time = time.trim();
        let (hour, rest) = time.split_once(':').ok_or_else(error)?;
        let (minute, second) = match rest.split_once(':') {
            Some((minute, second)) => (minute, Some(second)),
            None => (rest, None),
        };
        let hour = fixed_digits(hour, 2)
            .filter(|&hour| hour < 24)
            .ok_or_else(error)?;
        let minute = fixed_digits(minute, 2)
            .filter(|&minute| minute < 60)
            .ok_or_else(error)?;
        if second.is_some_and(|second| fixed_digits(second, 2).is_none_or(|second| second >= 60)) {
            return Err(error());
        }
        Ok(Timestamp::at(day, hour * 60 + minute))
    }
}

// Dates are written digit by digit rather than through `write!`: observations show dozens of
// them, and the formatting machinery costs more than the arithmetic.

impl Timestamp {
    /// `YYYY-MM-DD HH:MM`, as `to_string` gives it but without the formatting machinery.
    pub(crate) fn text(self) -> String {
        let mut text = String::with_capacity(16);
        self.push_to(&mut text);
        text
    }

    /// Appends `YYYY-MM-DD HH:MM`.
    pub(crate) fn push_to(self, text: &mut String) {
        text.push_str(std::str::from_utf8(&self.digits()).expect("digits are ASCII"));
    }

    /// Appends `HH:MM`.
    pub(crate) fn push_time_to(self, text: &mut String) {
        text.push_str(std::str::from_utf8(&self.digits()[11..]).expect("digits are ASCII"));
    }

    fn digits(self) -> [u8; 16] {
        let minute_of_day = self.0 % MINUTES_PER_DAY;
        let mut text = [0u8; 16];
        write_date(&mut text[..10], self.day());
        text[10] = b' ';
        write_digits(&mut text[11..13], minute_of_day / 60);
        text[13] = b':';
        write_digits(&mut text[14..16], minute_of_day % 60);
        text
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(std::str::from_utf8(&self.digits()).expect("digits are ASCII"))
    }
}

/// A day, shown as `YYYY-MM-DD`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Date(pub i32);

impl fmt::Display for Date {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = [0u8; 10];
        write_date(&mut text, self.0);
        formatter.write_str(std::str::from_utf8(&text).expect("digits are ASCII"))
    }
}

/// Writes `YYYY-MM-DD` into ten bytes.
fn write_date(text: &mut [u8], day: i32) {
    let (year, month, day_of_month) = civil_from_days(day);
    write_digits(&mut text[..4], year.clamp(0, 9999) as u32);
    text[4] = b'-';
    write_digits(&mut text[5..7], month);
    text[7] = b'-';
    write_digits(&mut text[8..10], day_of_month);
}

/// Writes `number` in decimal, zero-padded to fill `text`.
fn write_digits(text: &mut [u8], mut number: u32) {
    for digit in text.iter_mut().rev() {
        *digit = b'0' + (number % 10) as u8;
        number /= 10;
    }
}

/// Parses `YYYY-MM-DD` into days since 1970-01-01.
pub(crate) fn parse_date(text: &str) -> Result<i32, String> {
    dates::parse_date(text.trim())
        .ok_or_else(|| format!("invalid date `{text}`: expected YYYY-MM-DD"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn today_is_monday_2_march_2026() {
        assert_eq!(Date(TODAY).to_string(), "2026-03-02");
        // 1970-01-01 was a Thursday, so Mondays are the days congruent to 4 modulo 7.
        assert_eq!(TODAY.rem_euclid(7), 4);
        assert_eq!(START_OF_WORK.to_string(), "2026-03-02 09:00");
    }

    #[test]
    fn dates_round_trip_across_months_and_leap_years() {
        for day in TODAY - 800..TODAY + 800 {
            let text = Date(day).to_string();
            assert_eq!(parse_date(&text), Ok(day), "{text}");
        }
        assert_eq!(Date(days_from_civil(2028, 2, 29)).to_string(), "2028-02-29");
    }

    #[test]
    fn timestamps_parse_in_the_accepted_forms_and_reject_the_rest() {
        for text in [
            "2026-03-04 14:30",
            "2026-03-04T14:30",
            "2026-03-04T14:30:00",
            " 2026-03-04 14:30 ",
        ] {
            assert_eq!(
                Timestamp::parse(text).map(|time| time.to_string()),
                Ok("2026-03-04 14:30".to_owned())
            );
        }
        for text in [
            "2026-03-04",
            "2026-02-30 10:00",
            "2026-03-04 24:00",
            "2026-03-04 9:00",
            "tomorrow",
            "2026-3-4 10:00",
        ] {
            assert!(Timestamp::parse(text).is_err(), "{text}");
        }
    }
}
