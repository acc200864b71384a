//! Retry policies per failure category, the `[loop]` table of `verdict.toml`, and [`decide`].
//!
//! The defaults live in one embedded, commented file, `defaults.toml` (shown by [`DEFAULTS`]), which
//! has the same schema as the `[loop]` table ([`LoopConfig`]); a project's table is laid over it key
//! by key ([`Policies::with_config`]). Unknown keys are errors, so a typo never silently falls back
//! to a default.
//!
//! [`decide`] turns the history of a run into the next step, in this order: the run's attempts are
//! spent → [`Decision::Exhausted`]; the attempt ended with exactly the failures of the one before →
//! the `on_repeat` action (escalate by default: another attempt would likely repeat itself); the
//! category's own attempts are spent → exhausted; else the category's recovery action, with its delay
//! and guidance.

use std::collections::BTreeMap;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::classify::{Category, Classification, FailureSet};

/// The embedded defaults, with their comments: what `verdict loop` does unless told otherwise.
pub const DEFAULTS: &str = include_str!("defaults.toml");

/// Why a `[loop]` table could not be used.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// The table is not valid TOML for the schema (an unknown key, a wrong type).
    #[error("invalid [loop] table: {0}")]
    Parse(#[from] toml::de::Error),
    /// A value is out of range or malformed.
    #[error("invalid [loop] table: `{key}` {problem}")]
    Invalid {
        /// The key, dotted from the `[loop]` table (`policy.lint.delays`).
        key: String,
        /// What is wrong with it.
        problem: String,
    },
}

/// What a category's failure leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryAction {
    /// Retry, with the policy's guidance in the prompt.
    RetryWithGuidance,
    /// Retry, telling the agent to re-read the requirements before changing anything.
    RefreshRequirements,
    /// Run the configured escalation command with the run's summary, then stop (exit code 3).
    Escalate,
    /// Stop: nothing an agent can do will help (exit code 1).
    Block,
}

/// What an attempt with the same failures as the one before leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RepeatAction {
    /// Escalate (the default).
    Escalate,
    /// Stop.
    Block,
    /// Spend another attempt anyway.
    Retry,
}

/// What a failed agent session (time-out, turn limit, crash) leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SessionFailures {
    /// End the loop (the default).
    End,
    /// Start a fresh session, spending an attempt.
    Retry,
}

/// The `[loop]` table of `verdict.toml`, every key optional (and `defaults.toml`, where every key is
/// set).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct LoopConfig {
    /// Attempts in all, the first included.
    pub max_attempts: Option<u32>,
    /// The agents to use, in the order they are tried (round-robin on auth and quota errors): names
    /// of `[[agent]]` tables or presets. Like `--agent` given several times.
    pub agents: Option<Vec<String>>,
    /// Human guidance added to every retry prompt (`--guide`).
    pub guidance: Option<String>,
    /// Globs of paths a pass must not have changed (see [`super::guard`]).
    pub protected: Option<Vec<String>>,
    /// Whether failures the baseline already had are set apart (`--new-failures-only`).
    pub new_failures_only: Option<bool>,
    /// Whether the task is about the tests: rewritten expected values and removed assertions do
    /// not count as cheating (see [`super::guard::Guard::allow_test_edits`]).
    pub allow_test_edits: Option<bool>,
    /// Whether the task may change the test infrastructure (runner configurations, set-up files,
    /// test scripts): the guard then does not put the starting tree's version back to check a
    /// pass (`--allow-infra-edits`; see [`super::guard::infra`]).
    pub allow_infra_edits: Option<bool>,
    /// What a failed agent session leads to.
    pub session_failures: Option<SessionFailures>,
    /// What the same failures twice in a row lead to.
    pub on_repeat: Option<RepeatAction>,
    /// The argv run on escalation; it receives the run's summary as JSON on stdin.
    pub escalate_command: Option<Vec<String>>,
    /// Per-category policies.
    pub policy: PolicyTable,
}

impl LoopConfig {
    /// Parses a `[loop]` table given as a TOML document of its own (the table's contents).
    pub fn from_toml(text: &str) -> Result<LoopConfig, PolicyError> {
        Ok(toml::from_str(text)?)
    }

    /// The `[loop]` table as `verdict.toml`'s reader keeps it.
    pub fn from_table(table: toml::Table) -> Result<LoopConfig, PolicyError> {
        Ok(table.try_into()?)
    }
}

/// `[loop.policy.<category>]`: one optional entry per category (a struct, not a map, so that a
/// misspelt category is an error naming the known ones).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[allow(missing_docs)] // One field per `Category`, named as it is.
pub struct PolicyTable {
    pub code_error: Option<PolicyConfig>,
    pub test_failure: Option<PolicyConfig>,
    pub lint: Option<PolicyConfig>,
    pub transient: Option<PolicyConfig>,
    pub timeout: Option<PolicyConfig>,
    pub resource_exhaustion: Option<PolicyConfig>,
    pub dependency_missing: Option<PolicyConfig>,
    pub flaky: Option<PolicyConfig>,
    pub unknown: Option<PolicyConfig>,
}

