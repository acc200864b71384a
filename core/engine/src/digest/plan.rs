//! What one report holds, ranked: the items a digest may show, most actionable first, and the
//! totals its tail and footer account for.
//!
//! An item is one diagnostic, or a group of diagnostics of the same category and code whose
//! messages have the same shape ([`message_keys`]: they differ at most in quoted values, numbers
//! and identifiers), found in one place or several. Failing tests group the same way, by the shape
//! of their message and detail (the assertion); a test never groups with an error, nor an error
//! with a warning. Items fall into [`Tier`]s:
//!
//! 1. root causes (an unresolved import, a test file that does not load) — fixing one often fixes
//!    many;
//! 2. the first error of each file (and errors with no file) — one per place the agent must open —
//!    and the report's first ten errors, where a reader of the log starts;
//! 3. the other errors, in the order the tool printed them;
//! 4. the first warning of each file, then 5. the other warnings: warnings never outrank an error.
//!
//! Within a tier, items keep the tool's order.

use super::Tally;
use super::shared::Shared;
use super::text::{Map, message_keys};
use crate::model::{Diagnostic, KnownFrom, Outcome, Report, SetAside, Severity};

/// How a diagnostic is counted and shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Category {
    /// An error that is not a failing test (a compiler error, a test file that does not load, a
    /// fixture that raised around a test).
    Error,
    /// A failing test.
    FailedTest,
    /// A warning or a note.
    Warning,
}

impl Category {
    pub(super) fn of(diagnostic: &Diagnostic) -> Category {
        match diagnostic.severity {
            Severity::Error if diagnostic.is_failed_test() => Category::FailedTest,
            Severity::Error => Category::Error,
            Severity::Warning | Severity::Info => Category::Warning,
        }
    }

    pub(super) fn is_error(self) -> bool {
        self != Category::Warning
    }
}

impl Tally {
    pub(super) fn add(&mut self, category: Category, n: u64) {
        let slot = match category {
            Category::Error => &mut self.errors,
            Category::FailedTest => &mut self.failed_tests,
            Category::Warning => &mut self.warnings,
        };
        *slot = slot.saturating_add(n);
    }
}

/// How many of the report's first errors rank with the first error of each file: the tool's
/// first words are where a reader of its log starts, and often the cause of what follows.
const OPENING_ERRORS: usize = 10;

/// The index before which the entries hold the report's first [`OPENING_ERRORS`] errors.
fn opening_end(entries: &[Entry]) -> usize {
    entries
        .iter()
        .enumerate()
        .filter(|(_, entry)| entry.category.is_error())
        .nth(OPENING_ERRORS - 1)
        .map_or(entries.len(), |(index, _)| index + 1)
}

/// Priority class of an item; lower is shown first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Tier {
    RootCause,
    FirstErrorOfFile,
    Error,
    FirstWarningOfFile,
    Warning,
}

/// A diagnostic, as the plan sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Entry {
    pub(super) category: Category,
    /// Index into [`Plan::files`].
    pub(super) file: Option<usize>,
}

/// One line a digest may show.
#[derive(Debug, Clone)]
pub(super) struct Item {
    /// Indices into the report's diagnostics, in the tool's order; more than one for a group.
    pub(super) members: Vec<usize>,
    /// How many distinct messages the members have (whitespace folded); 1 when they all read the
    /// same.
    pub(super) variants: usize,
    /// How many distinct files the members are in.
    pub(super) files: usize,
    /// When the members have several distinct messages, one item per message, in the order of
    /// their first member: what the group unfolds into when the budget has room for more detail.
    pub(super) parts: Vec<Item>,
    pub(super) tier: Tier,
}

impl Item {
    pub(super) fn first(&self) -> usize {
        self.members.first().copied().unwrap_or(0)
    }

    /// Member `member` of this item alone, as an item of its own (in `file`, when it has one).
    pub(super) fn single(&self, member: usize, file: Option<usize>) -> Item {
        Item {
            members: vec![member],
            variants: 1,
            files: usize::from(file.is_some()),
            parts: Vec::new(),
            tier: self.tier,
        }
    }
}

