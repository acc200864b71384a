//! Node ids: the `FAILED`/`ERROR` entries of the short summary and of `-v`, the tests `-v` names,
//! and how a block's short name finds its entry.

use std::collections::{HashMap, VecDeque};

use verdict_model::{TestCase, TestStatus};

use super::MAX_ENTRIES;
use super::block::Block;
use super::lines::{DOUBLE_COLON, RESULTS, is_result, same_file, subtest_failed, subtest_of};
use super::parser::Parser;

/// A failure named by node id: a `FAILED`/`ERROR` line of the short summary, or of `-v`.
#[derive(Debug)]
pub(super) struct Entry {
    pub(super) error: bool,
    pub(super) nodeid: String,
    pub(super) message: Option<String>,
    pub(super) used: bool,
}

/// The file of a node id: `tests/a.py::test_x` → `tests/a.py`.
pub(super) fn entry_file(nodeid: &str) -> &str {
    DOUBLE_COLON
        .find(nodeid.as_bytes())
        .map_or(nodeid, |i| &nodeid[..i])
}

/// Node ids by the short name their failure blocks show.
fn index_by_short_name(entries: &[Entry]) -> HashMap<String, Vec<usize>> {
    let mut index: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        index.entry(short_name(&e.nodeid)).or_default().push(i);
    }
    index
}

/// The short name a block shows for a node id: `tests/a.py::K::test_m[x]` → `K.test_m[x]`.
pub(super) fn short_name(nodeid: &str) -> String {
    match nodeid.split_once("::") {
        Some((_, rest)) => rest.replace("::", "."),
        None => nodeid.to_owned(),
    }
}

/// The node id a block's short name stands for in `file`: `K.test_m[x.y]` → `file::K::test_m[x.y]`.
pub(super) fn node_id(file: &str, short: &str) -> String {
    let mut out = String::with_capacity(file.len() + short.len() + 4);
    out.push_str(file);
    out.push_str("::");
    let mut depth = 0;
    for c in short.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            '.' if depth == 0 => {
                out.push_str("::");
                continue;
            }
            _ => {}
        }
        out.push(c);
    }
    out
}

/// `FAILED tests/a.py::test_x[a - b] - AssertionError: …` → node id and message.
pub(super) fn split_entry(rest: &str) -> (String, Option<String>) {
    // A parametrized id may itself hold ` - `: look for the separator after its brackets.
    let search_from = match (rest.find('['), rest.find(" - ")) {
        (Some(open), Some(dash)) if open < dash => rest[open..].find("] ").map_or(0, |i| open + i),
        _ => 0,
    };
    match rest[search_from..].find(" - ") {
        Some(i) => (
            rest[..search_from + i].to_owned(),
            Some(rest[search_from + i + 3..].to_owned()),
        ),
        None => (rest.trim_end().to_owned(), None),
    }
}

impl Parser {
    pub(super) fn summary_entry(&mut self, line: &str) -> bool {
        let (error, rest) = if let Some(rest) = line.strip_prefix("FAILED ") {
            (false, rest)
        } else if let Some(rest) = line.strip_prefix("ERROR ") {
            (true, rest)
        } else if let Some(rest) = subtest_failed(line) {
            (false, rest)
        } else {
            return false;
        };
        if self.entries.len() >= MAX_ENTRIES {
            if self.blocks.is_empty() {
                // `--tb=no`: the summary is the only record of these failures.
                self.dropped += 1;
            }
            return true;
        }
        let (nodeid, message) = split_entry(rest);
        {
            self.entries.push(Entry {
                error,
                nodeid,
                message,
                used: false,
            });
        }
        true
    }

