//! One log, several tools: a CI job or an `npm run ci` that runs eslint, then tsc, then jest is
//! split into one section per run while it streams, each read by the summarizer that recognises it.
//!
//! A section ends where the log itself says so:
//! - a runner announces the next command: npm and pnpm's `> name@version script` header, yarn's
//!   `yarn run v1.22.22`, a `$ command` echo (yarn, GitLab), make's `Entering directory`, a GitHub
//!   Actions step (`##[group]Run …`), and in monorepos nx's `> nx run app:lint`, lerna's `lerna
//!   info run Ran npm script …` and pnpm's `packages/a lint$ eslint .`;
//! - the tool printed the line that ends its run ([`ending_tool`]): tsc's `Found 3 errors`,
//!   eslint's `✖ 4 problems`, jest's `Ran all test suites.`, vitest's `Duration`, pytest's last
//!   `=== … in 1.2s ===` line. What follows is held back (a few KiB): it is a new section only when
//!   another tool's run is recognised there; otherwise (npm's `ERR!` lines, a CI's exit note) it is the tail of the run
//!   before, and goes to its parser.
//!
//! The tool of a section is chosen as `verdict summarize` chooses it for stdin: from the
//! section's first [`SAMPLE_BYTES`] (the whole section when it is shorter), else every summarizer
//! reads the section and the choice is made at its end, from its start and its last lines. So a
//! log of one tool is read exactly as before, and the held-back start of each section is the only
//! memory this adds. The command the runner announced counts too, where its program is a tool we
//! read (`> tsc --noEmit`, `##[group]Run npx eslint .`): it outweighs a section that only mentions
//! another tool, and a package install's list of packages is read by no tool's parser. A tool
//! that prints nothing when it passes (tsc, eslint) passed when its section is blank and the runner
//! went on to its next command; a test runner's blank section (shards started at once, whose
//! output comes later) says nothing.
//!
//! Runs of the same tool are one report (a monorepo's jest in each package, vitest run twice),
//! with the counts summed and the worst outcome. A section no summarizer recognises (a package
//! install, a build's chatter) is left out when other sections were read, unless it shows a
//! failure or a crash.

use std::collections::VecDeque;
use std::io::{self, Read};
use verdict_model::Tool;

use verdict_model::lines::{self, Stats};
use verdict_model::{LineParser, Outcome, Report, Summarizer};

use crate::{MIN_CONFIDENCE, SAMPLE_BYTES, detect, generic};

/// How many times the start of a section is sniffed because a line looked like the end of a run,
/// so that a log full of such lines costs no more than a few detections.
const MAX_END_CHECKS: u32 = 16;

/// Parses `log` into one report per tool, in the order the tools first appear.
pub fn summarize_all(log: &[u8]) -> Vec<Report> {
    if crate::document::starts_as_document(log) {
        return vec![crate::summarize(log)];
    }
    // A log held in memory can be sampled at both ends, as a file is.
    let mut sections = Sections::with_hint(detect(&crate::sample(log)).summarizer);
    lines::for_each_line_in(log, |line| sections.line(line));
    redacted(sections.finish())
}

/// `reports` with every text redacted: what a summarizer set directly, beside what
/// [`Report::push`] already redacted.
fn redacted(mut reports: Vec<Report>) -> Vec<Report> {
    reports.iter_mut().for_each(Report::redact);
    reports
}

/// [`summarize_all`] for a reader, in bounded memory: what the reader saw comes back beside the
/// reports.
pub fn summarize_all_reader(reader: &mut dyn Read) -> io::Result<(Vec<Report>, Stats)> {
    summarize_all_reader_with(reader, Sections::default())
}

/// [`summarize_all_reader`] with a splitter made beforehand ([`Sections::with_hint`]).
pub fn summarize_all_reader_with(
    reader: &mut dyn Read,
    mut sections: Sections,
) -> io::Result<(Vec<Report>, Stats)> {
    let mut head = Vec::with_capacity(4096);
    (&mut *reader).take(4096).read_to_end(&mut head)?;
    if crate::document::starts_as_document(&head) {
        (&mut *reader)
            .take((SAMPLE_BYTES - head.len()) as u64)
            .read_to_end(&mut head)?;
        let summarizer = match sections.hint {
            Some(hint) => hint,
            None => detect(&lines::clean(&head)).summarizer,
        };
        let (report, stats) = summarizer.parse_reader(&mut io::Cursor::new(head).chain(reader))?;
        return Ok((redacted(vec![report]), stats));
    }
    let stats = lines::for_each_line(io::Cursor::new(head).chain(reader), |line| {
        sections.line(line)
    })?;
    Ok((redacted(sections.finish()), stats))
}

/// How much of what follows a run's end is held before it is first sniffed; then twice as
/// much, and so on. Small, because most often the same tool goes on, which its own sniff of a
/// few lines tells.
const FIRST_SNIFF: usize = 256;

/// How much of what follows a run's end is held to see whether another tool's run starts
/// there; when none is recognised by then, it is the run's own tail. Small, so that a log of
/// one tool that prints its end line often costs little.
const AFTER_END: usize = 2048;

/// How sure a summarizer must be that what follows a run's end is its tool's run.
const SWITCH_CONFIDENCE: u8 = 60;