/// One report, analysed.
#[derive(Debug)]
pub(super) struct Plan<'a> {
    pub(super) report: &'a Report,
    pub(super) log: Option<&'a str>,
    /// Distinct files, in order of first appearance, as first spelled.
    pub(super) files: Vec<&'a str>,
    /// The directory the absolute paths outside the project share (with its final separator),
    /// when stating it once saves repeating it: those files are shown relative to it.
    pub(super) root: Option<&'a str>,
    /// The project's directory, in each spelling its tools may print it by ([`super::Options`]).
    project: &'a [String],
    /// Parallel to [`Plan::files`]: each file as the digest shows it.
    shown: Vec<String>,
    /// Parallel to the report's diagnostics.
    pub(super) entries: Vec<Entry>,
    /// Every item, most actionable first.
    pub(super) items: Vec<Item>,
    /// Diagnostics kept in the report, by category.
    pub(super) known: Tally,
    /// What the report holds in all: the tool's count where it is larger than what was kept, and
    /// diagnostics the parser counted but did not keep when the tool gave no count.
    pub(super) totals: Tally,
    /// Diagnostics before this index hold the report's first [`OPENING_ERRORS`] errors.
    pub(super) opening_end: usize,
    /// Parallel to [`Plan::files`]: whether the file holds an error (not only warnings).
    pub(super) error_files: Vec<bool>,
    /// What the report shares with the others of the digest: its diagnostics shown under an
    /// earlier report are in no item of its own.
    pub(super) shared: Shared<'a>,
    /// The diagnostics shown under an earlier report, by category.
    pub(super) elsewhere: Tally,
}

impl<'a> Plan<'a> {
    #[cfg(test)]
    pub(super) fn new(report: &'a Report, log: Option<&'a str>) -> Plan<'a> {
        Plan::with_shared(report, log, Shared::default(), &[])
    }

    /// The plan of `report`, leaving out of its items what `shared` says an earlier report
    /// shows.
    pub(super) fn with_shared(
        report: &'a Report,
        log: Option<&'a str>,
        shared: Shared<'a>,
        project: &'a [String],
    ) -> Plan<'a> {
        let mut files: Vec<&'a str> = Vec::new();
        let mut file_index: Map<&'a str, usize> = Map::default();
        let mut entries = Vec::with_capacity(report.diagnostics.len());
        let mut known = Tally::default();
        for diagnostic in &report.diagnostics {
            let category = Category::of(diagnostic);
            known.add(category, 1);
            let file = diagnostic.file.as_deref().map(|path| {
                let key = path.strip_prefix("./").unwrap_or(path);
                *file_index.entry(key).or_insert_with(|| {
                    files.push(path);
                    files.len() - 1
                })
            });
            entries.push(Entry { category, file });
        }
        let items = rank(report, &entries, files.len(), &shared);
        let mut elsewhere = Tally::default();
        for (index, entry) in entries.iter().enumerate() {
            if shared.is_repeated(index) {
                elsewhere.add(entry.category, 1);
            }
        }
        let totals = totals(report, known);
        let in_project: Vec<Option<String>> = files
            .iter()
            .map(|file| project_relative(project, file))
            .collect();
        let root = common_root(
            report
                .diagnostics
                .iter()
                .zip(&entries)
                .filter(|(_, entry)| entry.file.is_some_and(|file| in_project[file].is_none()))
                .filter_map(|(d, _)| d.file.as_deref()),
        );
        let shown = files
            .iter()
            .zip(in_project)
            .map(|(file, relative)| match (relative, root) {
                (Some(relative), _) => relative,
                (None, Some(root)) => file
                    .strip_prefix(root)
                    .filter(|rest| !rest.is_empty())
                    .unwrap_or(file)
                    .to_owned(),
                (None, None) => (*file).to_owned(),
            })
            .collect();
        let opening_end = opening_end(&entries);
        let mut error_files = vec![false; files.len()];
        for entry in &entries {
            if let Some(file) = entry.file.filter(|_| entry.category.is_error()) {
                error_files[file] = true;
            }
        }
        Plan {
            report,
            log,
            files,
            root,
            project,
            shown,
            entries,
            items,
            known,
            totals,
            opening_end,
            error_files,
            shared,
            elsewhere,
        }
    }

    /// The later reports' tools that also failed on the members of `item`, in order.
    pub(super) fn also(&self, item: &Item) -> Vec<&'a str> {
        let mut tools: Vec<&'a str> = Vec::new();
        if self.shared.also.is_empty() {
            return tools;
        }
        for member in &item.members {
            for &tool in self.shared.also.get(member).into_iter().flatten() {
                if !tools.contains(&tool) {
                    tools.push(tool);
                }
            }
        }
        tools
    }

    /// Whether the report gets a section of its own (failed or errored), not a pass line.
    pub(super) fn failing(&self) -> bool {
        self.report.outcome != Outcome::Passed
    }

    /// How file `index` is shown: relative to the project when it is under or beside it, else
    /// relative to [`Plan::root`] when it is under that.
    pub(super) fn display_file(&self, index: usize) -> &str {
        &self.shown[index]
    }

    /// `text`, a message or detail of the tool's, with the project's absolute paths in it made
    /// relative to the project: `Cannot find module '/w/app/src/db'` reads `… 'src/db'`.
    pub(super) fn in_project<'t>(&self, text: &'t str) -> std::borrow::Cow<'t, str> {
        let mut text = std::borrow::Cow::Borrowed(text);
        for dir in self.project {
            if text.contains(dir.as_str()) {
                // A file URL loses its scheme with the directory, so that what is left is a path.
                let url = format!("file://{dir}");
                text = std::borrow::Cow::Owned(text.replace(&url, "").replace(dir.as_str(), ""));
            }
        }
        text
    }

    /// The diagnostic at `index`.
    pub(super) fn diagnostic(&self, index: usize) -> &'a Diagnostic {
        &self.report.diagnostics[index]
    }
}

