//! Removing what terminals, shells and CI runners wrote around a tool's lines, so that parsers see
//! the tool's own text.
//!
//! The line reader hands each clean line to a [`Stage`] before a parser sees it. Some wrappers are
//! recognised on every line from its first byte (cheap: one comparison for a plain line):
//! - GitHub Actions' workflow commands: `##[endgroup]` is dropped; `##[error]`, `##[warning]`,
//!   `##[notice]`, `##[debug]` and `##[command]` lose their marker, so that a problem matcher's
//!   `##[error]src/a.ts(3,5): error TS2322: …` reaches the tsc parser as tsc's own line.
//!   `##[group]…` lines are kept: they name the step that follows, and no parser reads them;
//! - Docker BuildKit's plain progress: the `#12 3.456 ` before a step's output is removed, and
//!   `#12 DONE 0.1s`, `#12 CACHED` are dropped. When a step fails, BuildKit repeats its last lines
//!   in an excerpt between two `------` rules, under a ` > [stage 2/3] RUN npm test:` header, each
//!   line led by its time (`23.29 src/a.ts(3,5): error …`, or `#12 23.29 …` in older versions):
//!   those lines are dropped, so that nothing is counted twice;
//! - GitLab's `section_start:…` / `section_end:…` markers (most vanish with their `\r` already);
//! - a PowerShell prompt, `PS C:\x> npm test`, becomes `$ npm test`, as other shells show it.
//!
//! Others are recognised once per input from its start ([`Features::of`]):
//! - `gh run view --log`'s `job<TAB>step<TAB>2024-05-01T12:34:56.1234567Z ` before every line;
//!   where the job changes, a line `##[group]Job: <job>` ([`JOB_MARKER`]) is written first, so
//!   that the jobs' runs (other machines, often the same tools) are read apart;
//! - the marker glyphs a console code page garbled ([`crate::mojibake`]);
//! - PowerShell's `NativeCommandError` records: when a native command writes to stderr under
//!   PowerShell 5, its first stderr line comes out as `npx : FAIL src/x.test.ts`, followed by a
//!   position line (`At line:1 char:1`, localised), the offending code (`+ …`), and
//!   `+ CategoryInfo …` / `+ FullyQualifiedErrorId : NativeCommandError`. The record's lines are
//!   dropped and the first line loses its `npx : `. The record is formatted to the console's
//!   width: when it was wrapped, that width is known, and the lines after it that were cut at it
//!   (stderr lines are formatted the same way) are joined back: a line exactly as wide, or a line
//!   ending in a space whose next line's first word would not have fitted on it. Lines that look
//!   like rules (`-----`) are never joined.
//!
//! Lines wrapped at a width the log does not show (no PowerShell record) are left as they are.

use crate::mojibake::Mojibake;

/// What an input needs beyond the per-line checks, decided once from its start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Features {
    /// Lines start with `gh run view --log`'s `job<TAB>step<TAB>timestamp `.
    pub(crate) gh_prefix: bool,
    /// Marker glyphs garbled by a console code page.
    pub(crate) mojibake: bool,
    /// PowerShell `NativeCommandError` records.
    pub(crate) powershell: bool,
}

impl Features {
    /// The features of an input that starts with `head` (valid UTF-8 or not).
    pub(crate) fn of(head: &[u8]) -> Features {
        // A saved log starts with the prefix; a pasted one may follow a few lines of prose, and
        // then several of its lines carry it.
        let mut lines = head
            .split(|&b| b == b'\n')
            .map(|line| gh_prefix_len(line) > 0);
        let gh_prefix = lines.by_ref().take(3).any(|p| p) || lines.filter(|&p| p).nth(2).is_some();
        Features {
            gh_prefix,
            mojibake: Mojibake::found_in(head),
            // Words of a record that survive its being cut at a console width of 20.
            powershell: [&b"CategoryInfo"[..], b"FullyQualified", b"NativeCommand"]
                .iter()
                .any(|word| memchr::memmem::find(head, word).is_some()),
        }
    }

