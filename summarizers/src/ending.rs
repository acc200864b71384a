//! How a log ended: the check every summarizer's report goes through, whatever the tool.
//!
//! A tool's parser knows its own output; it cannot know what the shell, the package manager or the
//! kernel wrote around it. Two things written there decide that a log is no pass:
//! - **the tool never ran**: a shell's `sh: 1: jest: not found` or `bash: jest: command not found`,
//!   `npm error Missing script: "test"`, the `tsc` placeholder package's "This is not the tsc
//!   command you are looking for", PowerShell's and cmd.exe's "is not recognized as …" — anywhere
//!   in the log;
//! - **the process did not end normally**: the log ends (package-manager noise aside) in a crash or
//!   a failing exit — `Segmentation fault (core dumped)`, `Killed`, `Aborted`, `Bus error`, a
//!   shell's or CI's "terminated by signal" and "exit code 137" notes, `npm error signal SIGSEGV`,
//!   `npm ERR! code 1`, pnpm's `ELIFECYCLE`, yarn's `error Command failed with exit code 1.`,
//!   make's `*** [test] Error 2`.
//!
//! Either makes a passed or errored report errored, with the line that says so. And a passed
//! report needs something of its tool's own ([`Report::evidence`]): a log with no line of it is
//! another tool's, an empty one is no pass but for a tool that prints nothing on success
//! ([`Summarizer::silent_on_success`]: tsc, eslint). A failed report
//! stays failed (its failures were read from the tool's own output, and `npm ERR!` after a failing
//! test run is how npm always ends one); the line becomes a note. [`Checked`] applies the check to
//! any summarizer; [`crate::all`] lists every summarizer wrapped in it, so `--tool` and the
//! verifiers that summarize by name go through it too.

use std::collections::VecDeque;
use std::io::{self, Read};
use std::sync::LazyLock;

use regex::RegexSet;
use verdict_model::lines::{self, Stats};
use verdict_model::{Evidence, Kind, LineParser, Outcome, Report, Summarizer};

use crate::text::clip;

/// How many of the last non-blank lines are kept to find how the log ended.
const TAIL_LINES: usize = 32;
/// How much of each kept line is kept.
const MAX_LINE: usize = 300;
/// How much of the end of an input is read for its last lines.
const TAIL_BYTES: usize = 16 * 1024;
/// Lines longer than this are not looked at for a sign that the tool never ran (those are short).
const MAX_SIGN_LINE: usize = 4096;
/// How many bytes of lines fed one at a time are gathered before they are scanned at once: a
/// regex per line would cost more than the parser reading it.
const BLOCK_BYTES: usize = 64 * 1024;

/// A summarizer whose reports also go through the check of how the log ended.
#[derive(Debug, Default, Clone, Copy)]
pub struct Checked<S>(pub S);

impl<S: Summarizer> Summarizer for Checked<S> {
    fn name(&self) -> &'static str {
        self.0.name()
    }

    fn kind(&self) -> Kind {
        self.0.kind()
    }

    fn sniff(&self, sample: &str) -> u8 {
        self.0.sniff(sample)
    }

    fn parser(&self) -> Box<dyn LineParser> {
        Box::new(CheckedParser {
            inner: self.0.parser(),
            ending: Ending::default(),
            tool: self.0.name(),
            silent: self.0.silent_on_success(),
        })
    }

    fn silent_on_success(&self) -> bool {
        self.0.silent_on_success()
    }

    // Some summarizers read their input whole (a JSON report) rather than line by line, so the
    // check reads the bytes beside them instead of wrapping their line parser.
    fn parse(&self, log: &[u8]) -> Report {
        // UTF-16 (PowerShell's `>`) is decoded first, so that the bytes read here are UTF-8 too.
        let log = &*verdict_model::encoding::to_utf8(log);
        let mut report = self.0.parse(log);
        let mut ending = Ending::default();
        ending.scan(log);
        ending.read_tail(log, false);
        ending.apply(&mut report);
        ending.require_own_output(&mut report, self.0.name(), self.0.silent_on_success());
        report
    }

    fn parse_reader(&self, reader: &mut dyn Read) -> io::Result<(Report, Stats)> {
        let mut decoded = verdict_model::encoding::Utf8Reader::new(reader);
        let mut observed = Observed {
            inner: &mut decoded,
            ending: Ending::default(),
            partial: Vec::new(),
            tail: Vec::new(),
            tail_cut: false,
        };
        let (mut report, stats) = self.0.parse_reader(&mut observed)?;
        let mut ending = observed.finish();
        ending.apply(&mut report);
        ending.require_own_output(&mut report, self.0.name(), self.0.silent_on_success());
        Ok((report, stats))
    }
}