/// The streaming splitter: feed it lines, then take the reports.
#[derive(Default)]
pub struct Sections {
    /// One report per tool and CI job of the finished sections, in the order they first
    /// appeared, with how many runs each merges.
    done: Vec<Done>,
    /// The CI job the current section belongs to (`gh run view --log` names it on every line).
    job: Option<String>,
    /// The first section that said nothing ([`says_nothing`]), kept for a log of only such.
    noise: Option<Report>,
    /// A run a `$ command` echo cut before its last line: unless the next section is surely
    /// another tool's, its parser reads on (a `$ ls` a test printed is no new command).
    suspended: Option<Run>,
    /// Whether the section being closed was cut by a `$ command` echo.
    echo_cut: bool,
    current: Current,
    /// The summarizer the whole log's start and end point to, for a first section whose start
    /// does not tell (a file can be sampled at both ends; a stream cannot).
    hint: Option<&'static dyn Summarizer>,
    /// The command the runner announced for the current section (`tsc --noEmit`), at most
    /// [`MAX_COMMAND`] bytes of it.
    command: Option<String>,
    /// The last line was npm's or pnpm's script header: the next `> …` line is its command.
    command_next: bool,
}

/// A finished tool's report, how many runs it merges, and the CI job they ran in.
struct Done {
    report: Report,
    runs: usize,
    job: Option<String>,
}

/// The longest announced command kept; the program that runs comes first.
const MAX_COMMAND: usize = 256;

/// The confidence at which what a section printed outweighs the command it announced: below
/// it, a section only mentions a tool (`vitest` in a package list) rather than showing its run.
const STRONG: u8 = 70;

/// The section being read.
enum Current {
    /// Its tool is not known yet: its lines are held.
    Undecided(Held),
    /// Its tool is known.
    Decided(Run),
    /// Its start did not tell the tool: every summarizer reads it.
    Fanning(FanOut),
}

impl Default for Current {
    fn default() -> Self {
        Current::Undecided(Held::default())
    }
}

/// What a line asks of the splitter once it is read.
enum Action {
    /// Nothing more.
    Read,
    /// The held lines are as many as are held: choose their tool now.
    DecideHeld,
    /// A line after a run's end may start another run (`force`: decide now whatever they are).
    AfterEnd { force: bool },
    /// Lines after a run's end: its own tool may say they are more of its output.
    OwnAfterEnd,
    /// The line ends a run of this tool: the section is that run if its start says so too.
    EndIfRecognised(&'static str),
}

/// Lines held back until the tool that wrote them is known.
#[derive(Default)]
struct Held {
    /// The lines, each followed by `\n`.
    text: String,
    /// Whether a line other than the runner's announcement holds text.
    said: bool,
    /// How many lines looked like the end of a run and made us sniff.
    end_checks: u32,
    /// The size at which the held lines are next sniffed, doubling each time, so that what a
    /// run prints after its summary goes back to it soon, at a cost linear in the log.
    next_sniff: usize,
}

impl Held {
    fn push(&mut self, line: &str) {
        self.said |= !line.trim().is_empty();
        self.push_announcement(line);
    }

    /// Holds a line of the runner's announcement (its header, its command), which says nothing
    /// of the run.
    fn push_announcement(&mut self, line: &str) {
        self.text.push_str(line);
        self.text.push('\n');
    }

    /// The tool whose run `line` ends, while the number of such checks stays small.
    fn check_end(&mut self, line: &str) -> Option<&'static str> {
        if self.end_checks >= MAX_END_CHECKS {
            return None;
        }
        let tool = ending_tool(line)?;
        self.end_checks += 1;
        Some(tool)
    }

    /// Whether the held lines grew enough since they were last sniffed.
    fn sniff_due(&mut self) -> bool {
        if self.text.len() < self.next_sniff.max(FIRST_SNIFF) {
            return false;
        }
        self.next_sniff = self.text.len() * 2;
        true
    }

    fn is_blank(&self) -> bool {
        !self.said
    }

    fn full(&self) -> bool {
        self.text.len() >= SAMPLE_BYTES
    }

    /// The summarizer that recognises the held lines, when one is sure enough.
    fn recognised(&self) -> Option<&'static dyn Summarizer> {
        self.recognised_at(MIN_CONFIDENCE)
    }

    /// The summarizer that recognises the held lines at `confidence` or more.
    fn recognised_at(&self, confidence: u8) -> Option<&'static dyn Summarizer> {
        let detection = detect(&self.text);
        (detection.confidence >= confidence && detection.summarizer.name() != "generic")
            .then_some(detection.summarizer)
    }

    /// Feeds the held lines to `parser`.
    fn replay(&self, parser: &mut dyn LineParser) {
        for line in self.text.lines() {
            parser.line(line);
        }
    }
}

/// A section whose tool is known.
struct Run {
    summarizer: &'static dyn Summarizer,
    parser: Box<dyn LineParser>,
    /// The tool's name when it prints a line that ends its run ([`ending_tool`]): the others'
    /// lines are not looked at for one.
    ends_with: Option<&'static str>,
    /// The lines after the line that ended the run, when it printed one.
    after_end: Option<Held>,
}

impl Run {
    fn start(summarizer: &'static dyn Summarizer, held: &Held) -> Run {
        let mut parser = summarizer.parser();
        held.replay(parser.as_mut());
        Run {
            summarizer,
            parser,
            ends_with: ends_with_line(summarizer.name()),
            after_end: None,
        }
    }

    /// Gives the lines held after the run's end to its parser: they were its tail.
    fn take_back(&mut self) {
        if let Some(held) = self.after_end.take() {
            held.replay(self.parser.as_mut());
        }
    }
}

impl Sections {
    /// A splitter that reads a first section whose start does not tell its tool with `hint`, the
    /// summarizer detected from the start and the end of the whole log.
    pub fn with_hint(hint: &'static dyn Summarizer) -> Sections {
        Sections {
            hint: Some(hint),
            ..Sections::default()
        }
    }

