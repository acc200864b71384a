//! [`AgentConfig`]: an agent as written in `verdict.toml` (`[[agent]]`), turned into an
//! [`AgentSpec`].
//!
//! ```toml
//! [[agent]]
//! preset = "claude"              # or: command = "aider --yes-always --message {prompt}"
//! timeout = 1800                 # seconds; default 30 minutes
//! env = { ANTHROPIC_MODEL = "claude-sonnet-4-5" }
//! patterns.quota = ["(?i)usage limit reached"]   # added to the default patterns
//!
//! [[agent]]
//! name = "codex-fallback"
//! argv = ["codex", "exec", "--sandbox", "workspace-write", "-"]
//! ```

use std::collections::BTreeMap;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

use super::outcome::{FailureKind, Patterns};
use super::{AgentError, AgentSpec, presets, split_command};

/// One `[[agent]]` table. Exactly one of `preset`, `command` and `argv` says what to run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentConfig {
    /// The agent's name; defaults to the preset's name or the program's file name.
    pub name: Option<String>,
    /// A preset of `presets.toml` (`claude`, `codex`, `aider`, `gemini`).
    pub preset: Option<String>,
    /// A command line, split into words the way a shell would (no shell runs).
    pub command: Option<String>,
    /// The argv itself.
    pub argv: Option<Vec<String>>,
    /// Extra environment variables.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The session time-out in seconds.
    pub timeout: Option<u64>,
    /// Extra outcome patterns by kind (`rate_limited`, `auth`, …), added to the defaults.
    #[serde(default)]
    #[schemars(with = "PatternsByKind")]
    pub patterns: BTreeMap<FailureKind, Vec<String>>,
}

/// The schema of [`AgentConfig::patterns`]: a table whose keys are [`FailureKind`]s, which a
/// map's derived schema does not say.
struct PatternsByKind;

impl JsonSchema for PatternsByKind {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "PatternsByKind".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let kind = generator.subschema_for::<FailureKind>();
        let patterns = generator.subschema_for::<Vec<String>>();
        schemars::json_schema!({
            "type": "object",
            "propertyNames": kind,
            "additionalProperties": patterns
        })
    }
}

impl AgentConfig {
    /// The [`AgentSpec`] this table describes.
    pub fn to_spec(&self) -> Result<AgentSpec, AgentError> {
        let invalid = |reason: &str| AgentError::Config {
            name: self.name.clone().unwrap_or_default(),
            reason: reason.to_owned(),
        };
        let mut spec = match (&self.preset, &self.command, &self.argv) {
            (Some(preset), None, None) => AgentSpec::preset(preset)?,
            (None, Some(command), None) => {
                let argv = split_command(command)?;
                AgentSpec::new(program_name(&argv[0]), argv)
            }
            (None, None, Some(argv)) => {
                let Some(program) = argv.first().filter(|p| !p.is_empty()) else {
                    return Err(invalid("`argv` names no program"));
                };
                AgentSpec::new(program_name(program), argv.clone())
            }
            (None, None, None) => {
                return Err(invalid("give one of `preset`, `command` or `argv`"));
            }
            _ => return Err(invalid("give only one of `preset`, `command` and `argv`")),
        };
        if let Some(name) = &self.name {
            spec.name = name.clone();
        }
        spec.env.extend(self.env.clone());
        if let Some(timeout) = self.timeout {
            if timeout == 0 {
                return Err(invalid("`timeout` must be at least 1 second"));
            }
            spec.timeout = Duration::from_secs(timeout);
        }
        if !self.patterns.is_empty() {
            spec.patterns = Patterns::defaults().extended(
                self.patterns
                    .iter()
                    .flat_map(|(kind, list)| list.iter().map(|p| (*kind, p.clone()))),
            )?;
        }
        Ok(spec)
    }
}

/// The file name of a program (`/usr/bin/aider` → `aider`).
fn program_name(program: &str) -> String {
    if presets::preset(program).is_some() {
        return program.to_owned();
    }
    std::path::Path::new(program)
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| program.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent_loop::agent::PromptVia;

    fn parse(text: &str) -> Result<AgentSpec, String> {
        let config: AgentConfig = toml::from_str(text).map_err(|e| e.to_string())?;
        config.to_spec().map_err(|e| e.to_string())
    }

    #[test]
    fn presets_commands_and_argv() {
        let claude = parse("preset = 'claude'\ntimeout = 60\nenv = { A = 'b' }").expect("ok");
        assert_eq!(claude.name, "claude");
        assert_eq!(claude.timeout, Duration::from_secs(60));
        assert_eq!(claude.env.get("A").map(String::as_str), Some("b"));
        let aider = parse("command = '/opt/aider --message \"{prompt}\"'").expect("ok");
        assert_eq!(aider.name, "aider");
        assert_eq!(aider.argv, ["/opt/aider", "--message", "{prompt}"]);
        assert_eq!(aider.prompt_via(), PromptVia::Argv);
        let named = parse("name = 'x'\nargv = ['run', '{prompt_file}']").expect("ok");
        assert_eq!(
            (named.name.as_str(), named.prompt_via()),
            ("x", PromptVia::File)
        );
    }

    #[test]
    fn extra_patterns_join_the_defaults() {
        let spec =
            parse("preset = 'codex'\npatterns.quota = ['(?i)usage limit reached']").expect("ok");
        assert_eq!(
            spec.patterns.classify("Usage limit reached, resets at 5pm"),
            Some(FailureKind::Quota)
        );
        assert_eq!(
            spec.patterns.classify("API Error: 429"),
            Some(FailureKind::RateLimited)
        );
    }

    #[test]
    fn mistakes_are_named() {
        let cases = [
            ("", "give one of"),
            ("preset = 'claude'\ncommand = 'x'", "only one of"),
            ("preset = 'cursor'", "no agent preset named `cursor`"),
            ("command = 'x \"y'", "never closed"),
            ("argv = []", "names no program"),
            ("preset = 'claude'\ntimeout = 0", "at least 1 second"),
            (
                "preset = 'claude'\npatterns.auth = ['(']",
                "invalid auth pattern",
            ),
            (
                "preset = 'claude'\npatterns.bogus = ['x']",
                "unknown variant",
            ),
            ("preset = 'claude'\nprompt = 'x'", "unknown field"),
        ];
        for (text, expect) in cases {
            let error = parse(text).expect_err(text);
            assert!(error.contains(expect), "{text:?}: {error}");
        }
    }
}