impl PolicyTable {
    fn get(&self, category: Category) -> Option<&PolicyConfig> {
        match category {
            Category::CodeError => self.code_error.as_ref(),
            Category::TestFailure => self.test_failure.as_ref(),
            Category::Lint => self.lint.as_ref(),
            Category::Transient => self.transient.as_ref(),
            Category::Timeout => self.timeout.as_ref(),
            Category::ResourceExhaustion => self.resource_exhaustion.as_ref(),
            Category::DependencyMissing => self.dependency_missing.as_ref(),
            Category::Flaky => self.flaky.as_ref(),
            Category::Unknown => self.unknown.as_ref(),
        }
    }
}

/// `[loop.policy.<category>]`, every key optional.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PolicyConfig {
    /// Failed attempts of this category a run tolerates before it is exhausted.
    pub max_attempts: Option<u32>,
    /// Waits before the next attempt after the 1st, 2nd, … failure: `"500ms"`, `"30s"`, `"2m"`,
    /// `"1h"`; the last repeats.
    pub delays: Option<Vec<String>>,
    /// The recovery action.
    pub action: Option<RecoveryAction>,
    /// From this failure of the category on, retries ask for a re-read of the requirements; 0 never.
    pub refresh_after: Option<u32>,
    /// A sentence added to the retry prompt.
    pub guidance: Option<String>,
}

/// One category's resolved policy.
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// Failed attempts of this category a run tolerates.
    pub max_attempts: u32,
    /// Waits before the next attempt after the 1st, 2nd, … failure; never empty, the last repeats.
    pub delays: Vec<Duration>,
    /// The recovery action.
    pub action: RecoveryAction,
    /// From this failure on, retries ask for a re-read of the requirements; 0 never.
    pub refresh_after: u32,
    /// Added to the retry prompt.
    pub guidance: String,
}

impl Policy {
    /// The wait after the `nth` (1-based) failure of this category.
    pub fn delay(&self, nth: usize) -> Duration {
        let index = nth
            .saturating_sub(1)
            .min(self.delays.len().saturating_sub(1));
        self.delays.get(index).copied().unwrap_or_default()
    }
}

/// Everything the loop's decisions depend on: the defaults with the project's `[loop]` table laid
/// over them.
#[derive(Debug, Clone, PartialEq)]
pub struct Policies {
    /// Attempts in all, the first included (at least 1).
    pub max_attempts: u32,
    /// What the same failures twice in a row lead to.
    pub on_repeat: RepeatAction,
    /// What a failed agent session leads to.
    pub session_failures: SessionFailures,
    /// Whether failures the baseline already had are set apart.
    pub new_failures_only: bool,
    /// Whether the task is about the tests (the guard lets expected-value rewrites through).
    pub allow_test_edits: bool,
    /// Whether the task may change the test infrastructure (the guard does not put it back).
    pub allow_infra_edits: bool,
    /// Globs of paths a pass must not have changed.
    pub protected: Vec<String>,
    /// The argv run on escalation, if any.
    pub escalate_command: Option<Vec<String>>,
    /// Agent command lines or preset names from the configuration (empty: none configured).
    pub agents: Vec<String>,
    /// Human guidance from the configuration.
    pub guidance: Option<String>,
    policies: BTreeMap<Category, Policy>,
}

impl Policies {
    /// The embedded defaults ([`DEFAULTS`]).
    pub fn defaults() -> Policies {
        // The embedded file is a constant of the program; a test resolves it.
        Policies::resolve(&LoopConfig::default()).expect("the embedded defaults.toml is valid")
    }

    /// The defaults with `config` laid over them, key by key.
    pub fn with_config(config: &LoopConfig) -> Result<Policies, PolicyError> {
        Policies::resolve(config)
    }

    /// The defaults with a `[loop]` table given as TOML laid over them.
    pub fn from_toml(text: &str) -> Result<Policies, PolicyError> {
        Policies::with_config(&LoopConfig::from_toml(text)?)
    }

    /// The policy of `category`.
    pub fn policy(&self, category: Category) -> &Policy {
        // Every category is resolved in `resolve`; the map is never missing one.
        &self.policies[&category]
    }