    /// Reads the next line.
    pub fn line(&mut self, line: &str) {
        // Most lines are a known tool's output that announces nothing: they go straight to its
        // parser.
        if !self.command_next
            && let Current::Decided(run) = &mut self.current
            && run.after_end.is_none()
            && announcement(line).is_none()
        {
            run.parser.line(line);
            if run.ends_with.is_some() && ending_tool(line) == run.ends_with {
                run.after_end = Some(Held::default());
            }
            return;
        }
        self.line_slow(line);
    }

    /// [`Sections::line`] for a line that may change the section.
    fn line_slow(&mut self, line: &str) {
        let mut announcing = false;
        if self.command_next {
            self.command_next = false;
            if let Some(command) = line.strip_prefix("> ") {
                self.command = Some(crate::text::clip(command.trim(), MAX_COMMAND));
                announcing = true;
            }
        }
        // A `$ command` echo is also what a test prints of a shell session: it does not cut a
        // section whose tool is still unknown, and the run it cuts may go on after it.
        let echo = line.starts_with("$ ");
        let holding = matches!(&self.current, Current::Undecided(held) if !held.is_blank());
        if let Some(announced) = announcement(line).filter(|_| !(echo && holding)) {
            announcing = true;
            self.echo_cut = echo;
            self.close(true);
            self.echo_cut = false;
            self.command = None;
            match announced {
                Announced::Job(job) => self.job = Some(job.to_owned()),
                Announced::Header => self.command_next = true,
                Announced::Command(command) => {
                    self.command = Some(crate::text::clip(command.trim(), MAX_COMMAND));
                }
                Announced::Nothing => {}
            }
        }
        let action = match &mut self.current {
            Current::Undecided(held) => {
                if announcing {
                    held.push_announcement(line);
                } else {
                    held.push(line);
                }
                if held.full() {
                    Action::DecideHeld
                } else {
                    held.check_end(line)
                        .map_or(Action::Read, Action::EndIfRecognised)
                }
            }
            Current::Decided(run) => match &mut run.after_end {
                None => {
                    run.parser.line(line);
                    if run.ends_with.is_some() && ending_tool(line) == run.ends_with {
                        run.after_end = Some(Held::default());
                    }
                    Action::Read
                }
                Some(held) => {
                    held.push(line);
                    if held.text.len() >= AFTER_END {
                        Action::AfterEnd { force: true }
                    } else if held.check_end(line).is_some() {
                        Action::AfterEnd { force: false }
                    } else if held.sniff_due() {
                        Action::OwnAfterEnd
                    } else {
                        Action::Read
                    }
                }
            },
            Current::Fanning(fan_out) => {
                fan_out.line(line);
                Action::Read
            }
        };
        match action {
            Action::Read => {}
            Action::DecideHeld => self.decide_held(false),
            Action::AfterEnd { force } => self.after_end_decide(force),
            Action::OwnAfterEnd => {
                if let Current::Decided(run) = &mut self.current
                    && run
                        .after_end
                        .as_ref()
                        .is_some_and(|held| run.summarizer.sniff(&held.text) >= MIN_CONFIDENCE)
                {
                    run.take_back();
                }
            }
            Action::EndIfRecognised(tool) => {
                if let Current::Undecided(held) = &mut self.current
                    && let Some(summarizer) = held.recognised().filter(|s| s.name() == tool)
                {
                    let held = std::mem::take(held);
                    let mut run = self.start_run(summarizer, &held);
                    run.after_end = Some(Held::default());
                    self.current = Current::Decided(run);
                }
            }
        }
    }

    /// Ends the log and returns one report per tool.
    pub fn finish(mut self) -> Vec<Report> {
        self.close(false);
        if let Some(run) = self.suspended.take() {
            self.push_done(Current::Decided(run));
        }
        if self.done.is_empty() {
            return vec![
                self.noise
                    .unwrap_or_else(|| Report::errored("generic", generic::EMPTY)),
            ];
        }
        // Each job ran on its own machine: its reports say which it is once there are several.
        let first_job = self.done[0].job.clone();
        let several_jobs = self.done.iter().any(|d| d.job != first_job);
        self.done
            .into_iter()
            .map(
                |Done {
                     mut report,
                     runs,
                     job,
                 }| {
                    if runs > 1 {
                        report.note(format!("{runs} runs of {} in one log", report.tool));
                    }
                    if let Some(job) = job.filter(|_| several_jobs) {
                        // First, so that the digest finds it however many notes the parser left.
                        report
                            .notes
                            .insert(0, format!("{}`{job}`", verdict_model::JOB_NOTE));
                    }
                    report
                },
            )
            .collect()
    }

    /// Chooses the tool of the held lines of an undecided section: the one that recognises them,
    /// or, when none does and the section may go on (`at_end` false), every summarizer at once.
    fn decide_held(&mut self, at_end: bool) {
        let command_tool = self.command_tool();
        let Current::Undecided(held) = &mut self.current else {
            return;
        };
        let held = std::mem::take(held);
        let detection = detect(&held.text);
        let first = self.done.is_empty() && self.noise.is_none() && self.suspended.is_none();
        // What the section printed decides, unless it only mentions a tool and the runner
        // announced which tool it runs.
        let weak = detection.confidence < STRONG;
        let chosen = match command_tool {
            Some(summarizer) if weak => Some(summarizer),
            // A package install lists the packages it adds, test runners among them.
            None if weak && self.command.as_deref().is_some_and(installs) => Some(crate::GENERIC),
            _ if at_end || detection.confidence >= MIN_CONFIDENCE => Some(detection.summarizer),
            _ => None,
        };
        let another = chosen.filter(|s| {
            self.suspended
                .as_ref()
                .is_some_and(|run| run.summarizer.name() != s.name())
                && s.name() != "generic"
                && (detection.confidence >= SWITCH_CONFIDENCE
                    || command_tool.is_some_and(|c| c.name() == s.name()))
        });
        if let Some(run) = self.suspended.as_ref().filter(|_| another.is_none()) {
            // Nothing says another tool runs: more of the run the echo cut.
            let summarizer = run.summarizer;
            self.current = Current::Decided(self.start_run(summarizer, &held));
        } else if let Some(summarizer) = chosen {
            self.current = Current::Decided(self.start_run(summarizer, &held));
        } else if let Some(hint) = self.hint.filter(|_| first) {
            self.current = Current::Decided(self.start_run(hint, &held));
        } else {
            if let Some(run) = self.suspended.take() {
                self.push_done(Current::Decided(run));
            }
            self.current = Current::Fanning(FanOut::new(held));
        }
    }

