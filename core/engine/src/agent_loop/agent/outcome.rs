//! How an agent session ended: [`SessionOutcome`], decided from the exit and from the output by
//! [`Patterns`] (a `RegexSet` per [`FailureKind`]), plus the `retry-after` a failed agent printed.

use std::time::Duration;

use regex::{Regex, RegexSet};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::AgentError;
use crate::verifier::Exit;

/// How one agent session ended, as far as the agent process itself can tell (whether its work is
/// any good is for verification to say).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "outcome")]
pub enum SessionOutcome {
    /// The agent exited with code 0.
    Success,
    /// The agent ran past its time-out and was stopped (its whole process group).
    Timeout,
    /// The agent stopped because it used up its turns (a failing exit with a turn-limit message).
    TurnLimit,
    /// The agent failed in a way no pattern recognises (a failing exit code, a signal).
    Crashed,
    /// The provider refused for a rate limit (HTTP 429); `retry_after` if the agent printed one.
    RateLimited {
        /// How long the agent said to wait, as printed (not clamped).
        #[serde(with = "opt_millis", rename = "retry_after_ms")]
        retry_after: Option<Duration>,
    },
    /// The provider is overloaded (HTTP 529, "overloaded").
    Overloaded {
        /// How long the agent said to wait, as printed (not clamped).
        #[serde(with = "opt_millis", rename = "retry_after_ms")]
        retry_after: Option<Duration>,
    },
    /// The network failed (connection reset or refused, DNS, socket timeouts).
    Network,
    /// The provider failed (HTTP 5xx).
    ServerError,
    /// The credentials were refused (HTTP 401, invalid API key, not logged in).
    Auth,
    /// The account is out of quota or credit.
    Quota,
    /// The requested model does not exist or is not available to this account.
    ModelUnavailable,
    /// The agent could not be started (not installed, not executable); the message says why.
    NotStarted {
        /// Why it could not start.
        message: String,
    },
    /// The run was cancelled (Ctrl-C) while the agent ran.
    Cancelled,
}

/// What the inner retry layer does about an outcome (seed 002's classification).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeClass {
    /// Handed to the caller as is: success, and the session-level failures (time-out, turn limit,
    /// crash, cancellation), which are the outer loop's business.
    Final,
    /// Worth retrying after a wait: rate limit, overloaded, network, server error.
    Transient,
    /// This agent will not work now: auth, quota, model unavailable, not started — skip to the
    /// next agent.
    SkipAgent,
}

impl SessionOutcome {
    /// The snake-case name of the outcome, as in events (`rate_limited`).
    pub fn name(&self) -> &'static str {
        match self {
            SessionOutcome::Success => "success",
            SessionOutcome::Timeout => "timeout",
            SessionOutcome::TurnLimit => "turn_limit",
            SessionOutcome::Crashed => "crashed",
            SessionOutcome::RateLimited { .. } => "rate_limited",
            SessionOutcome::Overloaded { .. } => "overloaded",
            SessionOutcome::Network => "network",
            SessionOutcome::ServerError => "server_error",
            SessionOutcome::Auth => "auth",
            SessionOutcome::Quota => "quota",
            SessionOutcome::ModelUnavailable => "model_unavailable",
            SessionOutcome::NotStarted { .. } => "not_started",
            SessionOutcome::Cancelled => "cancelled",
        }
    }

    /// What the inner retry layer does about it.
    pub fn class(&self) -> OutcomeClass {
        match self {
            SessionOutcome::Success
            | SessionOutcome::Timeout
            | SessionOutcome::TurnLimit
            | SessionOutcome::Crashed
            | SessionOutcome::Cancelled => OutcomeClass::Final,
            SessionOutcome::RateLimited { .. }
            | SessionOutcome::Overloaded { .. }
            | SessionOutcome::Network
            | SessionOutcome::ServerError => OutcomeClass::Transient,
            SessionOutcome::Auth
            | SessionOutcome::Quota
            | SessionOutcome::ModelUnavailable
            | SessionOutcome::NotStarted { .. } => OutcomeClass::SkipAgent,
        }
    }

    /// The wait the agent asked for, if it printed one (rate limited or overloaded).
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            SessionOutcome::RateLimited { retry_after }
            | SessionOutcome::Overloaded { retry_after } => *retry_after,
            _ => None,
        }
    }
}

