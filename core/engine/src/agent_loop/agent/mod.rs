//! Coding-agent sessions and the inner retry layer of `verdict loop`.
//!
//! - [`AgentSpec`]: an agent as an argv vector (from a preset, or a command line split by
//!   [`split_command`] — never a shell), its environment, time-out and outcome [`Patterns`], and how
//!   the prompt reaches it ([`PromptVia`]: one argv element, a file, or standard input).
//! - [`AgentSession`]: one session of an agent — a fresh process per call, prompt in, a
//!   [`SessionResult`] out ([`SessionOutcome`], exit, last lines of output, duration, pid).
//!   [`CommandSession`] is the one that runs an [`AgentSpec`] through the
//!   [`ProcessRunner`](crate::process::ProcessRunner).
//! - [`AgentPool`]: seed 002's inner layer over several agents — transient failures (rate limit,
//!   overloaded, network, 5xx) retried with [`backoff`], auth / quota / model errors skipping to the
//!   next agent, every decision a [`RetryRecord`]. These retries never count as attempts of the
//!   outer loop.
//!
//! - [`AgentConfig`]: an agent as written in `verdict.toml`.
//!
//! Presets and default patterns live in one embedded, commented file, `presets.toml`
//! ([`presets::PRESETS_TOML`]). The presets' exact argv (a preset's name alone, as in
//! `--agent claude`, selects it):
//!
//! | preset   | argv                                                                                   | prompt |
//! |----------|----------------------------------------------------------------------------------------|--------|
//! | `claude` | `claude -p --output-format text --permission-mode acceptEdits --max-turns 50` | stdin |
//! | `codex` | `codex exec --skip-git-repo-check --sandbox workspace-write -` | stdin |
//! | `aider` | `aider --yes-always --no-pretty --no-auto-commits --no-dirty-commits --no-gitignore --message-file {prompt_file}` | file |
//! | `gemini` | `gemini --approval-mode yolo -p {prompt}` | argv |
//!
//! The `gemini` preset also sets `GEMINI_CLI_TRUST_WORKSPACE=true` in its environment; `verdict
//! loop` gives the `claude` preset `--allowedTools` for the commands it verifies with and the
//! project's own commands for those checks (see [`allowed`]).
//!
//! A prompt passed as `{prompt}` is one argv element, subject to the kernel's limit on a single
//! argument (128 KiB on Linux); past it the agent cannot start (`not_started`). Stdin and
//! `{prompt_file}` have no such limit.

pub mod allowed;
pub mod backoff;
pub mod config;
pub mod outcome;
pub mod pool;
pub mod presets;
pub mod session;

use std::collections::BTreeMap;
use std::time::Duration;

pub use backoff::{BackoffPolicy, Clock, RecordingClock, TokioClock};
pub use config::AgentConfig;
pub use outcome::{FailureKind, OutcomeClass, Patterns, SessionOutcome};
pub use pool::{AgentPool, PoolEnd, PoolOptions, PoolRun, RetryAction, RetryRecord, SessionGate};
pub use session::{
    AgentSession, CommandSession, LOG_LIMIT, SessionRequest, SessionResult, SpawnHook, SpawnInfo,
};

/// The placeholder replaced by the whole prompt, as one argv element.
pub const PROMPT: &str = "{prompt}";
/// The placeholder replaced by the path of a file holding the prompt.
pub const PROMPT_FILE: &str = "{prompt_file}";

/// The environment variable set in every agent session the loop starts. A stop hook inside such a
/// session (`verdict hook`) lets the agent stop without verifying: the loop verifies each attempt
/// itself, and a second verification would only double the cost.
pub const LOOP_SESSION_ENV: &str = "VERDICT_LOOP_SESSION";

/// A session time-out when none is configured: 30 minutes.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// What can be wrong with an agent's definition.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AgentError {
    /// A command line that cannot be split into words.
    #[error("invalid agent command `{line}`: {reason}")]
    Command {
        /// The command line as given.
        line: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An outcome pattern that is not a valid regex.
    #[error("invalid {kind} pattern `{pattern}`: {reason}")]
    Pattern {
        /// The kind the pattern was for.
        kind: &'static str,
        /// The pattern as given.
        pattern: String,
        /// The regex compiler's message.
        reason: String,
    },
    /// An `[[agent]]` table that does not describe an agent.
    #[error("invalid agent `{name}` in the configuration: {reason}")]
    Config {
        /// The agent's name, if it has one.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// No preset by that name.
    #[error("no agent preset named `{name}` (presets: {known})")]
    UnknownPreset {
        /// The name asked for.
        name: String,
        /// The presets there are, comma-separated.
        known: String,
    },
}

/// Splits an agent's command line into words the way a POSIX shell would, without running or
/// expanding anything ([`verdict_model::split::split_command`]); an error names the agent command.
pub fn split_command(line: &str) -> Result<Vec<String>, AgentError> {
    verdict_model::split::split_command(line).map_err(|error| AgentError::Command {
        line: error.line,
        reason: error.reason,
    })
}

/// How the prompt reaches an agent, decided by the placeholders in its argv.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptVia {
    /// `{prompt}` is in the argv: the prompt is (part of) one argv element.
    Argv,
    /// `{prompt_file}` is in the argv (and `{prompt}` is not): a file's path is.
    File,
    /// No placeholder: the prompt is written to standard input, which is then closed.
    Stdin,
}

