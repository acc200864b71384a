//! `verdict hook <claude|codex|gemini> --event post-edit`: a fast check after each edit the agent
//! makes (Claude Code's and Codex's `PostToolUse`, Gemini CLI's `AfterTool`).
//!
//! The harness names the tool and its input; verdict takes the files it wrote from that input
//! (`file_path`, or the headers of Codex's `apply_patch` patch), runs the project's fast
//! verifiers (tsc, eslint and clippy unless `[verifiers.<name>] fast = false`, and any other with
//! `fast = true`), and hands back, as additional context for the agent, only the diagnostics of
//! the edited files, within a small token budget (`--budget`, 150 by default). eslint lints the
//! edited files alone; tsc and clippy check the whole project (they need the program) and only
//! what they say of the edited files is kept.
//!
//! It is context, never a decision: the hook always exits 0, never blocks, and a clean edit gets
//! `{}` (nothing added). A verifier that cannot run says so in one short line; an error of verdict
//! itself goes to the user (`systemMessage`), not to the agent.

use std::collections::BTreeSet;
use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use verdict_core::tools::PostEdit;

use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};
use verdict_core::digest::tokens;
use verdict_core::{Outcome, Severity, Verification};

use super::verify::{self, Cut};
use super::{ANSWER_MARGIN_SECS, Event, Harness, StopArgs, StopInput, read_stdin, start_dir};
use crate::config;
use crate::exit::ExitCode;
use crate::scoped::{Narrowed, Narrowing, concerns, post_edit};

/// The context's token budget when `--budget` is not given: a few diagnostics, no more, since it
/// is added after every edit.
pub(super) const DEFAULT_BUDGET: usize = 150;

/// The timeout `verdict hook install --post-edit` writes, in seconds: the agent waits for the
/// hook after each edit.
pub(super) const TIMEOUT_SECS: u64 = 60;

/// The most tokens of one diagnostic's line.
const MAX_LINE_TOKENS: usize = 60;

/// The matcher of the harness's tools that edit files, as `verdict hook install --post-edit`
/// writes it; `None` for a harness with no post-edit hook that can add context.
pub(super) fn matcher(harness: Harness) -> Option<&'static str> {
    match harness {
        Harness::Claude => Some("Edit|Write|MultiEdit"),
        // `apply_patch` is Codex's own edit tool; `Edit|Write` match it too in later versions.
        Harness::Codex => Some("apply_patch|Edit|Write"),
        Harness::Gemini => Some("write_file|replace"),
        // Cursor's `afterFileEdit` has no output the agent reads.
        Harness::Cursor => None,
    }
}

/// The hook: reads the edit, checks it, answers; always exits 0.
pub(super) fn run(harness: Harness, args: &StopArgs) -> ExitCode {
    let started = Instant::now();
    let secs = args.deadline.unwrap_or(TIMEOUT_SECS - ANSWER_MARGIN_SECS);
    let deadline = started + Duration::from_secs(secs);
    let answer = if matcher(harness).is_none() {
        Err(format!(
            "verdict hook: {} has no post-edit hook whose output reaches the agent; nothing \
             checked",
            harness.title()
        ))
    } else {
        let read = read_stdin(deadline);
        match std::panic::catch_unwind(AssertUnwindSafe(|| {
            check(harness, args, read, deadline, secs)
        })) {
            Ok(Ok(context)) => Ok(context),
            Ok(Err(error)) => Err(format!(
                "verdict hook: {error:#}; this edit was not checked"
            )),
            Err(_) => Err("verdict hook: verdict panicked; this edit was not checked".to_owned()),
        }
    };
    let out = match &answer {
        Ok(Some(context)) => json!({
            "hookSpecificOutput": {
                "hookEventName": Event::PostEdit.names(harness)[0],
                "additionalContext": context,
            }
        }),
        Ok(None) => json!({}),
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "{message}");
            match harness {
                Harness::Cursor => json!({}),
                _ => json!({ "systemMessage": message }),
            }
        }
    };
    let _ = writeln!(
        std::io::stderr(),
        "verdict hook: post-edit check answered in {} ms",
        started.elapsed().as_millis()
    );
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{out}");
    let _ = stdout.flush();
    ExitCode::Success
}