    fn any(self) -> bool {
        self.gh_prefix || self.mojibake || self.powershell
    }
}

/// The length of `gh run view --log`'s prefix: `job<TAB>step<TAB>` and a UTC timestamp with its
/// space; 0 when the line has none.
fn gh_prefix_len(line: &[u8]) -> usize {
    let head = &line[..line.len().min(512)];
    let Some(first) = memchr::memchr(b'\t', head) else {
        return 0;
    };
    let Some(second) = memchr::memchr(b'\t', &head[first + 1..]).map(|i| first + 1 + i) else {
        return 0;
    };
    // The first line of each step's log carries the BOM of the file GitHub stored.
    let at = second + 1;
    let at = at + crate::lines::bom_len(&line[at..]);
    match crate::lines::ci_timestamp_len(&line[at..]) {
        0 => 0,
        n => at + n,
    }
}

/// The wrapper-removing stage between the line reader and a parser (see the module docs).
#[derive(Default)]
pub(crate) struct Stage {
    features: Features,
    /// Whether the input needs none of the features.
    featureless: bool,
    /// Whether a line may go straight through: the input needs none of the features and no
    /// BuildKit excerpt is under way.
    plain: bool,
    /// Where the stage is in a BuildKit error excerpt.
    excerpt: Excerpt,
    /// A possible PowerShell record, held until it is known to be one.
    held: Vec<Held>,
    /// The held lines without whitespace, to find the record's end however it was cut.
    squashed: String,
    /// Whether the line after a record is its blank line.
    drop_blank: bool,
    /// The console width, once a wrapped record showed it.
    width: Option<usize>,
    /// A line that may continue on the next one (with its escape sequences), and the width of its
    /// last physical line.
    carry: Option<(String, usize)>,
    scratch: String,
    repaired: String,
    /// The job of the last line of a `gh run view --log`.
    job: Option<String>,
}

/// The line the stage writes where a job of a `gh run view --log` begins, before the job's
/// name. GitHub writes `##[group]` before each step's name; no parser reads such lines.
pub const JOB_MARKER: &str = "##[group]Job: ";

/// A line as the stage holds it: its text, and the width of its raw form (escape sequences
/// included, as PowerShell counted them when it cut lines) with that of its first word.
struct Held {
    text: String,
    /// The line with its escape sequences, which a cut may have split across two lines: lines
    /// are joined in this form and cleaned after.
    raw: String,
    width: usize,
    first_word: usize,
}

impl Held {
    fn new(text: &str, raw: &str) -> Held {
        Held {
            text: text.to_owned(),
            raw: raw.to_owned(),
            width: raw.chars().count(),
            first_word: raw.split(' ').next().map_or(0, |w| w.chars().count()),
        }
    }
}

/// The most lines a PowerShell record spans, wrapped at 20 columns.
const MAX_RECORD: usize = 48;
/// How a record of a native command's stderr ends, whitespace removed.
const RECORD_END: &str = "FullyQualifiedErrorId:NativeCommandError";
/// Longer lines are no part of a PowerShell record.
const MAX_RECORD_LINE: usize = 1024;

impl Stage {
    /// A stage for an input with `features`.
    pub(crate) fn new(features: Features) -> Stage {
        Stage {
            features,
            featureless: !features.any(),
            plain: !features.any(),
            ..Stage::default()
        }
    }

    /// Whether lines must come with their raw form (escape sequences kept) to be measured.
    pub(crate) fn needs_raw(&self) -> bool {
        self.features.powershell
    }

    /// Takes the next clean line, and the same line before its escape sequences were removed,
    /// handing what the tool wrote to `out`. A plain line of a plain input costs one or two
    /// comparisons here; everything else is out of line.
    #[inline(always)]
    pub(crate) fn line(&mut self, line: &str, raw: &str, out: &mut impl FnMut(&str)) {
        if self.plain && !may_be_wrapped(line.as_bytes()) {
            return out(line);
        }
        self.wrapped(line, raw, out);
    }