/// One agent: what to run and how to read how it ended.
#[derive(Debug, Clone)]
pub struct AgentSpec {
    /// The name used in events, logs and file names (`claude`, `agent-2`).
    pub name: String,
    /// Program and arguments; may hold [`PROMPT`] and [`PROMPT_FILE`] (alone or inside an element,
    /// as in `--message={prompt}`).
    pub argv: Vec<String>,
    /// Extra environment variables for the agent.
    pub env: BTreeMap<String, String>,
    /// How long one session may run before its process group is stopped.
    pub timeout: Duration,
    /// What a failing exit's output means.
    pub patterns: Patterns,
}

impl AgentSpec {
    /// An agent running `argv`, with no extra environment, [`DEFAULT_TIMEOUT`] and the default
    /// patterns.
    pub fn new(name: impl Into<String>, argv: Vec<String>) -> AgentSpec {
        AgentSpec {
            name: name.into(),
            argv,
            env: BTreeMap::new(),
            timeout: DEFAULT_TIMEOUT,
            patterns: Patterns::defaults(),
        }
    }

    /// An agent from a command line as a person types it (`--agent 'aider --message {prompt}'`),
    /// split by [`split_command`]; a preset's name alone (`claude`) is that preset. Named after its
    /// program (`aider`), unless `name` is given.
    pub fn from_command(line: &str) -> Result<AgentSpec, AgentError> {
        let argv = split_command(line)?;
        if argv.len() == 1 && presets::preset(&argv[0]).is_some() {
            return AgentSpec::preset(&argv[0]);
        }
        let name = std::path::Path::new(&argv[0])
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_else(|| argv[0].clone());
        Ok(AgentSpec::new(name, argv))
    }

    /// The preset named `name` (see `presets.toml`).
    pub fn preset(name: &str) -> Result<AgentSpec, AgentError> {
        match presets::preset(name) {
            Some(argv) => {
                let mut spec = AgentSpec::new(name, argv.to_vec());
                spec.env.extend(
                    presets::preset_env(name)
                        .into_iter()
                        .flatten()
                        .map(|(k, v)| (k.clone(), v.clone())),
                );
                Ok(spec)
            }
            None => Err(AgentError::UnknownPreset {
                name: name.to_owned(),
                known: presets::preset_names().collect::<Vec<_>>().join(", "),
            }),
        }
    }

    /// Sets the session time-out.
    pub fn with_timeout(mut self, timeout: Duration) -> AgentSpec {
        self.timeout = timeout;
        self
    }

    /// Sets an environment variable for the agent.
    pub fn with_env(mut self, key: impl Into<String>, value: impl Into<String>) -> AgentSpec {
        self.env.insert(key.into(), value.into());
        self
    }

    /// How the prompt reaches this agent.
    pub fn prompt_via(&self) -> PromptVia {
        if self.argv.iter().any(|arg| arg.contains(PROMPT)) {
            PromptVia::Argv
        } else if self.argv.iter().any(|arg| arg.contains(PROMPT_FILE)) {
            PromptVia::File
        } else {
            PromptVia::Stdin
        }
    }

    /// The argv with the placeholders replaced. Each element is scanned once, left to right, so a
    /// prompt that itself holds `{prompt_file}` is left as it is.
    pub fn expand_argv(&self, prompt: &str, prompt_file: &str) -> Vec<String> {
        self.argv
            .iter()
            .map(|arg| expand(arg, prompt, prompt_file))
            .collect()
    }
}

/// Replaces the placeholders in one argv element.
fn expand(template: &str, prompt: &str, prompt_file: &str) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        if let Some(after) = tail.strip_prefix(PROMPT_FILE) {
            out.push_str(prompt_file);
            rest = after;
        } else if let Some(after) = tail.strip_prefix(PROMPT) {
            out.push_str(prompt);
            rest = after;
        } else {
            out.push('{');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_that_does_not_split_is_an_agent_command_error() {
        assert_eq!(
            split_command("claude -p 'open")
                .expect_err("unbalanced")
                .to_string(),
            "invalid agent command `claude -p 'open`: a single quote is never closed"
        );
        assert_eq!(
            split_command("a 'b c'"),
            Ok(vec!["a".to_owned(), "b c".to_owned()])
        );
    }

    #[test]
    fn placeholders_are_replaced_once_inside_elements() {
        let spec = AgentSpec::new(
            "x",
            vec![
                "x".into(),
                "--message={prompt}".into(),
                "{prompt_file}".into(),
                "{other}".into(),
            ],
        );
        assert_eq!(spec.prompt_via(), PromptVia::Argv);
        assert_eq!(
            spec.expand_argv("a {prompt_file} b", "/tmp/p"),
            ["x", "--message=a {prompt_file} b", "/tmp/p", "{other}"]
        );
    }

    #[test]
    fn commands_and_presets() {
        let aider = AgentSpec::from_command("/opt/bin/aider --message {prompt}").expect("ok");
        assert_eq!(aider.name, "aider");
        assert_eq!(aider.prompt_via(), PromptVia::Argv);
        let claude = AgentSpec::from_command("claude").expect("ok");
        assert_eq!(claude.argv[1], "-p");
        assert_eq!(claude.prompt_via(), PromptVia::Stdin);
        assert_eq!(
            AgentSpec::preset("aider").map(|a| a.prompt_via()),
            Ok(PromptVia::File)
        );
        let unknown = AgentSpec::preset("cursor").expect_err("unknown");
        assert!(unknown.to_string().contains("claude, codex"), "{unknown}");
        assert!(AgentSpec::from_command("x 'y").is_err());
    }
}
