//! A failure's block → its diagnostic: each block read under `FAILURES` or `ERRORS` (or a
//! `--tb=line` line) is paired with the entry that names its test by node id, and failures named
//! only by an entry get a diagnostic of their own. [`failure_from_text`] reads one block for
//! [`crate::junit`].

use verdict_model::{Diagnostic, Kind, Report, Severity};

use super::block::{Block, BlockKind};
use super::entries::{Entry, entry_file, node_id, short_name};
use super::lines::{is_load_error, rootdir_from, same_file, same_line_message};
use super::parser::Parser;
use super::{MAX_MESSAGE, TOOL, XPASS_STRICT};
use crate::text::clip;

impl Parser {
    /// The diagnostics of the failure blocks, each paired with the entry that names its test.
    pub(super) fn push_block_diagnostics(&mut self, blocks: &[Block], report: &mut Report) {
        // `--tb=line` prints one line per failure, at the deepest frame (often not in the test
        // file), in the order of the short summary: walk both in order, pairing a line with the
        // next entry that has the same message or file (some failures, a strict xpass, print no
        // line).
        let failed: Vec<usize> = self
            .named()
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.error)
            .map(|(i, _)| i)
            .collect();
        let mut next = 0;
        for block in blocks {
            let assigned = if block.kind == BlockKind::Line {
                self.pair_line_block(block, &failed, &mut next)
            } else {
                None
            };
            if assigned.is_none()
                && block.kind == BlockKind::Line
                && block.last.is_none()
                && block
                    .fallback
                    .as_deref()
                    .is_some_and(|m| m.starts_with(XPASS_STRICT))
            {
                // A repeated strict-xpass reason: its test is already paired or in the summary.
                continue;
            }
            let d = self.block_diagnostic(block, assigned);
            report.push(d);
        }
    }

    /// The entry a `--tb=line` failure stands for: among the next few failed entries from `next`,
    /// the first with the same message or file; `next` moves past it.
    fn pair_line_block(
        &mut self,
        block: &Block,
        failed: &[usize],
        next: &mut usize,
    ) -> Option<(String, Option<String>)> {
        let list = if self.entries.is_empty() {
            &mut self.verbose
        } else {
            &mut self.entries
        };
        let file = block.last.as_ref().map_or("", |(f, _)| f.as_str());
        let message = block.fallback.as_deref().unwrap_or("");
        let xpass = block.last.is_none() && message.starts_with(XPASS_STRICT);
        for k in *next..failed.len().min(*next + 5) {
            let Some(e) = failed.get(k).and_then(|&i| list.get_mut(i)) else {
                break;
            };
            let entry_file = e.nodeid.split("::").next().unwrap_or("");
            let same_message = e
                .message
                .as_deref()
                .is_some_and(|m| same_line_message(m, message));
            let same_place = e.message.is_none() && same_file(file, entry_file);
            // pytest 8 names a strict xpass in the short summary without its reason.
            let bare_xpass = xpass && e.message.is_none();
            if !e.used && (same_message || same_place || bare_xpass) {
                e.used = true;
                *next = k + 1;
                return Some((e.nodeid.clone(), e.message.clone()));
            }
        }
        None
    }

    /// A block's diagnostic; `assigned` is the entry already paired with it, if any.
    fn block_diagnostic(
        &mut self,
        block: &Block,
        assigned: Option<(String, Option<String>)>,
    ) -> Diagnostic {
        let (message, detail) = block.message();
        match block.kind {
            BlockKind::Collect | BlockKind::Conftest => {
                self.load_diagnostic(block, message, detail)
            }
            BlockKind::Test | BlockKind::Setup | BlockKind::Line => {
                let found = self.find_entry(block, assigned);
                test_diagnostic(block, found, message, detail)
            }
        }
    }

    /// A test file or a conftest that did not import: the root cause of what follows.
    fn load_diagnostic(
        &mut self,
        block: &Block,
        message: Option<String>,
        detail: Option<String>,
    ) -> Diagnostic {
        let file = if block.kind == BlockKind::Collect {
            Some(block.title.clone())
        } else {
            // The conftest's own frame, relative, rather than the absolute path pytest names
            // it by.
            block
                .files
                .iter()
                .rev()
                .find(|(f, _)| f.ends_with("conftest.py") && !f.starts_with('/'))
                .or(block.files.first())
                .map(|(f, _)| f.clone())
                .or_else(|| Some(block.title.clone()))
        };
        if block.kind == BlockKind::Collect {
            for list in [&mut self.entries, &mut self.verbose] {
                if let Some(e) = list
                    .iter_mut()
                    .find(|e| e.error && !e.used && e.nodeid == block.title)
                {
                    e.used = true;
                }
            }
        }
        let message = message.unwrap_or_else(|| "could not import the test file".to_owned());
        let mut d = Diagnostic::new(
            TOOL,
            Kind::Test,
            Severity::Error,
            clip(&message, MAX_MESSAGE),
        );
        if let Some(file) = file {
            let line = block
                .syntax
                .as_ref()
                .filter(|(f, _)| *f == file)
                .or_else(|| block.files.iter().find(|(f, _)| *f == file))
                .map(|(_, n)| *n);
            d = d.at(file, line, None);
        }
        if let Some(detail) = detail {
            d = d.with_detail(detail);
        }
        d.as_root_cause()
    }

    /// The entry that names a failing test's block: the one already paired with it, the test a
    /// crashed worker names, or the one found by place or short name.
    fn find_entry(
        &mut self,
        block: &Block,
        assigned: Option<(String, Option<String>)>,
    ) -> Option<(String, Option<String>)> {
        if assigned.is_some() {
            assigned
        } else if let Some(nodeid) = &block.crashed {
            // A crashed xdist worker's block names the test only in its text.
            Some(self.take_entry_by_id(nodeid))
        } else if block.kind == BlockKind::Line {
            let file = block
                .last
                .as_ref()
                .map(|(f, _)| f.clone())
                .unwrap_or_default();
            self.take_line_entry(&file)
        } else {
            self.take_entry(block, block.kind == BlockKind::Setup)
        }
    }

    /// The failures named only by an entry: in the short summary (`--tb=no`, or more failures
    /// than blocks), or by `-v` when there is no short summary.
    pub(super) fn push_unpaired_entries(&self, report: &mut Report) {
        for e in self.entries.iter().filter(|e| !e.used) {
            report.push(entry_diagnostic(e));
        }
        if self.entries.is_empty() {
            for e in self.verbose.iter().filter(|e| !e.used) {
                let file = e.nodeid.split("::").next().unwrap_or("").to_owned();
                let mut d = Diagnostic::new(TOOL, Kind::Test, Severity::Error, "test failed")
                    .at(file, None, None)
                    .with_test(e.nodeid.clone());
                if e.error {
                    d = d.as_test_error();
                }
                report.push(d);
            }
        }
    }
}

