//! Neutered tests: tests the attempt changed so that they can no longer fail. Each changed test
//! file is read whole on both sides — the new text as the driver hands it, the old one rebuilt from
//! it and the diff — and every test whose body changed is compared with what it was:
//!
//! - an unconditional `return` now comes before assertions that used to run (early return);
//! - the body now does nothing (`pass`, `...`, `{}`);
//! - assertions that could fail were replaced by constant truths (`assert True`,
//!   `expect(1).toEqual(1)`, `assert_eq!(1, 1)`);
//! - assertions now sit in a `try`/`catch` (or `catch_unwind`, `let _ = …`) that drops their
//!   failure;
//! - no assertion is left where there were some;
//! - a Rust test gained `#[should_panic]` or a `#[cfg(…)]`;
//! - an assertion's expected value changed while the code it tests did not (not with
//!   `allow_test_edits`, the setting for tasks that are about the tests).
//!
//! Tests that are new, renamed (the same body under another name) or unchanged are not judged.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::assertion::Assertion;
use super::body::{Facts, TestDef};
use super::check::{Violation, ViolationKind, at, is_test_file};
use super::diff::{FileDiff, old_text};
use super::lex::{Lang, lex};
use super::{braces, python};
use crate::model::Verification;

/// The new text of changed files, by path as the diff names them (read by the driver).
pub type Sources = BTreeMap<String, String>;

/// What the judgement needs beside the files.
pub(super) struct Context<'a> {
    pub allow_test_edits: bool,
    /// The baseline's failing tests: (file, test name, what the failure said).
    pub failing: Vec<(Option<&'a str>, &'a str, String)>,
    /// Names on the changed lines of files that are not tests (and in their hunks' function
    /// headers): the code the attempt changed.
    pub changed_code: BTreeSet<String>,
}

impl<'a> Context<'a> {
    pub(super) fn new(
        allow_test_edits: bool,
        baseline: Option<&'a [Verification]>,
        files: &[FileDiff],
    ) -> Context<'a> {
        let failing = baseline
            .unwrap_or_default()
            .iter()
            .flat_map(|v| v.report.diagnostics.iter())
            .filter(|d| d.is_failed_test())
            .filter_map(|d| {
                let said = format!("{} {}", d.message, d.detail.as_deref().unwrap_or(""));
                Some((d.file.as_deref(), d.test.as_deref()?, said))
            })
            .collect();
        Context {
            allow_test_edits,
            failing,
            changed_code: changed_code(files),
        }
    }

    /// What the baseline said of `test` in `path`, if it failed there.
    fn failed(&self, path: &str, test: &TestDef) -> Option<&str> {
        self.failing
            .iter()
            .find(|(file, name, _)| {
                let last = name
                    .rsplit([':', '›', '>', '.'])
                    .next()
                    .unwrap_or(name)
                    .trim();
                let last = last.split('[').next().unwrap_or(last);
                let same_file = file.is_none_or(|f| {
                    let f = f.trim_start_matches("./");
                    path.ends_with(f) || f.ends_with(path)
                });
                same_file && (last == test.short || name.trim() == test.short)
            })
            .map(|(_, _, said)| said.as_str())
    }
}

/// What the judgement found.
#[derive(Default)]
pub(super) struct Judged {
    pub violations: Vec<Violation>,
    /// (old path, line) of definitions that were renamed, not removed.
    pub renamed: HashSet<(String, u32)>,
    /// The same renames by name, for the tests that ran under their new name.
    pub renames: Vec<Rename>,
}

/// A test renamed: the same body under another name, in the same file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Rename {
    /// The file before the change.
    pub old_path: String,
    /// The file after it (the same file, perhaps renamed).
    pub new_path: String,
    /// The name a runner reports last, before: the function or the title.
    pub old_short: String,
    /// The same, after.
    pub new_short: String,
}

/// Judges every changed test of `files` whose new text is in `sources`.
pub(super) fn judge(files: &[FileDiff], sources: &Sources, cx: &Context<'_>) -> Judged {
    let mut judged = Judged::default();
    for file in files {
        let (Some(old_path), Some(new_path)) = (file.old.as_deref(), file.new.as_deref()) else {
            continue;
        };
        if !readable(new_path) || file.hunks.is_empty() {
            continue;
        }
        let Some(new_text) = sources.get(new_path) else {
            continue;
        };
        let Some(old_text) = old_text(file, new_text) else {
            continue;
        };
        let Some(lang) = Lang::of(new_path) else {
            continue;
        };
        let read = |text: &str| match lang {
            Lang::Python => python::tests(text),
            _ => braces::tests(text, lang),
        };
        let (before, after) = (read(&old_text), read(new_text));
        judge_file(old_path, new_path, &before, &after, cx, &mut judged);
    }
    judged
}

