//! The text of each kind of digest line: headlines, pass lines, items, tails and the footer.
//!
//! Every function here returns a line that is already one line, redacted, and (where it takes a
//! `max`) clipped to `max` tokens, so that what [`super::fit`] counts is exactly what is shown.

use super::Tally;
use super::plan::{Item, Plan};
use super::redact::redact;
use super::text::{FIELD_BYTES, Set, one_line, plural};
use super::tokens::{self, clip};
use crate::model::{Diagnostic, Outcome, Report, Severity};

/// Indentation of the lines under a headline.
pub(super) const INDENT: &str = "  ";

/// The most files a tail names before it says `…`; it names fewer when they do not fit.
const NAMED_FILES: usize = 24;

/// How many names a tail fills with files that lines above already name, when it has fewer files
/// that no line names.
const NAMED_AGAIN: usize = 4;

/// The most places a group lists; no line has room for more.
const GROUP_PLACES: usize = 48;

/// How many places a group lists beyond the first of each of its files.
const EXTRA_PLACES: usize = 4;

/// How many distinct places of a group are looked at to choose those it lists.
const GROUP_CANDIDATES: usize = 2 * GROUP_PLACES;

/// A field of the input, on one line and redacted.
fn field(text: &str) -> String {
    redact(&one_line(text, FIELD_BYTES)).into_owned()
}

/// `text` clipped to `max` tokens, owned.
fn clipped(text: &str, max: usize) -> String {
    clip(text, max).into_owned()
}

/// The headline of a failed or errored report: `tsc: 42 errors in 9 files`, `jest: could not
/// verify — <error>`.
pub(super) fn headline(plan: &Plan<'_>, max: usize) -> String {
    let report = plan.report;
    let body = match report.outcome {
        Outcome::Errored => {
            let reason = report
                .error
                .as_deref()
                .or(report.summary.as_deref())
                .unwrap_or("no reason given");
            format!("could not verify — {reason}")
        }
        Outcome::Failed | Outcome::Passed => with_set_aside(report, failure_counts(plan)),
    };
    let root = plan
        .root
        .map(|root| format!(" (paths relative to {root})"))
        .unwrap_or_default();
    clipped(&field(&format!("{}: {body}{root}", tool(report))), max)
}

/// The name a report goes by: its tool, and the CI job it ran in when the log held several
/// (`tsc (build)`), so that two jobs' runs of one tool are told apart.
fn tool(report: &Report) -> String {
    match report.job() {
        Some(job) => format!("{} ({job})", report.tool),
        None => report.tool.clone(),
    }
}

/// A failing report in a few words, for when the budget has no room for its headline: `tsc: 41
/// errors`, `jest: 3 failed`, `cargo: could not verify`.
pub(super) fn short_headline(plan: &Plan<'_>) -> String {
    let totals = plan.totals;
    let what = if plan.report.outcome == Outcome::Errored {
        "could not verify".to_owned()
    } else if totals.failed_tests > 0 {
        format!("{} failed", totals.failed_tests)
    } else if totals.errors > 0 {
        plural(totals.errors, "error", "errors")
    } else if totals.warnings > 0 {
        plural(totals.warnings, "warning", "warnings")
    } else {
        "failed".to_owned()
    };
    field(&format!("{}: {what}", tool(plan.report)))
}

/// `counts`, followed by how many of them were set aside against a baseline and what they
/// predate, when some were: `4 failed, 2 passed (3 of the failures predate this session, 1 is
/// new)`. The counts are the tool's, old failures included, so without this they would read as
/// new.
fn with_set_aside(report: &Report, counts: String) -> String {
    match &report.set_aside {
        Some(aside) => aside.after_counts(report, &counts),
        None => counts,
    }
}

