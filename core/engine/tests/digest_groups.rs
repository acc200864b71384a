//! What the digest makes of big failures, on real captured logs: groups that say where to start,
//! messages that differ only in values grouped with their variants counted, failing tests grouped
//! by the shape of their assertion, and tails that name the files no line names first.
//!
//! Each test checks its property on the text and snapshots the digests, so that a change in how a
//! big failure reads is reviewed on output an agent would really receive.

use crate::support;

use std::collections::BTreeSet;

use verdict_core::digest::{self, Digest};
use verdict_core::{Report, Severity};

/// The report and digest of a captured log, within `budget` tokens.
fn digest_of(tool: &str, case: &str, budget: usize) -> (Report, Digest) {
    let summarizer = verdict_summarizers::by_name(tool).expect("a summarizer");
    let report = summarizer.parse(&support::log(tool, case));
    let log = format!("testdata/{tool}/{case}.log");
    let input = digest::Input {
        report: &report,
        log: Some(&log),
    };
    let digest = digest::render(&[input], &digest::Options::new(budget));
    (report, digest)
}

/// The item lines of a digest (indented, not the tail).
fn items(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|line| line.starts_with("  ") && !line.starts_with("  …"))
        .collect()
}

/// The group lines of a digest: items that say how many places they stand for.
fn groups(text: &str) -> Vec<&str> {
    items(text)
        .into_iter()
        .filter(|line| line.contains(" ×"))
        .collect()
}

/// The places a group line lists, after `: ` (all of them) or `, first ` (the first ones); a
/// failing test listed with its name (`test_div (tests/test_ops.py:13)`) gives its place.
fn places(group: &str) -> Vec<&str> {
    let list = group
        .rsplit_once(", first ")
        .or_else(|| group.rsplit_once(" files: "))
        .or_else(|| group.rsplit_once(" file: "))
        .or_else(|| {
            group
                .split_once(": ")
                .and_then(|(_, rest)| rest.rsplit_once(": "))
        })
        .map_or("", |(_, list)| list);
    list.split(", ")
        .filter(|place| *place != "…")
        .map(|place| {
            place
                .strip_suffix(')')
                .and_then(|named| named.rsplit_once(" ("))
                .map_or(place, |(_, place)| place)
        })
        .collect()
}

/// Each case's digest, with a title, for one snapshot.
fn shown(cases: &[(&str, &str, usize)]) -> String {
    let mut out = String::new();
    for &(tool, case, budget) in cases {
        let (_, digest) = digest_of(tool, case, budget);
        out.push_str(&format!(
            "== {tool}/{case} in {budget} tokens\n{}\n",
            digest.text
        ));
    }
    out
}

#[test]
fn each_group_starts_with_the_first_place_of_each_file() {
    let cases = [
        ("tsc", "ts7-many-errors-plain", 500),
        ("tsc", "ts7-many-errors-plain", 250),
        ("eslint", "many-problems", 500),
        ("cargo", "build-errors", 500),
    ];
    for &(tool, case, budget) in &cases {
        let (report, digest) = digest_of(tool, case, budget);
        let text = &digest.text;
        let groups = groups(text);
        assert!(!groups.is_empty(), "{case}: no group\n{text}");
        for group in groups {
            let listed = places(group);
            assert!(
                !listed.is_empty(),
                "{case}: a group without places: {group}"
            );
            // Each place is `file:line:col`. Each file's first place comes first, in the
            // report's order; the places after them are of files already listed.
            let mut last = None;
            let mut files_listed: Vec<&str> = Vec::new();
            for place in &listed {
                let index = report
                    .diagnostics
                    .iter()
                    .position(|d| {
                        let (Some(file), Some(line), Some(column)) = (&d.file, d.line, d.column)
                        else {
                            return false;
                        };
                        place.ends_with(&format!(":{line}:{column}"))
                            && file.ends_with(
                                &place[..place.len() - format!(":{line}:{column}").len()],
                            )
                    })
                    .unwrap_or_else(|| panic!("{case}: {place} is no diagnostic's place"));
                let file = place.split(':').next().unwrap_or_default();
                if files_listed.contains(&file) {
                    last = Some(usize::MAX);
                    continue;
                }
                assert!(
                    last.is_none_or(|last| last < index),
                    "{case}: a file's first place after another's later ones in {group}"
                );
                files_listed.push(file);
                last = Some(index);
            }
            // The files not named stay counted in the line.
            let named: BTreeSet<&str> = listed
                .iter()
                .filter_map(|place| place.split(':').next())
                .collect();
            if group.contains(", first ") {
                assert!(group.contains(" in "), "{case}: {group}");
            } else {
                let count = format!(
                    " in {} file{}:",
                    named.len(),
                    if named.len() == 1 { "" } else { "s" }
                );
                assert!(group.contains(&count), "{case}: {group} lacks {count:?}");
            }
        }
    }
    insta::assert_snapshot!(shown(&cases));
}