    /// The run of a section whose tool is chosen: the suspended run read on when it is the same
    /// tool's, else a new one (the suspended run then finished).
    fn start_run(&mut self, summarizer: &'static dyn Summarizer, held: &Held) -> Run {
        match self.suspended.take() {
            Some(mut run) if run.summarizer.name() == summarizer.name() => {
                held.replay(run.parser.as_mut());
                run
            }
            Some(run) => {
                self.push_done(Current::Decided(run));
                Run::start(summarizer, held)
            }
            None => Run::start(summarizer, held),
        }
    }

    /// After a run printed its end: the lines held since then start another run when a
    /// summarizer recognises them; otherwise they are the run's tail. Without `force`, nothing
    /// happens while the held lines are not recognised (more of them may tell).
    fn after_end_decide(&mut self, force: bool) {
        let Current::Decided(run) = &mut self.current else {
            return;
        };
        let Some(held) = &run.after_end else {
            return;
        };
        // The run's own tool is asked first: one sniff rather than every summarizer's, which
        // is what a log of one tool that prints its last line more than once pays.
        let recognised = if run.summarizer.sniff(&held.text) >= MIN_CONFIDENCE {
            Some(run.summarizer)
        } else {
            // Another tool must be surer than a mention: a watch mode's ` PASS  Waiting for
            // file changes` after vitest's summary is no jest run.
            held.recognised_at(SWITCH_CONFIDENCE)
        };
        match recognised {
            // The same tool again: its own parser reads what it prints after its summary, and
            // several of its sessions in a row.
            Some(summarizer) if summarizer.name() == run.summarizer.name() => {
                run.take_back();
            }
            Some(summarizer) => {
                let held = run.after_end.take().unwrap_or_default();
                let next = Run::start(summarizer, &held);
                let before = std::mem::replace(&mut self.current, Current::Decided(next));
                self.push_done(before);
            }
            // Nothing another tool starts within the few KiB after the run's end: the run's
            // own tail. The next end line or announcement looks again.
            None if force => run.take_back(),
            None => {}
        }
    }

    /// Ends the current section at an announcement (`announced`) or at the end of the log.
    fn close(&mut self, announced: bool) {
        let command_tool = self.command_tool();
        let alone = self.done.is_empty() && self.noise.is_none() && self.suspended.is_none();
        match &mut self.current {
            Current::Undecided(held) if held.is_blank() => {
                // A tool that prints nothing when it passes (tsc, eslint) passed when the runner
                // went on to its next command; a test runner's blank section is one whose
                // output went elsewhere (several runs at once), and says nothing.
                if let Some(summarizer) = command_tool.filter(|_| announced) {
                    let report = summarizer.parser().finish();
                    if report.outcome == Outcome::Passed {
                        self.push_report(report);
                    }
                } else if let Some(summarizer) = command_tool.filter(|_| alone) {
                    // The log is only the announcement of that tool: its own parser reads it,
                    // as it would read the whole log.
                    let held = std::mem::take(held);
                    let report = Run::start(summarizer, &held).parser.finish();
                    self.push_report(report);
                }
                return;
            }
            Current::Undecided(_) => self.decide_held(true),
            Current::Decided(run) if run.after_end.as_ref().is_some_and(|h| !h.is_blank()) => {
                self.after_end_decide(true);
            }
            _ => {}
        }
        match std::mem::take(&mut self.current) {
            // Cut before its last line by the runner's announcement: the next section may be
            // more of it.
            Current::Decided(run) if announced && self.echo_cut && run.after_end.is_none() => {
                if let Some(before) = self.suspended.replace(run) {
                    self.push_done(Current::Decided(before));
                }
            }
            current => self.push_done(current),
        }
    }

    /// The summarizer of the tool the current section's announced command runs.
    fn command_tool(&self) -> Option<&'static dyn Summarizer> {
        crate::by_name(command_tool(self.command.as_deref()?)?)
    }

    fn push_done(&mut self, section: Current) {
        let report = match section {
            Current::Undecided(held) if held.is_blank() => return,
            Current::Undecided(held) => {
                let detection = detect(&held.text);
                Run::start(detection.summarizer, &held).parser.finish()
            }
            Current::Decided(mut run) => {
                run.take_back();
                run.parser.finish()
            }
            Current::Fanning(fan_out) => fan_out.finish(),
        };
        self.push_report(report);
    }

    /// Adds a finished section's report: merged with the earlier runs of its tool, or kept
    /// aside when it says nothing.
    fn push_report(&mut self, mut report: Report) {
        // A suspended run came before this section.
        if let Some(run) = self.suspended.take() {
            self.push_done(Current::Decided(run));
        }
        report.refresh_fingerprints();
        if says_nothing(&report) {
            // A pass of the generic reader is the most a log of only noise can show.
            if self
                .noise
                .as_ref()
                .is_none_or(|n| n.outcome != Outcome::Passed)
            {
                self.noise = Some(report);
            }
            return;
        }
        // Runs of one tool in one job are one report; another job's run is another machine's,
        // whose crash or pass says nothing of this one.
        let job = self.job.clone();
        match self
            .done
            .iter_mut()
            .find(|d| d.report.tool == report.tool && d.job == job)
        {
            Some(done) => {
                absorb(&mut done.report, report);
                done.runs += 1;
            }
            None => self.done.push(Done {
                report,
                runs: 1,
                job,
            }),
        }
    }
}