/// The failures an output pattern can recognise, in the order they win when several match: a
/// "429 … insufficient quota" is quota, not a rate limit; "401 … rate limit docs" is auth.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// See [`SessionOutcome::Auth`].
    Auth,
    /// See [`SessionOutcome::Quota`].
    Quota,
    /// See [`SessionOutcome::ModelUnavailable`].
    ModelUnavailable,
    /// See [`SessionOutcome::TurnLimit`].
    TurnLimit,
    /// See [`SessionOutcome::RateLimited`].
    RateLimited,
    /// See [`SessionOutcome::Overloaded`].
    Overloaded,
    /// See [`SessionOutcome::ServerError`].
    ServerError,
    /// See [`SessionOutcome::Network`].
    Network,
}

impl FailureKind {
    /// Every kind, in priority order.
    pub const ALL: [FailureKind; 8] = [
        FailureKind::Auth,
        FailureKind::Quota,
        FailureKind::ModelUnavailable,
        FailureKind::TurnLimit,
        FailureKind::RateLimited,
        FailureKind::Overloaded,
        FailureKind::ServerError,
        FailureKind::Network,
    ];

    /// The snake-case name, as in `presets.toml` (`rate_limited`).
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Auth => "auth",
            FailureKind::Quota => "quota",
            FailureKind::ModelUnavailable => "model_unavailable",
            FailureKind::TurnLimit => "turn_limit",
            FailureKind::RateLimited => "rate_limited",
            FailureKind::Overloaded => "overloaded",
            FailureKind::ServerError => "server_error",
            FailureKind::Network => "network",
        }
    }

    /// The kind named `name` (as in `presets.toml`).
    pub fn from_name(name: &str) -> Option<FailureKind> {
        FailureKind::ALL
            .into_iter()
            .find(|kind| kind.name() == name)
    }
}

/// The output patterns that classify a failed session: regexes, each for a [`FailureKind`],
/// matched line by line against the end of the agent's output with one `RegexSet`.
#[derive(Debug, Clone)]
pub struct Patterns {
    sources: Vec<(FailureKind, String)>,
    set: RegexSet,
}

impl Patterns {
    /// Compiles `patterns` (Rust `regex` syntax); a bad regex is an error naming it.
    pub fn new(patterns: Vec<(FailureKind, String)>) -> Result<Patterns, AgentError> {
        for (kind, pattern) in &patterns {
            if let Err(error) = Regex::new(pattern) {
                return Err(AgentError::Pattern {
                    kind: kind.name(),
                    pattern: pattern.clone(),
                    reason: error.to_string(),
                });
            }
        }
        let set = RegexSet::new(patterns.iter().map(|(_, pattern)| pattern.as_str())).map_err(
            |error| AgentError::Pattern {
                kind: "any",
                pattern: String::new(),
                reason: error.to_string(),
            },
        )?;
        Ok(Patterns {
            sources: patterns,
            set,
        })
    }

    /// The default patterns of `presets.toml`'s `[patterns]` table.
    pub fn defaults() -> Patterns {
        super::presets::default_patterns().clone()
    }

    /// These patterns plus `more` (a configuration's additions to the defaults).
    pub fn extended(
        &self,
        more: impl IntoIterator<Item = (FailureKind, String)>,
    ) -> Result<Patterns, AgentError> {
        let mut sources = self.sources.clone();
        sources.extend(more);
        Patterns::new(sources)
    }

    /// The patterns as given, each with its kind.
    pub fn sources(&self) -> &[(FailureKind, String)] {
        &self.sources
    }

    /// The highest-priority kind any line of `text` matches, if any.
    pub fn classify(&self, text: &str) -> Option<FailureKind> {
        let mut best: Option<FailureKind> = None;
        for line in text.lines() {
            for index in self.set.matches(line).iter() {
                let kind = self.sources[index].0;
                if best.is_none_or(|best| kind < best) {
                    best = Some(kind);
                }
            }
        }
        best
    }
}