/// The paths (as the diff names them, new side) of the changed files whose new text the guard
/// reads to judge their tests; the driver reads them from the workspace and hands them to
/// [`super::Guard::check`].
pub fn files_to_read(diff: &str) -> Vec<String> {
    super::diff::parse_diff(diff)
        .into_iter()
        .filter(|f| f.old.is_some() && !f.hunks.is_empty())
        .filter_map(|f| f.new)
        .filter(|path| readable(path))
        .collect()
}

/// Whether the guard reads the text of `path` to judge its tests: a Python test file, or any
/// JavaScript, TypeScript or Rust file (tests live beside the code in Rust, and under any name in
/// mocha's `test/`).
fn readable(path: &str) -> bool {
    match Lang::of(path) {
        Some(Lang::Python) => {
            is_test_file(path) || path.split('/').any(|p| p == "tests" || p == "test")
        }
        Some(_) => true,
        None => false,
    }
}

fn judge_file(
    old_path: &str,
    new_path: &str,
    before: &[TestDef],
    after: &[TestDef],
    cx: &Context<'_>,
    judged: &mut Judged,
) {
    let key = |tests: &[TestDef]| {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        tests
            .iter()
            .map(|t| {
                let n = seen.entry(t.name.as_str()).or_default();
                *n += 1;
                (t.name.clone(), *n)
            })
            .collect::<Vec<_>>()
    };
    let (old_keys, new_keys) = (key(before), key(after));
    let old_index: HashMap<&(String, usize), &TestDef> = old_keys.iter().zip(before).collect();
    let new_set: HashSet<&(String, usize)> = new_keys.iter().collect();
    for (k, test) in new_keys.iter().zip(after) {
        let Some(old) = old_index.get(k) else {
            continue;
        };
        for (line, marker) in &test.markers {
            let name = marker_name(marker);
            if !old.markers.iter().any(|(_, m)| marker_name(m) == name) {
                judged.violations.push(violation(
                    ViolationKind::SkipAdded,
                    new_path,
                    *line,
                    format!(
                        "{} marked {marker}: {}",
                        test.name,
                        if name == "cfg" {
                            "it may no longer be compiled or run"
                        } else {
                            "it now passes by panicking"
                        }
                    ),
                    cx.failed(new_path, test),
                ));
            }
        }
        if old.facts.text == test.facts.text {
            continue;
        }
        if let Some(v) = neutering(new_path, old, test, cx) {
            judged.violations.push(v);
        }
    }
    // A test that left under its name and came back with the same body under another was
    // renamed.
    let added: Vec<&TestDef> = new_keys
        .iter()
        .zip(after)
        .filter(|(k, _)| !old_index.contains_key(k))
        .map(|(_, t)| t)
        .collect();
    let mut used = vec![false; added.len()];
    for (k, old) in old_keys.iter().zip(before) {
        if new_set.contains(k) {
            continue;
        }
        let twin = added
            .iter()
            .enumerate()
            .position(|(n, t)| !used[n] && t.facts.text == old.facts.text);
        if let Some(n) = twin {
            used[n] = true;
            for line in &old.anchors {
                judged.renamed.insert((old_path.to_owned(), *line));
            }
            judged.renames.push(Rename {
                old_path: old_path.to_owned(),
                new_path: new_path.to_owned(),
                old_short: old.short.clone(),
                new_short: added[n].short.clone(),
            });
        }
    }
}

/// The name of a marker: `#[should_panic(expected = "x")]` → `should_panic`.
fn marker_name(marker: &str) -> &str {
    marker
        .trim_start_matches("#[")
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .next()
        .unwrap_or(marker)
}