/// The counts of a failed report: the tool's own where it gave them, otherwise counted from the
/// diagnostics and said so.
fn failure_counts(plan: &Plan<'_>) -> String {
    let report = plan.report;
    let mut parts = tool_counts(report);
    if parts.is_empty() {
        let known = plan.known;
        let mut counted = Vec::new();
        if known.failed_tests > 0 {
            counted.push(plural(known.failed_tests, "failed test", "failed tests"));
        }
        if known.errors > 0 {
            counted.push(plural(known.errors, "error", "errors"));
        }
        if known.warnings > 0 {
            counted.push(plural(known.warnings, "warning", "warnings"));
        }
        if report.diagnostics_dropped > 0 {
            counted.push(format!("{} more not itemized", report.diagnostics_dropped));
        }
        if counted.is_empty() {
            return match &report.summary {
                Some(summary) => format!("failed — {summary}"),
                None => "failed; no failure could be itemized, see the full log".to_owned(),
            };
        }
        let files = plan.files.len() as u64;
        let mut text = counted.join(", ");
        if files > 0 {
            text.push_str(&format!(" in {}", plural(files, "file", "files")));
        }
        text.push_str(" (counted by verdict; the tool printed no totals)");
        parts.push(text);
    }
    parts.join("; ")
}

/// The tool's own counts as phrases: `3 failed, 12 passed (1 suite failed to run)`, `42 errors in
/// 9 files`. Empty when the tool gave none.
fn tool_counts(report: &Report) -> Vec<String> {
    let counts = &report.counts;
    let mut parts = Vec::new();

    let mut tests = Vec::new();
    if let Some(n) = counts.tests_failed {
        tests.push(format!("{n} failed"));
    }
    if let Some(n) = counts.tests_passed {
        tests.push(format!("{n} passed"));
    }
    tests.extend(expected_outcomes(counts));
    let suites = counts
        .suites_errored
        .filter(|&n| n > 0)
        .map(|n| format!("{} failed to run", plural(n, "suite", "suites")));
    // The files the tool counted go with its errors and warnings when it counted those, and with
    // the tests otherwise.
    let has_findings = counts.errors.is_some() || counts.warnings.is_some();
    let files = counts
        .files
        .map(|n| format!(" in {}", plural(n, "file", "files")));
    let test_files = if has_findings {
        ""
    } else {
        files.as_deref().unwrap_or_default()
    };
    match (tests.is_empty(), suites) {
        (false, Some(suites)) => parts.push(format!("{}{test_files} ({suites})", tests.join(", "))),
        (false, None) => parts.push(format!("{}{test_files}", tests.join(", "))),
        (true, Some(suites)) => parts.push(format!("{suites}{test_files}")),
        (true, None) => {}
    }

    if has_findings {
        let mut found = Vec::new();
        if let Some(n) = counts.errors {
            found.push(plural(n, "error", "errors"));
        }
        if let Some(n) = counts
            .warnings
            .filter(|&n| n > 0 || counts.errors.is_none())
        {
            found.push(plural(n, "warning", "warnings"));
        }
        parts.push(format!("{}{}", found.join(", "), files.unwrap_or_default()));
    }
    parts
}

/// The line of a passing report: `pytest: 128 passed`, `tsc: no errors`, `generic: no failure
/// found`; of one that passes only because its failures were set aside, the tool's counts and
/// that: `eslint: 1 error (from before this session)`.
pub(super) fn pass_line(report: &Report, max: usize) -> String {
    let body = if report.set_aside.is_some() {
        let counts = tool_counts(report).join("; ");
        with_set_aside(report, counts)
    } else {
        pass_body(report)
    };
    clipped(&field(&format!("{}: {body}", tool(report))), max)
}