/// Whether `path` is absolute, on Unix or Windows.
fn is_absolute(path: &str) -> bool {
    let bytes = path.as_bytes();
    path.starts_with('/')
        || path.starts_with("\\\\")
        || bytes.len() >= 3
            && bytes[0].is_ascii_alphabetic()
            && bytes[1] == b':'
            && (bytes[2] == b'\\' || bytes[2] == b'/')
}

/// `file` relative to the project, when it is an absolute path under it (`src/a.ts`) or beside it
/// in a directory they share below the file system's top two levels (`../shared/src/b.ts`, from
/// a monorepo's package). `None` for any other path, and for relative ones, which tools print
/// relative to where they run.
fn project_relative(project: &[String], file: &str) -> Option<String> {
    if project.is_empty() || !is_absolute(file) {
        return None;
    }
    for dir in project {
        if let Some(rest) = file
            .strip_prefix(dir.as_str())
            .filter(|rest| !rest.is_empty())
        {
            return Some(rest.to_owned());
        }
    }
    // Beside the project: only `/`-separated paths, where `..` reads the same to every tool.
    let dir = project.first()?;
    if !file.starts_with('/') || !dir.starts_with('/') {
        return None;
    }
    let dirs: Vec<&str> = dir.split('/').filter(|part| !part.is_empty()).collect();
    let parts: Vec<&str> = file.split('/').filter(|part| !part.is_empty()).collect();
    let shared = dirs.iter().zip(&parts).take_while(|(a, b)| a == b).count();
    if shared < 2 || shared >= parts.len() || parts.contains(&"..") {
        return None;
    }
    let mut relative = "../".repeat(dirs.len() - shared);
    relative.push_str(&parts[shared..].join("/"));
    Some(relative)
}