/// A reader that shows what passes through it to an [`Ending`]: whole lines are scanned, the
/// last [`TAIL_BYTES`] kept.
struct Observed<'a> {
    inner: &'a mut dyn Read,
    ending: Ending,
    /// The unfinished last line read so far (at most [`MAX_SIGN_LINE`] bytes of it).
    partial: Vec<u8>,
    tail: Vec<u8>,
    /// Whether the tail has lost its start, so that its first line is a fragment.
    tail_cut: bool,
}

impl Read for Observed<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let data = &buf[..n];
        self.ending.saw_content(data);
        match memchr::memrchr(b'\n', data) {
            Some(end) => {
                if self.partial.is_empty() {
                    self.ending.scan(&data[..=end]);
                } else {
                    self.partial.extend_from_slice(&data[..=end]);
                    self.ending.scan(&self.partial);
                    self.partial.clear();
                }
                self.keep_partial(&data[end + 1..]);
            }
            None => self.keep_partial(data),
        }
        self.tail.extend_from_slice(data);
        if self.tail.len() > 2 * TAIL_BYTES {
            self.tail.drain(..self.tail.len() - TAIL_BYTES);
            self.tail_cut = true;
        }
        Ok(n)
    }
}

impl Observed<'_> {
    fn keep_partial(&mut self, data: &[u8]) {
        if self.partial.len() + data.len() <= MAX_SIGN_LINE {
            self.partial.extend_from_slice(data);
        } else {
            // Too long to be a shell's or a package manager's line.
            self.partial.clear();
        }
    }

    fn finish(mut self) -> Ending {
        self.ending.scan(&self.partial);
        let mut ending = self.ending;
        ending.read_tail(&self.tail, self.tail_cut);
        ending
    }
}

struct CheckedParser {
    inner: Box<dyn LineParser>,
    ending: Ending,
    tool: &'static str,
    silent: bool,
}

impl LineParser for CheckedParser {
    fn line(&mut self, line: &str) {
        self.ending.line(line);
        self.inner.line(line);
    }

    fn finish(mut self: Box<Self>) -> Report {
        let mut report = self.inner.finish();
        self.ending.apply(&mut report);
        self.ending
            .require_own_output(&mut report, self.tool, self.silent);
        report
    }
}

/// What the check has seen of a log: the first line that shows the tool never ran, and the last
/// non-blank lines.
#[derive(Default)]
pub struct Ending {
    /// Whether the log holds anything but whitespace (a line too long for the tail counts too).
    content: bool,
    never_ran: Option<String>,
    tail: VecDeque<String>,
    /// The lines fed by [`Ending::line`] since the last block was settled, each followed by
    /// `\n`; after a block, its last [`TAIL_BYTES`] stay, already scanned.
    block: String,
    /// Where the part of `block` not yet scanned starts.
    scanned: usize,
}

/// What every line [`NEVER_RAN`] matches holds: a cheap gate, run over whole inputs at once.
const NEVER_RAN_WORDS: &str = "not found|No such file or directory|issing script|not the tsc command|could not determine executable|ERR_PNPM_NO_SCRIPT|is not recognized as";