/// How a session ended, from its exit and the end of its output (`tail`).
///
/// The exit decides first: code 0 is [`SessionOutcome::Success`] whatever the output says (an
/// agent asked to implement rate limiting will print "rate limit"); a time-out, a cancellation
/// and a failed start are what they are. Only a failing exit (a non-zero code or a signal) is
/// looked at through `patterns`; one nothing matches is [`SessionOutcome::Crashed`].
pub fn classify(exit: &Exit, tail: &str, patterns: &Patterns) -> SessionOutcome {
    match exit {
        Exit::Code { code: 0 } => SessionOutcome::Success,
        Exit::TimedOut => SessionOutcome::Timeout,
        Exit::Cancelled => SessionOutcome::Cancelled,
        Exit::NotStarted { message } => SessionOutcome::NotStarted {
            message: message.clone(),
        },
        Exit::Code { .. } | Exit::Signal { .. } => match patterns.classify(tail) {
            None => SessionOutcome::Crashed,
            Some(FailureKind::Auth) => SessionOutcome::Auth,
            Some(FailureKind::Quota) => SessionOutcome::Quota,
            Some(FailureKind::ModelUnavailable) => SessionOutcome::ModelUnavailable,
            Some(FailureKind::TurnLimit) => SessionOutcome::TurnLimit,
            Some(FailureKind::RateLimited) => SessionOutcome::RateLimited {
                retry_after: parse_retry_after(tail),
            },
            Some(FailureKind::Overloaded) => SessionOutcome::Overloaded {
                retry_after: parse_retry_after(tail),
            },
            Some(FailureKind::ServerError) => SessionOutcome::ServerError,
            Some(FailureKind::Network) => SessionOutcome::Network,
        },
    }
}

/// The wait an agent's output asks for: the last `retry-after: N` (also `retry_after=N`,
/// `"retry-after": "N"`, an HTTP header) or `try again in N seconds` (also `ms`, `minutes`,
/// `hours`, `days`). A bare number is seconds; a number followed by a word that is not a unit
/// ("retry after 3 attempts") is no wait at all. `None` when there is none.
pub fn parse_retry_after(text: &str) -> Option<Duration> {
    static PATTERN: std::sync::OnceLock<Option<Regex>> = std::sync::OnceLock::new();
    let pattern = PATTERN.get_or_init(|| {
        Regex::new(
            r#"(?i)(?:retry[-_ ]?after["']?\s*[:=]?\s*["']?|(?:try again|retry) in\s+)(\d+(?:\.\d+)?)[ \t]*([a-z]+)?"#,
        )
        .ok()
    });
    let pattern = pattern.as_ref()?;
    let captures = pattern.captures_iter(text).last()?;
    let number: f64 = captures.get(1)?.as_str().parse().ok()?;
    let unit = captures
        .get(2)
        .map(|unit| unit.as_str().to_ascii_lowercase());
    let scale = match unit.as_deref() {
        None | Some("s" | "sec" | "secs" | "second" | "seconds") => 1.0,
        Some("ms" | "millisecond" | "milliseconds") => 0.001,
        Some("m" | "min" | "mins" | "minute" | "minutes") => 60.0,
        Some("h" | "hr" | "hrs" | "hour" | "hours") => 3600.0,
        Some("d" | "day" | "days") => 86_400.0,
        Some(_) => return None,
    };
    // Absurd values (a timestamp taken for a delay) saturate; the retry layer clamps anyway.
    Duration::try_from_secs_f64((number * scale).min(7.0 * 86_400.0)).ok()
}