/// The directory (ending with a separator) that the report's absolute paths are shown relative to:
/// `/home/ci/work/app/`. Relative paths are left as they are.
///
/// When the tool printed files both ways (mocha names a timed-out test's file absolute, and the
/// stack frames of other failures relative to the working directory), the root is the directory
/// that makes the two agree: `/w/app/test/a.spec.js` beside `test/b.spec.js` is under `/w/app/`,
/// not `/w/app/test/`. Otherwise it is the longest directory prefix that every absolute path
/// shares, when at least two diagnostics have one.
fn common_root<'a>(files: impl Iterator<Item = &'a str> + Clone) -> Option<&'a str> {
    let files = || files.clone();
    let mut absolute = files().filter(|file| is_absolute(file));
    let first = absolute.next()?;
    let mut shared = first.len();
    let mut count = 1;
    for path in absolute {
        count += 1;
        shared = first
            .bytes()
            .zip(path.bytes())
            .take(shared)
            .take_while(|(a, b)| a == b)
            .count();
    }
    // Cut back to the last separator, so that the root is a whole directory.
    // (Bytes, not chars: the paths may first differ inside a multi-byte character.)
    let end = first.as_bytes()[..shared]
        .iter()
        .rposition(|&b| is_separator(b))?
        + 1;
    let shared = &first[..end];
    match files()
        .filter(|file| !is_absolute(file))
        .filter_map(|relative| anchor(shared, relative))
        .min()
    {
        Some(at) => Some(&shared[..at]),
        None => (count >= 2 && end > 1).then_some(shared),
    }
}

fn is_separator(byte: u8) -> bool {
    byte == b'/' || byte == b'\\'
}

/// Where, in the directory `shared`, the relative path `relative` would start: the last place a
/// whole directory of `shared` is the first directory of `relative` (`/w/app/test/` and
/// `test/b.spec.js` give the offset of `test/`).
fn anchor(shared: &str, relative: &str) -> Option<usize> {
    let top = relative.split(['/', '\\']).next().filter(|top| {
        !top.is_empty() && *top != "." && *top != ".." && top.len() < relative.len()
    })?;
    let bytes = shared.as_bytes();
    shared
        .match_indices(top)
        .map(|(at, _)| at)
        .filter(|&at| {
            at > 1
                && is_separator(bytes[at - 1])
                && bytes.get(at + top.len()).is_some_and(|&b| is_separator(b))
        })
        .last()
}