static NEVER_RAN_GATE_BYTES: LazyLock<regex::bytes::Regex> =
    LazyLock::new(|| regex::bytes::Regex::new(NEVER_RAN_WORDS).expect("valid regex"));

/// Lines that show the tool never ran.
static NEVER_RAN: LazyLock<RegexSet> = LazyLock::new(|| {
    RegexSet::new([
        // dash `sh: 1: jest: not found`, bash `bash: line 1: jest: command not found`, ash
        // `sh: jest: not found`, with or without the shell's path.
        r"^(?:/\S*/)?(?:ba|da|z|k|a)?sh: (?:line \d+: |\d+: )?[^:\s]+: (?:command )?not found$",
        r"^zsh: command not found: \S+",
        r"^(?:/\S*/)?(?:ba|da|z|k|a)?sh: (?:line \d+: |\d+: )?[^:\s]+: No such file or directory$",
        r"^env: \S+: No such file or directory$",
        r"This is not the tsc command you are looking for",
        r"^npm (?:ERR!|error) [Mm]issing script: ",
        r"^npm (?:ERR!|error) could not determine executable to run",
        r"ERR_PNPM_NO_SCRIPT",
        r#"^error Command "[^"]+" not found\."#,
        // Windows: PowerShell (`npx : The term 'npx' is not recognized …`) and cmd.exe.
        r"is not recognized as the name of a cmdlet",
        r"^'[^']+' is not recognized as an internal or external command",
    ])
    .expect("valid regexes")
});

/// Lines that end a run that did not end normally.
static ENDED: LazyLock<RegexSet> = LazyLock::new(|| {
    RegexSet::new([
        // bash `bash: line 1:  4242 Killed   cargo build`, `Segmentation fault (core dumped)`.
        // Alone, or as bash reports a job: the word, then the command after several spaces.
        r"^(?:(?:/\S*/)?(?:ba|da|k|a)?sh: (?:line \d+: )?)?(?:\s*\d+\s+)?(?:Segmentation fault|Killed|Aborted|Bus error|Illegal instruction|Floating point exception|Trace/breakpoint trap|Terminated|Quit)(?:\s*\(core dumped\)(?:\s+.*)?|\s{2,}.*)?$",
        r"^zsh: (?:segmentation fault|killed|abort|bus error|illegal hardware instruction|terminated)\b",
        r"(?i)terminated by signal",
        r"^make(?:\[\d+\])?: \*\*\* \[[^\]]*\] (?:Error \d+|Killed|Segmentation fault|Aborted)",
        r"(?i)\bexit(?:ed)?(?: with)? (?:code|status):? *(?:[1-9]\d*)\b",
        r"^npm (?:ERR!|error) (?:code|errno) (?:[1-9]\d*|ELIFECYCLE)\s*$",
        r"^npm (?:ERR!|error) signal \S+",
        r"^npm (?:ERR!|error) (?:Test failed|command failed|Lifecycle script)",
        r"^\s*ELIFECYCLE\s",
        r"^\s*ERR_PNPM_\w+",
        r"^error Command failed with (?:exit code [1-9]\d*|signal )",
    ])
    .expect("valid regexes")
});

/// Whether a line is what package managers and CI print after a run, saying nothing of it.
fn is_noise(line: &str) -> bool {
    line.starts_with("npm ")
        || line.starts_with("info Visit https://yarnpkg.com")
        || line.starts_with("make: Leaving directory")
        || (line.starts_with("make[") && line.contains("]: Leaving directory"))
        || line.starts_with("##[")
}

impl Ending {
    /// Feeds the next clean line. Lines are gathered and looked at a block at a time.
    pub fn line(&mut self, line: &str) {
        self.saw_content(line.as_bytes());
        self.block.push_str(line);
        self.block.push('\n');
        if self.block.len() >= BLOCK_BYTES {
            self.settle_block(false);
        }
    }

