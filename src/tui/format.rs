//! Numbers as the screen and the plain output write them: digit groups,
//! byte sizes and short durations; and the database's banner cut to what a
//! header line has room for.

/// The banner as a header shows it: Oracle's `Oracle Database 19c
/// Enterprise Edition Release 19.0.0.0.0 - Production` is `Oracle
/// 19.0.0.0.0`; at 70 characters the whole banner was the first part a
/// normal terminal's header dropped. Other banners (DM8's is short) stay.
pub fn short_banner(banner: &str) -> String {
    let release = banner
        .split_once(" Release ")
        .and_then(|(_, rest)| rest.split_whitespace().next());
    match release {
        Some(r) if banner.starts_with("Oracle ") => format!("Oracle {r}"),
        _ => banner.to_string(),
    }
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1536` as `1.5 KiB`, `3 << 20` as `3.0 MiB`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

/// Seconds as `42s`, `3m05s`, `2h07m`, `3d04h`.
pub fn duration_s(s: u64) -> String {
    match s {
        0..=59 => format!("{s}s"),
        60..=3_599 => format!("{}m{:02}s", s / 60, s % 60),
        3_600..=86_399 => format!("{}h{:02}m", s / 3_600, (s % 3_600) / 60),
        _ => format!("{}d{:02}h", s / 86_400, (s % 86_400) / 3_600),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issue35_an_oracle_banner_is_cut_to_its_release_for_the_header() {
        assert_eq!(
            short_banner("Oracle Database 19c Enterprise Edition Release 19.0.0.0.0 - Production"),
            "Oracle 19.0.0.0.0"
        );
        assert_eq!(
            short_banner(
                "Oracle Database 11g Enterprise Edition Release 11.2.0.4.0 - 64bit Production"
            ),
            "Oracle 11.2.0.4.0"
        );
        assert_eq!(
            short_banner("DM Database Server 64 V8"),
            "DM Database Server 64 V8"
        );
        assert_eq!(short_banner("Oracle 19.21.0.0.0"), "Oracle 19.21.0.0.0");
    }
}
