//! The `tsc` summarizer: the TypeScript compiler's diagnostics, plain and pretty.
//!
//! What a tsc log holds, and how each part is read:
//! - Plain diagnostics (`--pretty false`, and the default when the output is not a terminal, as in
//!   CI): `src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.`, then
//!   the rest of a chained message on lines indented by two spaces per level. Those lines become
//!   the diagnostic's detail. There is no summary line: the tool's own list is the count.
//! - Pretty diagnostics (`--pretty`, or a terminal): `src/a.ts:3:7 - error TS2322: …`, the chained
//!   message, a blank line, a code frame (`3 let x: number = "a";` and a `~~~` underline), related
//!   information (an indented location, its frame and message), and at the end a footer: `Found 51
//!   errors in 10 files.` with an `Errors  Files` table, `Found 1 error in src/a.ts:3`, `Found 3
//!   errors in the same file, starting at: src/a.ts:5`, or `Found 4 errors.` (build mode, and
//!   errors without a file). The footer gives the counts.
//! - Errors without a file (`error TS5023: Unknown compiler option '--x'.`, `error TS18003: No
//!   inputs were found in config file …`), errors located in a config file, and errors whose code
//!   tsc only reports on an option (`TS6046: Argument for '--moduleResolution' option must be: …`)
//!   are configuration errors: nothing could be checked as configured, so the run is errored. A
//!   config file is one named like `tsconfig*.json` or `jsconfig*.json`, or — through
//!   [`TscSummarizer::with_config_files`], which the verifier calls with the `extends` chain it
//!   resolved — any file the checked tsconfig extends or references (`./config/base.jsonc`).
//! - Watch mode and build mode print timestamped status lines (`12:00:00 AM - Starting compilation
//!   in watch mode...`, `[12:00:00 AM] Found 0 errors. Watching for file changes.`, `Building
//!   project …`). Each new compilation in watch mode starts the report over: the last one is the
//!   state of the code.
//!
//! - `--diagnostics` (which the verifier passes) adds `Files:  12` and other counts at the end, and
//!   build mode's `--verbose` a list of the projects, which is all an up-to-date build prints:
//!   the evidence that tsc checked something ([`Evidence::Checked`]), which a pass of the verifier
//!   needs, since a clean run prints nothing otherwise.
//! - A clean run prints nothing: a log that holds only the package manager's script line that ran
//!   tsc (`> tsc --noEmit`, `$ tsc`, after turbo's or pnpm's prefix too) is tsc's, and passes.
//! - Run where no tsconfig.json is found and given no file, tsc prints `Version 5.5.4`, `tsc: The
//!   TypeScript Compiler - Version 5.5.4` and its whole help instead of checking: errored.
//! - A GitHub Actions problem matcher writes `##[error]` before each diagnostic it matched; that
//!   marker is dropped.
//!
//! typescript 7 (the native compiler) prints the same formats; only its related information differs
//! (`  src/a.ts:3:3 - The expected type comes from …`), and that is indented like every other line
//! this parser skips.

use std::collections::HashSet;

use verdict_model::model::MAX_DIAGNOSTICS;
use verdict_model::{
    Diagnostic, Evidence, Fingerprint, Kind, LineParser, Outcome, Report, Severity, Summarizer,
};

use crate::js_test::{RunnerPrefixes, unprefixed_sample};
use crate::text::clip;

const TOOL: &str = "tsc";

/// The first line of the help tsc prints instead of compiling when it finds no tsconfig.json and
/// was given no file (after `Version 5.5.4`).
const HELP_BANNER: &str = "tsc: The TypeScript Compiler - Version";

/// The texts [`TscSummarizer::sniff`] looks for, in [`MARKERS`]' order.
#[derive(Clone, Copy)]
enum Marker {
    Placeholder,
    Help,
    Watch,
    Watching,
    ErrorsFiles,
    SameFile,
    Found,
}

/// One searcher per marker, built once: the splitter sniffs what follows each run's end, so a log
/// of many runs sniffs small samples thousands of times.
static MARKERS: std::sync::LazyLock<[memchr::memmem::Finder<'static>; 7]> =
    std::sync::LazyLock::new(|| {
        [
            "This is not the tsc command you are looking for",
            HELP_BANNER,
            "Starting compilation in watch mode",
            "Watching for file changes.",
            "\nErrors  Files\n",
            " errors in the same file, starting at: ",
            "Found ",
        ]
        .map(memchr::memmem::Finder::new)
    });

/// The longest message kept, in characters.
const MAX_MESSAGE: usize = 400;
/// The longest detail kept (the chained message's further lines), in characters.
const MAX_DETAIL: usize = 200;
/// How many continuation lines of one message are read; a chain is rarely deeper than ten.
const MAX_CHAIN_LINES: usize = 50;
/// How many distinct file names are remembered to count the files with errors.
const MAX_FILES: usize = 100_000;

/// Parses tsc output.
#[derive(Debug, Default, Clone, Copy)]
pub struct TscSummarizer;

impl TscSummarizer {
    /// The same summarizer, told which files are the project's configuration: the tsconfig checked
    /// and every file it extends or references, as paths the way tsc prints them (relative to its
    /// working directory, `/`-separated, or absolute). An error located in one of them is a
    /// configuration error whatever the file is called.
    pub fn with_config_files(
        self,
        config_files: impl IntoIterator<Item = String>,
    ) -> TscProjectSummarizer {
        TscProjectSummarizer {
            config_files: config_files.into_iter().collect(),
        }
    }
}

/// Parses tsc output of a project whose configuration files are known (see
/// [`TscSummarizer::with_config_files`]).
#[derive(Debug, Default, Clone)]
pub struct TscProjectSummarizer {
    config_files: HashSet<String>,
}

impl Summarizer for TscProjectSummarizer {
    fn name(&self) -> &'static str {
        TOOL
    }

    fn kind(&self) -> Kind {
        Kind::Type
    }

    fn sniff(&self, sample: &str) -> u8 {
        TscSummarizer.sniff(sample)
    }

    fn parser(&self) -> Box<dyn LineParser> {
        Box::new(Parser {
            config_files: self.config_files.clone(),
            ..Parser::default()
        })
    }

    fn silent_on_success(&self) -> bool {
        true
    }
}