    #[inline(never)]
    fn wrapped(&mut self, line: &str, raw: &str, out: &mut impl FnMut(&str)) {
        if self.featureless {
            return self.strip(line, out);
        }
        let line = if self.features.gh_prefix {
            // The prefix is ASCII up to the timestamp's space: a char boundary.
            let prefix = gh_prefix_len(line.as_bytes());
            if prefix > 0 {
                self.job(line, out);
            }
            &line[prefix..]
        } else {
            line
        };
        if self.features.powershell {
            let raw = if self.features.gh_prefix {
                &raw[gh_prefix_len(raw.as_bytes())..]
            } else {
                raw
            };
            self.powershell(Held::new(line, raw), out);
        } else {
            self.unwrapped(line, out);
        }
    }

    /// Marks where another job of a `gh run view --log` begins: its lines are another
    /// machine's run, which the splitter must not merge with the job before. The job's name is
    /// the line's first column.
    fn job(&mut self, line: &str, out: &mut impl FnMut(&str)) {
        let Some((name, _)) = line.split_once('\t') else {
            return;
        };
        if self.job.as_deref() == Some(name) {
            return;
        }
        // What is held belongs to the job before.
        self.release_held(out);
        if let Some((carry, _)) = self.carry.take() {
            self.cleaned(&carry, out);
        }
        self.job = Some(name.to_owned());
        self.scratch.clear();
        self.scratch.push_str(JOB_MARKER);
        self.scratch.push_str(name);
        out(&self.scratch);
    }

    /// Ends the input, handing on what is still held.
    pub(crate) fn finish(&mut self, out: &mut impl FnMut(&str)) {
        self.release_held(out);
        if let Some((carry, _)) = self.carry.take() {
            self.cleaned(&carry, out);
        }
    }

    fn powershell(&mut self, line: Held, out: &mut impl FnMut(&str)) {
        if self.drop_blank {
            // After a record: the computer's name in a remote session, and the blank line (one
            // space) PowerShell writes.
            if line.text.trim_start().starts_with("+ PSComputerName") {
                return;
            }
            self.drop_blank = false;
            if line.text == " " {
                return;
            }
        }
        if !self.held.is_empty() {
            if line.text.len() > MAX_RECORD_LINE || self.held.len() >= MAX_RECORD {
                self.release_held(out);
                return self.powershell(line, out);
            }
            // The record's last field may itself be cut at the width, down to a few letters a
            // line: it is recognised without the whitespace the wrapping put in.
            self.squashed
                .extend(line.text.chars().filter(|c| !c.is_whitespace()));
            self.held.push(line);
            if self.squashed.ends_with(RECORD_END) {
                self.end_record(out);
            }
            return;
        }
        if record_start(&line.text) {
            self.squashed.clear();
            self.squashed
                .extend(line.text.chars().filter(|c| !c.is_whitespace()));
            self.held.push(line);
            return;
        }
        self.join(line, out);
    }

    /// Hands on held lines that turned out to be no record.
    fn release_held(&mut self, out: &mut impl FnMut(&str)) {
        let held = std::mem::take(&mut self.held);
        for line in held {
            self.join(line, out);
        }
    }