/// Groups the diagnostics into items and sorts them by tier, then by the tool's order. What an
/// earlier report shows is left out.
fn rank(report: &Report, entries: &[Entry], file_count: usize, shared: &Shared<'_>) -> Vec<Item> {
    let mut items: Vec<Item> = Vec::new();
    let mut groups: Map<(Category, bool, Option<&str>, u64), usize> = Map::default();
    // (item, exact message key, diagnostic) of every diagnostic, to count each group's variants
    // and split it into parts; (item, file), to count its files by sorting rather than with a
    // set per group.
    let mut messages: Vec<(usize, u64, usize)> = Vec::with_capacity(report.diagnostics.len());
    let mut places: Vec<(usize, usize)> = Vec::with_capacity(report.diagnostics.len());
    for (index, (diagnostic, entry)) in report.diagnostics.iter().zip(entries).enumerate() {
        if shared.is_repeated(index) {
            continue;
        }
        // A test's reason is its message and detail together (`expect(…).toBe(…)` and `Expected:
        // 5, Received: 4`); other diagnostics are grouped by their message, as the tool words it.
        let is_test = diagnostic.test.is_some();
        let keys = match diagnostic.detail.as_deref() {
            Some(detail) if is_test => message_keys(&[&diagnostic.message, detail]),
            _ => message_keys(&[&diagnostic.message]),
        };
        let key = (
            entry.category,
            is_test,
            diagnostic.code.as_deref(),
            keys.shape,
        );
        let new_item = |items: &mut Vec<Item>| {
            items.push(Item {
                members: Vec::new(),
                variants: 1,
                files: 0,
                parts: Vec::new(),
                tier: Tier::Error,
            });
            items.len() - 1
        };
        // A test without a file has only its name to be found by, which a group does not show.
        let item = if is_test && entry.file.is_none() {
            new_item(&mut items)
        } else {
            *groups.entry(key).or_insert_with(|| new_item(&mut items))
        };
        items[item].members.push(index);
        messages.push((item, keys.exact, index));
        places.extend(entry.file.map(|file| (item, file)));
    }
    split_into_parts(&mut items, &messages, entries);
    places.sort_unstable();
    places.dedup();
    for &(item, _) in &places {
        items[item].files += 1;
    }

    let mut first_error = vec![None; file_count];
    let mut first_warning = vec![None; file_count];
    for (index, entry) in entries.iter().enumerate() {
        if shared.is_repeated(index) {
            continue;
        }
        if let Some(file) = entry.file {
            let slot = if entry.category.is_error() {
                &mut first_error[file]
            } else {
                &mut first_warning[file]
            };
            slot.get_or_insert(index);
        }
    }
    let opening_end = opening_end(entries);
    for item in &mut items {
        let is_error = entries[item.first()].category.is_error();
        let opening = is_error && item.first() < opening_end;
        let opens_a_file = opening
            || item.members.iter().any(|&m| match entries[m].file {
                None => true,
                Some(file) if is_error => first_error[file] == Some(m),
                Some(file) => first_warning[file] == Some(m),
            });
        let root = item
            .members
            .iter()
            .any(|&m| report.diagnostics[m].root_cause);
        item.tier = match (is_error, root, opens_a_file) {
            (true, true, _) => Tier::RootCause,
            (true, false, true) => Tier::FirstErrorOfFile,
            (true, false, false) => Tier::Error,
            (false, _, true) => Tier::FirstWarningOfFile,
            (false, _, false) => Tier::Warning,
        };
    }
    for item in &mut items {
        let tier = item.tier;
        for part in &mut item.parts {
            part.tier = tier;
        }
    }
    items.sort_by_key(|item| (item.tier, item.first()));
    items
}

/// Counts the distinct messages of every item, and fills the [`Item::parts`] of every group with
/// several; `messages` holds the item and exact message key of every diagnostic, in the tool's
/// order. Parts come in the order of their first member.
fn split_into_parts(items: &mut [Item], messages: &[(usize, u64, usize)], entries: &[Entry]) {
    // The part of every diagnostic within its item, numbered in order of first appearance.
    let mut part_of: Map<(usize, u64), usize> =
        Map::with_capacity_and_hasher(messages.len(), Default::default());
    let mut distinct = vec![0usize; items.len()];
    let parts: Vec<usize> = messages
        .iter()
        .map(|&(item, exact, _)| {
            *part_of.entry((item, exact)).or_insert_with(|| {
                distinct[item] += 1;
                distinct[item] - 1
            })
        })
        .collect();
    for (item, &n) in items.iter_mut().zip(&distinct) {
        item.variants = n.max(1);
    }
    for (&(item, _, index), &part) in messages.iter().zip(&parts) {
        if distinct[item] < 2 {
            continue;
        }
        let parts = &mut items[item].parts;
        if part == parts.len() {
            parts.push(Item {
                members: Vec::new(),
                variants: 1,
                files: 0,
                parts: Vec::new(),
                tier: Tier::Error,
            });
        }
        parts[part].members.push(index);
    }
    let mut files: Vec<usize> = Vec::new();
    for part in items.iter_mut().flat_map(|item| item.parts.iter_mut()) {
        files.clear();
        files.extend(part.members.iter().filter_map(|&m| entries[m].file));
        files.sort_unstable();
        files.dedup();
        part.files = files.len();
    }
}

