//! The values settings take, as text: durations, rate limits, counts. Flags, environment
//! variables and the file all give text (the file's integers and booleans are written
//! out), so one parser per kind of value serves every layer.

use std::time::Duration;

/// `7200`, `7200s`, `250ms`, `90m`, `2h`, `1d`.
pub fn parse_duration(input: &str) -> Result<Duration, String> {
    let input = input.trim();
    let split = input
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(input.len());
    let (number, unit) = input.split_at(split);
    let n: u64 = number
        .parse()
        .map_err(|_| format!("`{input}` is not a duration (e.g. 7200s, 15m, 2h)"))?;
    let too_long = || format!("`{input}` is too long");
    let duration = match unit {
        "ms" => Duration::from_millis(n),
        "" | "s" => Duration::from_secs(n),
        "m" => Duration::from_secs(n.checked_mul(60).ok_or_else(too_long)?),
        "h" => Duration::from_secs(n.checked_mul(3600).ok_or_else(too_long)?),
        "d" => Duration::from_secs(n.checked_mul(86_400).ok_or_else(too_long)?),
        _ => {
            return Err(format!(
                "`{input}` has an unknown unit (use ms, s, m, h or d)"
            ));
        }
    };
    if duration.is_zero() {
        return Err("a duration must be positive".into());
    }
    Ok(duration)
}

/// A duration for a setting counted in whole seconds (`1500ms` is refused, not cut to `1s`).
pub fn parse_seconds(input: &str) -> Result<Duration, String> {
    let duration = parse_duration(input)?;
    if duration.subsec_nanos() != 0 {
        return Err(format!(
            "`{}` is not a whole number of seconds",
            input.trim()
        ));
    }
    Ok(duration)
}

/// A count that must be at least one, named by its setting in errors.
pub fn at_least_one(name: &str, n: u32) -> Result<u32, String> {
    if n == 0 {
        return Err(format!("{name} must be at least 1"));
    }
    Ok(n)
}

/// `600/60s`: a quota of requests per window.
pub fn parse_rate_limit(input: &str) -> Result<(u32, Duration), String> {
    let (quota, window) = input
        .split_once('/')
        .ok_or_else(|| format!("`{input}` is not a rate limit (e.g. 600/60s)"))?;
    let quota: u32 = quota
        .trim()
        .parse()
        .ok()
        .filter(|q| *q > 0)
        .ok_or_else(|| format!("`{quota}` is not a positive request count"))?;
    Ok((quota, parse_seconds(window)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_rates() {
        assert_eq!(parse_duration("2s").unwrap(), Duration::from_secs(2));
        assert_eq!(parse_duration("7200").unwrap(), Duration::from_secs(7200));
        assert_eq!(parse_duration("2h").unwrap(), Duration::from_secs(7200));
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
        assert_eq!(
            parse_duration("1500ms").unwrap(),
            Duration::from_millis(1500)
        );
        assert!(parse_duration("0ms").is_err() && parse_duration("5us").is_err());
        assert!(parse_duration("99999999999999999d").is_err());
        assert_eq!(parse_seconds("2000ms").unwrap(), Duration::from_secs(2));
        assert!(parse_seconds("1500ms").is_err() && parse_rate_limit("10/500ms").is_err());
        assert!(
            parse_duration("0s").is_err()
                && parse_duration("2w").is_err()
                && parse_duration("s").is_err()
        );
        assert_eq!(
            parse_rate_limit("600/60s").unwrap(),
            (600, Duration::from_secs(60))
        );
        assert!(parse_rate_limit("0/1s").is_err() && parse_rate_limit("10").is_err());
    }
}