    /// The held lines are a whole `NativeCommandError` record.
    fn end_record(&mut self, out: &mut impl FnMut(&str)) {
        let held = std::mem::take(&mut self.held);
        // The position line comes right before the first `+ ` line; before it, the message.
        let code = held
            .iter()
            .skip(1)
            .position(|l| l.text.starts_with("+ "))
            .map_or(1, |i| i + 1);
        let message_end = message_end(&held[..code], &self.squashed)
            .unwrap_or_else(|| code.saturating_sub(1).max(1));
        // A record that was not cut has only `+ …` lines after its position line.
        let wrapped = held[code..]
            .iter()
            .any(|l| !l.text.trim_start().starts_with("+ "));
        if wrapped {
            let width = held.iter().map(|l| l.width).max();
            self.width = width.filter(|&w| w >= 16);
        }
        let mut message = String::new();
        for line in &held[..message_end] {
            message.push_str(&line.text);
        }
        let start = message.find(" : ").map_or(0, |i| i + 3);
        let last = &held[message_end - 1];
        let message = Held {
            text: message[start..].to_owned(),
            raw: message[start..].to_owned(),
            width: last.width,
            first_word: held[0].first_word,
        };
        self.join(message, out);
        self.drop_blank = true;
    }

    /// Joins lines cut at the console's width, once it is known.
    fn join(&mut self, line: Held, out: &mut impl FnMut(&str)) {
        let Some(width) = self.width else {
            return self.unwrapped(&line.text, out);
        };
        // What counts is the width of the last physical line, not of what was joined so far.
        let Held {
            raw: mut joined,
            width: segment,
            first_word,
            ..
        } = line;
        if let Some((mut carry, carried)) = self.carry.take() {
            // A joined line stays within what a parser is promised.
            let continues = !joined.is_empty()
                && carry.len() + joined.len() <= crate::lines::MAX_LINE
                && (carried == width || (carry.ends_with(' ') && carried + first_word >= width));
            if continues {
                carry.push_str(&joined);
                joined = carry;
            } else {
                self.cleaned(&carry, out);
            }
        }
        let may_continue = segment <= width
            && (segment == width || joined.ends_with(' '))
            && !is_rule(&crate::ansi::strip(&joined));
        if may_continue {
            self.carry = Some((joined, segment));
        } else {
            self.cleaned(&joined, out);
        }
    }

    /// A joined line, without the escape sequences it was measured with.
    fn cleaned(&mut self, raw: &str, out: &mut impl FnMut(&str)) {
        if crate::ansi::has_escapes(raw) {
            let text = crate::ansi::strip(raw);
            self.unwrapped(&text, out);
        } else {
            self.unwrapped(raw, out);
        }
    }

    /// The per-line wrappers, then the parser.
    fn unwrapped(&mut self, line: &str, out: &mut impl FnMut(&str)) {
        let line = if self.features.mojibake {
            self.repaired.clear();
            if Mojibake::repair_into(line, &mut self.repaired) {
                // Borrowed from a field that `strip` does not touch.
                let repaired = std::mem::take(&mut self.repaired);
                self.strip(&repaired, out);
                self.repaired = repaired;
                return;
            }
            line
        } else {
            line
        };
        self.strip(line, out);
    }

    fn strip(&mut self, line: &str, out: &mut impl FnMut(&str)) {
        if (self.excerpt != Excerpt::Idle || line == EXCERPT_RULE) && self.in_excerpt(line) {
            return;
        }
        let bytes = line.as_bytes();
        match bytes.first() {
            Some(b'#') => {
                if let Some(rest) = line.strip_prefix("##[") {
                    return github_command(line, rest, out);
                }
                match docker_prefix(bytes) {
                    Docker::Output(n) => out(&line[n..]),
                    Docker::Status => {}
                    Docker::None => out(line),
                }
            }
            Some(b's') => match gitlab_section(line) {
                Some("") => {}
                Some(rest) => out(rest),
                None => out(line),
            },
            Some(b'P') => match powershell_prompt(line) {
                Some(command) => {
                    self.scratch.clear();
                    self.scratch.push_str("$ ");
                    self.scratch.push_str(command);
                    out(&self.scratch);
                }
                None => out(line),
            },
            _ => out(line),
        }
    }
}