/// What a runner's announcement of a new command says of it.
#[derive(Debug, PartialEq, Eq)]
enum Announced<'a> {
    /// npm's or pnpm's script header: the command is on the next line, after `> `.
    Header,
    /// The command itself (`eslint .`).
    Command(&'a str),
    /// A new section whose command the line does not give.
    Nothing,
    /// Another CI job begins ([`verdict_model::JOB_MARKER`]), named.
    Job(&'a str),
}

/// The announcement `line` makes of a new command, when it is a runner's: npm's and pnpm's
/// script header, yarn's start line, a `$ command` echo (yarn, GitLab), make's `Entering
/// directory`, a GitHub Actions step (`##[group]Run …`), nx's `> nx run app:lint`, lerna's
/// `lerna info run Ran npm script 'lint' in 'a'`, pnpm's recursive `packages/a lint$ eslint .`.
/// Checked on every line, so each shape is recognised from its first byte or its first word.
#[inline]
fn announcement(line: &str) -> Option<Announced<'_>> {
    // No runner indents its announcement: a blank or indented line (a third of most logs) is
    // settled by its first byte.
    match line.as_bytes().first()? {
        b' ' | b'\t' => None,
        _ => announcement_of(line),
    }
}

/// [`announcement`] for a line that starts with neither a space nor a tab.
fn announcement_of(line: &str) -> Option<Announced<'_>> {
    match line.as_bytes().first()? {
        b'>' if line.starts_with("> nx run ") => Some(Announced::Nothing),
        b'>' => npm_header(line).then_some(Announced::Header),
        b'y' => line.starts_with("yarn run v").then_some(Announced::Nothing),
        b'$' => {
            let command = line.strip_prefix("$ ")?;
            (!command.is_empty() && !command.starts_with(' '))
                .then_some(Announced::Command(command))
        }
        b'm' => (line.starts_with("make") && line.contains(": Entering directory"))
            .then_some(Announced::Nothing),
        // Every group of a GitHub Actions log is a step or a task of its own (turbo groups each
        // package's task); only a step names its command.
        b'#' => match line.strip_prefix("##[group]")? {
            rest if rest.starts_with("Run ") => Some(Announced::Command(&rest[4..])),
            _ if line.starts_with(verdict_model::JOB_MARKER) => {
                Some(Announced::Job(&line[verdict_model::JOB_MARKER.len()..]))
            }
            _ => Some(Announced::Nothing),
        },
        // GitHub Actions' post steps; what they print is no tool's.
        b'P' => (line == "Post job cleanup.").then_some(Announced::Nothing),
        b'l' if line.starts_with("lerna ") => {
            let rest = line
                .strip_prefix("lerna info run ")
                .or_else(|| line.strip_prefix("lerna success run "))?;
            rest.starts_with("Ran npm script ")
                .then_some(Announced::Nothing)
        }
        _ => pnpm_recursive(line).map(Announced::Command),
    }
}

/// The command of pnpm's header before a script it runs in each package (`pnpm -r lint`):
/// `packages/a lint$ eslint .`, or `. lint$ eslint .` at the root. Most lines are left at their
/// first word, which holds no `/`.
fn pnpm_recursive(line: &str) -> Option<&str> {
    if line.len() > 1024 {
        return None;
    }
    // This runs on most lines of every log. The script's name ends in `$`, which few lines
    // hold: one search rules the others out.
    // A package's directory: `.`, or a path with a `/`. A `:` makes it a tool's `file:line`,
    // and one in `node_modules` is a dependency's install script that `pnpm install` runs.
    let bytes = line.as_bytes();
    memchr::memchr(b'$', bytes)?;
    let dir_end = memchr::memchr(b' ', bytes)?;
    let dir = &bytes[..dir_end];
    let package = dir == b"."
        || (memchr::memchr(b'/', dir).is_some()
            && memchr::memchr(b':', dir).is_none()
            && memchr::memmem::find(dir, b"node_modules").is_none());
    if !package {
        return None;
    }
    let rest = &line[dir_end + 1..];
    let (script, command) = rest.split_once(' ')?;
    let script = script.strip_suffix('$')?;
    (!script.is_empty() && !script.contains('$') && !command.trim().is_empty()).then_some(command)
}

/// Whether a command installs packages (`npm ci`, `pnpm install --frozen-lockfile`, `pip install
/// -e .`): what it prints names tools without running them.
fn installs(command: &str) -> bool {
    let mut words = command.split_whitespace();
    let (Some(program), next) = (words.next(), words.next()) else {
        return false;
    };
    match program {
        "npm" | "pnpm" | "yarn" | "bun" => {
            matches!(next, None | Some("ci" | "install" | "i" | "add"))
        }
        "pip" | "pip3" | "uv" | "poetry" | "pdm" => {
            matches!(next, Some("install" | "sync" | "add"))
        }
        "sudo" | "apt-get" | "apt" | "brew" => true,
        _ => false,
    }
}

