//! Civil-date arithmetic for env calendars: days since 1970-01-01 to and from year, month and
//! day, and `YYYY-MM-DD` text.
//!
//! Guests have no clock, so each env fixes its own "today" and counts every date from it; this
//! module holds the calendar those envs share, not any env's today.

/// The days since 1970-01-01 of `year-month-day_of_month` in the proleptic Gregorian calendar;
/// the arguments must name a real date.
pub const fn days_from_civil(year: i32, month: u32, day_of_month: u32) -> i32 {
    // This and `civil_from_days` are Howard Hinnant's algorithms: the calendar is taken in
    // 400-year eras that start on 1 March, which puts the leap day at the end of each year and
    // makes month lengths a linear formula.
    let year = if month <= 2 { year - 1 } else { year };
    let era = if year >= 0 { year } else { year - 399 } / 400;
    let year_of_era = (year - era * 400) as u32;
    let month_from_march = (month + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + day_of_month - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era as i32 - 719_468
}

/// The year, month and day of the month of a day counted from 1970-01-01.
pub const fn civil_from_days(days: i32) -> (i32, u32, u32) {
    let days = days + 719_468;
    let era = if days >= 0 { days } else { days - 146_096 } / 146_097;
    let day_of_era = (days - era * 146_097) as u32;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day_of_month = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = year_of_era as i32 + era * 400 + if month <= 2 { 1 } else { 0 };
    (year, month, day_of_month)
}

/// How many days `month` (1 to 12) of `year` has.
pub const fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The number written with exactly `width` ASCII digits; `None` for anything else.
pub fn fixed_digits(text: &str, width: usize) -> Option<u32> {
    if text.len() != width || !text.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Parses exactly `YYYY-MM-DD` (no surrounding space) into days since 1970-01-01; the year must
/// be 1970 to 9999 and the day must exist.
pub fn parse_date(text: &str) -> Option<i32> {
    let bytes = text.as_bytes();
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return None;
    }
    let year = fixed_digits(&text[..4], 4).filter(|year| (1970..=9999).contains(year))? as i32;
    let month = fixed_digits(&text[5..7], 2).filter(|month| (1..=12).contains(month))?;
    let day_of_month = fixed_digits(&text[8..], 2)
        .filter(|&day_of_month| day_of_month >= 1 && day_of_month <= days_in_month(year, month))?;
    Some(days_from_civil(year, month, day_of_month))
}

/// `YYYY-MM-DD` of a day counted from 1970-01-01.
pub fn format_date(days: i32) -> String {
    let (year, month, day_of_month) = civil_from_days(days);
    format!("{year:04}-{month:02}-{day_of_month:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_days_convert_both_ways() {
        for (days, civil, text) in [
            (0, (1970, 1, 1), "1970-01-01"),
            (20_514, (2026, 3, 2), "2026-03-02"),
            (21_243, (2028, 2, 29), "2028-02-29"),
            (-1, (1969, 12, 31), "1969-12-31"),
        ] {
            assert_eq!(days_from_civil(civil.0, civil.1, civil.2), days, "{text}");
            assert_eq!(civil_from_days(days), civil, "{text}");
            assert_eq!(format_date(days), text);
        }
    }

    #[test]
    fn every_day_round_trips_through_text() {
        for days in 0..80_000 {
            assert_eq!(parse_date(&format_date(days)), Some(days), "{days}");
        }
    }

    #[test]
    fn month_lengths_follow_the_leap_year_rules() {
        assert_eq!(days_in_month(2024, 2), 29);
        assert_eq!(days_in_month(2100, 2), 28);
        assert_eq!(days_in_month(2000, 2), 29);
        assert_eq!(days_in_month(2026, 4), 30);
        assert_eq!(days_in_month(2026, 12), 31);
    }

    #[test]
    fn only_real_dates_in_the_exact_form_parse() {
        for text in [
            "2026-02-29",
            "2026-13-01",
            "2026-00-10",
            "2026-3-4",
            " 2026-03-04",
            "1969-12-31",
            "+202-03-04",
            "2026/03/04",
            "tomorrow",
        ] {
            assert_eq!(parse_date(text), None, "{text}");
        }
        assert_eq!(fixed_digits("09", 2), Some(9));
        assert_eq!(fixed_digits("9", 2), None);
        assert_eq!(fixed_digits("+9", 2), None);
    }
}