impl Summarizer for TscSummarizer {
    fn name(&self) -> &'static str {
        TOOL
    }

    // A clean run prints nothing (eslint's default formatter, tsc without `--diagnostics`).
    fn silent_on_success(&self) -> bool {
        true
    }

    fn kind(&self) -> Kind {
        Kind::Type
    }

    fn sniff(&self, sample: &str) -> u8 {
        let has = |marker: Marker| MARKERS[marker as usize].find(sample.as_bytes()).is_some();
        // What the npm package `tsc` (a placeholder, not TypeScript) prints instead of compiling,
        // and the help tsc prints when it finds no tsconfig.json and was given no file.
        if has(Marker::Placeholder) || has(Marker::Help) {
            return 90;
        }
        // The footer, its table of errors per file, and the watch-mode status lines are tsc's
        // alone. The table alone is what follows a run's end when the splitter asks whether
        // the lines after it are still tsc's.
        let found = has(Marker::Found);
        if has(Marker::Watch)
            || has(Marker::Watching)
            || has(Marker::ErrorsFiles)
            || has(Marker::SameFile)
        {
            return 95;
        }
        // A diagnostic line. ts-jest and other wrappers print these too, inside their own
        // output, so this alone stays below their markers.
        let header = sample
            .lines()
            .take(5_000)
            .any(|line| parse_header(line).is_some());
        match (header, found) {
            (true, true) => 90,
            (true, false) => 85,
            // Only the script line that ran it: a clean run prints nothing. Any other tool's own
            // output is surer than this.
            _ if unprefixed_sample(sample).lines().take(5_000).any(runs_tsc) => 40,
            _ => 0,
        }
    }

    fn parser(&self) -> Box<dyn LineParser> {
        Box::new(Parser::default())
    }
}

/// The category word tsc prints before the code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Category {
    Error,
    Warning,
    Suggestion,
    Message,
}

impl Category {
    fn from_word(word: &str) -> Option<Category> {
        match word {
            "error" => Some(Category::Error),
            "warning" => Some(Category::Warning),
            "suggestion" => Some(Category::Suggestion),
            "message" => Some(Category::Message),
            _ => None,
        }
    }

    fn severity(self) -> Severity {
        match self {
            Category::Error => Severity::Error,
            Category::Warning => Severity::Warning,
            Category::Suggestion | Category::Message => Severity::Info,
        }
    }
}

/// Which of tsc's two formats a header was printed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    /// `file(l,c): error TS…`, and `error TS…` without a file.
    Plain,
    /// `file:l:c - error TS…`.
    Pretty,
}

/// A diagnostic's first line, split into its parts.
#[derive(Debug, PartialEq, Eq)]
struct Header<'a> {
    file: Option<&'a str>,
    line: Option<u32>,
    column: Option<u32>,
    category: Category,
    /// The digits of the code, without `TS`.
    code: &'a str,
    message: &'a str,
    style: Style,
}

/// Parses a diagnostic's first line in either format, or `None` for any other line.
///
/// The category marker (` TS` after `error`, `warning`, …) is found first; only lines that hold
/// one are looked at further. Its `T` is searched for byte by byte: on a header line the first
/// `T` is most often the marker's, and a search set up for the three bytes costs more on lines
/// this short.
fn parse_header(line: &str) -> Option<Header<'_>> {
    let bytes = line.as_bytes();
    let mut from = 1;
    while let Some(found) = bytes
        .get(from..)
        .and_then(|rest| memchr::memchr(b'T', rest))
    {
        let at = from + found - 1;
        from += found + 1;
        if bytes[at] == b' '
            && bytes.get(at + 2) == Some(&b'S')
            && let Some(header) = header_at(line, at)
        {
            return Some(header);
        }
    }
    None
}