    /// `tests/a.py::test_x FAILED    [ 10%]` (`-v`), or `[gw0] [ 10%] FAILED tests/a.py::test_x`
    /// (pytest-xdist).
    pub(super) fn verbose_entry(&mut self, line: &str) {
        if !line.contains("::") {
            return;
        }
        if !self.xdist {
            self.track_running(line);
        }
        self.verbose_test(line);
        let (error, nodeid) = if let Some(rest) = line.strip_prefix("[gw") {
            self.xdist = true;
            let rest = rest.split_once("] ").map_or("", |(_, r)| r);
            let rest = rest.split_once("] ").map_or(rest, |(_, r)| r);
            if let Some(id) = rest.strip_prefix("FAILED ") {
                (false, id)
            } else if let Some(id) = rest.strip_prefix("ERROR ") {
                (true, id)
            } else {
                return;
            }
        } else {
            let line = line.split(" [").next().unwrap_or(line).trim_end();
            if let Some(id) = line.strip_suffix(" FAILED") {
                (false, id)
            } else if let Some(id) = line.strip_suffix(" ERROR") {
                (true, id)
            } else {
                return;
            }
        };
        if self.verbose.len() < MAX_ENTRIES {
            self.verbose.push(Entry {
                error,
                nodeid: nodeid.trim().to_owned(),
                message: None,
                used: false,
            });
        }
    }

    /// A test's result as `-v` prints it, for the report's tests: `tests/a.py::test_x PASSED
    /// [ 10%]`, or pytest-xdist's `[gw0] [ 10%] PASSED tests/a.py::test_x`.
    fn verbose_test(&mut self, line: &str) {
        let (word, nodeid) = if let Some(rest) = line.strip_prefix("[gw") {
            let rest = rest.split_once("] ").map_or("", |(_, r)| r);
            let rest = rest.split_once("] ").map_or(rest, |(_, r)| r);
            match rest.split_once(' ') {
                Some((word, nodeid)) => (word, nodeid.trim()),
                None => return,
            }
        } else {
            // The result follows the node id's last part, and a reason may follow it
            // (`SKIPPED (not ready)`, `XFAIL (flaky)`), then the progress (` [ 10%]`).
            let Some(last_part) = line.rfind("::") else {
                return;
            };
            let tail = &line[last_part..];
            let found = match tail.find(' ') {
                // The usual node id, without a space in its parameters: the result is the word
                // after it, or the line is no result.
                Some(space) if !tail[..space].contains('[') || tail[..space].ends_with(']') => {
                    let at = last_part + space;
                    let word = line[at + 1..].split(' ').next().unwrap_or("");
                    RESULTS
                        .iter()
                        .any(|result| &result[1..] == word)
                        .then_some((at, word))
                }
                _ => RESULTS
                    .iter()
                    .filter_map(|word| {
                        let at = last_part + tail.find(word)?;
                        let end = at + word.len();
                        let ends = line[end..].is_empty() || line[end..].starts_with(' ');
                        ends.then_some((at, &word[1..]))
                    })
                    .min_by_key(|(at, _)| *at),
            };
            match found {
                Some((at, word)) => (word, line[..at].trim()),
                None => return,
            }
        };
        let status = match word {
            // An unexpected pass counts apart from the passed tests, but it passed.
            "PASSED" | "XPASS" => TestStatus::Passed,
            "FAILED" => TestStatus::Failed,
            "ERROR" => TestStatus::Errored,
            "SKIPPED" | "XFAIL" => TestStatus::Skipped,
            _ => return,
        };
        if !nodeid.contains("::") || nodeid.contains(' ') && !nodeid.contains('[') {
            return;
        }
        if status == TestStatus::Errored
            && let Some(last) = self.tests.last_mut()
            && last.status == TestStatus::Passed
            && last.name == nodeid
        {
            // A test that passed and whose fixture then failed in tear-down: pytest counts a
            // pass and an error, and its JUnit report (pytest 9) one test, errored.
            last.status = TestStatus::Errored;
            self.teardown_errors += 1;
            return;
        }
        if self.tests.len() < verdict_model::model::MAX_TESTS {
            self.tests.push(TestCase {
                name: nodeid.to_owned(),
                file: Some(entry_file(nodeid).to_owned()),
                status,
                duration_ms: None,
            });
        } else {
            self.tests_dropped += 1;
        }
    }

