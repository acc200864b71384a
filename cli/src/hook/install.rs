//! `verdict hook install <harness>`: writes verdict's stop hook into the harness's settings file,
//! idempotently. A file that already runs `verdict hook <harness>` is left byte for byte as it is;
//! otherwise the hook is appended and every other setting kept. A settings file that is a symlink
//! (kept with the user's dotfiles) is written through, to its target. docs/hooks.md shows what
//! each harness gets.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde_json::{Map, Value, json};

use super::Harness;

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
    // A symlink is written through: the new file replaces its target, in the target's directory,
    // and the link stays a link (replacing it with a regular file would cut the settings off from
    // the dotfiles they are kept with).
    let path = &follow_links(path)?;
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
    // The file keeps its mode (settings may be private to the user).
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = std::fs::set_permissions(&tmp, meta.permissions());
    }
    if let Err(error) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(error).with_context(|| format!("failed to write {}", path.display()));
    }
    Ok(true)
}

/// `path` with every symlink in its last component followed (a relative target is taken from
/// the link's directory); `path` itself when it is no symlink or does not exist. A link whose
/// target does not exist yet gives that target, which the install creates.
fn follow_links(path: &Path) -> Result<PathBuf> {
    // As many hops as Linux follows before ELOOP.
    const MAX_HOPS: usize = 40;
    let mut path = path.to_path_buf();
    for _ in 0..MAX_HOPS {
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = std::fs::read_link(&path)
                    .with_context(|| format!("failed to read the symlink {}", path.display()))?;
                path = match path.parent() {
                    Some(dir) => dir.join(target),
                    None => target,
                };
            }
            Ok(_) => return Ok(path),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(path),
            Err(error) => {
                return Err(error).with_context(|| format!("failed to read {}", path.display()));
            }
        }
    }
    bail!(
        "{} is a symlink loop ({MAX_HOPS} links followed)",
        path.display()
    )
}

/// Whether a hook's command already runs verdict's hook for `harness`: one of its simple
/// commands (split at `;`, `&&`, `||`, `|`) is a program named `verdict` (any path to it,
/// quoted or not, after any `NAME=value` assignments) whose arguments start with
/// `hook <harness>` (any options after). A command that only mentions verdict
/// (`echo verdict hook claude`) does not run it.
fn runs_verdict(command: &str, harness: Harness) -> bool {
    shell_words(command)
        .split(|word| word.is_none())
        .any(|simple| {
            let mut words = simple
                .iter()
                .flatten()
                .skip_while(|word| word.assignment)
                .map(|word| word.text.as_str());
            let program = words.next().map(Path::new);
            program.and_then(Path::file_name).and_then(|n| n.to_str()) == Some("verdict")
                && words.next() == Some("hook")
                && words.next() == Some(harness.key())
        })
}

/// A word of a shell command line, its quotes removed.
#[derive(Debug, PartialEq, Eq)]
struct Word {
    text: String,
    /// Whether it is a `NAME=value` assignment (the name unquoted), which precedes the program.
    assignment: bool,
}

