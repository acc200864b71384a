//! Test infrastructure (issue 21): the files that decide how a verifier's tool runs and what it
//! counts as a pass — runner configurations, set-up files, plugins, the scripts that start a
//! runner. Changing them can make failing tests pass without touching a test: a `conftest.py`
//! hook that turns failures into passes, a set-up file that replaces `expect`, a filter that hides
//! the failing test. An attempt that changed them passes only if its tests still pass with the
//! starting tree's versions put back.
//!
//! This module decides which changed files are infrastructure ([`InfraRules`]: what each verifier
//! names, files beside the tests, files a runner's configuration names) and what text to put
//! back ([`put_back`]: the file, or only the part of a shared file that is the tool's — a
//! `package.json`'s `jest` key, not its dependencies). The driver reads the files, writes the
//! text back, verifies and restores.

use std::collections::BTreeSet;

use globset::{GlobBuilder, GlobMatcher};
use serde_json::Value;

use super::check::{is_test_file, shorten};
use crate::verifier::{Infrastructure, Part};

/// Directories whose non-test code files are the tests' own support: helpers, fixtures' code, a
/// package's `__init__.py` that runs when the tests are imported.
const TEST_DIRS: &[&str] = &["test", "tests", "__tests__", "spec", "specs", "testing"];

/// Extensions of code a test run loads.
const CODE: &[&str] = &[
    "py", "js", "jsx", "ts", "tsx", "mjs", "cjs", "mts", "cts", "rs",
];

/// The infrastructure of the verifiers of a loop, ready to match changed paths against.
#[derive(Debug, Default)]
pub struct InfraRules {
    rules: Vec<Rule>,
}

#[derive(Debug)]
struct Rule {
    verifier: String,
    matcher: GlobMatcher,
    /// Whether the glob names files at the workspace root only (no `/` in it).
    at_root: bool,
    part: Part,
    /// Whether the files its part names are infrastructure too (a test runner's set-up files).
    names_files: bool,
}

/// A changed file that is infrastructure: which verifiers claim it, and which parts of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claimed {
    /// The path, relative to the workspace root, `/`-separated.
    pub path: String,
    /// The verifiers whose infrastructure it is; empty for a file beside the tests or one a
    /// configuration names.
    pub verifiers: Vec<String>,
    /// The parts claimed; [`Part::Whole`] alone when any claim is the whole file.
    pub parts: Vec<Part>,
}

/// What to write back for one file, and what the attempt had changed in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PutBack {
    /// The path, relative to the workspace root, `/`-separated.
    pub path: String,
    /// The text to write; `None` to remove the file (the attempt added it).
    pub content: Option<Vec<u8>>,
    /// What the attempt changed, in a few words: `added`, `` `jest` changed: … ``.
    pub what: String,
    /// The verifiers whose infrastructure it is (empty: a file beside the tests).
    pub verifiers: Vec<String>,
}

impl InfraRules {
    /// The rules of `infra` (per verifier name). `names_files` tells, per verifier, whether the
    /// files its configuration names are infrastructure too: true for test runners, false for a
    /// type checker whose configuration lists the project's sources. A glob that does not compile
    /// is left out: the verifiers' globs are their own constants, which their tests compile.
    pub fn new(infra: &[(String, Infrastructure)], names_files: impl Fn(&str) -> bool) -> Self {
        let mut rules = Vec::new();
        for (verifier, infrastructure) in infra {
            for file in &infrastructure.files {
                let glob = file.glob.trim_start_matches("./");
                let Ok(glob_) = GlobBuilder::new(glob).literal_separator(true).build() else {
                    continue;
                };
                rules.push(Rule {
                    verifier: verifier.clone(),
                    matcher: glob_.compile_matcher(),
                    at_root: !glob.contains('/'),
                    part: file.part.clone(),
                    names_files: names_files(verifier),
                });
            }
        }
        InfraRules { rules }
    }

