//! The embedded `presets.toml`: argv of the agents people use and the default outcome patterns.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use super::outcome::{FailureKind, Patterns};

/// The text of `presets.toml`, as embedded (documentation for `verdict loop --help` and the docs).
pub const PRESETS_TOML: &str = include_str!("presets.toml");

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    preset: BTreeMap<String, Preset>,
    patterns: BTreeMap<String, Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Preset {
    argv: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
}

struct Parsed {
    presets: BTreeMap<String, Vec<String>>,
    envs: BTreeMap<String, BTreeMap<String, String>>,
    patterns: Patterns,
}

fn parsed() -> &'static Parsed {
    static PARSED: OnceLock<Parsed> = OnceLock::new();
    PARSED.get_or_init(|| {
        // The file is part of the source and checked by this module's tests: failing to parse it
        // is a bug of verdict, not an input error.
        #[allow(clippy::expect_used)]
        let file: File = toml::from_str(PRESETS_TOML).expect("presets.toml parses");
        let mut patterns = Vec::new();
        for (kind, list) in file.patterns {
            #[allow(clippy::expect_used)]
            let kind = FailureKind::from_name(&kind).expect("presets.toml names known kinds");
            patterns.extend(list.into_iter().map(|pattern| (kind, pattern)));
        }
        #[allow(clippy::expect_used)]
        let patterns = Patterns::new(patterns).expect("presets.toml patterns compile");
        let envs = file
            .preset
            .iter()
            .map(|(name, preset)| (name.clone(), preset.env.clone()))
            .collect();
        Parsed {
            presets: file
                .preset
                .into_iter()
                .map(|(name, preset)| (name, preset.argv))
                .collect(),
            envs,
            patterns,
        }
    })
}

/// The argv of the preset named `name` (`claude`, `codex`, `aider`, `gemini`), placeholders and
/// all.
pub fn preset(name: &str) -> Option<&'static [String]> {
    parsed().presets.get(name).map(Vec::as_slice)
}

/// The environment the preset named `name` sets for its agent (empty for most).
pub fn preset_env(name: &str) -> Option<&'static BTreeMap<String, String>> {
    parsed().envs.get(name)
}

/// The names of every preset, sorted.
pub fn preset_names() -> impl Iterator<Item = &'static str> {
    parsed().presets.keys().map(String::as_str)
}

/// The default outcome patterns (`[patterns]`).
pub(crate) fn default_patterns() -> &'static Patterns {
    &parsed().patterns
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_parse_with_their_documented_argv() {
        assert_eq!(
            preset_names().collect::<Vec<_>>(),
            ["aider", "claude", "codex", "gemini"]
        );
        assert_eq!(
            preset("claude").map(|argv| argv[..2].join(" ")),
            Some("claude -p".into())
        );
        assert_eq!(
            preset("codex")
                .and_then(|argv| argv.last())
                .map(String::as_str),
            Some("-")
        );
        assert!(preset("aider").is_some_and(|argv| argv.contains(&"{prompt_file}".to_owned())));
        assert!(preset("gemini").is_some_and(|argv| argv.contains(&"{prompt}".to_owned())));
        assert_eq!(preset("nope"), None);
        // The flags each CLI needs to run headless outside the happy path.
        let has =
            |name: &str, flag: &str| preset(name).is_some_and(|a| a.iter().any(|x| x == flag));
        assert!(has("codex", "--skip-git-repo-check"));
        assert!(has("aider", "--no-auto-commits") && has("aider", "--no-dirty-commits"));
        assert_eq!(
            preset_env("gemini").and_then(|env| env.get("GEMINI_CLI_TRUST_WORKSPACE")),
            Some(&"true".to_owned())
        );
        assert!(preset_env("claude").is_some_and(BTreeMap::is_empty));
        // The table in the module docs of `agent` shows each preset's exact argv.
        let docs = include_str!("mod.rs");
        for name in preset_names() {
            let row = docs
                .lines()
                .find(|line| line.starts_with(&format!("//! | `{name}`")))
                .unwrap_or_else(|| panic!("no doc row for {name}"));
            let argv = row
                .split('|')
                .nth(2)
                .map(|cell| cell.trim().trim_matches('`'));
            assert_eq!(argv, preset(name).map(|a| a.join(" ")).as_deref(), "{name}");
        }
        // Every kind has default patterns.
        for kind in FailureKind::ALL {
            assert!(
                default_patterns().sources().iter().any(|(k, _)| *k == kind),
                "{kind:?}"
            );
        }
    }
}