/// A failing test's diagnostic, from its block and the entry `found` for it.
fn test_diagnostic(
    block: &Block,
    found: Option<(String, Option<String>)>,
    message: Option<String>,
    detail: Option<String>,
) -> Diagnostic {
    let (nodeid, entry_message) = match found {
        Some((id, m)) => (Some(id), m),
        None => (None, None),
    };
    let test_file = nodeid
        .as_deref()
        .and_then(|id| id.split("::").next().filter(|_| id.contains("::")))
        .map(str::to_owned)
        .or_else(|| {
            (block.kind == BlockKind::Test)
                .then(|| block.files.first().map(|(f, _)| f.clone()))
                .flatten()
        });
    let test = match (&nodeid, &test_file) {
        (Some(id), _) => Some(id.clone()),
        // pytest names a doctest `file::pkg.mod.f`: its dots are no classes.
        (None, Some(file)) if block.doctest => Some(format!("{file}::{}", block.title)),
        (None, Some(file)) if block.kind != BlockKind::Line => Some(node_id(file, &block.title)),
        _ if !block.title.is_empty() => Some(block.title.clone()),
        _ => None,
    };
    let place = test_place(block, test_file.as_deref());
    let message = message
        .or(entry_message)
        .unwrap_or_else(|| "test failed".to_owned());
    let root = is_load_error(&message);
    let mut d = Diagnostic::new(
        TOOL,
        Kind::Test,
        Severity::Error,
        clip(&message, MAX_MESSAGE),
    );
    if let Some((file, line)) = place {
        d = d.at(file, Some(line), None);
    } else if let Some(file) = test_file {
        d = d.at(file, None, None);
    }
    if let Some(test) = test {
        d = d.with_test(test);
    }
    if let Some(detail) = detail {
        d = d.with_detail(detail);
    }
    if root {
        d = d.as_root_cause();
    }
    if block.kind == BlockKind::Setup {
        // pytest counts a fixture that raised as an error around the test, not as the test
        // failing (`1 error`), and so must everything that reads this.
        d = d.as_test_error();
    }
    d
}

/// Where a failing test failed: its last line in the test's own file, else the block's last
/// place in the project.
fn test_place(block: &Block, test_file: Option<&str>) -> Option<(String, u32)> {
    test_file
        .and_then(|file| block.files.iter().find(|(f, _)| same_file(f, file)))
        .or(block.last.as_ref())
        .cloned()
        .map(|(file, line)| match test_file {
            // An absolute `--tb=line` path, now known to be the test file.
            Some(test_file) if file.starts_with('/') && file.ends_with(test_file) => {
                (test_file.to_owned(), line)
            }
            _ => (file, line),
        })
}