    fn resolve(user: &LoopConfig) -> Result<Policies, PolicyError> {
        let defaults = LoopConfig::from_toml(DEFAULTS)?;
        let max_attempts = user
            .max_attempts
            .or(defaults.max_attempts)
            .ok_or_else(|| missing("max_attempts"))?;
        at_least_one("max_attempts", max_attempts)?;
        let mut policies = BTreeMap::new();
        for category in Category::ALL {
            let ours = user.policy.get(category);
            let theirs = defaults.policy.get(category);
            policies.insert(category, category_policy(category, ours, theirs)?);
        }
        // An empty command would escalate silently, running nothing: a mistake, not a choice.
        if user.escalate_command.as_ref().is_some_and(Vec::is_empty) {
            return Err(PolicyError::Invalid {
                key: "escalate_command".to_owned(),
                problem: "is empty (give the program and its arguments, e.g. [\"notify-send\", \
                          \"verdict\"], or leave the key out)"
                    .to_owned(),
            });
        }
        let escalate_command = user
            .escalate_command
            .clone()
            .or(defaults.escalate_command)
            .filter(|argv| !argv.is_empty());
        // A glob that does not compile would stop the loop at its first pass, after the agent's
        // work; it is refused with the rest of the file instead.
        for glob in user.protected.iter().flatten() {
            if let Err(error) = globset::Glob::new(glob) {
                return Err(PolicyError::Invalid {
                    key: "protected".to_owned(),
                    problem: format!("holds `{glob}`, not a valid glob: {}", error.kind()),
                });
            }
        }
        Ok(Policies {
            max_attempts,
            on_repeat: user
                .on_repeat
                .or(defaults.on_repeat)
                .ok_or_else(|| missing("on_repeat"))?,
            session_failures: user
                .session_failures
                .or(defaults.session_failures)
                .ok_or_else(|| missing("session_failures"))?,
            new_failures_only: user
                .new_failures_only
                .or(defaults.new_failures_only)
                .ok_or_else(|| missing("new_failures_only"))?,
            allow_test_edits: user
                .allow_test_edits
                .or(defaults.allow_test_edits)
                .ok_or_else(|| missing("allow_test_edits"))?,
            allow_infra_edits: user
                .allow_infra_edits
                .or(defaults.allow_infra_edits)
                .ok_or_else(|| missing("allow_infra_edits"))?,
            protected: user
                .protected
                .clone()
                .or(defaults.protected)
                .unwrap_or_default(),
            escalate_command,
            agents: user.agents.clone().unwrap_or_default(),
            guidance: user.guidance.clone().filter(|g| !g.trim().is_empty()),
            policies,
        })
    }
}

/// A key missing from the embedded defaults (a bug of the build, caught by its tests).
fn missing(key: &str) -> PolicyError {
    PolicyError::Invalid {
        key: key.to_owned(),
        problem: "is missing from the defaults".to_owned(),
    }
}

/// The policy of `category`: the project's table (`ours`) over the defaults (`theirs`).
fn category_policy(
    category: Category,
    ours: Option<&PolicyConfig>,
    theirs: Option<&PolicyConfig>,
) -> Result<Policy, PolicyError> {
    let key = |field: &str| format!("policy.{category}.{field}");
    let policy_max = *pick(ours, theirs, |p| p.max_attempts.as_ref())
        .ok_or_else(|| missing(&key("max_attempts")))?;
    at_least_one(&key("max_attempts"), policy_max)?;
    let delays =
        pick(ours, theirs, |p| p.delays.as_ref()).ok_or_else(|| missing(&key("delays")))?;
    if delays.is_empty() {
        return Err(PolicyError::Invalid {
            key: key("delays"),
            problem: "is empty (give at least one, e.g. [\"0s\"])".to_owned(),
        });
    }
    let delays = delays
        .iter()
        .map(|d| {
            parse_duration(d).ok_or_else(|| PolicyError::Invalid {
                key: key("delays"),
                problem: format!("holds `{d}`, not a number with a unit (500ms, 30s, 2m, 1h)"),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Policy {
        max_attempts: policy_max,
        delays,
        action: *pick(ours, theirs, |p| p.action.as_ref())
            .ok_or_else(|| missing(&key("action")))?,
        refresh_after: *pick(ours, theirs, |p| p.refresh_after.as_ref())
            .ok_or_else(|| missing(&key("refresh_after")))?,
        guidance: pick(ours, theirs, |p| p.guidance.as_ref())
            .ok_or_else(|| missing(&key("guidance")))?
            .trim()
            .to_owned(),
    })
}

/// A policy key from the project's table, else from the defaults.
fn pick<'a, T>(
    ours: Option<&'a PolicyConfig>,
    theirs: Option<&'a PolicyConfig>,
    field: impl Fn(&'a PolicyConfig) -> Option<&'a T>,
) -> Option<&'a T> {
    ours.and_then(&field).or_else(|| theirs.and_then(&field))
}

fn at_least_one(key: &str, value: u32) -> Result<(), PolicyError> {
    if value == 0 {
        return Err(PolicyError::Invalid {
            key: key.to_owned(),
            problem: "is 0 (it counts attempts: at least 1)".to_owned(),
        });
    }
    Ok(())
}

/// `"500ms"`, `"30s"`, `"2m"`, `"1h"` (a whole number and one unit) as a duration.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit())?;
    let (number, unit) = text.split_at(split);
    let number: u64 = number.parse().ok()?;
    let millis = match unit.trim() {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return None,
    };
    Some(Duration::from_millis(number.checked_mul(millis)?))
}

/// One finished attempt, as [`decide`] needs it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttemptRecord {
    /// 1-based attempt number.
    pub number: u32,
    /// The category of its failure.
    pub category: Category,
    /// Its blocking failures (see [`FailureSet::blocking`]).
    pub failures: FailureSet,
    /// It left the workspace unchanged.
    pub no_op: bool,
}

