//! `verdict hook install <harness>`: writes verdict's hooks into the harness's settings file,
//! idempotently: the stop hook, the session-start hook that records the tree each session
//! begins on, and with `--post-edit` the post-edit hook (the fast check after each edit). A file
//! that already runs them is left byte for byte as it is; otherwise what is missing is appended
//! (a file written by an older install, with the stop hook alone, gets the session-start hook)
//! and every other setting kept, in its order. A settings file that is a symlink (kept with the
//! user's dotfiles) is written through, to its target. A project's settings go to the repository
//! root, wherever the command runs from, and are shared with the team through git: their command
//! runs `verdict` from the `PATH`, and where verdict is not installed it says so and exits 2, the
//! code each harness shows (an absolute path, fine on the machine that installed it, exits 127 on
//! a teammate's, which the harnesses take for a quiet non-blocking error: the gate would vanish
//! without a word). The user's and Claude Code's local settings stay on one machine, so they name
//! the binary that ran the install by its absolute path (the harness runs hooks with its own
//! `PATH`). docs/hooks.md shows what each harness gets.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::{Event, Harness};
use crate::config_file;
use crate::exit::ExitCode;
use crate::json_doc::{self as json, Json};

/// Arguments of `verdict hook install`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The harness whose settings get the hook
    #[arg(value_enum)]
    harness: Harness,

    /// Where: the project's settings (shared with the team), the project's local settings
    /// (Claude Code's settings.local.json, not committed), or the user's (for every project)
    #[arg(long, value_enum, default_value_t = Scope::Project)]
    scope: Scope,

    /// A directory of the project [default: the current directory]; the settings go to its
    /// repository root
    #[arg(long, short = 'C', value_name = "DIR")]
    dir: Option<PathBuf>,

    /// Also write the post-edit hook (Claude Code's and Codex's PostToolUse, Gemini CLI's
    /// AfterTool): the fast verifiers after each edit, the edited files' diagnostics added to
    /// the agent's context
    #[arg(long)]
    post_edit: bool,

    /// The stop hook's timeout in seconds, for a verification that takes longer than the
    /// harness's default allows; verdict's `--deadline` is written 10 s inside it [default: 600,
    /// Cursor's 60]
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(20..))]
    timeout: Option<u64>,
}

/// Which settings file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Scope {
    /// The project's settings (`.claude/settings.json`, `.codex/hooks.json`, `.cursor/hooks.json`,
    /// `.gemini/settings.json`)
    Project,
    /// The project's local settings, for Claude Code only (`.claude/settings.local.json`)
    Local,
    /// The user's settings under the home directory (`~/.claude/…`, `$CODEX_HOME` or `~/.codex/…`,
    /// `~/.cursor/…`, `~/.gemini/…`)
    User,
}

/// Runs the command.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    if args.scope == Scope::Local && args.harness != Harness::Claude {
        bail!(
            "--scope local is Claude Code's .claude/settings.local.json; {} has no local \
             settings file (use --scope project or user)",
            args.harness.title()
        );
    }
    if args.post_edit && super::post_edit::matcher(args.harness).is_none() {
        bail!(
            "--post-edit: {} has no hook after an edit whose output reaches the agent",
            args.harness.title()
        );
    }
    let path = settings_path(args.harness, args.scope, args.dir.as_deref())?;
    let exe = match args.scope {
        Scope::Project => Program::OnPath {
            settings: shared_settings_name(args.harness),
        },
        Scope::Local | Scope::User => Program::Absolute(exe_for()?),
    };
    let mut events = vec![Event::Stop, Event::SessionStart];
    if args.post_edit {
        events.push(Event::PostEdit);
    }
    let added = install(args.harness, &path, &exe, &events, args.timeout)?;
    if added.is_empty() {
        println!(
            "verdict: {} already runs `verdict hook {}` at each {}; nothing changed",
            path.display(),
            args.harness.key(),
            if args.post_edit {
                "stop, session start and edit"
            } else {
                "stop and session start"
            }
        );
    }
    for &(event, point) in &added {
        println!(
            "verdict: added `{}` as the {point} hook in {}",
            command_for(&exe, args.harness, event, deadline_for(event, args.timeout)),
            path.display()
        );
    }
    if let Some(timeout) = args.timeout
        && !added.iter().any(|&(event, _)| event == Event::Stop)
    {
        println!(
            "verdict: --timeout {timeout} was not applied: the stop hook was already there, and \
             its timeout and --deadline are yours to change in {}",
            path.display()
        );
    }
    println!("verdict: {}", trust_step(args.harness));
    if args.harness == Harness::Claude
        && let Some(warning) = super::claude_version::too_old_warning()
    {
        eprintln!("verdict: {warning}");
    }
    Ok(ExitCode::Success)
}