/// The diagnostic of a failure named only in the short summary.
fn entry_diagnostic(e: &Entry) -> Diagnostic {
    let message = e
        .message
        .clone()
        .unwrap_or_else(|| "test failed".to_owned());
    let collecting = !e.nodeid.contains("::");
    let mut d = Diagnostic::new(
        TOOL,
        Kind::Test,
        Severity::Error,
        clip(&message, MAX_MESSAGE),
    );
    let file = e.nodeid.split("::").next().unwrap_or("");
    if !file.is_empty() {
        d = d.at(file, None, None);
    }
    if collecting {
        return d.as_root_cause();
    }
    d = d.with_test(e.nodeid.clone());
    if is_load_error(&message) {
        d = d.as_root_cause();
    }
    if e.error {
        // `ERROR tests/a.py::test_x`: a fixture raised around the test.
        d = d.as_test_error();
    }
    d
}

/// `-q` prints no rootdir: finds it from an absolute path that ends with a file the log also
/// names relatively, and makes the remaining absolute paths relative.
pub(super) fn relative_to_found_rootdir(blocks: &[Block], report: &mut Report) {
    let relative: Vec<&str> = report
        .diagnostics
        .iter()
        .filter_map(|d| d.test.as_deref().and_then(|t| t.split("::").next()))
        .chain(
            blocks
                .iter()
                .flat_map(|b| b.files.iter().map(|(f, _)| f.as_str())),
        )
        .filter(|f| !f.starts_with('/'))
        .take(1000)
        .collect();
    let root = blocks
        .iter()
        .flat_map(|b| b.files.iter().map(|(f, _)| f.as_str()))
        .chain(report.diagnostics.iter().filter_map(|d| d.file.as_deref()))
        .filter(|f| f.starts_with('/'))
        .find_map(|abs| {
            relative
                .iter()
                .find(|r| same_file(abs, r))
                .map(|r| abs[..abs.len() - r.len()].to_owned())
        });
    let Some(root) = root else {
        return;
    };
    for d in &mut report.diagnostics {
        if let Some(rel) = d.file.as_deref().and_then(|f| f.strip_prefix(&*root)) {
            d.file = Some(rel.to_owned());
            d.refresh_fingerprint();
        }
    }
}

/// The diagnostic of one failure known by its node id, from the text pytest printed for it: the
/// body of its block under `FAILURES` or `ERRORS`, which is also the text of the failure's element
/// in `--junitxml` output. [`crate::junit`] uses it so that a failure read from the XML gets the
/// same message, place and fingerprint as the same failure read from the log.
///
/// A `nodeid` without `::` is a test file that failed to collect; `setup` marks an error in a
/// fixture (setup or teardown). `message` stands in when the text names no exception. Absolute
/// paths are made relative to `rootdir` (absolute, ending with `/`) when it is known, else to
/// the rootdir found from an absolute path to the test's own file, or to its first directory.
pub(crate) fn failure_from_text(
    nodeid: &str,
    setup: bool,
    text: &str,
    message: Option<&str>,
    rootdir: Option<&str>,
) -> Diagnostic {
    let file = entry_file(nodeid);
    let rootdir = rootdir.map(str::to_owned).or_else(|| {
        text.lines()
            .take(1000)
            .find_map(|line| rootdir_from(line, file))
            .or_else(|| {
                // `tests/test_x.py` failing in `/abs/tests/conftest.py`: the rootdir is what
                // comes before the test file's first directory in a path of the project.
                let (top, _) = file.split_once('/')?;
                text.lines().take(1000).find_map(|line| {
                    let line = line.trim_start_matches(['E', ' ']);
                    let line = line.strip_prefix("File \"").unwrap_or(line);
                    if !line.starts_with('/') || line.contains("/lib/python") {
                        return None;
                    }
                    let end = line.find(&format!("/{top}/"))?;
                    Some(format!("{}/", &line[..end]))
                })
            })
    });
    let mut block = if nodeid.contains("::") {
        let kind = if setup {
            BlockKind::Setup
        } else {
            BlockKind::Test
        };
        Block::new(kind, short_name(nodeid))
    } else {
        Block::new(BlockKind::Collect, nodeid.to_owned())
    };
    for line in text.lines() {
        block.line(line, rootdir.as_deref());
    }
    Parser::default().block_diagnostic(
        &block,
        Some((nodeid.to_owned(), message.map(str::to_owned))),
    )
}