/// Skipped tests, and the expected failures and unexpected passes where the tool counts them
/// apart, as the tool says them: `2 skipped, 1 xfailed, 1 xpassed`.
fn expected_outcomes(counts: &crate::model::Counts) -> Vec<String> {
    let mut parts = Vec::new();
    let xfailed = counts.tests_xfailed.unwrap_or(0);
    if let Some(n) = counts
        .tests_skipped
        .map(|n| n.saturating_sub(xfailed))
        .filter(|&n| n > 0)
    {
        parts.push(format!("{n} skipped"));
    }
    if xfailed > 0 {
        parts.push(format!("{xfailed} xfailed"));
    }
    if let Some(n) = counts.tests_xpassed.filter(|&n| n > 0) {
        parts.push(format!("{n} xpassed"));
    }
    parts
}

fn pass_body(report: &Report) -> String {
    let counts = &report.counts;
    if counts.tests_passed.is_some() || counts.tests_skipped.is_some() {
        let mut parts = vec![format!("{} passed", counts.tests_passed.unwrap_or(0))];
        parts.extend(expected_outcomes(counts));
        return parts.join(", ");
    }
    match (counts.errors, counts.warnings.filter(|&n| n > 0)) {
        (Some(_), Some(w)) | (None, Some(w)) => {
            format!("no errors, {}", plural(w, "warning", "warnings"))
        }
        (Some(_), None) => "no errors".to_owned(),
        (None, None) => "no failure found".to_owned(),
    }
}

/// All passing reports on one line, names only: `passed: eslint, pytest`. A report that passes
/// only because its failures were set aside is never among them (see [`pass_line`]).
pub(super) fn passed_names(reports: &[&Report], max: usize) -> String {
    let names: Vec<&str> = reports.iter().map(|r| r.tool.as_str()).collect();
    clipped(&field(&format!("passed: {}", names.join(", "))), max)
}

/// An item's line, and the files it names.
#[derive(Debug, Clone)]
pub(super) struct ItemLine {
    pub(super) text: String,
    /// Files of the plan the text names, so that the tails can name the others first.
    pub(super) files: Vec<usize>,
}

/// Whether a group's line names its failing tests beside their places.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Names {
    /// Places only: the shortest line, for while items compete for room.
    Places,
    /// Every test's name with its place, when that lists as many places as [`Names::Places`].
    All,
}

/// The line of one item, indented, within `max` tokens; a group of tests names them as `names`
/// says.
pub(super) fn item(plan: &Plan<'_>, item: &Item, max: usize, names: Names) -> ItemLine {
    let first = plan.diagnostic(item.first());
    let (text, candidates) = if item.members.len() > 1 {
        group(plan, item, max, names)
    } else if first.test.is_some() {
        let line = failed_test(plan, item.first(), max);
        (clipped(&format!("{INDENT}{line}"), max), vec![item.first()])
    } else {
        let line = field(&diagnostic(plan, item.first()));
        (clipped(&format!("{INDENT}{line}"), max), vec![item.first()])
    };
    // A place clipped off the end is not named.
    let mut files: Vec<usize> = Vec::new();
    for member in candidates {
        if let Some(file) = plan.entries[member].file
            && !files.contains(&file)
            && text.contains(plan.display_file(file))
        {
            files.push(file);
        }
    }
    ItemLine { text, files }
}

/// `file:line:col`, as much of it as is known, with the file as the plan shows it.
fn location(plan: &Plan<'_>, index: usize, with_column: bool) -> Option<String> {
    let file = plan.display_file(plan.entries[index].file?);
    let d = plan.diagnostic(index);
    Some(match (d.line, d.column) {
        (Some(line), Some(column)) if with_column => format!("{file}:{line}:{column}"),
        (Some(line), _) => format!("{file}:{line}"),
        _ => file.to_owned(),
    })
}

/// What [`location`] is written from: the file, and the line and column it shows. Equal keys
/// give equal text.
type Place = (usize, Option<u32>, Option<u32>);

/// The [`Place`] of diagnostic `index`, when it has a file.
fn place_key(plan: &Plan<'_>, index: usize, with_column: bool) -> Option<Place> {
    let file = plan.entries[index].file?;
    let d = plan.diagnostic(index);
    let column = d.column.filter(|_| with_column && d.line.is_some());
    Some((file, d.line, column))
}