    /// `tests/a.py::test_x PASSED [ 50%]` ends a test; `tests/a.py::test_y ` with no result (yet)
    /// starts one, whose result comes later on the line or on a line of its own.
    fn track_running(&mut self, line: &str) {
        let Some(at) = line.find(".py::") else {
            return;
        };
        if line[..at].contains(' ') {
            return;
        }
        let (nodeid, rest) = line.split_once(' ').unwrap_or((line, ""));
        self.running = (!is_result(rest.trim_start())).then(|| nodeid.to_owned());
    }

    /// Finds the entry a block stands for, by short name and place: an `ERROR` entry for an error
    /// in a fixture, a `FAILED` one for a failing test.
    pub(super) fn take_entry(
        &mut self,
        block: &Block,
        error: bool,
    ) -> Option<(String, Option<String>)> {
        self.take_entry_of(block, error).or_else(|| {
            // pytest-sugar names an error in a fixture `FAILED` in its short summary.
            if error {
                self.take_entry_of(block, false)
            } else {
                None
            }
        })
    }

    fn take_entry_of(&mut self, block: &Block, error: bool) -> Option<(String, Option<String>)> {
        for (list, index) in [
            (&mut self.entries, &self.entry_index),
            (&mut self.verbose, &self.verbose_index),
        ] {
            // A failing subtest's block is titled `K.test_m (i=1)`, its entry names `K.test_m`.
            let Some(candidates) = index
                .get(&block.title)
                .or_else(|| index.get(subtest_of(&block.title)?))
            else {
                continue;
            };
            let mut chosen = None;
            for &i in candidates {
                let Some(e) = list.get(i) else { continue };
                if e.used || e.error != error {
                    continue;
                }
                let file = entry_file(&e.nodeid);
                let in_block = block.files.iter().any(|(f, _)| same_file(f, file));
                if chosen.is_none() || in_block {
                    chosen = Some(i);
                    if in_block {
                        break;
                    }
                }
            }
            if let Some(i) = chosen
                && let Some(e) = list.get_mut(i)
            {
                e.used = true;
                return Some((e.nodeid.clone(), e.message.clone()));
            }
        }
        None
    }

    /// The entry of the failure `nodeid`, marked used; the node id alone when no entry names it.
    pub(super) fn take_entry_by_id(&mut self, nodeid: &str) -> (String, Option<String>) {
        for list in [&mut self.entries, &mut self.verbose] {
            if let Some(e) = list
                .iter_mut()
                .find(|e| !e.used && !e.error && e.nodeid == nodeid)
            {
                e.used = true;
                return (e.nodeid.clone(), e.message.clone());
            }
        }
        (nodeid.to_owned(), None)
    }

    /// Finds the `FAILED` entry of a `--tb=line` failure: the first unused one in its file.
    pub(super) fn take_line_entry(&mut self, file: &str) -> Option<(String, Option<String>)> {
        let key = if self.line_index.contains_key(file) {
            file.to_owned()
        } else {
            // An absolute path (no rootdir known): the file it ends with.
            self.line_index
                .keys()
                .take(1000)
                .find(|k| same_file(file, k))?
                .clone()
        };
        let list = if self.entries.is_empty() {
            &mut self.verbose
        } else {
            &mut self.entries
        };
        let queue = self.line_index.get_mut(&key)?;
        while let Some(i) = queue.pop_front() {
            if let Some(e) = list.get_mut(i)
                && !e.used
            {
                e.used = true;
                return Some((e.nodeid.clone(), e.message.clone()));
            }
        }
        None
    }
}

impl Parser {
    /// The entries failures are named by: the short summary's, or `-v`'s without one.
    pub(super) fn named(&self) -> &[Entry] {
        if self.entries.is_empty() {
            &self.verbose
        } else {
            &self.entries
        }
    }

    /// Indexes the entries by short name, and the failed ones by file, once all are read.
    pub(super) fn index_entries(&mut self) {
        self.entry_index = index_by_short_name(&self.entries);
        self.verbose_index = index_by_short_name(&self.verbose);
        let mut line_index: HashMap<String, VecDeque<usize>> = HashMap::new();
        for (i, e) in self.named().iter().enumerate().filter(|(_, e)| !e.error) {
            line_index
                .entry(entry_file(&e.nodeid).to_owned())
                .or_default()
                .push_back(i);
        }
        self.line_index = line_index;
    }
}