impl Stage {
    /// Follows a BuildKit error excerpt; returns whether `line` is one of its repeated lines.
    fn in_excerpt(&mut self, line: &str) -> bool {
        let (next, drop) = match self.excerpt {
            Excerpt::Inside if excerpt_line(line) => (Excerpt::Inside, true),
            Excerpt::Rule if excerpt_header(line) => (Excerpt::Inside, false),
            _ if line == EXCERPT_RULE => (Excerpt::Rule, false),
            _ => (Excerpt::Idle, false),
        };
        self.excerpt = next;
        self.plain = self.featureless && next == Excerpt::Idle;
        drop
    }
}

/// Where the stage is in the excerpt BuildKit prints of a failed step's last lines:
///
/// ```text
/// ------
///  > [builder 6/6] RUN npm run build:
/// 23.29 src/a.ts(3,5): error TS2339: …
/// ------
/// ```
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Excerpt {
    #[default]
    Idle,
    /// After a `------` rule, which may open an excerpt.
    Rule,
    /// After the excerpt's header: its lines follow.
    Inside,
}

/// The rule around a BuildKit error excerpt.
const EXCERPT_RULE: &str = "------";

/// Whether `line` heads a BuildKit error excerpt: ` > [builder 6/6] RUN npm run build:` (the
/// leading space is missing in some versions).
fn excerpt_header(line: &str) -> bool {
    line.trim_start().starts_with("> [") && line.ends_with(':')
}