/// What the user does for the harness to run the hook.
fn trust_step(harness: Harness) -> &'static str {
    match harness {
        Harness::Claude => {
            "Claude Code reads hooks when a session starts: start a new session, or review the \
             change with /hooks in a running one"
        }
        Harness::Codex => {
            "Codex runs a new hook only once it is trusted: review it with /hooks in Codex (a \
             project's .codex/ hooks load only in a trusted project)"
        }
        Harness::Cursor => {
            "Cursor reloads hooks.json when it changes: check that the stop hook is listed in \
             the Hooks tab of Cursor's settings (its output is in the Hooks output channel)"
        }
        Harness::Gemini => {
            "Gemini CLI loads a project's .gemini/settings.json only in a trusted folder (when \
             folder trust is on) and runs hooks only with its hooks system enabled: check with \
             /hooks panel in Gemini CLI"
        }
    }
}

/// How a hook's command names verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Program {
    /// By its absolute path (quoted for the shell when it needs to be): settings that stay on the
    /// machine that installed it.
    Absolute(String),
    /// As `verdict` from the `PATH`, with an install hint and exit code 2 when there is none:
    /// settings shared with a team, `settings` being the file's path in the repository.
    OnPath { settings: &'static str },
}

/// The project's shared settings file of `harness`, as its path in the repository.
fn shared_settings_name(harness: Harness) -> &'static str {
    match harness {
        Harness::Claude => ".claude/settings.json",
        Harness::Codex => ".codex/hooks.json",
        Harness::Cursor => ".cursor/hooks.json",
        Harness::Gemini => ".gemini/settings.json",
    }
}

/// The command the hook of `event` runs: verdict, `hook <harness>`, and the event unless it is
/// the stop. Every harness runs a hook's command through a shell. From the `PATH`, the command
/// first checks that there is a verdict to run; without one it prints an install hint on stderr
/// and exits 2, which Claude Code, Codex and Gemini CLI read as a block with stderr as the reason
/// (a stop is held with the hint as the agent's instruction; at the session start the hint is
/// shown to the user), and which Cursor shows in its hooks output. `exec` leaves no shell between
/// the harness and verdict, so the harness's signals reach verdict.
fn command_for(exe: &Program, harness: Harness, event: Event, deadline: Option<u64>) -> String {
    let arguments = match (event, deadline) {
        (Event::Stop, Some(deadline)) => format!("hook {} --deadline {deadline}", harness.key()),
        (Event::Stop, None) => format!("hook {}", harness.key()),
        (Event::SessionStart | Event::PostEdit, _) => {
            format!("hook {} --event {}", harness.key(), event.key())
        }
    };
    match exe {
        Program::Absolute(path) => format!("{path} {arguments}"),
        Program::OnPath { settings } => format!(
            "command -v verdict >/dev/null 2>&1 || {{ echo '{}' >&2; exit 2; }}; exec verdict \
             {arguments}",
            missing_hint(settings)
        ),
    }
}

/// What a hook from the `PATH` says when verdict is not installed (no single quote in it: it is
/// quoted with them).
fn missing_hint(settings: &str) -> String {
    format!(
        "verdict is not installed here (no verdict on the PATH), so the hooks of this project \
         cannot verify the work of the agent: install verdict (cargo install --path cli, in the \
         verdict repository) so that the PATH of the hooks has it, or remove the verdict hooks \
         from {settings}"
    )
}

/// The command an older install wrote into shared settings for `event`: the installing binary by
/// its absolute path, and verdict's arguments, nothing else. Such a command runs on no other
/// machine, so a project install replaces it.
fn is_absolute_install(command: &str, harness: Harness, event: Event) -> bool {
    let words = shell_words(command);
    let Some(words) = words.into_iter().collect::<Option<Vec<Word>>>() else {
        return false;
    };
    let Some((program, rest)) = words.split_first() else {
        return false;
    };
    let program = Path::new(&program.text);
    let expected = command_for(&Program::Absolute(String::new()), harness, event, None);
    let expected: Vec<&str> = expected.split_whitespace().collect();
    program.is_absolute()
        && program.file_name().and_then(|n| n.to_str()) == Some("verdict")
        && rest.iter().all(|w| !w.assignment)
        && rest
            .iter()
            .map(|w| w.text.as_str())
            .eq(expected.iter().copied())
}