/// The next step after a failed attempt.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Wait `delay`, then start the next attempt.
    Retry {
        /// How long to wait first.
        delay: Duration,
        /// The policy's guidance for the prompt.
        guidance: String,
        /// Ask the agent to re-read the requirements before changing anything.
        refresh: bool,
        /// The next attempt is the last one the run allows; its prompt says so.
        last: bool,
    },
    /// Run the escalation command (if configured) and stop with exit code 3.
    Escalate {
        /// Why, in one line.
        reason: String,
        /// The argv to run, with the run's summary as JSON on stdin.
        command: Option<Vec<String>>,
    },
    /// Stop with exit code 1: retrying cannot help.
    Block {
        /// Why, in one line.
        reason: String,
    },
    /// Stop with exit code 1: the attempts are spent.
    Exhausted {
        /// Why, in one line.
        reason: String,
    },
}

impl Decision {
    /// `retry`, `escalate`, `block` or `exhausted`, for events and the state database.
    pub fn name(&self) -> &'static str {
        match self {
            Decision::Retry { .. } => "retry",
            Decision::Escalate { .. } => "escalate",
            Decision::Block { .. } => "block",
            Decision::Exhausted { .. } => "exhausted",
        }
    }
}

/// Decides what follows a failed attempt.
///
/// `history` holds the run's finished attempts in order, the last being the one that just failed;
/// `classification` is that attempt's. The attempts already made are `history.len()`. An attempt
/// that changed nothing (`no_op`) is not held to the same-failures rule the first time — its next
/// prompt says plainly that it changed nothing — but two in a row are.
pub fn decide(
    history: &[AttemptRecord],
    classification: &Classification,
    policies: &Policies,
) -> Decision {
    let done = history.len();
    let category = classification.category;
    let policy = policies.policy(category);
    if done >= policies.max_attempts as usize {
        return Decision::Exhausted {
            reason: format!(
                "{done} attempt{} of {} made, the last failed ({category})",
                if done == 1 { "" } else { "s" },
                policies.max_attempts
            ),
        };
    }
    if let [.., before, last] = history
        && !last.failures.is_empty()
        && last.failures.same_as(&before.failures)
        && (!last.no_op || before.no_op)
    {
        let reason = format!(
            "attempt {} ended with the same {} failure{} as attempt {}",
            last.number,
            last.failures.len(),
            if last.failures.len() == 1 { "" } else { "s" },
            before.number
        );
        match policies.on_repeat {
            RepeatAction::Escalate => {
                return Decision::Escalate {
                    reason,
                    command: policies.escalate_command.clone(),
                };
            }
            RepeatAction::Block => return Decision::Block { reason },
            RepeatAction::Retry => {}
        }
    }
    // The attempt just made counts whether or not the caller recorded its category in `history`.
    let nth = history[..done.saturating_sub(1)]
        .iter()
        .filter(|a| a.category == category)
        .count()
        + 1;
    if nth >= policy.max_attempts as usize {
        return Decision::Exhausted {
            reason: format!(
                "{nth} failed attempt{} of category {category}, the most its policy allows",
                if nth == 1 { "" } else { "s" }
            ),
        };
    }
    let retry = |refresh: bool| Decision::Retry {
        delay: policy.delay(nth),
        guidance: policy.guidance.clone(),
        refresh,
        last: done + 1 >= policies.max_attempts as usize,
    };
    match policy.action {
        RecoveryAction::RetryWithGuidance => {
            retry(policy.refresh_after > 0 && nth >= policy.refresh_after as usize)
        }
        RecoveryAction::RefreshRequirements => retry(true),
        RecoveryAction::Escalate => Decision::Escalate {
            reason: format!("{category}: {}", classification.summary),
            command: policies.escalate_command.clone(),
        },
        RecoveryAction::Block => Decision::Block {
            reason: format!("{category}: {}", classification.summary),
        },
    }
}