/// The header whose ` TS` marker is at byte `at` of `line`, if the text around it is one.
fn header_at(line: &str, at: usize) -> Option<Header<'_>> {
    let after = line.get(at + 3..)?;
    let digits = after.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let code = &after[..digits];
    let message = after[digits..].strip_prefix(": ")?;
    let before = &line[..at];
    // The category is the lowercase word right before the marker.
    let word_start = before.len()
        - before
            .bytes()
            .rev()
            .take_while(u8::is_ascii_lowercase)
            .count();
    if word_start > 0 && before.as_bytes()[word_start - 1] != b' ' {
        return None;
    }
    let category = Category::from_word(&before[word_start..])?;
    let prefix = &before[..word_start];
    let header = |file, line, column, style| Header {
        file,
        line,
        column,
        category,
        code,
        message,
        style,
    };
    if prefix.is_empty() || prefix.ends_with(": ") && !prefix.ends_with("): ") {
        // `error TS5023: …`, possibly after a task runner's `pkg:build: ` prefix.
        return Some(header(None, None, None, Style::Plain));
    }
    // The position is read from the end, digits first, as both formats end it.
    let (location, style, separator, opening) = match prefix.strip_suffix("): ") {
        Some(location) => (location, Style::Plain, b',', b'('),
        None => (prefix.strip_suffix(" - ")?, Style::Pretty, b':', b':'),
    };
    let (rest, column) = trailing_number(location, separator)?;
    let (file, line) = trailing_number(rest, opening)?;
    let file = strip_runner_prefix(file);
    if file.is_empty() {
        return None;
    }
    Some(header(Some(file), Some(line), Some(column), style))
}

/// Splits `text` at the number that ends it and the byte `before` that precedes the number:
/// `("src/a.ts:12", b':')` gives `("src/a.ts", 12)`. `None` without digits, without that byte,
/// or when the number does not fit.
fn trailing_number(text: &str, before: u8) -> Option<(&str, u32)> {
    let digits = crate::text::trailing_digits(text);
    let start = text.len() - digits.len();
    if digits.is_empty() || start == 0 || text.as_bytes()[start - 1] != before {
        return None;
    }
    Some((&text[..start - 1], digits.parse().ok()?))
}

/// Drops what a task runner prints before tsc's own line (`web:typecheck: src/a.ts` from turbo,
/// `packages/a typecheck: src/a.ts` from pnpm): everything up to the last `: `. A file name with
/// `: ` in it is far rarer than these prefixes.
fn strip_runner_prefix(file: &str) -> &str {
    // Most paths hold no space: one fast search settles it.
    if memchr::memchr(b' ', file.as_bytes()).is_none() {
        return file;
    }
    match file.rfind(": ") {
        Some(i) => &file[i + 2..],
        None => file,
    }
}

/// Whether a diagnostic is about the compiler's configuration rather than the code: it has no
/// file (the command line), it is located in one of `config_files` (the tsconfig checked and what
/// it extends or references, as the verifier resolved them), in a file named like a tsconfig, or
/// its code is one tsc only ever reports on an option.
fn is_config_error(file: Option<&str>, code: &str, config_files: &HashSet<String>) -> bool {
    let Some(file) = file else {
        return true;
    };
    is_option_code(code)
        || config_files.contains(file.strip_prefix("./").unwrap_or(file))
        || is_config_name(file)
}

/// Whether a file is named like a compiler configuration (`tsconfig.json`, `tsconfig.app.json`,
/// `jsconfig.json`). A config with any other name (`extends: "./config/base.jsonc"`) is known
/// only from the `extends` chain, which the verifier resolves.
fn is_config_name(file: &str) -> bool {
    if !file.ends_with(".json") {
        return false;
    }
    let name = file.rsplit(['/', '\\']).next().unwrap_or(file);
    name.starts_with("tsconfig") || name.starts_with("jsconfig")
}

/// Whether tsc reports this code only on a compiler option — in a tsconfig, whatever its name, or
/// on the command line — and never on code. TypeScript's code ranges do not settle it: TS5xxx is
/// mostly options, but TS5075, TS5076, TS5082, TS5085–TS5088 and TS5097 are type and syntax
/// errors in code, and TS6xxx mixes options with messages of every kind. This list was read from
/// `diagnosticMessages.json` (TypeScript 5.9): unknown or ill-typed options and their values,
/// options that conflict or are removed, `paths` and `include` patterns, and project references
/// that cannot be built. TS6053 (`File '…' not found.`) is left out: a `/// <reference path>` in
/// code gets it too; in a tsconfig's `files` it is located in the tsconfig.
fn is_option_code(code: &str) -> bool {
    matches!(
        code,
        // Unknown compiler, build and watch options, and values of the wrong type.
        "5023" | "5024" | "5025" | "5072" | "5073" | "5077" | "5078" | "5079" | "5080"
        // Options that need, exclude or make another option redundant.
        | "5042" | "5047" | "5051" | "5052" | "5053" | "5069" | "5070" | "5071" | "5074" | "5089"
        | "5091" | "5093" | "5094" | "5095" | "5096" | "5098" | "5104" | "5105" | "5109" | "5110"
        // Invalid values: identifiers, `paths` patterns and substitutions, `include` wildcards.
        | "5010" | "5059" | "5061" | "5062" | "5063" | "5064" | "5065" | "5066" | "5067" | "5090"
        // The root of a config that is not an object; deprecated and removed options.
        | "5092" | "5101" | "5102" | "5103" | "5107" | "5108"
        // An option without its argument, a value not among the allowed ones, an option only
        // allowed in a tsconfig or only on the command line, misplaced or misspelt keys.
        | "6044" | "6046" | "6064" | "6114" | "6230" | "6258" | "6266" | "6369" | "6370"
        // Project references: a cycle, composite projects and references that disable emit.
        | "6202" | "6304" | "6310" | "6379"
    )
}