/// What the hook needs from the harness's input.
#[derive(Debug, PartialEq, Eq)]
struct EditInput {
    /// The session's working directory, which relative paths are taken from.
    cwd: Option<PathBuf>,
    /// The files the tool wrote, as the input names them.
    files: Vec<PathBuf>,
    /// The session the edit is of, when the input names it: its baseline is set aside.
    session: Option<String>,
}

/// Reads the harness's post-tool input: `tool_input.file_path` (Claude Code's Edit, Write and
/// MultiEdit, Gemini CLI's write_file and replace), `tool_input.path`, or the files an
/// `apply_patch` patch adds, updates or moves to (Codex: the patch is `tool_input.command`).
fn parse_input(harness: Harness, text: &str) -> Result<EditInput> {
    let object = &super::input_object(harness, text)?;
    let names = Event::PostEdit.names(harness);
    if let Some(event) = object.get("hook_event_name").and_then(Value::as_str)
        && !names.contains(&event)
    {
        bail!(
            "`verdict hook {} --event post-edit` answers {}'s {} event, not `{event}`",
            harness.key(),
            harness.title(),
            names.join(" and ")
        );
    }
    let cwd = super::cwd_of(harness, object)?;
    let input = object.get("tool_input").and_then(Value::as_object);
    let field = |key: &str| input.and_then(|i| i.get(key)).and_then(Value::as_str);
    let mut files: Vec<PathBuf> = ["file_path", "path"]
        .into_iter()
        .filter_map(field)
        .filter(|f| !f.is_empty())
        .map(PathBuf::from)
        .collect();
    let tool = object.get("tool_name").and_then(Value::as_str);
    if let Some(patch) = field("command").or_else(|| field("patch"))
        && (tool == Some("apply_patch") || patch.trim_start().starts_with("*** Begin Patch"))
    {
        files.extend(patch_files(patch));
    }
    let session = object
        .get("session_id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .map(str::to_owned);
    Ok(EditInput {
        cwd,
        files,
        session,
    })
}

/// The files an `apply_patch` patch leaves written: those it adds or updates, and where it moves
/// a file to (a deleted file has nothing left to check).
fn patch_files(patch: &str) -> Vec<PathBuf> {
    patch
        .lines()
        .filter_map(|line| {
            ["*** Add File: ", "*** Update File: ", "*** Move to: "]
                .iter()
                .find_map(|header| line.strip_prefix(header))
        })
        .map(str::trim)
        .filter(|path| !path.is_empty())
        .map(PathBuf::from)
        .collect()
}

/// Checks the edit; the context for the agent, `None` when there is nothing to say.
fn check(
    harness: Harness,
    args: &StopArgs,
    read: std::io::Result<String>,
    deadline: Instant,
    secs: u64,
) -> Result<Option<String>> {
    let text = read.context("failed to read the hook input on stdin")?;
    let input = parse_input(harness, text.trim_start_matches('\u{feff}'))?;
    let session = StopInput {
        session: String::new(),
        subagent: None,
        project: None,
        cwd: input.cwd.clone(),
        not_completed: None,
        read_only: false,
    };
    let start = start_dir(harness, args, &session)?;
    if !start.dir.is_dir() {
        let _ = writeln!(
            std::io::stderr(),
            "verdict hook: {} ({}) is not a directory; nothing checked",
            start.dir.display(),
            start.named_by
        );
        return Ok(None);
    }
    let config = config::discover(&start.dir).map_err(|error| anyhow!("{error}"))?;
    let root = config.project_dir().to_path_buf();
    let canonical_root = root.canonicalize().unwrap_or_else(|_| root.clone());
    let base = input.cwd.as_deref().unwrap_or(&start.dir);
    let files = edited_files(&input.files, base, &canonical_root);
    if files.is_empty() {
        let _ = writeln!(
            std::io::stderr(),
            "verdict hook: no edited file of {} is left to check",
            root.display()
        );
        return Ok(None);
    }
    let selected = verify::select(&root, &config)?;
    let entries = fast_entries(&selected, &config, &root, &files);
    if entries.is_empty() {
        let _ = writeln!(
            std::io::stderr(),
            "verdict hook: no fast verifier checks {}",
            files.join(", ")
        );
        return Ok(None);
    }
    let names: Vec<String> = entries
        .iter()
        .map(|e| e.verifier.name().to_owned())
        .collect();
    let mut config = config.clone();
    // Every fast verifier says what it found, whatever another found.
    config.run.fail_fast = false;
    let mut verifications = match verify::run_entries(&root, &config, entries, deadline)? {
        Ok(verifications) => verifications,
        Err(Cut::Deadline) => {
            return Ok(Some(format!(
                "verdict: the check of this edit ({}) did not finish within {secs}s; nothing \
                 to report",
                names.join(", ")
            )));
        }
        Err(Cut::Signal) => bail!("interrupted by a signal"),
    };
    let _ = writeln!(
        std::io::stderr(),
        "verdict hook: checked {} with {}",
        files.join(", "),
        names.join(", ")
    );
    let budget = args
        .budget
        .and_then(|b| usize::try_from(b).ok())
        .unwrap_or(DEFAULT_BUDGET);
    let before = edited_items(&verifications, &files, &canonical_root).len();
    if let Some(session) = &input.session {
        set_aside(harness, session, &root, &mut verifications)?;
    }
    let items = edited_items(&verifications, &files, &canonical_root);
    let old = before.saturating_sub(items.len());
    Ok(context(&verifications, items, old, budget))
}

/// The entries of the fast verifiers (see [`post_edit`] and `fast` in verdict.toml) that have
/// something to say about the edited `files`, narrowed to them where the verifier can be.
fn fast_entries(
    selected: &[crate::registry::Known],
    config: &config::Config,
    root: &Path,
    files: &[String],
) -> Vec<verdict_core::pipeline::Entry> {
    let workspace = config.workspace(root);
    let mut entries = Vec::new();
    for known in selected {
        let name = known.verifier.name();
        let fast = config
            .verifiers
            .get(name)
            .and_then(|s| s.fast)
            .unwrap_or(post_edit(name) != PostEdit::No);
        if !fast {
            continue;
        }
        let narrowed = known
            .verifier
            .command_for_files(&workspace, files)
            .is_some();
        if !narrowed && !concerns(name, files, &workspace) {
            continue;
        }
        let mut entry = crate::verify::entry(known, config);
        // Only the fast verifiers run, so what they would wait for is not there.
        entry.needs.clear();
        if narrowed {
            entry.verifier = Arc::new(Narrowed::new(
                Arc::clone(&known.verifier),
                files.to_vec(),
                Narrowing::Files,
            ));
        }
        entries.push(entry);
    }
    entries
}

/// Sets aside in `verifications` the failures `session` began with, when they are known (its
/// start tree was verified): the agent is told, after each edit, only what is new since the
/// session began, as its stop hook blocks only on that.
fn set_aside(
    harness: Harness,
    session: &str,
    root: &Path,
    verifications: &mut [Verification],
) -> Result<()> {
    let mut store = super::state::Store::open(&verdict_core::paths::state_db(root))?;
    if let Some(baseline) = super::baseline::known(&mut store, harness, session)? {
        baseline.set_aside(verifications);
    }
    Ok(())
}

/// The edited files that exist inside the project, relative to its root, each once.
fn edited_files(named: &[PathBuf], base: &Path, canonical_root: &Path) -> Vec<String> {
    let mut seen = BTreeSet::new();
    named
        .iter()
        .filter_map(|file| {
            let path = if file.is_absolute() {
                file.clone()
            } else {
                base.join(file)
            };
            let path = path.canonicalize().ok().filter(|p| p.is_file())?;
            let relative = path.strip_prefix(canonical_root).ok()?;
            relative.to_str().map(str::to_owned)
        })
        .filter(|file| seen.insert(file.clone()))
        .collect()
}

/// One diagnostic of an edited file, as the agent reads it.
struct Item {
    severity: Severity,
    file: String,
    line: u32,
    text: String,
}

/// The diagnostics of `files`, the edited files, that `verifications` hold.
fn edited_items(
    verifications: &[Verification],
    files: &[String],
    canonical_root: &Path,
) -> Vec<Item> {
    let edited: BTreeSet<&str> = files.iter().map(String::as_str).collect();
    let mut items = Vec::new();
    for v in verifications {
        if v.outcome() == Outcome::Errored {
            continue;
        }
        for d in &v.report.diagnostics {
            let Some(file) = d.file.as_deref() else {
                continue;
            };
            let Some(file) = relative_in(file, canonical_root) else {
                continue;
            };
            if !edited.contains(file.as_str()) {
                continue;
            }
            let place = match (d.line, d.column) {
                (Some(line), Some(column)) => format!("{file}:{line}:{column}"),
                (Some(line), None) => format!("{file}:{line}"),
                _ => file.clone(),
            };
            let code = d
                .code
                .as_deref()
                .map(|c| format!(" {c}"))
                .unwrap_or_default();
            let severity = match d.severity {
                Severity::Error => "",
                _ => " (warning)",
            };
            let message = d.message.lines().next().unwrap_or_default();
            let text = format!("{place} {}{code}{severity}: {message}", v.verifier);
            items.push(Item {
                severity: d.severity,
                file,
                line: d.line.unwrap_or(0),
                text: tokens::clip(&text, MAX_LINE_TOKENS).into_owned(),
            });
        }
    }
    items
}

/// The context for the agent: `items`, the edited files' diagnostics new since the session
/// began (errors first; `old` more predate it and are not repeated), and one line per verifier
/// that could not check, within `budget` tokens; `None` when there is neither.
fn context(
    verifications: &[Verification],
    mut items: Vec<Item>,
    old: usize,
    budget: usize,
) -> Option<String> {
    let mut notes = Vec::new();
    for v in verifications {
        if v.outcome() == Outcome::Errored {
            let why = v
                .report
                .error
                .as_deref()
                .or(v.report.summary.as_deref())
                .and_then(|e| e.lines().next())
                .unwrap_or("it did not say why");
            notes.push(format!(
                "verdict: {} could not check this edit: {}",
                v.verifier,
                tokens::clip(why, 30)
            ));
        }
    }
    if items.is_empty() && notes.is_empty() {
        return None;
    }
    items.sort_by(|a, b| {
        (a.severity != Severity::Error, &a.file, a.line).cmp(&(
            b.severity != Severity::Error,
            &b.file,
            b.line,
        ))
    });
    let header = match (items.is_empty(), old) {
        (true, _) => None,
        (false, 0) => Some("verdict found problems in the files just edited:".to_owned()),
        (false, old) => Some(format!(
            "verdict found new problems in the files just edited ({old} more, from before this \
             session, not repeated):"
        )),
    };
    // What could not be checked comes first: it is short, and must not be cut for the rest.
    let lines: Vec<String> = notes
        .into_iter()
        .chain(header)
        .chain(items.into_iter().map(|i| i.text))
        .collect();
    Some(fit(&lines, budget))
}

/// `file` (as a verifier names it: relative to the root, or absolute) relative to the root.
fn relative_in(file: &str, canonical_root: &Path) -> Option<String> {
    let path = Path::new(file);
    let path = if path.is_absolute() {
        path.to_path_buf()
    } else {
        canonical_root.join(path)
    };
    let path = path.canonicalize().unwrap_or(path);
    path.strip_prefix(canonical_root)
        .ok()
        .and_then(Path::to_str)
        .map(str::to_owned)
}

/// `lines` joined, as many as fit in `budget` tokens with a last line saying how many were left
/// out; the first line is clipped when even it does not fit.
fn fit(lines: &[String], budget: usize) -> String {
    let budget = budget.max(20);
    let mut text = String::new();
    for (index, line) in lines.iter().enumerate() {
        let candidate = if text.is_empty() {
            line.clone()
        } else {
            format!("{text}\n{line}")
        };
        let left = lines.len() - index - 1;
        let room = if left == 0 {
            budget
        } else {
            budget.saturating_sub(12)
        };
        if tokens::fits(&candidate, room) {
            text = candidate;
            continue;
        }
        if text.is_empty() {
            text = tokens::clip(line, budget.saturating_sub(12)).into_owned();
            if left == 0 {
                return text;
            }
            return format!("{text}\n… {left} more (`verdict run` shows all)");
        }
        let more = lines.len() - index;
        return format!("{text}\n… {more} more (`verdict run` shows all)");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edited_files_are_read_from_each_harness_input() {
        let claude = parse_input(
            Harness::Claude,
            r#"{"session_id":"s","cwd":"/p","hook_event_name":"PostToolUse","tool_name":"Edit","tool_input":{"file_path":"/p/src/a.ts","old_string":"x","new_string":"y"},"tool_response":{"success":true}}"#,
        )
        .expect("an input");
        assert_eq!(claude.files, [PathBuf::from("/p/src/a.ts")]);
        assert_eq!(claude.cwd.as_deref(), Some(Path::new("/p")));
        let codex = parse_input(
            Harness::Codex,
            "{\"session_id\":\"s\",\"cwd\":\"/p\",\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"apply_patch\",\"tool_input\":{\"command\":\"*** Begin Patch\\n*** Update File: src/a.ts\\n@@\\n-x\\n+y\\n*** Add File: /p/b.ts\\n+z\\n*** Delete File: c.ts\\n*** Update File: d.ts\\n*** Move to: e.ts\\n*** End Patch\"}}",
        )
        .expect("an input");
        assert_eq!(
            codex.files,
            ["src/a.ts", "/p/b.ts", "d.ts", "e.ts"].map(PathBuf::from)
        );
        let gemini = parse_input(
            Harness::Gemini,
            r#"{"session_id":"s","cwd":"/p","hook_event_name":"AfterTool","tool_name":"replace","tool_input":{"file_path":"/p/a.js","old_string":"a","new_string":"b"},"tool_response":{"llmContent":"ok"}}"#,
        )
        .expect("an input");
        assert_eq!(gemini.files, [PathBuf::from("/p/a.js")]);
        assert!(parse_input(Harness::Claude, r#"{"hook_event_name":"Stop"}"#).is_err());
        assert!(parse_input(Harness::Gemini, "[]").is_err());
        let bash = parse_input(
            Harness::Claude,
            r#"{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#,
        )
        .expect("an input");
        assert!(bash.files.is_empty());
    }

    #[test]
    fn the_context_stays_within_its_budget() {
        let lines: Vec<String> = std::iter::once("verdict found problems:".to_owned())
            .chain((1..=40).map(|n| {
                format!("src/a.ts:{n}:1 tsc TS2322: Type 'string' is not assignable to 'number'.")
            }))
            .collect();
        for budget in [20, 60, 150, 400] {
            let text = fit(&lines, budget);
            assert!(tokens::count(&text) <= budget, "{budget}: {text}");
            assert!(text.ends_with("more (`verdict run` shows all)"), "{text}");
        }
        let few = fit(&lines[..3], 150);
        assert_eq!(few, lines[..3].join("\n"));
    }
}