/// Whether `line` is a line of a BuildKit error excerpt: the step's output led by its time
/// (`23.29 text`, `23.29` for an empty line), or by its step and time in older versions.
fn excerpt_line(line: &str) -> bool {
    let bytes = line.as_bytes();
    if matches!(docker_prefix(bytes), Docker::Output(_)) {
        return true;
    }
    let whole = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    if whole == 0 || bytes.get(whole) != Some(&b'.') {
        return false;
    }
    let fraction = bytes[whole + 1..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    fraction > 0 && matches!(bytes.get(whole + 1 + fraction), None | Some(b' '))
}

/// How many of a record's first lines (`before_code`: those before its first `+ ` line) hold the
/// message, told by the record's own copy of it: `CategoryInfo` ends in `(<message>:String)`,
/// abbreviated to `<start>...<end>` when long. The position line between message and code is
/// localised (`At line:1 char:1`, `En línea: 1 Carácter: 1`, `Au caractère Ligne:1 : 1`) and may
/// itself be cut, so it is not what is looked for.
fn message_end(before_code: &[Held], squashed: &str) -> Option<usize> {
    let info = squashed.split("CategoryInfo:").nth(1)?;
    let copy = &info[info.find('(')? + 1..info.rfind(":String)")?];
    let tail = copy.rsplit("...").next().unwrap_or(copy);
    if tail.is_empty() {
        return None;
    }
    let mut seen = String::new();
    for (i, line) in before_code.iter().enumerate() {
        seen.extend(line.text.chars().filter(|c| !c.is_whitespace()));
        if seen.ends_with(tail) {
            return Some(i + 1);
        }
    }
    None
}

/// Whether a line may carry one of the wrappers recognised line by line (see the module docs).
#[inline(always)]
fn may_be_wrapped(line: &[u8]) -> bool {
    match line.first() {
        Some(b'#') => true,
        Some(b'-') => line == EXCERPT_RULE.as_bytes(),
        Some(b's') => line.starts_with(b"section_"),
        Some(b'P') => line.starts_with(b"PS "),
        _ => false,
    }
}

/// Whether `line` may start a PowerShell record: `<command> : <message>`.
fn record_start(line: &str) -> bool {
    let Some(at) = line.find(" : ") else {
        return false;
    };
    at > 0
        && at <= 64
        && line[..at]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
}

/// A line of one repeated punctuation character (at its end), which no wrap continues.
fn is_rule(line: &str) -> bool {
    let tail: Vec<char> = line.trim_end().chars().rev().take(4).collect();
    tail.len() == 4 && tail.iter().all(|&c| c == tail[0] && !c.is_alphanumeric())
}

/// Handles a GitHub Actions workflow command line (`##[name]text`).
fn github_command(line: &str, rest: &str, out: &mut impl FnMut(&str)) {
    let Some(end) = rest.find(']') else {
        return out(line);
    };
    let (name, text) = (&rest[..end], &rest[end + 1..]);
    match name {
        "endgroup" => {}
        "error" | "warning" | "notice" | "debug" | "command" => out(text),
        _ => out(line),
    }
}

enum Docker {
    /// The length of the `#12 3.456 ` before a step's output.
    Output(usize),
    /// `#12 DONE 0.1s`, `#12 CACHED`: progress with nothing of the tool's.
    Status,
    None,
}

/// Docker BuildKit's plain progress prefix (`#12 3.456 `).
fn docker_prefix(line: &[u8]) -> Docker {
    let digits = |from: usize| {
        line[from..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let step = digits(1);
    if step == 0 || line.get(1 + step) != Some(&b' ') {
        return Docker::None;
    }
    let at = 2 + step;
    let rest = &line[at..];
    if rest.starts_with(b"DONE ") || rest == b"CACHED" {
        return Docker::Status;
    }
    let whole = digits(at);
    if whole == 0 || line.get(at + whole) != Some(&b'.') {
        return Docker::None;
    }
    let fraction = digits(at + whole + 1);
    if fraction == 0 {
        return Docker::None;
    }
    let end = at + whole + 1 + fraction;
    match line.get(end) {
        Some(b' ') => Docker::Output(end + 1),
        None => Docker::Output(end),
        _ => Docker::None,
    }
}

/// The text after GitLab's `section_start:<time>:<name>` or `section_end:…` marker, or `None`.
fn gitlab_section(line: &str) -> Option<&str> {
    let rest = line
        .strip_prefix("section_start:")
        .or_else(|| line.strip_prefix("section_end:"))?;
    let colon = rest.find(':')?;
    if colon == 0 || !rest[..colon].bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let name = &rest[colon + 1..];
    let end = name
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .unwrap_or(name.len());
    let mut after = &name[end..];
    if after.starts_with("[collapsed=") {
        after = after.find(']').map_or("", |i| &after[i + 1..]);
    }
    Some(after)
}

/// The command after a PowerShell prompt (`PS C:\x> npm test`).
fn powershell_prompt(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("PS ")?;
    let bytes = rest.as_bytes();
    // A drive (`C:\`) or a provider path (`Microsoft.PowerShell.Core\FileSystem::\\x`).
    let drive = bytes.len() > 3 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if !drive && !rest.starts_with("Microsoft.PowerShell") {
        return None;
    }
    let end = rest.find("> ")?;
    let command = rest[end + 2..].trim();
    (!command.is_empty()).then_some(command)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(features: Features, lines: &[&str]) -> Vec<String> {
        let mut stage = Stage::new(features);
        let mut out = Vec::new();
        for line in lines {
            stage.line(line, line, &mut |l| out.push(l.to_owned()));
        }
        stage.finish(&mut |l| out.push(l.to_owned()));
        out
    }

    #[test]
    fn per_line_wrappers() {
        let lines = [
            "##[group]Run npm test",
            "##[endgroup]",
            "##[error]src/a.ts(3,5): error TS2322: Type 'string' is not assignable.",
            "##[warning]Node.js 16 actions are deprecated.",
            "#12 [build 6/6] RUN npm test",
            "#12 3.456 FAIL src/a.test.ts",
            "#12 3.457 ",
            "#12 DONE 7.1s",
            "#7 CACHED",
            "#12 ERROR: process \"/bin/sh -c npm test\" did not complete successfully: exit code: 1",
            "section_start:1700000000:step_script[collapsed=true]",
            "section_end:1700000000:step_script",
            "PS C:\\work\\app> npm test",
            "PASS src/b.test.ts",
            "sum: 3",
            "# a heading",
        ];
        assert_eq!(
            run(Features::default(), &lines),
            [
                "##[group]Run npm test",
                "src/a.ts(3,5): error TS2322: Type 'string' is not assignable.",
                "Node.js 16 actions are deprecated.",
                "#12 [build 6/6] RUN npm test",
                "FAIL src/a.test.ts",
                "",
                "#12 ERROR: process \"/bin/sh -c npm test\" did not complete successfully: exit code: 1",
                "$ npm test",
                "PASS src/b.test.ts",
                "sum: 3",
                "# a heading",
            ]
        );
    }

    /// BuildKit repeats a failed step's last lines under the error; the copies are dropped.
    #[test]
    fn buildkit_error_excerpt_is_read_once() {
        let lines = [
            "#15 [builder 6/6] RUN npm run build",
            "#15 23.29 src/a.tsx(361,30): error TS2339: Property 'x' does not exist.",
            "#15 ERROR: process \"/bin/sh -c npm run build\" did not complete successfully: exit code: 2",
            "------",
            " > [builder 6/6] RUN npm run build:",
            "0.208 ",
            "0.208",
            "#15 0.208 > tsc -b && vite build",
            "23.29 src/a.tsx(361,30): error TS2339: Property 'x' does not exist.",
            "------",
            "Dockerfile:17",
            "--------------------",
            "  17 | >>> RUN npm run build",
            "------",
            "2.5 is a number a tool printed",
            "------",
            "> [internal] load metadata for docker.io/library/node:20:",
            "------",
        ];
        assert_eq!(
            run(Features::default(), &lines),
            [
                "#15 [builder 6/6] RUN npm run build",
                "src/a.tsx(361,30): error TS2339: Property 'x' does not exist.",
                "#15 ERROR: process \"/bin/sh -c npm run build\" did not complete successfully: exit code: 2",
                "------",
                " > [builder 6/6] RUN npm run build:",
                "------",
                "Dockerfile:17",
                "--------------------",
                "  17 | >>> RUN npm run build",
                "------",
                "2.5 is a number a tool printed",
                "------",
                "> [internal] load metadata for docker.io/library/node:20:",
                "------",
            ]
        );
    }

    #[test]
    fn gh_run_view_prefix_is_removed() {
        let head = b"test\tRun npm test\t2024-05-01T12:34:56.1234567Z > app@1.0.0 test\n";
        let features = Features::of(head);
        assert!(features.gh_prefix);
        assert_eq!(
            run(
                features,
                &[
                    "test\tRun npm test\t\u{feff}2024-05-01T12:34:56.1234567Z   ● a › b",
                    "test\tRun npm test\t∩╗┐2024-05-01T12:34:56.2234567Z ##[group]Run npm test",
                    "test\tRun npm test\t2024-05-01T12:34:57.1234567Z ##[error]Process completed with exit code 1.",
                ]
            ),
            [
                "##[group]Job: test",
                "  ● a › b",
                "##[group]Run npm test",
                "Process completed with exit code 1."
            ]
        );
    }

    /// Each job of a `gh run view --log` is announced where it begins, once.
    #[test]
    fn each_gh_job_is_announced_where_it_begins() {
        let head = b"lint	Run npm run lint	2024-05-01T12:34:56.1234567Z ok
";
        let features = Features::of(head);
        assert_eq!(
            run(
                features,
                &[
                    "lint	Run npm run lint	2024-05-01T12:34:56.1234567Z ok",
                    "lint	Run npm run lint	2024-05-01T12:34:56.2234567Z done",
                    "test (20.x)	Run npm test	2024-05-01T12:34:57.1234567Z Tests: 1 passed",
                    "continued without a prefix",
                    "test (20.x)	Run npm test	2024-05-01T12:34:57.2234567Z end",
                ]
            ),
            [
                "##[group]Job: lint",
                "ok",
                "done",
                "##[group]Job: test (20.x)",
                "Tests: 1 passed",
                "continued without a prefix",
                "end"
            ]
        );
    }

    /// A gh log pasted under a few lines of prose is still recognised; one line is not enough.
    #[test]
    fn a_pasted_gh_log_is_recognised() {
        let line = "ci\tRun npm test\t2024-05-01T12:34:56.1234567Z ok\n";
        let prose = "# CI log archive\n\n- Workflow: CI\n\n```text\n";
        assert!(Features::of(format!("{prose}{line}{line}{line}").as_bytes()).gh_prefix);
        assert!(!Features::of(format!("{prose}{line}").as_bytes()).gh_prefix);
    }

    /// A record wrapped at 44 columns, in Spanish, as PowerShell 5 writes it for pnpm.
    #[test]
    fn powershell_record_is_dropped_and_its_width_joins_lines() {
        let lines = [
            "node.exe : $ tsx --test ",
            "--test-timeout=20000 tests/*.test.ts",
            "En C:\\nvm4w\\nodejs\\pnpm.ps1: 16 Carácter: 5",
            "+     & \"$basedir/node$exe\"  ",
            "\"$basedir/node_modules/corepack/dist/pnpm. ",
            "...",
            "+     ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~",
            "~~~~~~~~~~~~~~~~~~~~~~~~~~~",
            "    + CategoryInfo          : NotSpecified: ",
            "    ($ tsx --test --...tests/*.test.ts:Str  ",
            "  ing) [], RemoteException",
            "    + FullyQualifiedErrorId : NativeCommand ",
            "   Error",
            " ",
            "[audit:contracts] Hay 124 contratos sin ",
            "implementar y sin marca PENDING.",
            "short line",
            "Ô£ö a test that passed and is longer than the console (10.5ms)",
        ];
        let features = Features {
            powershell: true,
            mojibake: true,
            ..Features::default()
        };
        assert_eq!(
            run(features, &lines),
            [
                "$ tsx --test --test-timeout=20000 tests/*.test.ts",
                "[audit:contracts] Hay 124 contratos sin implementar y sin marca PENDING.",
                "short line",
                "✔ a test that passed and is longer than the console (10.5ms)",
            ]
        );
    }

    /// cargo under a French PowerShell 20 columns wide: the position line is cut too.
    #[test]
    fn a_cut_position_line_is_no_part_of_the_message() {
        let lines = [
            "cargo :    ",
            "Compiling ",
            "my_openclaw v0.1.0 (",
            "D:\\MVP\\openclaw-secu",
            "re-installer\\desktop",
            "\\src-tauri)",
            "Au caractère ",
            "Ligne:1 : 1",
            "+ cargo test 2>&1 | ",
            "Out-File -FilePath d",
            "+ ~~~~~~~~~~~~~~~",
            "    + CategoryInfo  ",
            "            : NotS  ",
            "  pecified: (   C   ",
            " ompiling my...k    ",
            "top\\src-tauri):    ",
            "String) [], Rem    ",
            "oteException",
            "    + FullyQualifie ",
            "   dErrorId : Nati  ",
            "  veCommandError",
            " ",
            "running 42 tests",
        ];
        let features = Features {
            powershell: true,
            ..Features::default()
        };
        assert_eq!(
            run(features, &lines),
            [
                "   Compiling my_openclaw v0.1.0 (D:\\MVP\\openclaw-secure-installer\\desktop\\src-tauri)",
                "running 42 tests",
            ]
        );
    }

    #[test]
    fn what_only_looks_like_a_record_is_kept() {
        let lines = ["error : something", "next", "more"];
        let features = Features {
            powershell: true,
            ..Features::default()
        };
        let mut expected: Vec<&str> = lines.to_vec();
        let many: Vec<String> = (0..30).map(|i| format!("line {i}")).collect();
        let mut input: Vec<&str> = lines.to_vec();
        input.extend(many.iter().map(String::as_str));
        expected.extend(many.iter().map(String::as_str));
        assert_eq!(run(features, &input), expected);
    }
}
