//! Durations as verdict.toml writes them: whole seconds (`90`) or a string with units (`"90s"`,
//! `"5m"`, `"1m30s"`, `"500ms"`, `"1h"`).
//!
//! Shared with the CLI's config so that every `timeout` key in the file reads the same way.

use std::fmt;
use std::time::Duration;

use serde::Deserializer;
use serde::de::{self, Visitor};

/// What a duration may look like, for error messages.
pub const EXPECTED: &str = "a whole number of seconds or a string like \"90s\", \"5m\", \"1m30s\"";

/// Parses `"90s"`, `"5m"`, `"1h"`, `"500ms"` or a sum of such parts (`"1m30s"`); a bare number is
/// seconds. Zero is rejected: a time-out of nothing would stop every command at once.
pub fn parse(text: &str) -> Result<Duration, String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(format!("empty duration; expected {EXPECTED}"));
    }
    let invalid = || format!("invalid duration `{text}`; expected {EXPECTED}");
    let mut total = Duration::ZERO;
    let mut rest = trimmed;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return Err(invalid());
        }
        let number: u64 = rest[..digits].parse().map_err(|_| invalid())?;
        rest = &rest[digits..];
        let unit_len = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
        let unit = &rest[..unit_len];
        rest = rest[unit_len..].trim_start();
        let part = match unit {
            "ms" => Duration::from_millis(number),
            "" | "s" => Duration::from_secs(number),
            "m" => Duration::from_secs(number.saturating_mul(60)),
            "h" => Duration::from_secs(number.saturating_mul(3600)),
            _ => return Err(invalid()),
        };
        // A bare number is only allowed alone: "1m30" is more likely a typo than 1m30s.
        if unit.is_empty() && total != Duration::ZERO {
            return Err(invalid());
        }
        total = total.saturating_add(part);
    }
    from_total(total, text)
}

/// Whole seconds from an integer in the file.
pub fn from_seconds(seconds: i64) -> Result<Duration, String> {
    if seconds <= 0 {
        return Err(format!(
            "invalid duration {seconds}: it must be more than zero seconds"
        ));
    }
    Ok(Duration::from_secs(seconds.unsigned_abs()))
}

fn from_total(total: Duration, text: &str) -> Result<Duration, String> {
    if total.is_zero() {
        Err(format!(
            "invalid duration `{text}`: it must be more than zero"
        ))
    } else {
        Ok(total)
    }
}

/// A duration as the file writes it, for JSON Schemas of the files that hold one: a field read
/// with [`deserialize_option`] declares `#[schemars(with = "Option<duration::Text>")]`.
pub struct Text;

impl schemars::JsonSchema for Text {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Duration".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A whole number of seconds, or a string like \"90s\", \"5m\", \"1m30s\", \"500ms\", \"1h\"; more than zero.",
            "oneOf": [
                { "type": "integer", "minimum": 1 },
                { "type": "string", "pattern": "^\\s*([0-9]+(ms|s|m|h)\\s*)+$|^\\s*[0-9]+\\s*$" }
            ]
        })
    }
}

/// A serde `deserialize_with` for an optional duration field (`#[serde(default)]` gives `None`).
pub fn deserialize_option<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Duration>, D::Error> {
    deserializer.deserialize_any(DurationVisitor).map(Some)
}

struct DurationVisitor;

impl Visitor<'_> for DurationVisitor {
    type Value = Duration;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(EXPECTED)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Duration, E> {
        from_seconds(v).map_err(E::custom)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Duration, E> {
        from_seconds(i64::try_from(v).unwrap_or(i64::MAX)).map_err(E::custom)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Duration, E> {
        parse(v).map_err(E::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, expect: Result<u64, &str>) {
        let got = parse(text).map(|d| d.as_millis() as u64);
        assert_eq!(got, expect.map_err(str::to_owned), "parsing {text:?}");
    }

    #[test]
    fn units_and_sums() {
        check("90s", Ok(90_000));
        check("90", Ok(90_000));
        check("5m", Ok(300_000));
        check("1h", Ok(3_600_000));
        check("500ms", Ok(500));
        check("1m30s", Ok(90_000));
        check(" 2m 5s ", Ok(125_000));
    }

    #[test]
    fn rejects_zero_negative_and_unknown_units() {
        check(
            "0s",
            Err("invalid duration `0s`: it must be more than zero"),
        );
        check(
            "-5s",
            Err(
                "invalid duration `-5s`; expected a whole number of seconds or a string like \"90s\", \"5m\", \"1m30s\"",
            ),
        );
        check(
            "5 minutes",
            Err(
                "invalid duration `5 minutes`; expected a whole number of seconds or a string like \"90s\", \"5m\", \"1m30s\"",
            ),
        );
        check(
            "1m30",
            Err(
                "invalid duration `1m30`; expected a whole number of seconds or a string like \"90s\", \"5m\", \"1m30s\"",
            ),
        );
        assert_eq!(
            from_seconds(-3),
            Err("invalid duration -3: it must be more than zero seconds".to_owned())
        );
    }
}