/// `file:line:col [warning] CODE message`.
fn diagnostic(plan: &Plan<'_>, index: usize) -> String {
    let d = plan.diagnostic(index);
    let mut parts = Vec::new();
    if let Some(location) = location(plan, index, true) {
        parts.push(location);
    }
    if let Some(label) = severity_label(d.severity) {
        parts.push(label.to_owned());
    }
    if let Some(code) = &d.code {
        parts.push(code.clone());
    }
    let reason = reason(plan, d);
    if !reason.is_empty() {
        parts.push(reason);
    }
    if parts.is_empty() {
        // A finding the tool gave no words to still counts, and is shown as such.
        parts.push("(no message)".to_owned());
    }
    parts.join(" ")
}

fn severity_label(severity: Severity) -> Option<&'static str> {
    match severity {
        Severity::Error => None,
        Severity::Warning => Some("warning"),
        Severity::Info => Some("note"),
    }
}

/// The message, and the detail when it adds something: `expect(received).toBe(expected):
/// Expected: 3; Received: 4`.
fn reason(plan: &Plan<'_>, d: &Diagnostic) -> String {
    let message = one_line(&plan.in_project(&d.message), FIELD_BYTES);
    let detail = d
        .detail
        .as_deref()
        .map(|detail| one_line(&plan.in_project(detail), FIELD_BYTES))
        .unwrap_or_default();
    if detail.is_empty() || message.contains(&detail) {
        message
    } else if message.is_empty() || detail.contains(&message) {
        detail
    } else {
        format!("{message}: {detail}")
    }
}

/// `name — file:line — reason`; the name may take at most half the line.
fn failed_test(plan: &Plan<'_>, index: usize, max: usize) -> String {
    let d = plan.diagnostic(index);
    let mut name = field(&plan.in_project(d.test.as_deref().unwrap_or_default()));
    if name.is_empty() {
        name = "(unnamed test)".to_owned();
    }
    let mut line = clipped(&name, max / 2);
    if let Some(location) = location(plan, index, false) {
        line.push_str(" — ");
        line.push_str(&location);
    }
    let reason = reason(plan, d);
    if !reason.is_empty() {
        line.push_str(" — ");
        line.push_str(&reason);
    }
    field(&line)
}

/// A group, indented: `CODE message ×60 (3 variants) in 54 files, first a.ts:12:5, b.ts:40:1, …`,
/// with its first places (each file's first, then those among the report's first errors), as
/// many as fit; `… in 2 files: a.ts:3:5, b.ts:7:1`
/// when all are listed. The message is the first member's; the variants are how many distinct
/// messages share its shape. When the message is too long for even one place, it is clipped, but
/// keeps at least half of the room. Returns the line and the members whose places it lists.
fn group(plan: &Plan<'_>, item: &Item, max: usize, names: Names) -> (String, Vec<usize>) {
    let first = plan.diagnostic(item.first());
    let is_test = first.test.is_some();
    let listed = |names: Names| {
        let (candidates, complete) = group_candidates(plan, item, is_test, names);
        let named_each = candidates.len() == item.members.len();
        let (places, files) = order_places(plan, candidates);
        // Named tests are listed as far as the room goes, not only a few beyond each file's
        // first: each is a failure of its own.
        let files = if names == Names::All {
            GROUP_PLACES
        } else {
            files
        };
        let listing = Listing::new(
            group_head(plan, first, is_test),
            item,
            // Every member named, each once, says its files; otherwise the count of files
            // stays.
            (
                places,
                complete,
                is_test && names == Names::All && named_each,
            ),
            files,
            max,
        );
        listing.fit(plan, item, max)
    };
    if !is_test || names == Names::Places {
        return listed(Names::Places);
    }
    // Every test named, unless that lists fewer of their places or clips more of the message:
    // a place is where the agent opens the test, a name only says it in words.
    let (all, named) = listed(Names::All);
    let (text, places) = listed(Names::Places);
    let head = group_head(plan, first, is_test);
    if named.len() >= places.len() && (all.contains(&head) || !text.contains(&head)) {
        (all, named)
    } else {
        (text, places)
    }
}