    /// Scans the lines gathered since the last block; keeps the last [`TAIL_BYTES`] of them
    /// for the end of the log, or, `at_end`, reads them as the log's last lines.
    fn settle_block(&mut self, at_end: bool) {
        let block = std::mem::take(&mut self.block);
        self.scan_clean(&block[self.scanned..]);
        if at_end {
            self.read_lines(&block);
            self.scanned = 0;
            return;
        }
        let mut start = block.len().saturating_sub(TAIL_BYTES);
        // Lines end in `\n`, so the byte after one starts a line, on a char boundary.
        start = memchr::memchr(b'\n', &block.as_bytes()[start..])
            .map_or(block.len(), |i| start + i + 1);
        self.block = block;
        self.block.drain(..start);
        self.scanned = self.block.len();
    }

    /// Notes whether `data` holds anything but whitespace, until something was seen.
    fn saw_content(&mut self, data: &[u8]) {
        if !self.content {
            self.content = data.iter().any(|b| !b.is_ascii_whitespace());
        }
    }

    /// Looks for a sign that the tool never ran in `text`, whole lines of an input.
    fn scan(&mut self, text: &[u8]) {
        self.saw_content(text);
        self.scan_with(text, lines::clean);
    }

    /// [`Ending::scan`] for lines that are clean already.
    fn scan_clean(&mut self, text: &str) {
        self.scan_with(text.as_bytes(), |line| {
            String::from_utf8_lossy(line).into_owned()
        });
    }

    fn scan_with(&mut self, text: &[u8], clean: impl Fn(&[u8]) -> String) {
        if self.never_ran.is_some() {
            return;
        }
        for found in NEVER_RAN_GATE_BYTES.find_iter(text) {
            let start = memchr::memrchr(b'\n', &text[..found.start()]).map_or(0, |i| i + 1);
            let end =
                memchr::memchr(b'\n', &text[found.end()..]).map_or(text.len(), |i| found.end() + i);
            if end - start > MAX_SIGN_LINE {
                continue;
            }
            let line = clean(&text[start..end]);
            let line = line.trim_end();
            if NEVER_RAN.is_match(line) {
                self.never_ran = Some(clip(line.trim(), MAX_LINE));
                return;
            }
        }
    }

    /// Keeps the last lines of `text`, clean lines each followed by `\n`.
    fn read_lines(&mut self, text: &str) {
        // Only the last lines stay, so only the end of a long text is read.
        let mut start = text.len().saturating_sub(TAIL_BYTES);
        if start > 0 {
            start = memchr::memchr(b'\n', &text.as_bytes()[start..])
                .map_or(text.len(), |i| start + i + 1);
        }
        for line in text[start..].split_terminator('\n') {
            self.keep(line);
        }
    }

    /// Keeps the last lines of `tail`, the end of an input; `cut` says its first line is a
    /// fragment.
    fn read_tail(&mut self, tail: &[u8], cut: bool) {
        let mut start = tail.len().saturating_sub(TAIL_BYTES);
        if cut || start > 0 {
            start = memchr::memchr(b'\n', &tail[start..]).map_or(tail.len(), |i| start + i + 1);
        }
        lines::for_each_line_in(&tail[start..], |line| self.keep(line));
    }

    fn keep(&mut self, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        // The lines gathered by `line` come after those kept here.
        debug_assert!(self.block.is_empty());
        let mut kept = if self.tail.len() == TAIL_LINES {
            self.tail.pop_front().unwrap_or_default()
        } else {
            String::new()
        };
        kept.clear();
        // As `clip` does, without a new string for every line of the log.
        let line = line.trim_end();
        match line
            .char_indices()
            .nth(MAX_LINE)
            .filter(|_| line.len() > MAX_LINE)
        {
            None => kept.push_str(line),
            Some((cut, _)) => {
                kept.push_str(&line[..cut]);
                kept.push('…');
            }
        }
        self.tail.push_back(kept);
    }