#[test]
fn messages_that_differ_in_values_group_with_their_variants_counted() {
    let cases = [
        ("eslint", "many-problems", 500),
        ("generic", "mypy-errors", 500),
        ("tsc", "ts49-related-plain", 150),
    ];
    for &(tool, case, budget) in &cases {
        let (report, digest) = digest_of(tool, case, budget);
        let text = &digest.text;
        let with_variants: Vec<&str> = groups(text)
            .into_iter()
            .filter(|group| group.contains(" variants)"))
            .collect();
        assert!(
            !with_variants.is_empty(),
            "{case}: no group of variants\n{text}"
        );
        // A group never mixes codes: every place it lists is a diagnostic with the group's code.
        for group in with_variants {
            let code = group.split_whitespace().find(|word| {
                report
                    .diagnostics
                    .iter()
                    .any(|d| d.code.as_deref() == Some(*word))
            });
            let Some(code) = code else { continue };
            for place in places(group) {
                let (file, line) = {
                    let mut parts = place.split(':');
                    (parts.next().unwrap_or(""), parts.next().unwrap_or(""))
                };
                assert!(
                    report.diagnostics.iter().any(|d| {
                        d.code.as_deref() == Some(code)
                            && d.file.as_deref().is_some_and(|f| f.ends_with(file))
                            && d.line.map(|l| l.to_string()).as_deref() == Some(line)
                    }),
                    "{case}: {place} in {group} is not a {code}"
                );
            }
        }
    }
    insta::assert_snapshot!(shown(&cases));
}

#[test]
fn failing_tests_with_the_same_assertion_shape_group_by_their_places() {
    let cases = [
        ("jest", "failing", 500),
        ("vitest", "failing", 500),
        ("mocha", "failing", 500),
        ("pytest", "failing", 500),
        ("jest", "jest29-many-suites", 120),
    ];
    for &(tool, case, budget) in &cases {
        let (report, digest) = digest_of(tool, case, budget);
        let text = &digest.text;
        let test_files: BTreeSet<&str> = report
            .diagnostics
            .iter()
            .filter(|d| d.is_failed_test())
            .filter_map(|d| d.file.as_deref())
            .collect();
        // A group of failing tests names its tests' files and lines.
        let test_groups: Vec<&str> = groups(text)
            .into_iter()
            .filter(|group| {
                places(group)
                    .iter()
                    .any(|place| test_files.iter().any(|file| place.starts_with(file)))
            })
            .collect();
        assert!(!test_groups.is_empty(), "{case}: no group of tests\n{text}");
        for group in test_groups {
            for place in places(group) {
                assert!(
                    place
                        .split(':')
                        .nth(1)
                        .is_some_and(|line| line.parse::<u32>().is_ok()),
                    "{case}: {place} has no line in {group}"
                );
            }
        }
    }
    insta::assert_snapshot!(shown(&cases));
}

#[test]
fn the_tail_names_the_files_no_line_names_first() {
    let cases = [
        ("tsc", "ts7-many-errors-plain", 250),
        ("eslint", "many-problems", 300),
        ("jest", "failing", 300),
        ("pytest", "failing", 300),
    ];
    for &(tool, case, budget) in &cases {
        let (report, digest) = digest_of(tool, case, budget);
        let text = &digest.text;
        let tail = text
            .lines()
            .find(|line| line.starts_with("  … "))
            .unwrap_or_else(|| panic!("{case}: no tail\n{text}"));
        let above = items(text).join("\n");
        let files: BTreeSet<&str> = report
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .filter_map(|d| d.file.as_deref())
            .collect();
        let named_above = |name: &str| support::digest_names(&above, name);
        let listed: Vec<&str> = tail
            .split_once(" files: ")
            .or_else(|| tail.split_once(" file: "))
            .map_or(Vec::new(), |(_, list)| {
                list.split(", ").filter(|name| *name != "…").collect()
            });
        assert!(!listed.is_empty(), "{case}: the tail names no file: {tail}");
        // Once a name the lines above already show appears, no new one follows.
        let first_old = listed.iter().position(|name| named_above(name));
        if let Some(first_old) = first_old {
            assert!(
                listed[first_old..].iter().all(|name| named_above(name)),
                "{case}: a file not named above comes after one that is: {tail}"
            );
        }
        // Every failing file is named somewhere, or the tail and groups count it.
        let named = files
            .iter()
            .filter(|file| support::digest_names(text, file))
            .count();
        assert!(
            named as u64 + digest.omitted_files >= files.len() as u64,
            "{case}: {named} of {} files named, {} counted",
            files.len(),
            digest.omitted_files
        );
    }
    insta::assert_snapshot!(shown(&cases));
}

#[test]
fn a_group_names_its_other_files_before_more_places_of_one() {
    // Two legacy files break `no-undef` eighty times each before thirty widgets break it once:
    // the group's line names widgets, not the legacy files' later lines.
    let cases = [
        ("eslint", "many-parse-errors", 500),
        ("eslint", "many-parse-errors", 300),
    ];
    for &(tool, case, budget) in &cases {
        let (_, digest) = digest_of(tool, case, budget);
        let text = &digest.text;
        let groups = groups(text);
        assert!(groups.len() >= 2, "{case}: fewer groups than two\n{text}");
        for group in groups {
            let files: Vec<&str> = places(group)
                .into_iter()
                .filter_map(|place| place.split(':').next())
                .collect();
            let distinct: BTreeSet<&str> = files.iter().copied().collect();
            let in_files: usize = group
                .split_once(" in ")
                .and_then(|(_, rest)| rest.split_once(" file"))
                .and_then(|(n, _)| n.parse().ok())
                .unwrap_or_else(|| panic!("{case}: no count of files in {group}"));
            assert!(
                distinct.len() == files.len() || distinct.len() == in_files,
                "{case}: a file listed twice while {} of {in_files} files are named: {group}\n{text}",
                distinct.len()
            );
        }
    }
    insta::assert_snapshot!(shown(&cases));
}