/// A group's message: its severity, code and message (a test's reason).
fn group_head(plan: &Plan<'_>, first: &Diagnostic, is_test: bool) -> String {
    let mut head = Vec::new();
    if let Some(label) = severity_label(first.severity) {
        head.push(label.to_owned());
    }
    if let Some(code) = &first.code {
        head.push(code.clone());
    }
    head.push(if is_test {
        reason(plan, first)
    } else {
        plan.in_project(&first.message).into_owned()
    });
    field(&head.join(" "))
}

/// The first distinct places of a group's members, and whether they are all of them: each
/// file's first place and those among the report's first errors, in the tool's order, then the
/// others in the tool's order. A group whose
/// first files hold many of its places (a legacy file breaking one rule on every line) still
/// offers its other files to the listing. Tests are placed by file and line (the column of an
/// assertion adds little), with their names when `names` says so; two tests at one line (a
/// parametrized test, a failing hook) are then two places.
fn group_candidates(
    plan: &Plan<'_>,
    item: &Item,
    is_test: bool,
    names: Names,
) -> (Vec<(String, usize)>, bool) {
    let mut candidates: Vec<(String, usize)> = Vec::new();
    // The places already looked at, by file, line and column: members of a group often share
    // places, and comparing these numbers spares writing out each member's place. (Two of them
    // may still read the same, as `a.ts:1` from two spellings of a file: the text decides.)
    let mut seen: Set<Place> = Set::default();
    let mut complete = true;
    let mut files: Set<usize> = Set::default();
    // The first pass takes each file's first place and the places among the report's first
    // errors, where a reader of the log starts; the second, the rest.
    let first_of_file: Vec<bool> = item
        .members
        .iter()
        .map(|&member| {
            let first = plan.entries[member].file.is_some_and(|f| files.insert(f));
            first || member < plan.opening_end
        })
        .collect();
    'passes: for pass in [true, false] {
        for (&member, &first) in item.members.iter().zip(&first_of_file) {
            if first != pass {
                continue;
            }
            let Some(key) = place_key(plan, member, !is_test) else {
                complete = false;
                continue;
            };
            let named = is_test && names == Names::All;
            if !named && !seen.insert(key) {
                continue;
            }
            let Some(place) = location(plan, member, !is_test) else {
                complete = false;
                continue;
            };
            let place = if named {
                named_place(plan, member, &place)
            } else {
                place
            };
            if candidates.iter().any(|(known, _)| *known == place) {
                continue;
            }
            if candidates.len() == GROUP_CANDIDATES {
                complete = false;
                break 'passes;
            }
            candidates.push((place, member));
        }
    }
    (candidates, complete)
}

/// A failing test in a group's list: `test_div (tests/test_ops.py:13)`. A name that starts with
/// its file (pytest's `tests/test_ops.py::test_div`) drops it, since the place says it.
fn named_place(plan: &Plan<'_>, member: usize, place: &str) -> String {
    let d = plan.diagnostic(member);
    let name = d.test.as_deref().unwrap_or_default();
    let file = d.file.as_deref().unwrap_or_default();
    let short = name
        .strip_prefix(file)
        .and_then(|rest| rest.strip_prefix("::"))
        .filter(|rest| !rest.is_empty())
        .unwrap_or(name);
    // A name that is only its file says nothing more.
    if short == file {
        return place.to_owned();
    }
    // The name takes at most a third of the room a group line has at the least.
    let short = clipped(&field(&plan.in_project(short)), 16);
    if short.is_empty() {
        place.to_owned()
    } else {
        format!("{short} ({place})")
    }
}

