//! `verdict hook install <harness>`: writes verdict's stop hook into the harness's settings file,
//! idempotently. A file that already runs `verdict hook <harness>` is left byte for byte as it is;
//! otherwise the hook is appended and every other setting kept. docs/hooks.md shows what each
//! harness gets.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde_json::{Map, Value, json};

use super::Harness;

/// The hook timeout verdict writes, in seconds: above verdict's own default deadline
/// ([`super::DEFAULT_DEADLINE_SECS`]), so verdict always answers before the harness kills it.
const HOOK_TIMEOUT_SECS: u64 = 60;

/// Arguments of `verdict hook install`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The harness whose settings get the hook
    #[arg(value_enum)]
    harness: Harness,

    /// Where: the project's settings, or the user's (for every project)
    #[arg(long, value_enum, default_value_t = Scope::Project)]
    scope: Scope,

    /// The project [default: the current directory]
    #[arg(long, short = 'C', value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Which settings file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Scope {
    /// The project's settings (`.claude/settings.json`, `.codex/hooks.json`, `.cursor/hooks.json`)
    Project,
    /// The user's settings under the home directory (`~/.claude/…`, `$CODEX_HOME` or `~/.codex/…`,
    /// `~/.cursor/…`)
    User,
}

/// Runs the command.
pub(crate) fn run(args: &Args) -> Result<u8> {
    let path = settings_path(args.harness, args.scope, args.dir.as_deref())?;
    let changed = install(args.harness, &path)?;
    let command = command_for(args.harness);
    if changed {
        println!(
            "verdict: added `{command}` as the stop hook in {}",
            path.display()
        );
        if args.harness == Harness::Codex {
            println!(
                "verdict: Codex runs a new hook once it is trusted: review it with /hooks in Codex"
            );
        }
    } else {
        println!(
            "verdict: {} already runs `{command}`; nothing changed",
            path.display()
        );
    }
    Ok(0)
}

/// The command the hook runs.
fn command_for(harness: Harness) -> String {
    format!("verdict hook {}", harness.key())
}

/// The settings file of `harness` at `scope`.
fn settings_path(harness: Harness, scope: Scope, dir: Option<&Path>) -> Result<PathBuf> {
    let base = match scope {
        Scope::Project => match dir {
            Some(dir) => dir.to_path_buf(),
            None => std::env::current_dir().context("failed to read the current directory")?,
        },
        Scope::User => {
            if harness == Harness::Codex
                && let Some(home) = std::env::var_os("CODEX_HOME").filter(|h| !h.is_empty())
            {
                return Ok(PathBuf::from(home).join("hooks.json"));
            }
            match std::env::var_os("HOME").filter(|h| !h.is_empty()) {
                Some(home) => PathBuf::from(home),
                None => bail!("HOME is not set, so the user's settings cannot be found"),
            }
        }
    };
    Ok(match harness {
        Harness::Claude => base.join(".claude").join("settings.json"),
        Harness::Codex => base.join(".codex").join("hooks.json"),
        Harness::Cursor => base.join(".cursor").join("hooks.json"),
    })
}

/// Adds the hook to the file at `path` (created if missing); `false` when it was already there,
/// in which case the file is not written.
pub(crate) fn install(harness: Harness, path: &Path) -> Result<bool> {
    let mut document = match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Value::Object(Map::new()),
        Ok(text) => serde_json::from_str(&text)
            .with_context(|| format!("{} is not valid JSON; fix it first", path.display()))?,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Value::Object(Map::new()),
        Err(error) => {
            return Err(error).with_context(|| format!("failed to read {}", path.display()));
        }
    };
    if !add_hook(harness, &mut document).with_context(|| format!("in {}", path.display()))? {
        return Ok(false);
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("failed to create {}", dir.display()))?;
    }
    let mut text = serde_json::to_string_pretty(&document).context("failed to write JSON")?;
    text.push('\n');
    let tmp = path.with_extension(format!("verdict-{}.tmp", std::process::id()));
    std::fs::write(&tmp, text).with_context(|| format!("failed to write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("failed to write {}", path.display()))?;
    Ok(true)
}

/// Whether a hook's command already runs verdict's hook for `harness` (by any path to `verdict`,
/// with any options).
fn runs_verdict(command: &str, harness: Harness) -> bool {
    let words: Vec<&str> = command.split_whitespace().collect();
    words.windows(3).any(|w| {
        Path::new(w[0]).file_name().and_then(|n| n.to_str()) == Some("verdict")
            && w[1] == "hook"
            && w[2] == harness.key()
    })
}

/// Adds verdict's hook to a settings document; `false` when it is already there.
fn add_hook(harness: Harness, document: &mut Value) -> Result<bool> {
    let Some(root) = document.as_object_mut() else {
        bail!("the settings are not a JSON object");
    };
    let command = command_for(harness);
    let (event, entry) = match harness {
        // Claude Code and Codex share the shape: event → matcher groups → handlers.
        Harness::Claude | Harness::Codex => (
            "Stop",
            json!({ "hooks": [
                { "type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECS }
            ] }),
        ),
        Harness::Cursor => (
            "stop",
            json!({ "command": command, "timeout": HOOK_TIMEOUT_SECS }),
        ),
    };
    if harness == Harness::Cursor && !root.contains_key("version") {
        root.insert("version".into(), json!(1));
    }
    let hooks = root
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(hooks) = hooks.as_object_mut() else {
        bail!("`hooks` is not a JSON object");
    };
    let list = hooks
        .entry(event)
        .or_insert_with(|| Value::Array(Vec::new()));
    let Some(list) = list.as_array_mut() else {
        bail!("`hooks.{event}` is not a JSON array");
    };
    let commands = |item: &Value| -> Vec<String> {
        let mut found = Vec::new();
        if let Some(c) = item.get("command").and_then(Value::as_str) {
            found.push(c.to_owned());
        }
        if let Some(inner) = item.get("hooks").and_then(Value::as_array) {
            found.extend(
                inner
                    .iter()
                    .filter_map(|h| h.get("command").and_then(Value::as_str))
                    .map(str::to_owned),
            );
        }
        found
    };
    if list
        .iter()
        .flat_map(commands)
        .any(|c| runs_verdict(&c, harness))
    {
        return Ok(false);
    }
    list.push(entry);
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hook_is_recognised_by_any_path_to_verdict() {
        assert!(runs_verdict("verdict hook claude", Harness::Claude));
        assert!(runs_verdict(
            "/opt/bin/verdict hook claude --deadline 40",
            Harness::Claude
        ));
        assert!(!runs_verdict("verdict hook cursor", Harness::Claude));
        assert!(!runs_verdict("notverdict hook claude", Harness::Claude));
        assert!(!runs_verdict("verdict run", Harness::Claude));
    }

    #[test]
    fn settings_of_the_wrong_shape_are_not_touched() {
        let mut doc = json!({"hooks": []});
        assert!(add_hook(Harness::Claude, &mut doc).is_err());
        let mut doc = json!({"hooks": {"stop": {}}});
        assert!(add_hook(Harness::Cursor, &mut doc).is_err());
        let mut doc = json!([1]);
        assert!(add_hook(Harness::Codex, &mut doc).is_err());
    }
}