/// The tool a command runs, when its program is one we read: `tsc --noEmit`, `npx eslint .`,
/// `next lint`, `python -m pytest -q`, `cargo clippy`. Only the first command of a chain counts
/// (`npm run lint && tsc` runs a script first, whose own header names its tool).
pub fn command_tool(command: &str) -> Option<&'static str> {
    let first = command.split(['&', '|', ';']).next().unwrap_or_default();
    let mut words = first
        .split_whitespace()
        // Environment assignments and the runners that only find the program.
        .skip_while(|w| {
            (w.contains('=') && !w.starts_with('-'))
                || matches!(
                    *w,
                    "npx" | "bunx" | "exec" | "dlx" | "time" | "env" | "uv" | "poetry" | "pdm"
                )
        })
        .peekable();
    let mut program = words.next()?;
    if matches!(program, "pnpm" | "yarn" | "bun" | "npm") && words.peek() == Some(&"exec") {
        words.next();
        program = words.next()?;
    }
    if matches!(program, "run") {
        program = words.next()?;
    }
    let name = program.rsplit('/').next().unwrap_or(program);
    let mut line = vec![name];
    line.extend(words);
    // The table of tools knows each tool's program and what it prints.
    let (tool, invocation) = Tool::invoked_by(&line)?;
    Some(invocation.prints.unwrap_or(tool.spec().summarizer))
}

/// npm's and pnpm's header before a script: `> name@1.2.3 test` (npm 6 and pnpm add the
/// directory), the name possibly scoped (`@scope/name@1.2.3`).
fn npm_header(line: &str) -> bool {
    // The package comes right after `> `; pytest's `>       assert x` source lines do not.
    let Some(rest) = line
        .strip_prefix("> ")
        .filter(|rest| !rest.starts_with(' '))
    else {
        return false;
    };
    let mut words = rest.split_whitespace();
    let (Some(package), Some(_script)) = (words.next(), words.next()) else {
        return false;
    };
    let Some(at) = package.rfind('@').filter(|&at| at > 0) else {
        return false;
    };
    let version = &package[at + 1..];
    version.starts_with(|c: char| c.is_ascii_digit()) && version.contains('.')
}

/// The summarizer `name` when its tool prints a line that ends its run, which [`ending_tool`]
/// recognises (the table of tools gives one such line of each).
fn ends_with_line(name: &str) -> Option<&'static str> {
    Tool::ALL
        .iter()
        .map(|tool| tool.spec())
        .find(|spec| spec.end_line.is_some() && spec.summarizer == name)
        .map(|spec| spec.summarizer)
}

/// The deepest indent of an end line: vitest aligns its summary's labels to the right.
const MAX_END_INDENT: usize = 16;

/// The bytes an end line (or its indent) starts with.
static ENDING_FIRST_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    let starts = [b' ', b'\t', b'F', 0xE2, b'R', b'D', b'='];
    while i < starts.len() {
        table[starts[i] as usize] = true;
        i += 1;
    }
    table
};

/// The tool whose run `line` ends, when it is such a line: tsc's `Found 3 errors in 2 files.`,
/// eslint's `✖ 4 problems (3 errors, 1 warning)`, jest's `Ran all test suites.`, vitest's
/// `Duration  1.2s (…)`, pytest's `==== 2 failed, 5 passed in 0.3s ====`.
#[inline(always)]
pub(crate) fn ending_tool(line: &str) -> Option<&'static str> {
    // Bytes rather than chars: this runs on every line of a run whose tool prints an end line,
    // and most are ruled out by their first byte, here rather than in a call.
    if !ENDING_FIRST_BYTES[usize::from(*line.as_bytes().first()?)] {
        return None;
    }
    ending_tool_of(line)
}

/// [`ending_tool`] for a line whose first byte may start an end line.
fn ending_tool_of(line: &str) -> Option<&'static str> {
    // No tool indents its end line by more than a few spaces; a code frame's underline is
    // indented by dozens.
    let indent = line
        .bytes()
        .take(MAX_END_INDENT + 1)
        .take_while(|b| *b == b' ' || *b == b'\t')
        .count();
    if indent > MAX_END_INDENT {
        return None;
    }
    let trimmed = &line[indent..];
    match trimmed.as_bytes().first()? {
        b'F' => {
            let rest = trimmed.strip_prefix("Found ")?;
            (rest.starts_with(|c: char| c.is_ascii_digit()) && rest.contains(" error"))
                .then_some("tsc")
        }
        0xE2 => (trimmed.starts_with("✖ ") && trimmed.contains(" problem")).then_some("eslint"),
        b'R' => trimmed.starts_with("Ran all test suites").then_some("jest"),
        b'D' => {
            let rest = trimmed.strip_prefix("Duration")?;
            (rest.starts_with(' ') && rest.trim_start().starts_with(|c: char| c.is_ascii_digit()))
                .then_some("vitest")
        }
        b'=' => {
            let trimmed = trimmed.trim_end();
            let pytest = trimmed.ends_with('=')
                && trimmed.contains(" in ")
                && [
                    "passed",
                    "failed",
                    "error",
                    "no tests ran",
                    "skipped",
                    "deselected",
                ]
                .iter()
                .any(|word| trimmed.contains(word));
            pytest.then_some("pytest")
        }
        _ => None,
    }
}

/// Every summarizer reading a section whose start did not tell its tool; the choice is made at
/// its end from its start and its last lines.
struct FanOut {
    parsers: Vec<(&'static dyn Summarizer, Box<dyn LineParser>)>,
    head: String,
    tail: VecDeque<String>,
    tail_bytes: usize,
}

impl FanOut {
    fn new(held: Held) -> FanOut {
        let mut parsers: Vec<_> = crate::all().iter().map(|s| (*s, s.parser())).collect();
        for (_, parser) in &mut parsers {
            held.replay(parser.as_mut());
        }
        FanOut {
            parsers,
            head: held.text,
            tail: VecDeque::new(),
            tail_bytes: 0,
        }
    }