/// Each file's first place first, in the order the files first appear, then the places among
/// the report's first errors (where a reader of the log starts), then the rest: a group over
/// many files names as many of them as it has room for. Also how many files they are in.
fn order_places(
    plan: &Plan<'_>,
    candidates: Vec<(String, usize)>,
) -> (Vec<(String, usize)>, usize) {
    let mut files: Vec<&str> = Vec::new();
    let mut places = Vec::with_capacity(candidates.len());
    let mut opening = Vec::new();
    let mut later = Vec::new();
    for (place, member) in candidates {
        let file = plan.diagnostic(member).file.as_deref().unwrap_or_default();
        if !files.contains(&file) {
            files.push(file);
            places.push((place, member));
        } else if member < plan.opening_end {
            opening.push((place, member));
        } else {
            later.push((place, member));
        }
    }
    places.extend(opening);
    places.extend(later);
    let places = places
        .into_iter()
        .map(|(place, member)| (field(&place), member))
        .collect();
    (places, files.len())
}

/// A group's line being fitted: its message, count and the places it may name.
struct Listing {
    head: String,
    count: String,
    in_files: String,
    /// Whether the places name every failing test: a complete list of them says their files,
    /// so the count of files is left out.
    tests: bool,
    places: Vec<(String, usize)>,
    /// Whether the places are all of the group's.
    complete: bool,
}

impl Listing {
    /// Every place when all of them fit; else, past each file's first place, a few more are
    /// worth their room, and the rest is for other items.
    fn new(
        head: String,
        item: &Item,
        (mut places, mut complete, tests): (Vec<(String, usize)>, bool, bool),
        files: usize,
        max: usize,
    ) -> Listing {
        let n = item.members.len();
        let count = if item.variants > 1 {
            format!("×{n} ({} variants)", item.variants)
        } else {
            format!("×{n}")
        };
        let in_files = match item.files {
            0 => String::new(),
            1 => " in 1 file".to_owned(),
            files => format!(" in {files} files"),
        };
        let whole = complete && places.len() <= GROUP_PLACES && {
            let listed: Vec<&str> = places.iter().map(|(p, _)| p.as_str()).collect();
            let in_files = if tests { "" } else { in_files.as_str() };
            let text = format!("{INDENT}{head} {count}{in_files}: {}", listed.join(", "));
            tokens::fits(&text, max)
        };
        let most = (files + EXTRA_PLACES).min(GROUP_PLACES);
        if !whole && places.len() > most {
            places.truncate(most);
            complete = false;
        }
        Listing {
            head,
            count,
            in_files,
            tests,
            places,
            complete,
        }
    }

    /// The count with the first `k` places.
    fn with_places(&self, k: usize) -> String {
        let (count, in_files) = (&self.count, &self.in_files);
        let listed: Vec<&str> = self.places[..k].iter().map(|(p, _)| p.as_str()).collect();
        if k == self.places.len() && self.complete {
            let in_files = if self.tests { "" } else { in_files.as_str() };
            format!("{count}{in_files}: {}", listed.join(", "))
        } else {
            format!("{count}{in_files}, first {}, …", listed.join(", "))
        }
    }

    fn members(&self, k: usize) -> Vec<usize> {
        self.places[..k].iter().map(|&(_, m)| m).collect()
    }