/// The way `new` was made unable to fail, compared with `old`, if it was.
fn neutering(path: &str, old: &TestDef, new: &TestDef, cx: &Context<'_>) -> Option<Violation> {
    let (o, n) = (&old.facts, &new.facts);
    let failed = cx.failed(path, new);
    let fewer = n.real() < o.real();
    let first = |pick: &dyn Fn(&Assertion) -> bool| {
        n.asserts.iter().filter(|a| pick(a)).map(|a| a.line).min()
    };
    let (kind, line, what) = if n.noop_only && !o.noop_only {
        let shown = if n.text.is_empty() {
            "nothing".to_owned()
        } else {
            format!("`{}`", short(&n.text))
        };
        (
            ViolationKind::EmptyBody,
            new.line,
            format!("its body is reduced to {shown}"),
        )
    } else if let Some(line) = n
        .early_return
        .filter(|_| o.early_return.is_none() || n.dead() > o.dead() || (fewer && o.real() > 0))
    {
        (
            ViolationKind::EarlyReturn,
            line,
            format!(
                "it returns before {}",
                if n.dead() > 0 {
                    "its assertions"
                } else {
                    "its code runs"
                }
            ),
        )
    } else if n.swallowed() > o.swallowed() && fewer {
        let line = first(&|a| a.swallowed && !a.dead).unwrap_or(new.line);
        (
            ViolationKind::SwallowedAssertion,
            line,
            "its assertion is wrapped in code that catches its failure and drops it".to_owned(),
        )
    } else if n.constant() > o.constant() && fewer {
        let constant = n.asserts.iter().find(|a| a.constant && !a.dead);
        let line = constant.map_or(new.line, |a| a.line);
        let text = constant.map_or(String::new(), |a| format!(" (`{}`)", short(&a.text)));
        (
            ViolationKind::ConstantAssertion,
            line,
            format!("it asserts a constant truth{text} instead of checking the code"),
        )
    } else if n.real() == 0 && o.real() > 0 {
        (
            ViolationKind::AssertionsGone,
            new.line,
            format!("it has no assertion left (it had {})", o.real()),
        )
    } else {
        return rewritten(path, old, new, cx);
    };
    Some(violation(
        kind,
        path,
        line,
        format!("{} can no longer fail: {what}", new.name),
        failed,
    ))
}

/// An assertion of `new` that differs from one of `old` only in its literals, while none of the
/// functions the test calls changed.
fn rewritten(path: &str, old: &TestDef, new: &TestDef, cx: &Context<'_>) -> Option<Violation> {
    if cx.allow_test_edits || new.facts.calls.iter().any(|c| cx.changed_code.contains(c)) {
        return None;
    }
    let live =
        |f: &Facts| -> Vec<Assertion> { f.asserts.iter().filter(|a| a.real()).cloned().collect() };
    let (mut before, after) = (live(&old.facts), live(&new.facts));
    // Assertions kept as they were pair with themselves.
    let mut changed = Vec::new();
    for a in after {
        match before.iter().position(|b| b.text == a.text) {
            Some(k) => {
                before.remove(k);
            }
            None => changed.push(a),
        }
    }
    for a in changed {
        let Some(k) = before.iter().position(|b| b.shape == a.shape) else {
            continue;
        };
        let b = before.remove(k);
        let Some((from, to)) = b.literals.iter().zip(&a.literals).find(|(x, y)| x != y) else {
            continue;
        };
        let failed = cx.failed(path, new);
        let received = failed.is_some_and(|said| mentions(said, to));
        let what = format!(
            "{}: the expected value changed from {} to {}{} while the code it tests did not change",
            new.name,
            short(from),
            short(to),
            if received {
                ", what the failing run received,"
            } else {
                ""
            }
        );
        return Some(violation(
            ViolationKind::ExpectedRewritten,
            path,
            a.line,
            what,
            failed,
        ));
    }
    None
}

/// Whether `said` holds `literal` as a word (quotes of a string literal left out).
fn mentions(said: &str, literal: &str) -> bool {
    let bare = literal.trim_matches(|c| c == '"' || c == '\'' || c == '`');
    !bare.is_empty()
        && said.match_indices(bare).any(|(i, _)| {
            let before = said[..i].chars().next_back();
            let after = said[i + bare.len()..].chars().next();
            let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '.');
            !word(before) && !word(after)
        })
}

fn violation(
    kind: ViolationKind,
    path: &str,
    line: u32,
    what: String,
    failed: Option<&str>,
) -> Violation {
    let failing = if failed.is_some() {
        " (it failed in the baseline)"
    } else {
        ""
    };
    Violation {
        kind,
        file: Some(path.to_owned()),
        line: Some(line),
        message: format!("{}: {what}{failing}", at(path, Some(line))),
    }
}

fn short(text: &str) -> String {
    super::check::shorten(text, 60)
}