/// Whether an error code names a likely cause of other errors: a module or export that cannot be
/// found, missing type definitions, a project reference not built, or a syntax error (TS1xxx).
fn is_root_cause_code(code: &str) -> bool {
    (code.len() == 4 && code.starts_with('1'))
        || matches!(
            code,
            // Cannot find module; has no exported member; did you mean; is not a module.
            "2307" | "2305" | "2724" | "2306" | "2792" | "2614" | "2613" | "2459" | "2460"
            // Relative imports need an extension; could not find a declaration file.
            | "2834" | "2835" | "7016"
            // Cannot find type definition file; install @types/node, jest, mocha.
            | "2688" | "2580" | "2582" | "2591" | "2593"
            // Output of a referenced project not built.
            | "6305"
        )
}

/// A footer: `Found N errors…`.
#[derive(Debug, PartialEq, Eq)]
struct Footer {
    errors: u64,
    /// `None` when the footer does not say (`Found 4 errors.`, watch mode).
    files: Option<u64>,
}

/// Parses the text of a footer, after any timestamp: `Found 51 errors in 10 files.`, `Found 1
/// error in src/a.ts:3`, `Found 3 errors in the same file, starting at: src/a.ts:5`, `Found 4
/// errors.`, `Found 0 errors. Watching for file changes.`
fn parse_footer(text: &str) -> Option<Footer> {
    let rest = text.strip_prefix("Found ")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let errors: u64 = rest[..digits].parse().ok()?;
    let rest = &rest[digits..];
    let rest = rest
        .strip_prefix(" errors")
        .or_else(|| rest.strip_prefix(" error"))?;
    if rest.starts_with(" in the same file") {
        return Some(Footer {
            errors,
            files: Some(1),
        });
    }
    if let Some(in_files) = rest.strip_prefix(" in ") {
        let digits = in_files.bytes().take_while(u8::is_ascii_digit).count();
        let files = match in_files[digits..].strip_prefix(" file") {
            Some(_) if digits > 0 => in_files[..digits].parse().ok(),
            // `Found 1 error in src/a.ts:3`.
            _ => Some(1),
        };
        return Some(Footer { errors, files });
    }
    (rest.is_empty() || rest.starts_with('.')).then_some(Footer {
        errors,
        files: None,
    })
}

/// The text of a status line after its timestamp, or `None` when the line has none:
/// `12:00:00 AM - Found 0 errors.` (plain) and `[12:00:00 AM] Found 0 errors.` (pretty). The time
/// is in the machine's locale, so only its shape is checked: short, and no letters from the
/// message before the separator.
fn after_timestamp(line: &str) -> Option<&str> {
    if let Some(rest) = line.strip_prefix('[') {
        let close = rest.find("] ")?;
        if close > 32 {
            return None;
        }
        return Some(&rest[close + 2..]);
    }
    let sep = line.find(" - ")?;
    if sep > 32 || !line[..sep].contains(':') {
        return None;
    }
    Some(&line[sep + 3..])
}

/// Whether a line shows tsc checked something although it reported nothing: `--diagnostics`'s
/// `Files:   12` (every run that reads its config, build mode's included), and build mode's
/// `--verbose` list (`12:00:00 AM - Projects in this build:`), the one thing an up-to-date build
/// prints.
fn is_evidence(line: &str) -> bool {
    if let Some(count) = line.strip_prefix("Files:") {
        let count = count.trim_start();
        return !count.is_empty() && count.bytes().all(|b| b.is_ascii_digit());
    }
    after_timestamp(line).is_some_and(|text| text.starts_with("Projects in this build:"))
}

/// Whether a package manager's script line runs tsc: npm's and pnpm's `> tsc --noEmit`, yarn's
/// `$ tsc` or `$ "C:\p\node_modules\.bin\tsc" -noEmit`, `> rm -rf dist && tsc -p x`. A clean
/// run prints nothing else, so this line is all a passing log shows of tsc.
fn runs_tsc(line: &str) -> bool {
    crate::text::script_runs(line, &["tsc", "vue-tsc"])
}

/// The state of the line after a header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Outside any diagnostic.
    Idle,
    /// Right after a header: indented lines continue its message.
    Message,
    /// In a pretty diagnostic's code frame or related information, until the next header.
    Frame,
}

/// The diagnostic being read: its header is known, its chained message may continue.
struct Pending {
    /// `None` once the report holds [`MAX_DIAGNOSTICS`]: the diagnostic is only counted.
    diagnostic: Option<Diagnostic>,
    detail: String,
    chain_lines: usize,
}

#[derive(Default)]
struct Totals {
    /// Error diagnostics seen (the tool's own list in plain output).
    errors: u64,
    /// Distinct files with an error.
    files: HashSet<String>,
    /// The last file added to `files`.
    last_file: String,
    /// Whether more files had errors than [`MAX_FILES`] remembers.
    files_overflow: bool,
    /// The sum of the footers' counts, when there were footers.
    footer_errors: Option<u64>,
    footer_files: Option<u64>,
    /// Whether a footer gave no file count.
    footer_without_files: bool,
}