    fn line(&mut self, line: &str) {
        for (_, parser) in &mut self.parsers {
            parser.line(line);
        }
        self.tail_bytes += line.len() + 1;
        self.tail.push_back(line.to_owned());
        while self.tail_bytes > SAMPLE_BYTES {
            match self.tail.pop_front() {
                Some(old) => self.tail_bytes -= old.len() + 1,
                None => break,
            }
        }
    }

    fn finish(self) -> Report {
        let mut sample = self.head;
        for line in &self.tail {
            sample.push_str(line);
            sample.push('\n');
        }
        let chosen = detect(&sample).summarizer.name();
        let mut fallback = None;
        for (summarizer, parser) in self.parsers {
            if summarizer.name() == chosen {
                return parser.finish();
            }
            if summarizer.name() == "generic" {
                fallback = Some(parser);
            }
        }
        match fallback {
            Some(parser) => parser.finish(),
            None => Report::errored("generic", generic::UNPLACED),
        }
    }
}

/// Whether a section's report says nothing once other sections were read: the generic reader's
/// pass, or its "nothing here I know".
fn says_nothing(report: &Report) -> bool {
    report.tool == "generic"
        && match report.outcome {
            Outcome::Passed => true,
            Outcome::Errored => report
                .error
                .as_deref()
                .is_some_and(|e| e == generic::UNPLACED || e == generic::EMPTY),
            Outcome::Failed => false,
        }
}

/// Adds the run `next` to the report of earlier runs of the same tool: the worst outcome, every
/// diagnostic, the counts summed where the runs give them, their summaries, errors and notes
/// (each once, so that a thousand runs do not make a thousand-line headline).
fn absorb(merged: &mut Report, next: Report) {
    let rank = |o: Outcome| match o {
        Outcome::Passed => 0,
        Outcome::Failed => 1,
        Outcome::Errored => 2,
    };
    if rank(next.outcome) > rank(merged.outcome) {
        merged.outcome = next.outcome;
    }
    // Runs over the same files (a CI matrix, a command run twice) name each file once: when
    // every problem of both runs was kept and each run's file count is the files they name,
    // the merged count is the files named in either.
    let union = (merged.diagnostics_dropped == 0
        && next.diagnostics_dropped == 0
        && merged.counts.files == Some(problem_files(&merged.diagnostics).len() as u64)
        && next.counts.files == Some(problem_files(&next.diagnostics).len() as u64))
    .then(|| {
        let mut files = problem_files(&merged.diagnostics);
        files.extend(problem_files(&next.diagnostics));
        files.len() as u64
    });
    merged.counts.add(&next.counts);
    if union.is_some() {
        merged.counts.files = union;
    }
    join_once(&mut merged.summary, next.summary);
    join_once(&mut merged.error, next.error);
    if merged.outcome != Outcome::Errored {
        merged.error = None;
    }
    for note in next.notes {
        if !merged.notes.contains(&note) {
            merged.note(note);
        }
    }
    for diagnostic in next.diagnostics {
        merged.push(diagnostic);
    }
    merged.diagnostics_dropped += next.diagnostics_dropped;
}

/// The files a report's problems are in.
fn problem_files(diagnostics: &[verdict_model::Diagnostic]) -> std::collections::HashSet<&str> {
    diagnostics
        .iter()
        .filter_map(|d| d.file.as_deref())
        .collect()
}

/// The longest summary or error a merge of runs builds; the rest is left out.
const MAX_JOINED: usize = 1000;

/// Appends `next` to `text` after `; `, unless it is there already or the text is long enough.
fn join_once(text: &mut Option<String>, next: Option<String>) {
    let Some(next) = next else {
        return;
    };
    match text {
        None => *text = Some(next),
        Some(text) if text.contains(&next) || text.len() >= MAX_JOINED => {}
        Some(text) => {
            text.push_str("; ");
            text.push_str(&next);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn announces(line: &str) -> bool {
        announcement(line).is_some()
    }

    #[test]
    fn announcements_are_the_runners_own_lines() {
        assert!(announces("> app@1.0.0 lint"));
        assert!(announces("> app@1.0.0 test /home/u/app"));
        assert!(announces("> @scope/app@0.3.1-beta.2 typecheck"));
        assert!(announces("yarn run v1.22.22"));
        assert!(announces("$ jest --ci"));
        assert!(announces("##[group]Run npm test"));
        assert!(announces("make[1]: Entering directory '/p/a'"));
        // A quoted `>` in a test's output, a scope without a version, a diff line.
        assert!(!announces("> 3"));
        assert!(!announces("> @scope/x"));
        assert!(!announces("> expect(a).toBe(b)"));
        assert!(announces("##[group]web:lint"));
        assert!(announces("Post job cleanup."));
        assert!(!announces("##[endgroup]"));
        assert!(!announces("$ "));
    }

    #[test]
    fn announcements_give_the_command_where_the_line_holds_it() {
        assert_eq!(announcement("> app@1.0.0 lint"), Some(Announced::Header));
        assert_eq!(
            announcement("$ tsc --noEmit"),
            Some(Announced::Command("tsc --noEmit"))
        );
        assert_eq!(
            announcement("##[group]Run npx eslint ."),
            Some(Announced::Command("npx eslint ."))
        );
        assert_eq!(announcement("yarn run v1.22.22"), Some(Announced::Nothing));
    }

    #[test]
    fn monorepo_runners_announce_each_package() {
        // nx, lerna without --stream, pnpm -r.
        assert_eq!(announcement("> nx run app:lint"), Some(Announced::Nothing));
        assert_eq!(
            announcement("lerna info run Ran npm script 'test' in 'a' in 2.1s:"),
            Some(Announced::Nothing)
        );
        assert_eq!(
            announcement("lerna success run Ran npm script 'lint' in 3 packages in 4.2s:"),
            Some(Announced::Nothing)
        );
        assert_eq!(
            announcement("packages/a lint$ eslint ."),
            Some(Announced::Command("eslint ."))
        );
        // pnpm install running a dependency's lifecycle script.
        assert!(
            announcement(".../node_modules/msw postinstall$ node -e \"import('x')\"").is_none()
        );
        assert_eq!(
            announcement(". typecheck$ tsc --noEmit"),
            Some(Announced::Command("tsc --noEmit"))
        );
        // Tool output with a path first, lerna's other notices.
        assert!(!announces("src/a.ts:3:4 error$ x"));
        assert!(!announces("src/a.test.ts (3 tests) 12ms"));
        assert!(!announces("lerna info versioning independent"));
        assert!(!announces("packages/a lint: Done"));
    }

    #[test]
    fn commands_name_the_tool_their_program_is() {
        for (command, tool) in [
            ("tsc --noEmit", Some("tsc")),
            ("tsc -b packages/shared packages/main", Some("tsc")),
            ("npx eslint . --max-warnings 0", Some("eslint")),
            ("next lint", Some("eslint")),
            ("pnpm exec vitest run", Some("vitest")),
            ("CI=true jest --ci", Some("jest")),
            ("node_modules/.bin/mocha test/", Some("mocha")),
            ("python -m pytest -q", Some("pytest")),
            ("uv run pytest", Some("pytest")),
            ("python3 -m unittest discover", Some("unittest")),
            ("cargo clippy --all-targets -- -D warnings", Some("cargo")),
            ("cargo nextest run", Some("nextest")),
            ("node --test", Some("node-test")),
            ("tap --disable-coverage", Some("tap")),
            ("tape test/*.js", Some("tap")),
            // A script first: its own header names its tool.
            ("npm run lint && tsc -p ./", None),
            ("next build", None),
            ("vite build", None),
            ("cargo fmt --check", None),
            ("python scripts/check.py", None),
        ] {
            assert_eq!(command_tool(command), tool, "{command}");
        }
    }

    #[test]
    fn installs_are_no_tool_runs() {
        assert!(installs("pnpm install --frozen-lockfile"));
        assert!(installs("npm ci"));
        assert!(installs("pip install -e ."));
        assert!(!installs("npm test"));
        assert!(!installs("npm run lint"));
    }

    fn tools(log: &str) -> Vec<(String, Outcome)> {
        summarize_all(log.as_bytes())
            .into_iter()
            .map(|r| (r.tool, r.outcome))
            .collect()
    }

    /// tsc and eslint print nothing when they pass: the runner going on to its next command
    /// shows it.
    #[test]
    fn a_silent_tool_passed_when_the_runner_went_on() {
        let log = "> app@1.0.0 typecheck\n> tsc --noEmit\n\n> app@1.0.0 lint\n> eslint .\n\n\
                   > app@1.0.0 test\n> jest\n\nTests:       1 failed, 1 total\n\
                   Test Suites: 1 failed, 1 total\nRan all test suites.\n";
        assert_eq!(
            tools(log),
            [
                ("tsc".to_owned(), Outcome::Passed),
                ("eslint".to_owned(), Outcome::Passed),
                ("jest".to_owned(), Outcome::Failed)
            ]
        );
        // A silent tool at the very end, after other runs, may have been cut off: nothing is
        // said of it. A log of only its announcement is its own parser's to read.
        assert_eq!(
            tools(
                "> app@1.0.0 test\n> jest\n\nTests:       1 failed, 1 total\nRan all test suites.\n> app@1.0.0 typecheck\n> tsc --noEmit\n\n"
            ),
            [("jest".to_owned(), Outcome::Failed)]
        );
        let alone = tools("> app@1.0.0 typecheck\n> tsc --noEmit\n\n");
        assert_eq!(alone.len(), 1);
        assert_eq!(alone[0].0, "tsc");
    }

    /// Shards of one test runner started at once print their headers together; the blank
    /// sections between them are no runs.
    #[test]
    fn a_test_runner_whose_section_is_blank_says_nothing() {
        let log = "> app@1.0.0 test\n> vitest --run --shard=1/2\n\n\
                   > app@1.0.0 test\n> vitest --run --shard=2/2\n\n\
                   \n Test Files  1 passed (1)\n      Tests  2 passed (2)\n   Duration  1.2s\n";
        assert_eq!(tools(log), [("vitest".to_owned(), Outcome::Passed)]);
    }

    #[test]
    fn the_command_outweighs_a_mere_mention() {
        // A package install names vitest; the tsc step after it passes silently.
        let log = "##[group]Run pnpm install --frozen-lockfile\ndevDependencies:\n+ vitest 4.0.3\n\
                   Done in 2.1s\n##[group]Run npx tsc --noEmit\n##[endgroup]\n\
                   src/a.ts(3,1): error TS2304: Cannot find name 'x'.\n";
        assert_eq!(tools(log), [("tsc".to_owned(), Outcome::Failed)]);
    }

    #[test]
    fn run_endings_are_each_tools_last_line() {
        let table = Tool::ALL
            .iter()
            .map(|tool| tool.spec())
            .filter_map(|spec| Some((spec.end_line?, spec.summarizer)));
        let more = [
            ("Found 1 error.", "tsc"),
            ("========= 2 failed, 5 passed in 0.31s ==========", "pytest"),
        ];
        for (line, tool) in table.chain(more) {
            assert_eq!(ending_tool(line), Some(tool), "{line}");
            // A run is only looked at for its end line when its tool has one in the table.
            assert_eq!(ends_with_line(tool), Some(tool));
        }
        assert_eq!(ending_tool("Found the file"), None);
        assert_eq!(ending_tool("Duration of the call"), None);
        assert_eq!(ending_tool("===== FAILURES ====="), None);
    }
}