    /// `path` as infrastructure, if it is: a file a verifier names, or a code file beside the
    /// tests that is not a test file itself (test files are judged by the diff's own checks).
    pub fn claims(&self, path: &str) -> Option<Claimed> {
        let mut verifiers = Vec::new();
        let mut parts = Vec::new();
        for rule in self.rules.iter().filter(|r| r.matcher.is_match(path)) {
            if !verifiers.contains(&rule.verifier) {
                verifiers.push(rule.verifier.clone());
            }
            if !parts.contains(&rule.part) {
                parts.push(rule.part.clone());
            }
        }
        if parts.is_empty() && !beside_tests(path) {
            return None;
        }
        if parts.is_empty() || parts.contains(&Part::Whole) {
            parts = vec![Part::Whole];
        }
        Some(Claimed {
            path: path.to_owned(),
            verifiers,
            parts,
        })
    }

    /// The files at the workspace root, of `root_files`, whose text may name set-up files: those
    /// of a test runner's rules, with the parts to read.
    pub fn naming_files(&self, root_files: &[String]) -> Vec<(String, Vec<Part>)> {
        let mut out: Vec<(String, Vec<Part>)> = Vec::new();
        for name in root_files {
            for rule in self.rules.iter().filter(|r| r.names_files && r.at_root) {
                if !rule.matcher.is_match(name) {
                    continue;
                }
                match out.iter_mut().find(|(n, _)| n == name) {
                    Some((_, parts)) if !parts.contains(&rule.part) => {
                        parts.push(rule.part.clone())
                    }
                    Some(_) => {}
                    None => out.push((name.clone(), vec![rule.part.clone()])),
                }
            }
        }
        out
    }

    /// Whether any rule of a test runner matches `path`.
    pub fn names_files(&self, path: &str) -> bool {
        self.rules
            .iter()
            .any(|r| r.names_files && r.matcher.is_match(path))
    }
}

/// Of `changed`, the files that a runner's configuration may name as set-up files: neither
/// claimed already nor test files (which the diff's own checks judge).
pub fn unclaimed(changed: &[String], claimed: &[Claimed]) -> Vec<String> {
    changed
        .iter()
        .filter(|path| !is_test_file(path) && !claimed.iter().any(|c| &c.path == *path))
        .cloned()
        .collect()
}

/// Of `changed`, the test files that no verifier claims, whole: they go back with the
/// infrastructure, so that the check runs the starting tree's tests on the attempt's code (a test
/// the attempt added may need a helper the check takes away).
pub fn test_files(changed: &[String], claimed: &[Claimed]) -> Vec<Claimed> {
    changed
        .iter()
        .filter(|path| is_test_file(path) && !claimed.iter().any(|c| &c.path == *path))
        .map(|path| Claimed {
            path: path.clone(),
            verifiers: Vec::new(),
            parts: vec![Part::Whole],
        })
        .collect()
}

/// A code file in a test directory that is not a test file.
fn beside_tests(path: &str) -> bool {
    let mut parts: Vec<&str> = path.split('/').collect();
    let Some(name) = parts.pop() else {
        return false;
    };
    let code = name
        .rsplit_once('.')
        .is_some_and(|(_, extension)| CODE.contains(&extension));
    code && parts.iter().any(|p| TEST_DIRS.contains(p)) && !is_test_file(path)
}

/// Of `candidates` (changed paths), those that `text` — the part of the infrastructure file at
/// `file` that a test runner reads — names: as a path from the file's directory (`./setup.js`,
/// `<rootDir>/test/setup.ts`, `test/hook.js`), without its extension (`require: test/hook`), or
/// for Python as a module (`-p tests.plugin`).
pub fn named_in(file: &str, text: &str, candidates: &[String]) -> Vec<String> {
    let dir = file.rsplit_once('/').map_or("", |(dir, _)| dir);
    let mut out = Vec::new();
    for candidate in candidates {
        let relative = if dir.is_empty() {
            Some(candidate.as_str())
        } else {
            candidate
                .strip_prefix(dir)
                .and_then(|rest| rest.strip_prefix('/'))
        };
        let Some(relative) = relative else {
            continue;
        };
        let stem = relative.rsplit_once('.').map(|(stem, _)| stem);
        let module = relative.strip_suffix(".py").map(|m| m.replace('/', "."));
        let named = [Some(relative), stem, module.as_deref()]
            .into_iter()
            .flatten()
            .filter(|word| !word.is_empty())
            .any(|word| names(text, word));
        if named {
            out.push(candidate.clone());
        }
    }
    out
}