    /// The line within `max` tokens, and the members whose places it names.
    fn fit(&self, plan: &Plan<'_>, item: &Item, max: usize) -> (String, Vec<usize>) {
        let line = |head: &str, suffix: &str| format!("{INDENT}{head} {suffix}");
        // The whole message with as many places as fit.
        let mut best = None;
        for k in 1..=self.places.len() {
            let text = line(&self.head, &self.with_places(k));
            if !tokens::fits(&text, max) {
                break;
            }
            best = Some((text, k));
        }
        if let Some((text, k)) = best {
            return (text, self.members(k));
        }
        // The message clipped, keeping at least half of the room, and places in the rest; or,
        // when not even one place fits, the count and where it is. Down to a few words of the
        // message, one place is still worth more than the rest of it.
        let head_tokens = tokens::count(&self.head);
        let (keep, least) = (head_tokens.min(max / 2), head_tokens.min(4));
        let count = &self.count;
        let only_file = match (item.files, self.places.first()) {
            (1, Some(&(_, member))) => plan.entries[member]
                .file
                .map(|file| format!("{count} in {}", field(plan.display_file(file)))),
            _ => None,
        };
        let mut suffixes: Vec<(String, usize, usize)> = (1..=self.places.len())
            .rev()
            .map(|k| (self.with_places(k), k, keep))
            .collect();
        if !self.places.is_empty() {
            suffixes.push((self.with_places(1), 1, least));
        }
        suffixes.extend(only_file.map(|suffix| (suffix, 1, 0)));
        suffixes.push((format!("{count}{}", self.in_files), 0, 0));
        suffixes.push((count.clone(), 0, 0));
        for (suffix, k, keep) in &suffixes {
            // The indentation, and the space before the suffix.
            let room = max.saturating_sub(tokens::count(suffix) + 2);
            if room < *keep {
                continue;
            }
            let text = line(&clip(&self.head, room), suffix);
            if tokens::fits(&text, max) {
                return (text, self.members(*k));
            }
        }
        (clipped(&line(&self.head, count), max), Vec::new())
    }
}

/// The note after a line whose failure later reports also failed on: `(also failed clippy,
/// cargo-test on this)`.
pub(super) fn also_failed(tools: &[&str]) -> String {
    field(&format!("(also failed {} on this)", tools.join(", ")))
}

/// The line under a report's headline that says how many of its failures an earlier report
/// shows: `  the same as cargo-check: 4 errors`. `None` when there are none.
pub(super) fn same_as(plan: &Plan<'_>, max: usize) -> Option<String> {
    if plan.elsewhere.is_zero() {
        return None;
    }
    let text = format!(
        "the same as {}: {}",
        plan.shared.first_in.join(", "),
        left_out(plan.elsewhere, false)
    );
    Some(clipped(&format!("{INDENT}{}", field(&text)), max))
}

/// What a tail or the footer says was left out: `37 more errors, 2 failed tests, 5 warnings`
/// (with `more` after the first number when `more`). Empty when nothing was.
pub(super) fn left_out(tally: Tally, more: bool) -> String {
    let kinds = [
        (tally.errors, "error", "errors"),
        (tally.failed_tests, "failed test", "failed tests"),
        (tally.warnings, "warning", "warnings"),
        (tally.other, "other finding", "other findings"),
    ];
    let mut parts = Vec::new();
    for (n, one, many) in kinds {
        if n == 0 {
            continue;
        }
        let noun = if n == 1 { one } else { many };
        if more && parts.is_empty() {
            parts.push(format!("{n} more {noun}"));
        } else {
            parts.push(format!("{n} {noun}"));
        }
    }
    parts.join(", ")
}

/// What one report's tail needs to know.
pub(super) struct TailInput<'s> {
    /// What was left out.
    pub(super) omitted: Tally,
    /// Whether any item of the report is shown.
    pub(super) shown_any: bool,
    /// Diagnostics left out, per file of the plan.
    pub(super) per_file: &'s [u32],
    /// Whether a shown item names the file already.
    pub(super) named: &'s [bool],
    /// Whether to name files (otherwise only count them).
    pub(super) with_names: bool,
}