/// What a report holds in all. The tool's own numbers win where they are larger than what the
/// parser kept; the parser's overflow counts only when the tool gave no numbers at all (otherwise
/// the tool's numbers already include it). Failures set aside against a baseline are in the
/// tool's numbers and not in the report's diagnostics: they are not counted here, since the
/// headline says them and no item or tail is meant to show them.
fn totals(report: &Report, known: Tally) -> Tally {
    let counts = &report.counts;
    let aside = report
        .set_aside
        .unwrap_or(SetAside::new(KnownFrom::Baseline));
    let less = |n: Option<u64>, by: u64| n.map(|n| n.saturating_sub(by));
    let tool_errors = less(counts.errors, aside.errors)
        .unwrap_or(0)
        .max(less(counts.suites_errored, aside.suites_errored).unwrap_or(0));
    let has_tool_counts = counts.errors.is_some()
        || counts.warnings.is_some()
        || counts.tests_failed.is_some()
        || counts.suites_errored.is_some();
    Tally {
        errors: known.errors.max(tool_errors),
        failed_tests: known
            .failed_tests
            .max(less(counts.tests_failed, aside.tests_failed).unwrap_or(0)),
        warnings: known
            .warnings
            .max(less(counts.warnings, aside.warnings).unwrap_or(0)),
        other: if has_tool_counts {
            0
        } else {
            report.diagnostics_dropped
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Kind;

    fn error(file: &str, line: u32, code: &str, message: &str) -> Diagnostic {
        Diagnostic::new("t", Kind::Type, Severity::Error, message)
            .at(file, Some(line), Some(1))
            .with_code(code)
    }

    fn report(diagnostics: Vec<Diagnostic>) -> Report {
        let mut report = Report::new("t", Outcome::Failed);
        report.diagnostics = diagnostics;
        report
    }

    /// `diagnostics` after ten errors of one group in `o.ts` (members 0 to 9), so that none of
    /// them is among the report's first ten errors.
    fn after_ten(diagnostics: Vec<Diagnostic>) -> Report {
        let mut all: Vec<Diagnostic> = (0..10)
            .map(|i| error("o.ts", i + 1, "E0", &format!("opening {i}")))
            .collect();
        all.extend(diagnostics);
        report(all)
    }

    const TEN: &str = "FirstErrorOfFile [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]";

    /// The ranked items as `tier first-member [other members]`.
    fn ranked(report: &Report) -> Vec<String> {
        Plan::new(report, None)
            .items
            .iter()
            .map(|item| format!("{:?} {:?}", item.tier, item.members))
            .collect()
    }

    #[test]
    fn root_causes_then_first_of_each_file_then_repeats_then_warnings() {
        let mut warning = error("c.ts", 1, "W1", "unused");
        warning.severity = Severity::Warning;
        let r = after_ten(vec![
            warning,                                                       // 10
            error("a.ts", 1, "E1", "first in a"),                          // 11
            error("a.ts", 2, "E2", "second in a"),                         // 12
            error("b.ts", 1, "E3", "first in b"),                          // 13
            error("b.ts", 9, "E4", "cannot import './x'").as_root_cause(), // 14
            error("a.ts", 3, "E5", "same"),                                // 15
            error("b.ts", 3, "E5", "same"),                                // 16
        ]);
        assert_eq!(
            ranked(&r),
            [
                "RootCause [14]",
                TEN,
                "FirstErrorOfFile [11]",
                "FirstErrorOfFile [13]",
                "Error [12]",
                "Error [15, 16]",
                "FirstWarningOfFile [10]",
            ]
        );
    }

    #[test]
    fn the_first_ten_errors_rank_with_the_first_of_each_file() {
        let mut warning = error("a.ts", 1, "W1", "unused");
        warning.severity = Severity::Warning;
        let mut diagnostics = vec![warning];
        // Eleven errors of different codes in one file: the first ten are the start of the log.
        diagnostics.extend((0..11).map(|i| error("a.ts", i + 2, &format!("E{i}"), "m")));
        diagnostics.push(error("b.ts", 1, "E0", "other"));
        let r = report(diagnostics);
        let ranked = ranked(&r);
        assert_eq!(
            ranked[..2],
            ["FirstErrorOfFile [1]", "FirstErrorOfFile [2]"]
        );
        assert_eq!(
            ranked[9..],
            [
                "FirstErrorOfFile [10]",
                "FirstErrorOfFile [12]",
                "Error [11]",
                "FirstWarningOfFile [0]"
            ]
        );
    }

    #[test]
    fn groups_need_same_code_and_message_and_class() {
        let mut warning = error("a.ts", 4, "E1", "m");
        warning.severity = Severity::Warning;
        let r = report(vec![
            error("a.ts", 1, "E1", "m"),
            error("b.ts", 1, "E1", "m  "),
            error("c.ts", 1, "E2", "m"),
            warning,
        ]);
        assert_eq!(
            ranked(&r),
            [
                "FirstErrorOfFile [0, 1]",
                "FirstErrorOfFile [2]",
                "FirstWarningOfFile [3]"
            ]
        );
    }

    #[test]
    fn failing_tests_group_by_the_shape_of_their_assertion() {
        let test = |name: &str, file: &str, message: &str, detail: &str| {
            Diagnostic::new("t", Kind::Test, Severity::Error, message)
                .at(file, Some(1), None)
                .with_test(name)
                .with_detail(detail)
        };
        let mut r = after_ten(vec![
            test(
                "a",
                "a.test.ts",
                "expect(received).toBe(expected)",
                "Expected: 5",
            ),
            test(
                "b",
                "b.test.ts",
                "expect(received).toBe(expected)",
                "Expected: 7",
            ),
            test(
                "c",
                "a.test.ts",
                "expect(received).toEqual(expected)",
                "Expected: 5",
            ),
            test(
                "d",
                "a.test.ts",
                "expect(received).toBe(expected)",
                "Expected: 'x'",
            ),
            error(
                "a.test.ts",
                1,
                "",
                "expect(received).toBe(expected) Expected: 5",
            ),
            test(
                "e",
                "a.test.ts",
                "expect(received).toBe(expected)",
                "Expected: 5",
            ),
        ]);
        // A test without a file is never grouped: its name is all that says where it is.
        r.diagnostics[15].file = None;
        let plan = Plan::new(&r, None);
        assert_eq!(
            ranked(&r),
            [
                TEN,
                "FirstErrorOfFile [10, 11]",
                "FirstErrorOfFile [15]",
                "Error [12]",
                "Error [13]",
                "Error [14]"
            ]
        );
        assert_eq!(plan.items[1].variants, 2);
    }

    #[test]
    fn groups_of_one_shape_count_their_variants() {
        let r = after_ten(vec![
            error("a.ts", 1, "E1", "Cannot find name 'a0'."),
            error("a.ts", 2, "E1", "Cannot find name 'a1'."),
            error("b.ts", 1, "E1", "Cannot find  name 'a0'."),
            error("b.ts", 2, "E2", "Cannot find name 'a0'."),
        ]);
        let plan = Plan::new(&r, None);
        assert_eq!(
            ranked(&r),
            [TEN, "FirstErrorOfFile [10, 11, 12]", "Error [13]"]
        );
        assert_eq!(plan.items[0].variants, 10);
        assert_eq!(plan.items[0].files, 1);
        assert_eq!(plan.items[1].variants, 2);
        assert_eq!(plan.items[1].files, 2);
        assert_eq!(plan.items[2].variants, 1);
    }

    #[test]
    fn totals_prefer_the_tools_numbers() {
        let mut r = report(vec![error("a.ts", 1, "E1", "m")]);
        r.counts.errors = Some(42);
        r.diagnostics_dropped = 7;
        let plan = Plan::new(&r, None);
        assert_eq!(plan.totals.errors, 42);
        assert_eq!(plan.totals.other, 0);

        let mut r = report(vec![error("a.ts", 1, "E1", "m")]);
        r.diagnostics_dropped = 7;
        let plan = Plan::new(&r, None);
        assert_eq!(plan.totals.errors, 1);
        assert_eq!(plan.totals.other, 7);
    }
}