/// Whether `text` holds `word` as a whole word of a path: not inside a longer name.
fn names(text: &str, word: &str) -> bool {
    let before_ok =
        |c: Option<char>| c.is_none_or(|c| c.is_whitespace() || "'\"`/=,[(:".contains(c));
    let after_ok = |c: Option<char>| c.is_none_or(|c| c.is_whitespace() || "'\"`,])".contains(c));
    let mut from = 0;
    while let Some(at) = text[from..].find(word) {
        let start = from + at;
        let end = start + word.len();
        if before_ok(text[..start].chars().next_back()) && after_ok(text[end..].chars().next()) {
            return true;
        }
        from = start + word.len().max(1);
        while !text.is_char_boundary(from) {
            from += 1;
        }
    }
    false
}

/// The text of `parts` of a file, for [`named_in`]: the whole text, or the parts' values.
pub fn part_text(text: &str, parts: &[Part]) -> String {
    if parts.contains(&Part::Whole) {
        return text.to_owned();
    }
    let mut out = String::new();
    for part in parts {
        match part {
            Part::Whole => {}
            Part::Json(keys) => {
                if let Ok(doc) = serde_json::from_str::<Value>(text) {
                    for (_, value) in json_select(&doc, keys) {
                        out.push_str(&value.to_string());
                        out.push('\n');
                    }
                }
            }
            Part::Toml(keys) => {
                if let Ok(doc) = text.parse::<toml_edit::DocumentMut>() {
                    for (_, item) in toml_select(doc.as_table(), keys) {
                        out.push_str(&toml_text(item));
                        out.push('\n');
                    }
                }
            }
            Part::Ini(section) => {
                for (_, lines) in ini_sections(text)
                    .iter()
                    .filter(|(n, _)| n.as_deref().is_some_and(|n| key_matches(section, n)))
                {
                    out.push_str(&lines.join("\n"));
                    out.push('\n');
                }
            }
        }
    }
    out
}

/// What to write back so that `claimed`'s parts are as in the starting tree (`old`; `None`: the
/// file did not exist) while the rest keeps the attempt's change (`new`; `None`: deleted).
/// `None` when the parts did not change. A part that cannot be read on either side (a
/// `package.json` that no longer parses) puts the whole file back.
pub fn put_back(claimed: &Claimed, old: Option<&[u8]>, new: Option<&[u8]>) -> Option<PutBack> {
    if old == new {
        return None;
    }
    let whole = |content: Option<Vec<u8>>, what: String| PutBack {
        path: claimed.path.clone(),
        content,
        what,
        verifiers: claimed.verifiers.clone(),
    };
    let (old, new) = match (old, new) {
        (None, _) => return Some(whole(None, "added".to_owned())),
        (Some(old), None) => return Some(whole(Some(old.to_vec()), "deleted".to_owned())),
        (Some(old), Some(new)) => (old, new),
    };
    let lossy = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let (old_text, new_text) = (lossy(old), lossy(new));
    if claimed.parts.contains(&Part::Whole) {
        return Some(whole(Some(old.to_vec()), line_change(&old_text, &new_text)));
    }
    let mut text = new_text.clone();
    let mut changes = Vec::new();
    for part in &claimed.parts {
        let changed = match part {
            Part::Whole => None,
            Part::Json(keys) => json_put_back(&old_text, &text, keys),
            Part::Toml(keys) => toml_put_back(&old_text, &text, keys),
            Part::Ini(section) => Some(ini_put_back(&old_text, &text, section)),
        };
        match changed {
            // Unreadable on one side: the whole file goes back.
            None => return Some(whole(Some(old.to_vec()), line_change(&old_text, &new_text))),
            Some(None) => {}
            Some(Some((composed, what))) => {
                text = composed;
                changes.push(what);
            }
        }
    }
    if changes.is_empty() {
        return None;
    }
    Some(whole(Some(text.into_bytes()), changes.join("; ")))
}