struct Parser {
    report: Report,
    totals: Totals,
    pending: Option<Pending>,
    state: State,
    /// The first configuration error, as the tool printed it.
    config_error: Option<String>,
    /// The first sign of a crash or of a failure that is not a diagnostic.
    crash: Option<String>,
    /// A line that looked like a diagnostic but could not be read.
    unparsed: Option<String>,
    /// The project's configuration files, as tsc prints their paths (see
    /// [`TscSummarizer::with_config_files`]).
    config_files: HashSet<String>,
    /// turbo's and pnpm's prefixes, for the script line that ran tsc.
    prefixes: RunnerPrefixes,
}

impl Default for Parser {
    fn default() -> Self {
        Parser {
            report: Report::new(TOOL, Outcome::Passed),
            totals: Totals::default(),
            pending: None,
            state: State::Idle,
            config_error: None,
            crash: None,
            unparsed: None,
            config_files: HashSet::new(),
            prefixes: RunnerPrefixes::default(),
        }
    }
}

impl Parser {
    /// Ends the pending diagnostic and adds it to the report.
    fn flush(&mut self) {
        let Some(pending) = self.pending.take() else {
            return;
        };
        if let Some(mut diagnostic) = pending.diagnostic {
            if !pending.detail.is_empty() {
                diagnostic.detail = Some(clip(&pending.detail, MAX_DETAIL));
            }
            self.report.push(diagnostic);
        }
    }

    fn start(&mut self, header: Header<'_>) {
        self.flush();
        let config = is_config_error(header.file, header.code, &self.config_files);
        let error = header.category == Category::Error;
        if error {
            // Counted here, not when the diagnostic is kept: the report keeps at most
            // MAX_DIAGNOSTICS, the counts cover all.
            self.totals.errors += 1;
            // Errors come grouped by file: most of them are in the file of the one before.
            if let Some(file) = header.file
                && self.totals.last_file != file
            {
                let known = self.totals.files.contains(file);
                if !known && self.totals.files.len() >= MAX_FILES {
                    self.totals.files_overflow = true;
                } else {
                    if !known {
                        self.totals.files.insert(file.to_owned());
                    }
                    self.totals.last_file.clear();
                    self.totals.last_file.push_str(file);
                }
            }
            if config && self.config_error.is_none() {
                let location = match (header.file, header.line, header.column) {
                    (Some(file), Some(line), Some(column)) => format!("{file}:{line}:{column}: "),
                    _ => String::new(),
                };
                self.config_error = Some(format!(
                    "{location}TS{}: {}",
                    header.code,
                    clip(header.message.trim_end(), MAX_MESSAGE)
                ));
            }
        }
        let diagnostic = if self.report.diagnostics.len() < MAX_DIAGNOSTICS {
            // Built in one go: each builder method would recompute the fingerprint.
            let mut diagnostic = Diagnostic {
                tool: TOOL.to_owned(),
                kind: Kind::Type,
                severity: header.category.severity(),
                file: header.file.map(str::to_owned),
                line: header.line,
                column: header.column,
                code: Some(format!("TS{}", header.code)),
                message: clip(header.message.trim_end(), MAX_MESSAGE),
                test: None,
                detail: None,
                root_cause: error && (config || is_root_cause_code(header.code)),
                test_error: false,
                fingerprint: Fingerprint::default(),
            };
            diagnostic.refresh_fingerprint();
            Some(diagnostic)
        } else {
            self.report.diagnostics_dropped += 1;
            None
        };
        self.pending = Some(Pending {
            diagnostic,
            detail: String::new(),
            chain_lines: 0,
        });
        self.state = State::Message;
    }

    /// A line of a chained message: `  Types of property 'a' are incompatible.`
    fn continue_message(&mut self, line: &str) {
        let Some(pending) = self.pending.as_mut() else {
            return;
        };
        if pending.diagnostic.is_none() {
            return;
        }
        pending.chain_lines += 1;
        if pending.chain_lines > MAX_CHAIN_LINES || pending.detail.len() > MAX_DETAIL * 4 {
            return;
        }
        if !pending.detail.is_empty() {
            pending.detail.push(' ');
        }
        pending.detail.push_str(line.trim());
    }

    /// Starts the report over: a new compilation in watch mode.
    fn restart(&mut self) {
        self.pending = None;
        self.state = State::Idle;
        let notes = std::mem::take(&mut self.report.notes);
        let evidence = self.report.evidence;
        self.report = Report::new(TOOL, Outcome::Passed);
        self.report.notes = notes;
        self.report.saw(evidence.max(Evidence::Ran));
        self.totals = Totals::default();
        self.config_error = None;
        self.crash = None;
        self.unparsed = None;
    }

    /// A status line (after its timestamp) or a footer.
    fn status(&mut self, text: &str) -> bool {
        if let Some(footer) = parse_footer(text) {
            self.flush();
            self.state = State::Idle;
            let totals = &mut self.totals;
            totals.footer_errors = Some(totals.footer_errors.unwrap_or(0) + footer.errors);
            match footer.files {
                Some(files) => totals.footer_files = Some(totals.footer_files.unwrap_or(0) + files),
                None => totals.footer_without_files = footer.errors > 0,
            }
            self.report.summary = Some(text.trim_end().to_owned());
            return true;
        }
        if text.starts_with("Starting compilation in watch mode")
            || text.starts_with("File change detected. Starting incremental compilation")
        {
            self.restart();
            return true;
        }
        false
    }