/// Names on the changed lines of the diff's files that are not tests, and in the function
/// headers of their hunks; comment lines left out.
fn changed_code(files: &[FileDiff]) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for file in files {
        let path = file.new.as_deref().or(file.old.as_deref()).unwrap_or("");
        let extension = path.rsplit_once('.').map_or("", |(_, e)| e);
        let data = matches!(
            extension,
            "md" | "txt"
                | "rst"
                | "adoc"
                | "json"
                | "lock"
                | "toml"
                | "yaml"
                | "yml"
                | "ini"
                | "cfg"
        );
        if is_test_file(path) || data {
            continue;
        }
        let lang = Lang::of(path).unwrap_or(Lang::Js);
        for hunk in &file.hunks {
            let mut texts: Vec<&str> = Vec::new();
            for (k, (op, text)) in hunk.lines.iter().enumerate() {
                if *op == ' ' || is_comment(text) {
                    continue;
                }
                texts.push(text);
                // The nearest line above that is indented less: the enclosing definition, when
                // the hunk shows it.
                let indent = indent_of(text);
                let enclosing = hunk.lines[..k]
                    .iter()
                    .rev()
                    .find(|(_, above)| !is_comment(above) && indent_of(above) < indent);
                texts.extend(enclosing.map(|(_, above)| above.as_str()));
            }
            if !texts.is_empty() {
                texts.push(&hunk.context);
            }
            for text in texts {
                for t in lex(text, lang) {
                    if t.kind == super::lex::TokKind::Ident {
                        names.insert(t.text);
                    }
                }
            }
        }
    }
    names
}

/// The width of a line's leading white space.
fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

fn is_comment(line: &str) -> bool {
    let line = line.trim();
    line.is_empty()
        || line.starts_with('#')
        || line.starts_with("//")
        || line.starts_with("/*")
        || line.starts_with('*')
}

#[cfg(test)]
mod tests {
    use super::super::diff::parse_diff;
    use super::*;

    /// Pieces random files are made of: code of each language, and its traps.
    const PIECES: &[&str] = &[
        "def test_a():\n",
        "    ",
        "\t",
        "\n",
        "return",
        " assert ",
        "True",
        "1 == 1",
        "x",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        ":",
        ";",
        ",",
        "'",
        "\"",
        "\"\"\"",
        "`",
        "${",
        "/",
        "//",
        "/*",
        "*/",
        "#",
        "\\",
        "it('t', () => {",
        "});",
        "expect(",
        ").toBe(",
        "try {",
        "} catch (e) {",
        "#[test]\nfn t() {",
        "assert_eq!(",
        "catch_unwind(|| ",
        "let _ = ",
        "r#\"",
        "'a",
        "try:\n",
        "except:\n",
        "pass",
        "...",
        "é",
        "@pytest.mark.xfail\n",
        "class T:\n",
        "0x1e-",
    ];

    fn random_text(state: &mut u64, pieces: usize) -> String {
        let mut text = String::new();
        for _ in 0..pieces {
            *state ^= *state << 13;
            *state ^= *state >> 7;
            *state ^= *state << 17;
            text.push_str(PIECES[(*state % PIECES.len() as u64) as usize]);
        }
        text
    }

    /// A diff replacing every line of `old` with those of `new`.
    fn whole_diff(path: &str, old: &str, new: &str) -> String {
        let (o, n): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
        let mut diff = format!(
            "diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1,{} +1,{} @@\n",
            o.len(),
            n.len()
        );
        for line in o {
            diff.push_str(&format!("-{line}\n"));
        }
        for line in n {
            diff.push_str(&format!("+{line}\n"));
        }
        diff
    }

    #[test]
    fn any_text_on_either_side_is_judged_without_panicking() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let cx = Context {
            allow_test_edits: false,
            failing: Vec::new(),
            changed_code: BTreeSet::new(),
        };
        let mut judged_any = false;
        for round in 0..600 {
            let old = random_text(&mut state, 1 + round % 60);
            let new = random_text(&mut state, 1 + round % 45);
            for path in ["tests/test_a.py", "src/a.test.ts", "src/lib.rs"] {
                let files = parse_diff(&whole_diff(path, &old, &new));
                let sources = Sources::from([(path.to_owned(), new.clone())]);
                let judged = judge(&files, &sources, &cx);
                judged_any |= !judged.violations.is_empty();
            }
        }
        assert!(judged_any, "the random files hold tests the guard judged");
    }
}