/// One part put back: `None` when a side cannot be read, `Some(None)` when the part is the same,
/// else the new text with the old part and what changed.
type Composed = Option<Option<(String, String)>>;

/// The first line the attempt added (or, failing that, removed), as a few words.
fn line_change(old: &str, new: &str) -> String {
    let significant = |text: &str| -> Vec<String> {
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let (old_lines, new_lines) = (significant(old), significant(new));
    let old_set: BTreeSet<&String> = old_lines.iter().collect();
    let new_set: BTreeSet<&String> = new_lines.iter().collect();
    if let Some(added) = new_lines.iter().find(|l| !old_set.contains(l)) {
        return format!("changed: +`{}`", shorten(added, 60));
    }
    if let Some(removed) = old_lines.iter().find(|l| !new_set.contains(l)) {
        return format!("changed: -`{}`", shorten(removed, 60));
    }
    "changed".to_owned()
}

/// Whether `key` matches the pattern `pattern` (a trailing `*` matches any rest).
fn key_matches(pattern: &str, key: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => key.starts_with(prefix),
        None => key == pattern,
    }
}

/// The values at `keys` (the last a pattern) of a JSON document, with their dotted names.
fn json_select<'a>(doc: &'a Value, keys: &[String]) -> Vec<(String, &'a Value)> {
    let Some((last, parents)) = keys.split_last() else {
        return Vec::new();
    };
    let mut at = doc;
    for key in parents {
        match at.get(key) {
            Some(next) => at = next,
            None => return Vec::new(),
        }
    }
    let Some(object) = at.as_object() else {
        return Vec::new();
    };
    let prefix = parents.join(".");
    object
        .iter()
        .filter(|(k, _)| key_matches(last, k))
        .map(|(k, v)| {
            let name = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            (name, v)
        })
        .collect()
}

fn json_put_back(old: &str, new: &str, keys: &[String]) -> Composed {
    let old_doc: Value = serde_json::from_str(old).ok()?;
    let mut new_doc: Value = serde_json::from_str(new).ok()?;
    let before = json_select(&old_doc, keys);
    let after = json_select(&new_doc, keys);
    if before == after {
        return Some(None);
    }
    let mut names: Vec<String> = Vec::new();
    for (name, value) in after.iter() {
        match before.iter().find(|(n, _)| n == name) {
            Some((_, was)) if was == value => {}
            Some(_) => names.push(format!("`{name}` changed to `{}`", json_short(value))),
            None => names.push(format!("`{name}` added: `{}`", json_short(value))),
        }
    }
    for (name, _) in before
        .iter()
        .filter(|(n, _)| !after.iter().any(|(a, _)| a == n))
    {
        names.push(format!("`{name}` removed"));
    }
    let Some((last, parents)) = keys.split_last() else {
        return Some(None);
    };
    let mut at = &mut new_doc;
    for key in parents {
        let object = at.as_object_mut()?;
        at = object
            .entry(key.clone())
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
    }
    let object = at.as_object_mut()?;
    object.retain(|k, _| !key_matches(last, k));
    for (name, value) in before {
        let key = name.rsplit_once('.').map_or(name.as_str(), |(_, k)| k);
        object.insert(key.to_owned(), value.clone());
    }
    let mut text = serde_json::to_string_pretty(&new_doc).ok()?;
    text.push('\n');
    Some(Some((text, names.join("; "))))
}

fn json_short(value: &Value) -> String {
    let text = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    shorten(&text, 80)
}

/// The items at `keys` (the last a pattern) of a TOML table, with their dotted names.
fn toml_select<'a>(
    table: &'a toml_edit::Table,
    keys: &[String],
) -> Vec<(String, &'a toml_edit::Item)> {
    let Some((last, parents)) = keys.split_last() else {
        return Vec::new();
    };
    let mut at: &dyn toml_edit::TableLike = table;
    for key in parents {
        match at.get(key).and_then(toml_edit::Item::as_table_like) {
            Some(next) => at = next,
            None => return Vec::new(),
        }
    }
    let prefix = parents.join(".");
    at.iter()
        .filter(|(k, _)| key_matches(last, k))
        .map(|(k, v)| {
            let name = if prefix.is_empty() {
                k.to_owned()
            } else {
                format!("{prefix}.{k}")
            };
            (name, v)
        })
        .collect()
}

