//! Human durations on the command line: `90s`, `10m`, `1h`, `2d`, `500ms`.

use std::time::Duration;

/// Parses `N[ms|s|m|h|d]` (a bare number is seconds).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("`{text}` is not a duration (use e.g. 30s, 10m, 1h, 2d)"))?;
    let secs = match unit {
        "ms" => return Ok(Duration::from_millis(n)),
        "" | "s" => n,
        "m" => n * 60,
        "h" => n * 3600,
        "d" => n * 86_400,
        _ => {
            return Err(format!(
                "`{text}`: unknown unit `{unit}` (use ms, s, m, h or d)"
            ))
        }
    };
    Ok(Duration::from_secs(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_bare_seconds_parse() {
        assert_eq!(parse_duration("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_duration("45"), Ok(Duration::from_secs(45)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("2d"), Ok(Duration::from_secs(172_800)));
    }

    #[test]
    fn junk_is_rejected_with_a_hint() {
        assert!(parse_duration("soon").unwrap_err().contains("30s"));
        assert!(parse_duration("5w").unwrap_err().contains("unknown unit"));
    }
}