    /// Looks for a crash of tsc itself, or a failure of the command around it.
    fn other(&mut self, line: &str) {
        if self.report.evidence == Evidence::Nothing && runs_tsc(self.prefixes.strip(line)) {
            self.report.saw(Evidence::Ran);
            return;
        }
        if self.crash.is_some() {
            return;
        }
        if line.starts_with(HELP_BANNER) {
            self.crash = Some(
                "tsc printed its help instead of checking: no tsconfig.json where it ran, and no \
                 file named"
                    .to_owned(),
            );
            return;
        }
        let crashed = line.starts_with("Error: Debug Failure")
            || line.contains("JavaScript heap out of memory")
            || line.starts_with("RangeError: Maximum call stack size exceeded")
            // npx's banner when typescript is not installed.
            || line.starts_with("To get access to the TypeScript compiler")
            || (line.starts_with("sh: ") || line.starts_with("bash: "))
                && (line.ends_with("not found") || line.ends_with("command not found"))
            || line.starts_with("npm ERR!")
            || line.starts_with("npm error")
            || line.starts_with("error Command failed")
            || line.starts_with("ELIFECYCLE ");
        if crashed {
            self.crash = Some(clip(line.trim(), MAX_MESSAGE));
        } else if self.unparsed.is_none()
            && (line.contains("error TS") || line.contains("error  TS"))
        {
            self.unparsed = Some(clip(line.trim(), MAX_MESSAGE));
        }
    }
}

impl LineParser for Parser {
    fn line(&mut self, line: &str) {
        let Some(&first) = line.as_bytes().first() else {
            // A blank line ends a pretty message; its code frame follows.
            if self.state == State::Message {
                self.flush();
                self.state = State::Frame;
            }
            return;
        };
        if first == b' ' || first == b'\t' {
            match self.state {
                State::Message => self.continue_message(line),
                // pnpm's ` ELIFECYCLE  Command failed with exit code 2.`
                State::Idle => self.other(line.trim_start()),
                // A code frame's underline, related information.
                State::Frame => {}
            }
            return;
        }
        if self.state == State::Frame && first.is_ascii_digit() {
            // A code frame line: `12   const x = 1;`. Its code may hold anything.
            let digits = line.bytes().take_while(u8::is_ascii_digit).count();
            if line.as_bytes().get(digits) == Some(&b' ') {
                return;
            }
        }
        if let Some(header) = parse_header(line) {
            self.start(header);
            return;
        }
        self.flush();
        self.state = State::Idle;
        if first == b'F' && self.status(line) {
            return;
        }
        if let Some(text) = after_timestamp(line)
            && self.status(text)
        {
            return;
        }
        if is_evidence(line) {
            self.report.saw(Evidence::Checked);
            return;
        }
        self.other(line);
    }