/// An item as a document of its own under the key `v`: its nested tables printed too.
fn toml_text(item: &toml_edit::Item) -> String {
    match item {
        toml_edit::Item::Value(value) => format!("v = {value}"),
        toml_edit::Item::None => String::new(),
        other => {
            let mut doc = toml_edit::DocumentMut::new();
            doc.insert("v", other.clone());
            doc.to_string()
        }
    }
}

/// An item's value, to compare two sides by meaning rather than by layout.
fn toml_value(item: &toml_edit::Item) -> Option<toml::Value> {
    toml_text(item).parse::<toml::Table>().ok()?.remove("v")
}

fn toml_put_back(old: &str, new: &str, keys: &[String]) -> Composed {
    let old_doc: toml_edit::DocumentMut = old.parse().ok()?;
    let mut new_doc: toml_edit::DocumentMut = new.parse().ok()?;
    let before = toml_select(old_doc.as_table(), keys);
    let after = toml_select(new_doc.as_table(), keys);
    let meaning = |items: &[(String, &toml_edit::Item)]| -> Vec<(String, Option<toml::Value>)> {
        items
            .iter()
            .map(|(n, item)| (n.clone(), toml_value(item)))
            .collect()
    };
    if meaning(&before) == meaning(&after) {
        return Some(None);
    }
    let names: Vec<String> = {
        let mut names: Vec<String> = after
            .iter()
            .filter(|(n, item)| {
                before
                    .iter()
                    .find(|(b, _)| b == n)
                    .is_none_or(|(_, was)| toml_value(was) != toml_value(item))
            })
            .map(|(n, item)| {
                let was = before
                    .iter()
                    .find(|(b, _)| b == n)
                    .map(|(_, was)| toml_text(was))
                    .unwrap_or_default();
                format!("`{n}` {}", line_change(&was, &toml_text(item)))
            })
            .collect();
        names.extend(
            before
                .iter()
                .filter(|(n, _)| !after.iter().any(|(a, _)| a == n))
                .map(|(n, _)| format!("`{n}` removed")),
        );
        names
    };
    let restored: Vec<(String, toml_edit::Item)> = before
        .into_iter()
        .map(|(n, item)| (n, item.clone()))
        .collect();
    let (last, parents) = keys.split_last()?;
    let mut at: &mut dyn toml_edit::TableLike = new_doc.as_table_mut();
    for key in parents {
        if at.get(key).is_none() {
            let mut table = toml_edit::Table::new();
            table.set_implicit(true);
            at.insert(key, toml_edit::Item::Table(table));
        }
        at = at.get_mut(key)?.as_table_like_mut()?;
    }
    let gone: Vec<String> = at
        .iter()
        .filter(|(k, _)| key_matches(last, k))
        .map(|(k, _)| k.to_owned())
        .collect();
    for key in gone {
        at.remove(&key);
    }
    for (name, item) in restored {
        let key = name.rsplit_once('.').map_or(name.as_str(), |(_, k)| k);
        at.insert(key, item);
    }
    Some(Some((new_doc.to_string(), names.join("; "))))
}

/// An INI file's sections in order: the lines before the first header (`None`), then each header
/// with its lines (the header included).
fn ini_sections(text: &str) -> Vec<(Option<String>, Vec<&str>)> {
    let mut sections: Vec<(Option<String>, Vec<&str>)> = vec![(None, Vec::new())];
    for line in text.lines() {
        let trimmed = line.trim();
        let header = trimmed
            .strip_prefix('[')
            .and_then(|rest| rest.strip_suffix(']'))
            .map(|name| name.trim().to_owned());
        match header {
            Some(name) => sections.push((Some(name), vec![line])),
            None => {
                if let Some((_, lines)) = sections.last_mut() {
                    lines.push(line);
                }
            }
        }
    }
    sections
}