/// The exact tail of a report: `… and 37 more errors in 6 files: x.ts, y.ts, …`, or `… not shown:
/// 42 errors in 9 files: …` when no item of it is shown. `None` when nothing was left out.
pub(super) fn tail(plan: &Plan<'_>, input: &TailInput<'_>, max: usize) -> Option<String> {
    if input.omitted.is_zero() {
        return None;
    }
    let files: Vec<usize> = (0..input.per_file.len())
        .filter(|&f| input.per_file[f] > 0)
        .collect();
    let in_files: u64 = input.per_file.iter().map(|&n| u64::from(n)).sum();
    // Some of what was left out cannot be placed in a file: the tool counted more than the parser
    // kept, or a diagnostic had no file.
    let plus = if input.omitted.total() > in_files {
        "+"
    } else {
        ""
    };
    let line = |place: &str| {
        let text = if input.shown_any {
            format!("… and {}{place}", left_out(input.omitted, true))
        } else {
            format!("… not shown: {}{place}", left_out(input.omitted, false))
        };
        format!("{INDENT}{}", field(&text))
    };
    let mut place = String::new();
    if !files.is_empty() {
        let noun = if files.len() == 1 && plus.is_empty() {
            "file"
        } else {
            "files"
        };
        place = format!(" in {}{plus} {noun}", files.len());
        if input.with_names {
            // Files no shown item names come first: they are news; those with errors before
            // those with only warnings.
            let errors = |f: usize| plan.error_files.get(f).copied().unwrap_or(false);
            let unnamed = (files.iter())
                .filter(|&&f| !input.named[f] && errors(f))
                .chain(files.iter().filter(|&&f| !input.named[f] && !errors(f)));
            let named = files.iter().filter(|&&f| input.named[f]);
            // Files shown above are named again only to fill the first few names.
            let news = files.iter().filter(|&&f| !input.named[f]).count();
            let listed: Vec<&str> = unnamed
                .chain(named)
                .take(news.clamp(NAMED_AGAIN, NAMED_FILES))
                .map(|&f| plan.display_file(f))
                .collect();
            // As many names as fit; at least the first, clipped if need be.
            let mut best = None;
            for k in 1..=listed.len() {
                let more = if files.len() > k { ", …" } else { "" };
                let text = line(&format!("{place}: {}{more}", listed[..k].join(", ")));
                if best.is_some() && !tokens::fits(&text, max) {
                    break;
                }
                best = Some(text);
            }
            if let Some(best) = best {
                return Some(clipped(&best, max));
            }
        }
    }
    Some(clipped(&line(&place), max))
}

/// The last line: `412/500 tokens · 37 errors not shown · full log: <path>`. `used` is left out
/// when `None`; `None` when there is nothing to say.
pub(super) fn footer(
    used: Option<usize>,
    budget: usize,
    omitted: Tally,
    logs: &[(&str, &str)],
) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(used) = used {
        parts.push(format!("{used}/{budget} tokens"));
    }
    if !omitted.is_zero() {
        parts.push(format!("{} not shown", left_out(omitted, false)));
    }
    match logs {
        [] => {}
        [(_, path)] => parts.push(format!("full log: {path}")),
        several => parts.push(several_logs(several)),
    }
    if parts.is_empty() {
        None
    } else {
        Some(field(&parts.join(" · ")))
    }
}

/// The directory part of `path`, with its separator; empty when there is none.
fn dir_of(path: &str) -> &str {
    path.rfind(['/', '\\']).map_or("", |i| &path[..=i])
}

/// `full logs in .verdict/logs/: tsc.log, jest.log` when the logs share a directory, otherwise
/// `full logs: tsc a/tsc.log, jest b/jest.log`.
fn several_logs(logs: &[(&str, &str)]) -> String {
    let dir = logs.first().map_or("", |(_, path)| dir_of(path));
    if !dir.is_empty() && logs.iter().all(|(_, path)| dir_of(path) == dir) {
        let names: Vec<&str> = logs.iter().map(|(_, path)| &path[dir.len()..]).collect();
        format!("full logs in {dir}: {}", names.join(", "))
    } else {
        let each: Vec<String> = logs
            .iter()
            .map(|(tool, path)| format!("{tool} {path}"))
            .collect();
        format!("full logs: {}", each.join(", "))
    }
}