    /// The line the log ended in when it ended in a crash or a failing exit: the first of the
    /// last block of such lines (noise between them aside).
    fn ended_in(&self) -> Option<&str> {
        let mut found = None;
        for line in self.tail.iter().rev() {
            if ENDED.is_match(line) {
                found = Some(line.trim());
            } else if !is_noise(line) {
                break;
            }
        }
        found
    }

    /// Makes a passed or errored `report` errored when the log shows that the tool never ran or
    /// that the run did not end normally; adds a note to a failed one.
    pub fn apply(&mut self, report: &mut Report) {
        if !self.block.is_empty() || self.scanned > 0 {
            self.settle_block(true);
        }
        let never_ran = self
            .never_ran
            .as_deref()
            .map(|line| format!("the tool never ran: `{line}`"));
        let ended = self
            .ended_in()
            .map(|line| format!("the run did not end normally: the log ends in `{line}`"));
        if report.outcome == Outcome::Failed {
            for reason in [never_ran, ended].into_iter().flatten() {
                report.note(reason);
            }
            return;
        }
        let Some(reason) = never_ran.or(ended) else {
            return;
        };
        report.outcome = Outcome::Errored;
        // What the parser said stays after the reason, unless it says less: the same line again,
        // or only that the generic reader understood nothing.
        report.error = Some(match report.error.take() {
            Some(before)
                if !reason.contains(&before)
                    && before != crate::generic::UNPLACED
                    && before != crate::generic::EMPTY =>
            {
                format!("{reason}; {before}")
            }
            _ => reason,
        });
    }
}