    fn finish(mut self: Box<Self>) -> Report {
        self.flush();
        let mut report = self.report;
        let totals = self.totals;
        let seen_files = totals.files.len() as u64;
        let errors = totals.footer_errors.unwrap_or(totals.errors);
        // Build mode and file-less errors give no file count: the files of the listed errors
        // are the tool's own list.
        let files = match totals.footer_files {
            Some(files) if !totals.footer_without_files => files,
            Some(files) => files.max(seen_files),
            None => seen_files,
        };
        if totals.files_overflow && totals.footer_files.is_none() {
            report.note(format!(
                "more than {MAX_FILES} files with errors; the file count stops there"
            ));
        }
        // A crash before any error was listed has no counts of its own.
        let crashed = errors == 0 && (self.crash.is_some() || self.unparsed.is_some());
        if !crashed {
            report.counts.errors = Some(errors);
            report.counts.files = Some(files);
        }
        if totals.footer_errors.is_some_and(|n| n != totals.errors) {
            report.note(format!(
                "the footer counts {errors} errors, the log lists {}",
                totals.errors
            ));
        }
        if let Some(error) = self.config_error {
            report.outcome = Outcome::Errored;
            report.error = Some(error);
        } else if errors > 0 {
            report.outcome = Outcome::Failed;
        } else if let Some(crash) = self.crash {
            report.outcome = Outcome::Errored;
            report.error = Some(crash);
        } else if let Some(unparsed) = self.unparsed {
            report.outcome = Outcome::Errored;
            report.note(format!(
                "a line looks like an error but could not be read: {unparsed}"
            ));
            report.error = Some(unparsed);
        } else {
            report.outcome = Outcome::Passed;
        }
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(log: &str) -> Report {
        TscSummarizer.parse(log.as_bytes())
    }

    /// Lines of real runs: TypeScript 5.9 `-p … --diagnostics`, TypeScript 7 and 5.9 `-b …
    /// --diagnostics --verbose` on a build that is up to date.
    #[test]
    fn diagnostics_counts_and_the_build_list_are_evidence() {
        for line in [
            "Files:               8",
            "Files:                    83",
            "5:47:06 AM - Projects in this build: ",
            "05:47:15 AM - Projects in this build: ",
        ] {
            assert!(is_evidence(line), "{line:?}");
        }
        for line in [
            "Files:",
            "Files: src/a.ts",
            "Lines:           44812",
            "5:47:06 AM - Project 'sub/tsconfig.json' is up to date because newest input 'sub/src/c.ts' is older than output 'sub/out/tsconfig.tsbuildinfo'",
        ] {
            assert!(!is_evidence(line), "{line:?}");
        }
        let report = parse("5:47:06 AM - Projects in this build: \n    * sub/tsconfig.json\n");
        assert_eq!(report.evidence(), Evidence::Checked);
        assert_eq!(parse("> tsc --noEmit\n").evidence(), Evidence::Ran);
        assert_eq!(parse("PASS src/a.test.js\n").evidence(), Evidence::Nothing);
    }

    #[test]
    fn headers_in_both_formats_and_without_a_file() {
        let plain = parse_header("src/a b.ts(3,7): error TS2322: Type 'x' is bad.").expect("plain");
        assert_eq!(plain.file, Some("src/a b.ts"));
        assert_eq!((plain.line, plain.column), (Some(3), Some(7)));
        assert_eq!((plain.code, plain.style), ("2322", Style::Plain));
        let pretty =
            parse_header("C:\\x\\a.ts:3:7 - warning TS6133: 'x' is unused.").expect("pretty");
        assert_eq!(pretty.file, Some("C:\\x\\a.ts"));
        assert_eq!(pretty.category, Category::Warning);
        assert_eq!(pretty.style, Style::Pretty);
        let global = parse_header("error TS5023: Unknown compiler option '--x'.").expect("global");
        assert_eq!(global.file, None);
        assert_eq!(global.message, "Unknown compiler option '--x'.");
        assert_eq!(
            parse_header("const TS = 1; // error TS123 in a comment"),
            None
        );
        assert_eq!(
            parse_header("12   const x = \"error TS1: \";").map(|h| h.code),
            None
        );
    }

    #[test]
    fn task_runner_prefixes_are_dropped() {
        let h = parse_header("web:typecheck: src/a.ts(1,2): error TS2304: Cannot find name 'x'.")
            .expect("turbo");
        assert_eq!(h.file, Some("src/a.ts"));
        let h = parse_header("web:typecheck: error TS5023: Unknown compiler option 'x'.")
            .expect("global");
        assert_eq!(h.file, None);
    }

    #[test]
    fn github_actions_timestamps_are_dropped() {
        let report = parse(
            "2024-05-01T12:34:56.7890123Z src/a.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.\n2024-05-01T12:34:56.7890123Z   Detail.\n2024-05-01T12:34:57.0000000Z error TS5023: Unknown compiler option 'x'.\n",
        );
        assert_eq!(report.diagnostics[0].file.as_deref(), Some("src/a.ts"));
        assert_eq!(report.diagnostics[0].detail.as_deref(), Some("Detail."));
        assert_eq!(report.diagnostics[1].file, None);
    }

    #[test]
    fn problem_matcher_annotations_and_script_lines() {
        let report = parse(
            "##[error]src/a.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.\n",
        );
        assert_eq!(report.diagnostics[0].file.as_deref(), Some("src/a.ts"));
        assert_eq!(report.counts.errors, Some(1));
        // A clean run shows nothing but the script line that ran tsc.
        let clean = "\n> app@1.0.0 typecheck\n> tsc --noEmit --pretty false\n\n";
        assert!(TscSummarizer.sniff(clean) >= 30);
        assert_eq!(parse(clean).outcome, Outcome::Passed);
        let turbo = "web:build: \nweb:build: > web@0.0.0 build\nweb:build: > tsc -b && vite build\nweb:build: \n";
        assert!(TscSummarizer.sniff(turbo) >= 30);
        assert_eq!(TscSummarizer.sniff("> web@0.0.0 build\n> vite build\n"), 0);
    }

    #[test]
    fn footers() {
        let f = |t| parse_footer(t);
        assert_eq!(
            f("Found 51 errors in 10 files."),
            Some(Footer {
                errors: 51,
                files: Some(10)
            })
        );
        assert_eq!(
            f("Found 1 error in src/a.ts:3"),
            Some(Footer {
                errors: 1,
                files: Some(1)
            })
        );
        assert_eq!(
            f("Found 3 errors in the same file, starting at: src/a.ts:5"),
            Some(Footer {
                errors: 3,
                files: Some(1)
            })
        );
        assert_eq!(
            f("Found 4 errors."),
            Some(Footer {
                errors: 4,
                files: None
            })
        );
        assert_eq!(
            f("Found 0 errors. Watching for file changes."),
            Some(Footer {
                errors: 0,
                files: None
            })
        );
        assert_eq!(f("Found 3 problems"), None);
    }

    #[test]
    fn chained_messages_become_the_detail() {
        let report = parse(
            "src/a.ts(7,3): error TS2322: Type 'A' is not assignable to type 'B'.\n  Types of property 'x' are incompatible.\n    Type 'string' is not assignable to type 'number'.\nsrc/b.ts(1,1): error TS2304: Cannot find name 'y'.\n",
        );
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(report.counts.errors, Some(2));
        assert_eq!(report.counts.files, Some(2));
        assert_eq!(
            report.diagnostics[0].detail.as_deref(),
            Some(
                "Types of property 'x' are incompatible. Type 'string' is not assignable to type 'number'."
            )
        );
        assert_eq!(report.diagnostics[1].detail, None);
    }

    #[test]
    fn watch_mode_keeps_the_last_compilation() {
        let report = parse(
            "[9:00:00 AM] Starting compilation in watch mode...\n\nsrc/a.ts:1:7 - error TS2322: Type 'string' is not assignable to type 'number'.\n\n1 const a: number = \"x\";\n        ~\n\n[9:00:01 AM] Found 1 error. Watching for file changes.\n\n[9:00:05 AM] File change detected. Starting incremental compilation...\n\n[9:00:05 AM] Found 0 errors. Watching for file changes.\n",
        );
        assert_eq!(report.outcome, Outcome::Passed);
        assert_eq!(report.counts.errors, Some(0));
        assert!(report.diagnostics.is_empty());
        let plain = parse(
            "9:00:00 - Starting compilation in watch mode...\n\nsrc/a.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.\n\n9:00:01 - Found 1 error. Watching for file changes.\n",
        );
        assert_eq!(plain.outcome, Outcome::Failed);
        assert_eq!(plain.counts.errors, Some(1));
        assert_eq!(plain.counts.files, Some(1));
    }

    #[test]
    fn configuration_errors_are_errored() {
        let report = parse("error TS5023: Unknown compiler option '--strictt'.\n");
        assert_eq!(report.outcome, Outcome::Errored);
        assert_eq!(
            report.error.as_deref(),
            Some("TS5023: Unknown compiler option '--strictt'.")
        );
        let report = parse("tsconfig.json(4,5): error TS1005: ',' expected.\n");
        assert_eq!(report.outcome, Outcome::Errored);
        assert_eq!(
            report.error.as_deref(),
            Some("tsconfig.json:4:5: TS1005: ',' expected.")
        );
    }

    #[test]
    fn config_errors_in_an_extended_config_not_named_tsconfig_are_errored() {
        // An option tsc rejects, wherever the config that sets it lives.
        let log = "config/base.jsonc(1,58): error TS6046: Argument for '--moduleResolution' option must be: 'node16', 'nodenext', 'bundler'.\n";
        let report = parse(log);
        assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
        assert!(report.diagnostics[0].root_cause);
        // A syntax error is a config error only in a file the project's tsconfig extends.
        let log = "config/base.jsonc(1,40): error TS1005: ',' expected.\n";
        assert_eq!(parse(log).outcome, Outcome::Failed);
        let report = TscSummarizer
            .with_config_files(["config/base.jsonc".to_owned()])
            .parse(log.as_bytes());
        assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
        assert_eq!(
            report.error.as_deref(),
            Some("config/base.jsonc:1:40: TS1005: ',' expected.")
        );
        // The same syntax error in code, and an option-related error located in code, are code.
        let report = TscSummarizer
            .with_config_files(["config/base.jsonc".to_owned()])
            .parse(b"src/a.ts(1,40): error TS1005: ',' expected.\nsrc/b.ts(1,20): error TS5097: An import path can only end with a '.ts' extension when 'allowImportingTsExtensions' is enabled.\n");
        assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    }

    #[test]
    fn root_causes_are_marked() {
        let report = parse(
            "src/a.ts(1,20): error TS2307: Cannot find module 'x' or its corresponding type declarations.\nsrc/a.ts(2,1): error TS1005: ';' expected.\nsrc/a.ts(3,1): error TS2322: Type 'string' is not assignable to type 'number'.\n",
        );
        let roots: Vec<bool> = report.diagnostics.iter().map(|d| d.root_cause).collect();
        assert_eq!(roots, [true, true, false]);
    }

    #[test]
    fn crashes_and_unreadable_errors_are_never_a_pass() {
        assert_eq!(parse("").outcome, Outcome::Passed);
        let report =
            parse("Error: Debug Failure. False expression.\n    at Object.assert (tsc.js:1:1)\n");
        assert_eq!(report.outcome, Outcome::Errored);
        let report = parse(
            "\n                This is not the tsc command you are looking for\n\n\nTo get access to the TypeScript compiler, tsc, from the command line either:\n",
        );
        assert_eq!(report.outcome, Outcome::Errored);
        let report = parse(" ELIFECYCLE  Command failed with exit code 2.\n");
        assert_eq!(report.outcome, Outcome::Errored);
        let report = parse("src/a.ts(x,y): error TS2322: broken\n");
        assert_eq!(report.outcome, Outcome::Errored);
        let help = "Version 5.5.4\ntsc: The TypeScript Compiler - Version 5.5.4\n\nCOMMON COMMANDS\n\n  tsc\n";
        assert!(TscSummarizer.sniff(help) >= 90);
        assert_eq!(parse(help).outcome, Outcome::Errored);
    }

    #[test]
    fn code_frames_that_look_like_headers_are_skipped() {
        let report = parse(
            "src/a.ts:1:7 - error TS2322: Type 'string' is not assignable to type 'number'.\n\n1 const a = \"b.ts(1,2): error TS1005: x\";\n        ~\n\n\nFound 1 error in src/a.ts:1\n\n",
        );
        assert_eq!(report.diagnostics.len(), 1);
        assert_eq!(report.counts.errors, Some(1));
        assert_eq!(
            report.summary.as_deref(),
            Some("Found 1 error in src/a.ts:1")
        );
    }
}
