//! Calendar time in UTC, without a time zone database: what beryl prints
//! of the clock (reclass's `timestamp`, SOPS's `lastmodified`).

/// The UTC date and time `secs` after the epoch: year, month (1-12), day,
/// hour, minute, second (Howard Hinnant's civil-from-days algorithm).
pub(crate) fn utc(secs: i64) -> (i64, i64, i64, i64, i64, i64) {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day, rem / 3600, rem % 3600 / 60, rem % 60)
}

/// RFC 3339 in UTC, to the second, as Go's `time.RFC3339` writes it.
pub(crate) fn rfc3339(secs: i64) -> String {
    let (y, m, d, h, min, s) = utc(secs);
    format!("{y:04}-{m:02}-{d:02}T{h:02}:{min:02}:{s:02}Z")
}

#[cfg(test)]
mod tests {
    #[test]
    fn rfc3339_matches_known_instants() {
        assert_eq!(super::rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(super::rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(super::rfc3339(1_796_660_953), "2026-12-07T16:29:13Z");
    }
}