impl Ending {
    /// Makes a passed `report` errored when nothing in the log is `tool`'s own output
    /// ([`Evidence::Nothing`]): another tool's log read as this one's, or an empty log of a tool
    /// that always prints something (`silent` says it does not).
    pub fn require_own_output(&self, report: &mut Report, tool: &str, silent: bool) {
        if report.outcome != Outcome::Passed || report.evidence() != Evidence::Nothing {
            return;
        }
        let reason = if self.content {
            format!(
                "nothing in the log is {tool}'s output: no line shows that {tool} ran (another \
                 tool's log?)"
            )
        } else if !silent {
            format!("the log is empty: {tool} prints its results on every run")
        } else {
            return;
        };
        report.outcome = Outcome::Errored;
        report.error = Some(reason);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(log: &str, outcome: Outcome) -> Report {
        let mut ending = Ending::default();
        for line in log.lines() {
            ending.line(line);
        }
        let mut report = Report::new("x", outcome);
        ending.apply(&mut report);
        report
    }

    fn errored(log: &str) -> String {
        let report = check(log, Outcome::Passed);
        assert_eq!(report.outcome, Outcome::Errored, "{log:?}");
        report.error.unwrap_or_default()
    }

    #[test]
    fn crashes_at_the_end_are_errored() {
        for log in [
            "ok 1\nSegmentation fault (core dumped)\n",
            "ok 1\nbash: line 1:  4242 Killed                  cargo build\n",
            "ok\nKilled\n",
            "ok\nAborted (core dumped)\n\n",
            "ok\nBus error\n",
            "ok\nzsh: segmentation fault  node x.js\n",
            "ok\nCommand terminated by signal 9\n",
            "ok\nError: Process completed with exit code 137.\n",
            "ok\nnpm ERR! code 1\nnpm ERR! path /app\nnpm ERR! A complete log of this run can be found in: x\n",
            "ok\nnpm error signal SIGSEGV\nnpm error command sh -c node x\n",
            "ok\n ELIFECYCLE  Test failed. See above for more details.\n",
            "ok\nerror Command failed with exit code 1.\ninfo Visit https://yarnpkg.com/en/docs/cli/run for documentation about this command.\n",
            "ok\nmake: *** [Makefile:2: test] Error 2\n",
        ] {
            errored(log);
        }
    }

    #[test]
    fn the_tool_never_ran() {
        for log in [
            "sh: 1: nonexistent-tool: not found\n",
            "/bin/sh: 1: jest: not found\n",
            "bash: line 1: jest: command not found\n",
            "bash: jest: command not found\n",
            "zsh: command not found: jest\n",
            "npm error Missing script: \"test\"\n",
            "npm ERR! missing script: test\n",
            "                This is not the tsc command you are looking for\n",
            "npx : The term 'npx' is not recognized as the name of a cmdlet, function, script file, or operable program.\n",
            "'jest' is not recognized as an internal or external command,\n",
        ] {
            assert!(errored(log).contains("never ran"), "{log:?}");
        }
    }

    #[test]
    fn what_follows_a_run_that_ended_normally_is_no_crash() {
        for log in [
            "Tests: 3 passed\nnpm notice New major version of npm available!\nnpm notice Run `npm install -g npm@11` to update!\n",
            "Killed\n3 passing (5ms)\n",
            "    console.log\n      Killed\nTests: 1 passed\n",
            "exit code 0\n",
            "Terminated successfully\n",
            "it says: command not found somewhere\n",
        ] {
            assert_eq!(
                check(log, Outcome::Passed).outcome,
                Outcome::Passed,
                "{log:?}"
            );
        }
    }

    #[test]
    fn a_failed_report_stays_failed_with_a_note() {
        let report = check("Tests: 1 failed\nnpm ERR! code 1\n", Outcome::Failed);
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(report.notes.len(), 1);
    }

    #[test]
    fn an_errored_report_keeps_its_reason_after_the_crash() {
        let mut ending = Ending::default();
        ending.line("Killed");
        let mut report = Report::errored("jest", "the log ends before jest's summary");
        ending.apply(&mut report);
        let error = report.error.unwrap_or_default();
        assert!(error.starts_with("the run did not end normally"));
        assert!(error.ends_with("the log ends before jest's summary"));
    }

    /// The line parser, the in-memory parse and the reader see the same ending.
    #[test]
    fn every_path_applies_the_check() {
        let summarizer = Checked(crate::generic::GenericSummarizer);
        let mut log = "a.c:3:1: warning: unused\n".repeat(5000);
        log.push_str("sh: 1: gcc: not found\n");
        log.push_str(&"x.c:1:1: warning: w\n".repeat(3000));
        log.push_str("\nSegmentation fault (core dumped)\nnpm error code 139\n");
        let in_memory = summarizer.parse(log.as_bytes());
        let (read, _) = summarizer
            .parse_reader(&mut io::BufReader::with_capacity(1000, log.as_bytes()))
            .expect("reads");
        let mut parser = summarizer.parser();
        lines::for_each_line_in(log.as_bytes(), |line| parser.line(line));
        let by_lines = parser.finish();
        for report in [&in_memory, &read, &by_lines] {
            assert_eq!(report.outcome, Outcome::Errored);
            assert!(
                report
                    .error
                    .as_deref()
                    .is_some_and(|e| e.starts_with("the tool never ran: `sh: 1: gcc: not found`")),
                "{:?}",
                report.error
            );
        }
        let crashed = "a.c:3:1: warning: unused\nSegmentation fault (core dumped)\n";
        let (read, _) = summarizer
            .parse_reader(&mut crashed.as_bytes())
            .expect("reads");
        assert_eq!(read.outcome, Outcome::Errored);
        assert_eq!(summarizer.parse(crashed.as_bytes()).error, read.error);
    }

    #[test]
    fn the_tail_is_bounded() {
        let mut ending = Ending::default();
        for i in 0..1000 {
            ending.line(&format!("line {i} {}", "x".repeat(1000)));
        }
        ending.settle_block(true);
        assert!((1..=TAIL_LINES).contains(&ending.tail.len()));
        assert!(ending.block.len() < BLOCK_BYTES);
        assert!(
            ending
                .tail
                .iter()
                .all(|l| l.chars().count() <= MAX_LINE + 1)
        );
    }
}