/// Serializes an optional duration as whole milliseconds.
mod opt_millis {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(
        value: &Option<Duration>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(duration) => {
                serializer.serialize_some(&u64::try_from(duration.as_millis()).unwrap_or(u64::MAX))
            }
            None => serializer.serialize_none(),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Duration>, D::Error> {
        Ok(Option::<u64>::deserialize(deserializer)?.map(Duration::from_millis))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(tail: &str) -> SessionOutcome {
        classify(&Exit::Code { code: 1 }, tail, &Patterns::defaults())
    }

    #[test]
    fn the_exit_decides_first() {
        let patterns = Patterns::defaults();
        let noisy = "implemented the rate limit; 429 handling; overloaded";
        assert_eq!(
            classify(&Exit::Code { code: 0 }, noisy, &patterns),
            SessionOutcome::Success
        );
        assert_eq!(
            classify(&Exit::TimedOut, noisy, &patterns),
            SessionOutcome::Timeout
        );
        assert_eq!(
            classify(&Exit::Signal { signal: 9 }, "segfault", &patterns),
            SessionOutcome::Crashed
        );
        assert_eq!(failed("something went wrong"), SessionOutcome::Crashed);
        // Words that only look like provider errors.
        assert_eq!(
            failed("error: overloaded function `f` is ambiguous"),
            SessionOutcome::Crashed
        );
    }

    #[test]
    fn default_patterns_recognise_each_failure() {
        let cases = [
            (
                "API Error: 429 {\"type\":\"rate_limit_error\"}",
                "rate_limited",
            ),
            ("Error: Too Many Requests", "rate_limited"),
            ("API Error: 529 Overloaded", "overloaded"),
            (
                "The model is overloaded. Please try again later.",
                "overloaded",
            ),
            ("{\"type\":\"overloaded_error\"}", "overloaded"),
            ("Error: read ECONNRESET", "network"),
            ("fetch failed: getaddrinfo ENOTFOUND api.example", "network"),
            ("API Error: 500 Internal Server Error", "server_error"),
            ("status 503 Service Unavailable", "server_error"),
            ("Invalid API key · Please run /login", "auth"),
            ("HTTP 401 Unauthorized", "auth"),
            ("Your credit balance is too low", "quota"),
            ("Claude AI usage limit reached|1767225600", "quota"),
            ("You've hit your usage limit. Try again in 2 days", "quota"),
            (
                "429 You exceeded your current quota (insufficient_quota)",
                "quota",
            ),
            ("Error: model not found: gpt-9", "model_unavailable"),
            ("Error: Reached max turns (30)", "turn_limit"),
        ];
        for (tail, expect) in cases {
            assert_eq!(failed(tail).name(), expect, "{tail}");
        }
    }

    #[test]
    fn retry_after_in_its_usual_spellings() {
        let secs = |s: f64| Some(Duration::from_secs_f64(s));
        assert_eq!(parse_retry_after("retry-after: 7"), secs(7.0));
        assert_eq!(parse_retry_after("Retry-After: 12\r\n"), secs(12.0));
        assert_eq!(parse_retry_after(r#"{"retry_after": 3}"#), secs(3.0));
        assert_eq!(
            parse_retry_after("Please try again in 20 seconds."),
            secs(20.0)
        );
        assert_eq!(parse_retry_after("try again in 1.5s"), secs(1.5));
        assert_eq!(parse_retry_after("try again in 250ms"), secs(0.25));
        assert_eq!(parse_retry_after("try again in 2 minutes"), secs(120.0));
        assert_eq!(
            parse_retry_after("retry-after: 1\nlater retry-after: 4"),
            secs(4.0)
        );
        assert_eq!(parse_retry_after("rate limited, sorry"), None);
        assert_eq!(
            parse_retry_after("try again in 2 days 3 hours"),
            secs(172_800.0)
        );
        assert_eq!(parse_retry_after("will retry after 3 attempts"), None);
        assert_eq!(parse_retry_after("retry-after: 3)"), secs(3.0));
        assert_eq!(parse_retry_after("retry-after: 5\nthen more"), secs(5.0));
        assert_eq!(
            failed("429 rate limit exceeded; retry-after: 9"),
            SessionOutcome::RateLimited {
                retry_after: secs(9.0)
            }
        );
    }

    #[test]
    fn extra_patterns_and_bad_regexes() {
        let patterns = Patterns::defaults()
            .extended([(FailureKind::Quota, "(?i)plan exhausted".to_owned())])
            .expect("compiles");
        assert_eq!(
            patterns.classify("Plan exhausted!"),
            Some(FailureKind::Quota)
        );
        let error = Patterns::new(vec![(FailureKind::Auth, "(".to_owned())]).expect_err("bad");
        assert!(error.to_string().contains("auth"), "{error}");
    }
}