/// This verdict binary, by its absolute path (quoted for the shell when it needs to be).
fn exe_for() -> Result<String> {
    let exe = std::env::current_exe().context("failed to find the verdict binary")?;
    let exe = exe.canonicalize().unwrap_or(exe);
    let Some(exe) = exe.to_str() else {
        bail!(
            "the path of the verdict binary is not UTF-8: {}",
            exe.display()
        );
    };
    let plain = exe
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%".contains(c));
    Ok(if plain {
        exe.to_owned()
    } else {
        format!("'{}'", exe.replace('\'', r"'\''"))
    })
}

/// The repository root of `start` (the nearest directory holding `.git`), else `start`.
fn project_root(start: &Path) -> PathBuf {
    start
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(start)
        .to_path_buf()
}

/// The settings file of `harness` at `scope`.
fn settings_path(harness: Harness, scope: Scope, dir: Option<&Path>) -> Result<PathBuf> {
    let base = match scope {
        Scope::Project | Scope::Local => {
            let start = match dir {
                Some(dir) => std::path::absolute(dir)
                    .with_context(|| format!("failed to resolve {}", dir.display()))?,
                None => std::env::current_dir().context("failed to read the current directory")?,
            };
            project_root(&start)
        }
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
    Ok(match (harness, scope) {
        (Harness::Claude, Scope::Local) => base.join(".claude").join("settings.local.json"),
        (Harness::Claude, _) => base.join(".claude").join("settings.json"),
        (Harness::Codex, _) => base.join(".codex").join("hooks.json"),
        (Harness::Cursor, _) => base.join(".cursor").join("hooks.json"),
        (Harness::Gemini, _) => base.join(".gemini").join("settings.json"),
    })
}

/// Adds verdict's hooks, run by `exe`, to the file at `path` (created if missing); returns the
/// events it added with the harness's name of each hook point, none when verdict's hooks were
/// already there, in which case the file is not written.
pub(crate) fn install(
    harness: Harness,
    path: &Path,
    exe: &Program,
    events: &[Event],
    stop_timeout: Option<u64>,
) -> Result<Vec<(Event, &'static str)>> {
    let path = &config_file::follow_links(path)?;
    let mut document = config_file::read_json(path)?;
    let mut added = Vec::new();
    for &event in events {
        let command = command_for(exe, harness, event, deadline_for(event, stop_timeout));
        let timeout = match (event, stop_timeout) {
            (Event::Stop, Some(timeout)) => timeout,
            _ => default_timeout(harness, event),
        };
        let replace_absolute = matches!(exe, Program::OnPath { .. });
        for &point in hook_points(harness, event) {
            let hook = Hook {
                event,
                point,
                command: &command,
                timeout,
            };
            if add_hook(harness, hook, &mut document, replace_absolute)
                .with_context(|| format!("in {}", path.display()))?
            {
                added.push((event, point));
            }
        }
    }
    if added.is_empty() {
        return Ok(added);
    }
    config_file::write_json(path, &document)?;
    Ok(added)
}

/// The hook points of the harness's settings that install writes for `event`. Claude Code
/// stops a subagent through `SubagentStop`, which verdict answers as a stop, so a subagent's
/// edits are verified before it reports back.
fn hook_points(harness: Harness, event: Event) -> &'static [&'static str] {
    match (event, harness) {
        (Event::Stop, Harness::Claude) => &["Stop", "SubagentStop"],
        _ => &event.names(harness)[..1],
    }
}

/// One hook install writes: the event verdict answers, the harness's name of the point it is
/// written under, its command and its timeout in seconds.
struct Hook<'a> {
    event: Event,
    point: &'static str,
    command: &'a str,
    timeout: u64,
}