/// A section's lines that mean something: not blank, not comments.
fn ini_meaning<'a>(lines: &[&'a str]) -> Vec<&'a str> {
    lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with(';'))
        .collect()
}

fn ini_put_back(old: &str, new: &str, section: &str) -> Option<(String, String)> {
    let is_part = |name: &Option<String>| name.as_deref().is_some_and(|n| key_matches(section, n));
    let old_sections = ini_sections(old);
    let new_sections = ini_sections(new);
    let pick = |sections: &[(Option<String>, Vec<&str>)]| -> Vec<(String, Vec<String>)> {
        sections
            .iter()
            .filter(|(n, _)| is_part(n))
            .map(|(n, lines)| {
                let meaning = ini_meaning(lines).into_iter().map(str::to_owned).collect();
                (n.clone().unwrap_or_default(), meaning)
            })
            .collect()
    };
    let (before, after) = (pick(&old_sections), pick(&new_sections));
    if before == after {
        return None;
    }
    let mut what: Vec<String> = Vec::new();
    for (name, lines) in &after {
        match before.iter().find(|(n, _)| n == name) {
            Some((_, was)) if was == lines => {}
            Some((_, was)) => what.push(format!(
                "`[{name}]` {}",
                line_change(&was.join("\n"), &lines.join("\n"))
            )),
            None => what.push(format!("`[{name}]` added")),
        }
    }
    for (name, _) in before
        .iter()
        .filter(|(n, _)| !after.iter().any(|(a, _)| a == n))
    {
        what.push(format!("`[{name}]` removed"));
    }
    let old_part: Vec<&str> = old_sections
        .iter()
        .filter(|(n, _)| is_part(n))
        .flat_map(|(_, lines)| lines.iter().copied())
        .collect();
    let mut out: Vec<&str> = Vec::new();
    let mut placed = false;
    for (name, lines) in &new_sections {
        if is_part(name) {
            if !placed {
                out.extend(&old_part);
                placed = true;
            }
            continue;
        }
        out.extend(lines.iter().copied());
    }
    if !placed {
        out.extend(&old_part);
    }
    let mut text = out.join("\n");
    text.push('\n');
    Some((text, what.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> InfraRules {
        let pytest = Infrastructure::default()
            .whole("**/conftest.py")
            .whole("pytest.ini")
            .part(
                "pyproject.toml",
                Part::Toml(vec!["tool".into(), "pytest".into()]),
            )
            .part("setup.cfg", Part::Ini("tool:pytest".into()));
        let jest = Infrastructure::default()
            .whole("jest.config.*")
            .part("package.json", Part::Json(vec!["jest".into()]))
            .part(
                "package.json",
                Part::Json(vec!["scripts".into(), "test*".into()]),
            );
        let tsc = Infrastructure::default().whole("tsconfig*.json");
        InfraRules::new(
            &[
                ("pytest".into(), pytest),
                ("jest".into(), jest),
                ("tsc".into(), tsc),
            ],
            |v| v != "tsc",
        )
    }

    fn claimed(path: &str) -> Claimed {
        rules().claims(path).expect("claimed")
    }

    #[test]
    fn changed_paths_are_claimed_by_the_verifiers_that_name_them() {
        let rules = rules();
        let conftest = rules.claims("tests/unit/conftest.py").expect("conftest");
        assert_eq!(conftest.verifiers, ["pytest"]);
        assert_eq!(conftest.parts, [Part::Whole]);
        assert_eq!(
            rules.claims("conftest.py").expect("root").parts,
            [Part::Whole]
        );
        let package = rules.claims("package.json").expect("package.json");
        assert_eq!(package.verifiers, ["jest"]);
        assert_eq!(package.parts.len(), 2);
        // A glob without `/` is the root's file only.
        assert!(rules.claims("packages/a/jest.config.js").is_none());
        // Code beside the tests is the tests' support; tests and data are not claimed.
        let helper = rules.claims("tests/__init__.py").expect("support");
        assert!(helper.verifiers.is_empty());
        assert!(rules.claims("tests/test_cart.py").is_none());
        assert!(rules.claims("tests/fixtures/expected.json").is_none());
        assert!(rules.claims("src/cart.py").is_none());
    }

    #[test]
    fn an_added_or_deleted_file_goes_back_whole() {
        let c = claimed("conftest.py");
        let added =
            put_back(&c, None, Some(b"def pytest_runtest_makereport(): pass\n")).expect("changed");
        assert_eq!(added.content, None);
        assert_eq!(added.what, "added");
        let deleted = put_back(&c, Some(b"x = 1\n"), None).expect("changed");
        assert_eq!(deleted.content.as_deref(), Some(&b"x = 1\n"[..]));
        assert_eq!(deleted.what, "deleted");
        assert_eq!(put_back(&c, Some(b"same"), Some(b"same")), None);
    }

    #[test]
    fn a_changed_whole_file_says_its_first_new_line() {
        let c = claimed("conftest.py");
        let p = put_back(
            &c,
            Some(b"import pytest\n"),
            Some(b"import pytest\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"),
        )
        .expect("changed");
        assert_eq!(p.what, "changed: +`@pytest.hookimpl(hookwrapper=True)`");
        assert_eq!(p.content.as_deref(), Some(&b"import pytest\n"[..]));
    }

    #[test]
    fn only_the_tools_part_of_package_json_goes_back() {
        let c = claimed("package.json");
        let old =
            br#"{"name": "x", "scripts": {"test": "jest", "build": "tsc"}, "dependencies": {}}"#;
        let new = br#"{"name": "x", "scripts": {"test": "jest --silent", "build": "tsc -b"}, "dependencies": {"lodash": "4"}, "jest": {"setupFilesAfterEnv": ["./cheat.js"]}}"#;
        let p = put_back(&c, Some(old), Some(new)).expect("changed");
        let text = String::from_utf8(p.content.expect("text")).expect("utf-8");
        let doc: Value = serde_json::from_str(&text).expect("json");
        assert_eq!(doc["scripts"]["test"], "jest");
        assert_eq!(
            doc["scripts"]["build"], "tsc -b",
            "the rest keeps the attempt's change"
        );
        assert_eq!(doc["dependencies"]["lodash"], "4");
        assert!(doc.get("jest").is_none());
        assert_eq!(
            p.what,
            "`jest` added: `{\"setupFilesAfterEnv\":[\"./cheat.js\"]}`; `scripts.test` changed to `jest --silent`"
        );
        // A dependency added and nothing of the tool's changed: nothing to put back.
        let honest = br#"{"name": "x", "scripts": {"test": "jest", "build": "tsc"}, "dependencies": {"lodash": "4"}}"#;
        assert_eq!(put_back(&c, Some(old), Some(honest)), None);
    }

    #[test]
    fn only_the_tools_table_of_pyproject_goes_back() {
        let c = claimed("pyproject.toml");
        let old = b"[project]\nname = \"cart\"\ndependencies = []\n\n[tool.pytest.ini_options]\naddopts = \"-q\"\n";
        let new = b"[project]\nname = \"cart\"\ndependencies = [\"attrs\"]\n\n[tool.pytest.ini_options]\naddopts = \"-q --deselect test_cart.py::test_discount\"\n";
        let p = put_back(&c, Some(old), Some(new)).expect("changed");
        let text = String::from_utf8(p.content.expect("text")).expect("utf-8");
        assert!(text.contains("dependencies = [\"attrs\"]"), "{text}");
        assert!(text.contains("addopts = \"-q\"\n"), "{text}");
        assert!(!text.contains("deselect"), "{text}");
        assert_eq!(
            p.what,
            "`tool.pytest` changed: +`addopts = \"-q --deselect test_cart.py::test_discount\"`"
        );
        // The same table laid out differently means the same.
        let same = b"[project]\nname = \"cart\"\ndependencies = []\n\n[tool.pytest]\nini_options = { addopts = \"-q\" }\n";
        assert_eq!(put_back(&c, Some(old), Some(same)), None);
    }

    #[test]
    fn a_table_the_attempt_added_is_removed() {
        let c = claimed("pyproject.toml");
        let old = b"[project]\nname = \"cart\"\n";
        let new =
            b"[project]\nname = \"cart\"\n\n[tool.pytest.ini_options]\naddopts = \"-p cheat\"\n";
        let p = put_back(&c, Some(old), Some(new)).expect("changed");
        let text = String::from_utf8(p.content.expect("text")).expect("utf-8");
        assert!(!text.contains("cheat"), "{text}");
        assert!(text.contains("name = \"cart\""), "{text}");
    }

    #[test]
    fn only_the_tools_section_of_setup_cfg_goes_back() {
        let c = claimed("setup.cfg");
        let old = b"[metadata]\nname = cart\n\n[tool:pytest]\naddopts = -q\n";
        let new = b"[metadata]\nname = cart\nversion = 2\n\n[tool:pytest]\naddopts = -q -k 'not discount'\n";
        let p = put_back(&c, Some(old), Some(new)).expect("changed");
        let text = String::from_utf8(p.content.expect("text")).expect("utf-8");
        assert_eq!(
            text,
            "[metadata]\nname = cart\nversion = 2\n\n[tool:pytest]\naddopts = -q\n"
        );
        assert_eq!(
            p.what,
            "`[tool:pytest]` changed: +`addopts = -q -k 'not discount'`"
        );
        let comment = b"[metadata]\nname = cart\n\n[tool:pytest]\n# quiet\naddopts = -q\n";
        assert_eq!(put_back(&c, Some(old), Some(comment)), None);
    }

    #[test]
    fn an_unreadable_side_puts_the_whole_file_back() {
        let c = claimed("package.json");
        let old = br#"{"jest": {}}"#;
        let p = put_back(&c, Some(old), Some(b"{ not json")).expect("changed");
        assert_eq!(p.content.as_deref(), Some(&old[..]));
    }

    #[test]
    fn set_up_files_are_found_where_a_runner_names_them() {
        let candidates = vec![
            "jest.setup.js".to_owned(),
            "test/hook.js".to_owned(),
            "src/index.js".to_owned(),
            "plugins/cheat.py".to_owned(),
            "src/other_setup.js".to_owned(),
        ];
        let config = "module.exports = { setupFilesAfterEnv: ['<rootDir>/jest.setup.js'] };";
        assert_eq!(
            named_in("jest.config.js", config, &candidates),
            ["jest.setup.js"]
        );
        let mocharc = "require:\n  - test/hook\nspec: test/**/*.spec.js\n";
        assert_eq!(
            named_in(".mocharc.yml", mocharc, &candidates),
            ["test/hook.js"]
        );
        let addopts = "addopts = \"-p plugins.cheat\"";
        assert_eq!(
            named_in("pyproject.toml", addopts, &candidates),
            ["plugins/cheat.py"]
        );
        // A name inside a longer one is not a mention.
        assert!(
            named_in(
                "x.json",
                "\"src/index.json\" \"my_src/index.js\"",
                &candidates
            )
            .is_empty()
        );
        // A file in a package names paths from its own directory.
        let nested = vec!["packages/a/setup.mjs".to_owned()];
        assert_eq!(
            named_in(
                "packages/a/package.json",
                "node --test --import ./setup.mjs",
                &nested
            ),
            ["packages/a/setup.mjs"]
        );
    }

    #[test]
    fn only_test_runners_files_are_read_for_names() {
        let rules = rules();
        let roots = vec![
            "jest.config.js".to_owned(),
            "tsconfig.json".to_owned(),
            "package.json".to_owned(),
            "README.md".to_owned(),
        ];
        let naming: Vec<String> = rules
            .naming_files(&roots)
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(naming, ["jest.config.js", "package.json"]);
        let package = "{\"main\": \"src/index.js\", \"scripts\": {\"test\": \"jest\"}}";
        let text = part_text(
            package,
            &[Part::Json(vec!["scripts".into(), "test*".into()])],
        );
        assert!(!text.contains("src/index.js"), "{text}");
    }
}