/// The words of a command line as POSIX `sh` splits them, without expanding anything: quotes
/// (`'…'`, `"…"` with its backslash escapes) and backslashes are removed; each unquoted run of
/// `;`, `&`, `|` or newlines, which separates commands, is a `None`. Only as much of the shell
/// as tells which program a hook runs: an unterminated quote takes the rest of the line.
fn shell_words(line: &str) -> Vec<Option<Word>> {
    let mut out: Vec<Option<Word>> = Vec::new();
    let mut text = String::new();
    let mut started = false;
    // Whether every character so far was unquoted and could be part of a variable name.
    let mut name_so_far = true;
    let mut assignment = false;
    let mut chars = line.chars().peekable();
    let finish = |out: &mut Vec<Option<Word>>,
                  text: &mut String,
                  started: &mut bool,
                  assignment: &mut bool| {
        if *started {
            out.push(Some(Word {
                text: std::mem::take(text),
                assignment: *assignment,
            }));
        }
        *started = false;
        *assignment = false;
    };
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                finish(&mut out, &mut text, &mut started, &mut assignment);
                name_so_far = true;
            }
            ';' | '&' | '|' | '\n' => {
                finish(&mut out, &mut text, &mut started, &mut assignment);
                name_so_far = true;
                out.push(None);
            }
            '\'' => {
                started = true;
                name_so_far = false;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    text.push(c);
                }
            }
            '"' => {
                started = true;
                name_so_far = false;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => match chars.peek() {
                            Some(&next @ ('"' | '\\' | '$' | '`')) => {
                                text.push(next);
                                chars.next();
                            }
                            Some('\n') => {
                                chars.next();
                            }
                            _ => text.push('\\'),
                        },
                        c => text.push(c),
                    }
                }
            }
            '\\' => {
                started = true;
                name_so_far = false;
                match chars.next() {
                    Some('\n') | None => {}
                    Some(next) => text.push(next),
                }
            }
            '=' if started && name_so_far && !assignment => {
                let is_name = text.chars().next().is_some_and(|c| !c.is_ascii_digit());
                assignment = is_name;
                name_so_far = false;
                text.push(c);
            }
            c => {
                started = true;
                if !(c.is_ascii_alphanumeric() || c == '_') {
                    name_so_far = false;
                }
                text.push(c);
            }
        }
    }
    finish(&mut out, &mut text, &mut started, &mut assignment);
    out
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
                { "type": "command", "command": command, "timeout": harness.hook_timeout_secs() }
            ] }),
        ),
        Harness::Cursor => (
            "stop",
            json!({ "command": command, "timeout": harness.hook_timeout_secs() }),
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
        let claude = |command: &str| runs_verdict(command, Harness::Claude);
        assert!(claude("verdict hook claude"));
        assert!(claude("/opt/bin/verdict hook claude --deadline 40"));
        assert!(claude(r#""/opt/my tools/verdict" hook claude"#));
        assert!(claude("'/opt/my tools/verdict' hook 'claude'"));
        assert!(claude(r"/opt/my\ tools/verdict hook claude"));
        assert!(claude(r#""$CLAUDE_PROJECT_DIR"/bin/verdict hook claude"#));
        assert!(claude("RUST_LOG=debug verdict hook claude"));
        assert!(claude(r#"cd "$CLAUDE_PROJECT_DIR" && verdict hook claude"#));
        assert!(!claude("verdict hook cursor"));
        assert!(!claude("notverdict hook claude"));
        assert!(!claude("verdict run"));
        assert!(!claude("echo verdict hook claude"));
        assert!(!claude("echo 'verdict hook claude' > /tmp/log"));
        assert!(!claude(r#""/opt/my tools/verdict hook claude""#));
        assert!(!claude("verdict hook"));
        assert!(!claude(""));
    }

    #[test]
    fn command_lines_split_like_sh_splits_them() {
        let words = |line: &str| -> Vec<Option<(String, bool)>> {
            shell_words(line)
                .into_iter()
                .map(|w| w.map(|w| (w.text, w.assignment)))
                .collect()
        };
        let word = |text: &str| Some((text.to_owned(), false));
        assert_eq!(
            words(r#"A=1 "a b"'c' d\ e;x"#),
            [
                Some(("A=1".to_owned(), true)),
                word("a bc"),
                word("d e"),
                None,
                word("x"),
            ]
        );
        assert_eq!(words(r#""A"=1 a=b=c 1x=2"#)[0], word("A=1"));
        assert_eq!(words("a=b=c")[0], Some(("a=b=c".to_owned(), true)));
        assert_eq!(words("1x=2")[0], word("1x=2"));
        assert_eq!(words(r#""x\"y\\z\q""#), [word(r#"x"y\z\q"#)]);
        assert_eq!(words("''"), [word("")]);
        assert_eq!(words("'open"), [word("open")]);
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