/// Whether a hook's command already runs verdict's hook of `event` for `harness`: one of its
/// simple commands (split at `;`, `&&`, `||`, `|`) is a program named `verdict` (any path to it,
/// quoted or not, after any `NAME=value` assignments) whose arguments start with
/// `hook <harness>` (any options after), with `--event` naming `event` (none names the stop). A
/// command that only mentions verdict (`echo verdict hook claude`) does not run it.
fn runs_verdict(command: &str, harness: Harness, event: Event) -> bool {
    shell_words(command)
        .split(|word| word.is_none())
        .any(|simple| {
            let mut words = simple
                .iter()
                .flatten()
                .skip_while(|word| word.assignment)
                .map(|word| word.text.as_str())
                .skip_while(|word| *word == "exec");
            let program = words.next().map(Path::new);
            if program.and_then(Path::file_name).and_then(|n| n.to_str()) != Some("verdict")
                || words.next() != Some("hook")
                || words.next() != Some(harness.key())
            {
                return false;
            }
            let mut named = Event::Stop.key();
            while let Some(word) = words.next() {
                if word == "--event" {
                    named = words.next().unwrap_or_default();
                } else if let Some(value) = word.strip_prefix("--event=") {
                    named = value;
                }
            }
            named == event.key()
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

/// The timeout, in seconds, written for the hook of `event` when none is asked for.
fn default_timeout(harness: Harness, event: Event) -> u64 {
    match event {
        Event::Stop => harness.hook_timeout_secs(),
        Event::SessionStart => harness.start_timeout_secs(),
        Event::PostEdit => super::post_edit::TIMEOUT_SECS,
    }
}

/// The `--deadline` written into the stop hook's command for an asked-for `timeout`: as far
/// inside it as the default deadline is inside the default timeout.
fn deadline_for(event: Event, timeout: Option<u64>) -> Option<u64> {
    match event {
        Event::Stop => timeout.map(|t| t.saturating_sub(super::ANSWER_MARGIN_SECS).max(1)),
        Event::SessionStart | Event::PostEdit => None,
    }
}

/// Adds verdict's `hook` to a settings document under its point; `false` when a hook there
/// already runs verdict's of that event for `harness`. With `replace_absolute`, a
/// command an older install wrote with its absolute path ([`is_absolute_install`]) is replaced by
/// `command` in place (and `true` returned).
fn add_hook(
    harness: Harness,
    hook: Hook<'_>,
    document: &mut Json,
    replace_absolute: bool,
) -> Result<bool> {
    let (event_kind, event, command) = (hook.event, hook.point, hook.command);
    let Json::Object(root) = document else {
        bail!("the settings are not a JSON object");
    };
    let entry = entry(harness, &hook);
    if harness == Harness::Cursor && json::get(root, "version").is_none() {
        root.push(("version".into(), Json::from(1u64)));
    }
    let Json::Object(hooks) = json::entry(root, "hooks", || Json::Object(Vec::new())) else {
        bail!("`hooks` is not a JSON object");
    };
    let Json::Array(list) = json::entry(hooks, event, || Json::Array(Vec::new())) else {
        bail!("`hooks.{event}` is not a JSON array");
    };
    let commands = |item: &Json| -> Vec<String> {
        let mut found = Vec::new();
        if let Json::Object(item) = item {
            if let Some(Json::String(c)) = json::get(item, "command") {
                found.push(c.clone());
            }
            if let Some(Json::Array(inner)) = json::get(item, "hooks") {
                for handler in inner {
                    if let Json::Object(handler) = handler
                        && let Some(Json::String(c)) = json::get(handler, "command")
                    {
                        found.push(c.clone());
                    }
                }
            }
        }
        found
    };
    if replace_absolute {
        let mut replaced = false;
        for item in list.iter_mut() {
            let Json::Object(item) = item else { continue };
            replaced |= replace_command(item, harness, event_kind, command);
            if let Some(Json::Array(inner)) = json::get_mut(item, "hooks") {
                for handler in inner {
                    if let Json::Object(handler) = handler {
                        replaced |= replace_command(handler, harness, event_kind, command);
                    }
                }
            }
        }
        if replaced {
            return Ok(true);
        }
    }
    if list
        .iter()
        .flat_map(commands)
        .any(|c| runs_verdict(&c, harness, event_kind))
    {
        return Ok(false);
    }
    list.push(entry);
    Ok(true)
}

/// The settings entry of `hook` in the harness's shape.
fn entry(harness: Harness, hook: &Hook<'_>) -> Json {
    let (event_kind, command, timeout) = (hook.event, hook.command, hook.timeout);
    // The post-edit hook runs after the tools that edit files only.
    let matcher: Vec<(&str, Json)> = match (event_kind, super::post_edit::matcher(harness)) {
        (Event::PostEdit, Some(tools)) => vec![("matcher", Json::from(tools))],
        _ => Vec::new(),
    };
    match harness {
        // Claude Code and Codex share the shape: event → matcher groups → handlers.
        Harness::Claude | Harness::Codex => json::object(
            matcher
                .into_iter()
                .chain([(
                    "hooks",
                    Json::Array(vec![json::object(vec![
                        ("type", Json::from("command")),
                        ("command", Json::from(command)),
                        ("timeout", Json::from(timeout)),
                    ])]),
                )])
                .collect(),
        ),
        // Gemini CLI's shape is Claude Code's, with a name and the timeout in milliseconds.
        Harness::Gemini => json::object(
            matcher
                .into_iter()
                .chain([(
                    "hooks",
                    Json::Array(vec![json::object(vec![
                        (
                            "name",
                            Json::from(match event_kind {
                                Event::Stop => "verdict",
                                Event::SessionStart => "verdict-session-start",
                                Event::PostEdit => "verdict-post-edit",
                            }),
                        ),
                        ("type", Json::from("command")),
                        ("command", Json::from(command)),
                        ("timeout", Json::from(timeout * 1000)),
                    ])]),
                )])
                .collect(),
        ),
        Harness::Cursor => json::object(vec![
            ("command", Json::from(command)),
            ("timeout", Json::from(timeout)),
        ]),
    }
}

/// Sets the `command` of a hook object to `command` when it is one an older install wrote with
/// its absolute path; whether it did.
fn replace_command(
    object: &mut [(String, Json)],
    harness: Harness,
    event: Event,
    command: &str,
) -> bool {
    match json::get_mut(object, "command") {
        Some(Json::String(old)) if is_absolute_install(old, harness, event) => {
            *old = command.to_owned();
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hook_is_recognised_by_any_path_to_verdict() {
        let claude = |command: &str| runs_verdict(command, Harness::Claude, Event::Stop);
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
        assert!(claude("verdict hook claude --event stop"));
        assert!(!claude("verdict hook claude --event session-start"));
        let start = |command: &str| runs_verdict(command, Harness::Claude, Event::SessionStart);
        assert!(start("/opt/bin/verdict hook claude --event session-start"));
        assert!(start(
            "verdict hook claude --deadline 5 --event=session-start"
        ));
        assert!(!start("verdict hook claude"));
        assert!(!start("verdict hook codex --event session-start"));
    }

    #[test]
    fn a_shared_command_runs_verdict_from_the_path_and_is_recognised() {
        let shared = Program::OnPath {
            settings: ".claude/settings.json",
        };
        for event in [Event::Stop, Event::SessionStart, Event::PostEdit] {
            let command = command_for(&shared, Harness::Claude, event, None);
            assert!(!command.contains("/verdict"), "{command}");
            assert!(runs_verdict(&command, Harness::Claude, event), "{command}");
            assert!(!is_absolute_install(&command, Harness::Claude, event));
            let old = command_for(
                &Program::Absolute("/opt/bin/verdict".into()),
                Harness::Claude,
                event,
                None,
            );
            assert!(is_absolute_install(&old, Harness::Claude, event), "{old}");
        }
        assert!(!missing_hint(".claude/settings.json").contains('\''));
        let stop = command_for(&shared, Harness::Claude, Event::Stop, None);
        let longer = command_for(
            &shared,
            Harness::Claude,
            Event::Stop,
            deadline_for(Event::Stop, Some(900)),
        );
        assert!(
            longer.ends_with("exec verdict hook claude --deadline 890"),
            "{longer}"
        );
        assert!(
            runs_verdict(&longer, Harness::Claude, Event::Stop),
            "{longer}"
        );
        assert!(!runs_verdict(&stop, Harness::Claude, Event::SessionStart));
        assert!(!is_absolute_install(
            "/opt/bin/verdict hook claude --deadline 40",
            Harness::Claude,
            Event::Stop
        ));
        assert!(!is_absolute_install(
            "verdict hook claude",
            Harness::Claude,
            Event::Stop
        ));
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

    fn parse(text: &str) -> Json {
        serde_json::from_str(text).expect("JSON")
    }

    #[test]
    fn settings_of_the_wrong_shape_are_not_touched() {
        let add = |harness: Harness, doc: &mut Json| {
            let hook = Hook {
                event: Event::Stop,
                point: hook_points(harness, Event::Stop)[0],
                command: "verdict hook claude",
                timeout: 600,
            };
            add_hook(harness, hook, doc, true)
        };
        assert!(add(Harness::Claude, &mut parse(r#"{"hooks": []}"#)).is_err());
        assert!(add(Harness::Cursor, &mut parse(r#"{"hooks": {"stop": {}}}"#)).is_err());
        assert!(add(Harness::Codex, &mut parse("[1]")).is_err());
        assert!(
            add(
                Harness::Gemini,
                &mut parse(r#"{"hooks": {"AfterAgent": 3}}"#)
            )
            .is_err()
        );
    }

    #[test]
    fn keys_keep_their_order_and_values_their_form() {
        let text = r#"{"zeta":1,"alpha":{"y":[true,null,-2,1.5],"b":"s"},"zeta":2}"#;
        let doc = parse(text);
        assert_eq!(
            serde_json::to_string(&doc).expect("JSON"),
            r#"{"zeta":2,"alpha":{"y":[true,null,-2,1.5],"b":"s"}}"#
        );
    }
}
