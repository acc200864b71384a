//! `verdict merge`: the JSON reports of the shards of one run (`verdict run --shard i/n --format
//! json`) combined into one run, rendered in any format, the digest included.
//!
//! The reports must be the shards of one split: the same `verdict-run/1` schema, the same total
//! `n`, each index from 1 to `n` exactly once, and the same verifiers. Anything else — a shard
//! missing, given twice, of another split, unreadable, or not a shard report at all — is an error
//! naming the file: the merged run could not verify (exit 2).
//!
//! Each verifier's part is merged from the shards that ran it; the shards that did not
//! (`not_in_shard`) add nothing. A verifier run whole in shard 1 (a type checker, a linter) is
//! taken from shard 1 as it is. A test runner split across the shards gets its counts summed, its
//! diagnostics concatenated in shard order and deduplicated by fingerprint (a diagnostic every
//! shard prints, such as a warning about the configuration, counts once; within one shard the
//! multiplicity stays), its `tests` concatenated (at most
//! [`verdict_core::model::MAX_TESTS`]), and the worst outcome: errored in any shard is errored
//! (the reason names the shard), else failed in any is failed. A split runner that ran in no
//! shard ran no test: errored, never a pass.
//!
//! Memory stays bounded by the merged run, not by the inputs: each report is read, folded into
//! the merged run and dropped (two are read at a time, on two threads). A first pass reads only each report's
//! header (its schema and shard), so that the fold goes in shard order whatever order the files
//! are named in (a shell's `shard-*.json` puts `shard-10` before `shard-2`).

use std::collections::BTreeMap;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use verdict_core::model::{Fingerprint, MAX_DIAGNOSTICS, overall};
use verdict_core::render::RenderInput;
use verdict_core::render::json::{RunDocument, SCHEMA, ShardDocument, VerificationDocument};
use verdict_core::{Outcome, Report, Status, Verification};

use crate::budget;
use crate::exit::ExitCode;
use crate::output::{self, OutputSpec, OutputSpecParser};
use crate::run::{Repository, usage};
use crate::verify;

const EXAMPLES: &str = "\
Examples:
  verdict run --shard 1/3 --format json --output shard-1.json   # on each of 3 machines
  verdict merge shard-*.json                                    # the digest of the whole run
  verdict merge shard-*.json --format sarif --output verdict.sarif

Exit codes:
  0  every verifier passed in every shard
  1  a verifier found failures in the code, in some shard
  2  a verifier could not verify in some shard, or a shard is missing, given twice, of another
     split or unreadable";

/// Arguments of `verdict merge`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub(crate) struct Args {
    /// The shards' JSON reports (`verdict run --shard i/n --format json`), one per shard
    #[arg(required = true, value_name = "FILES")]
    files: Vec<PathBuf>,

    /// A report to write: FORMAT, or FORMAT=PATH to write it to a file; repeat it for several
    /// reports. At most one goes to stdout, and one is `human` [default: human]
    #[arg(long = "format", value_name = "FORMAT[=PATH]", value_parser = OutputSpecParser)]
    formats: Vec<OutputSpec>,

    /// Write the one report given by --format to FILE (the older spelling of FORMAT=FILE)
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,

    /// First part of the SARIF categories, `PREFIX/<project>/<verifier>/` [default: verdict]
    #[arg(long, value_name = "PREFIX", value_parser = crate::run::parse_category)]
    category: Option<String>,

    /// Hard limit of the digest, in tokens (o200k) [default: the shards' own budget]
    #[arg(long, value_name = "N", value_parser = budget::parse)]
    budget: Option<usize>,
}

/// What the first pass reads of a report: enough to order and check the shards.
#[derive(Deserialize)]
struct Header {
    schema: Option<String>,
    shard: Option<ShardDocument>,
}

/// Runs the command and returns the exit code.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    // The outputs are checked before any shard is read.
    let outputs = output::resolve(&args.formats, args.output.as_deref())
        .map_err(|error| usage(error.to_string()))?;
    let merged = merge_files(&args.files)?;
    // The shards name files from the repository's root; the merged run is of their project, in
    // the repository verdict merge runs in (a CI job's checkout).
    let here = std::env::current_dir().context("failed to read the current directory")?;
    let repository = Repository::of(&here).with_project(&merged.project);
    let budget = args.budget.unwrap_or(merged.budget);
    let outcome = overall(&merged.verifications);
    // The shards' digests are of their parts; the merged run's is built afresh, with no memo.
    let digest = verify::digest(Path::new("."), &merged.verifications, budget, true, None);
    let input = RenderInput {
        verifications: &merged.verifications,
        digest: &digest,
        outcome,
        known_failures: merged.known_failures,
        exit_code: ExitCode::of(outcome).code(),
        tool_version: env!("CARGO_PKG_VERSION"),
        // Decided for each output by `write_outputs`.
        color: false,
        repo: repository.repo(args.category.as_deref()),
        shard: None,
    };
    output::write_outputs(&outputs, &input, &output::Environment::from_process())?;
    Ok(ExitCode::of(outcome))
}

/// The shards merged into one run.
pub(crate) struct Merged {
    /// One per verifier, in the shards' order.
    pub(crate) verifications: Vec<Verification>,
    /// Failures the shards set aside with a baseline, summed.
    pub(crate) known_failures: u64,
    /// The first shard's digest budget.
    pub(crate) budget: usize,
    /// The project the shards verified, from the repository's root (empty at the root).
    pub(crate) project: String,
}

/// Reads, checks and merges the reports at `files` (see the module docs). Every error names the
/// file or the shard at fault.
pub(crate) fn merge_files(files: &[PathBuf]) -> Result<Merged> {
    let mut by_index: BTreeMap<u32, &PathBuf> = BTreeMap::new();
    let mut total: Option<(u32, &PathBuf)> = None;
    let headers = in_order(files, |path| read_header(path));
    for (path, header) in files.iter().zip(headers) {
        let header = header?;
        match header.schema.as_deref() {
            Some(SCHEMA) => {}
            found => bail!(usage(format!(
                "{} has schema `{}`, not `{SCHEMA}`: it cannot be merged by this verdict",
                path.display(),
                found.unwrap_or("(none)")
            ))),
        }
        let Some(shard) = header.shard else {
            bail!(usage(format!(
                "{} is the report of a whole run, not of a shard (write one with `verdict run \
                 --shard INDEX/TOTAL --format json`)",
                path.display()
            )));
        };
        let Some(valid) = shard.shard() else {
            bail!(usage(format!(
                "{} names shard {}/{}, which is no shard",
                path.display(),
                shard.index,
                shard.total
            )));
        };
        match total {
            None => total = Some((valid.total, path)),
            Some((n, first)) if n != valid.total => bail!(usage(format!(
                "{} is shard {valid} of a split into {}, but {} is of a split into {n}: the \
                 reports are not the shards of one run",
                path.display(),
                valid.total,
                first.display()
            ))),
            Some(_) => {}
        }
        if let Some(other) = by_index.insert(valid.index, path) {
            bail!(usage(format!(
                "shard {valid} is given twice: {} and {}",
                other.display(),
                path.display()
            )));
        }
    }
    let Some((total, _)) = total else {
        bail!(usage("no shard report to merge"));
    };
    let missing: Vec<String> = (1..=total)
        .filter(|index| !by_index.contains_key(index))
        .map(|index| format!("{index}/{total}"))
        .collect();
    if !missing.is_empty() {
        let plural = if missing.len() == 1 { "" } else { "s" };
        bail!(usage(format!(
            "shard{plural} {} missing: the merged run could not verify what {} ran",
            missing.join(", "),
            if missing.len() == 1 { "it" } else { "they" }
        )));
    }

    let mut fold = Fold::default();
    let ordered: Vec<(u32, &PathBuf)> = by_index.into_iter().collect();
    // Two reports are read at a time, each on a thread, and folded in shard order: the fold
    // holds the merged run and at most two reports besides.
    for pair in ordered.chunks(2) {
        let documents = in_order(pair, |&(index, path)| {
            let bytes = read(path)?;
            // UTF-8 checked once for the whole text, not string by string.
            let text = std::str::from_utf8(&bytes).map_err(|error| {
                usage(format!(
                    "{} (shard {index}/{total}) is not UTF-8 text: {error}",
                    path.display()
                ))
            })?;
            serde_json::from_str::<RunDocument>(text).map_err(|error| {
                usage(format!(
                    "{} (shard {index}/{total}) is not a valid verdict JSON report: {error}",
                    path.display()
                ))
            })
        });
        for (&(index, path), document) in pair.iter().zip(documents) {
            fold.add(index, total, path, document?)?;
        }
    }
    Ok(fold.finish(total))
}

/// `parse` of each item, in their order, on up to two threads (the second item of every pair on
/// a thread of its own).
fn in_order<I: Sync, T: Send>(
    items: &[I],
    parse: impl Fn(&I) -> Result<T> + Sync,
) -> Vec<Result<T>> {
    let mut results = Vec::with_capacity(items.len());
    for pair in items.chunks(2) {
        std::thread::scope(|scope| {
            let second = pair.get(1).map(|item| scope.spawn(|| parse(item)));
            results.push(parse(&pair[0]));
            if let Some(handle) = second {
                results.push(
                    handle
                        .join()
                        .unwrap_or_else(|_| Err(anyhow::anyhow!("reading a shard report failed"))),
                );
            }
        });
    }
    results
}

/// The schema and shard of the report at `path`. verdict writes `schema` first and `shard` last,
/// so the first and last few hundred bytes usually hold both, and the report need not be read
/// whole twice; a report laid out otherwise is read whole. Either way the full read of the merge
/// checks both again ([`Fold::add`]), so a report whose ends say something else than its body
/// cannot slip through.
fn read_header(path: &Path) -> Result<Header> {
    if let Some(header) = header_from_ends(path) {
        return Ok(header);
    }
    let bytes = read(path)?;
    serde_json::from_slice::<Header>(&bytes).map_err(|error| {
        usage(format!(
            "{} is not a verdict JSON report (`verdict run --format json` writes one): {error}",
            path.display()
        ))
    })
}

/// [`read_header`]'s quick path: the schema from the start of the file (`{"schema": "…"`), the
/// shard from its end (`"shard": {…}}`); `None` when either is not where verdict writes it.
fn header_from_ends(path: &Path) -> Option<Header> {
    use std::io::{Read, Seek, SeekFrom};
    const END: u64 = 512;
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    let mut head = [0u8; 64];
    let head_len = file.read(&mut head).ok()?;
    let head = std::str::from_utf8(&head[..head_len]).ok()?;
    let rest = head.trim_start().strip_prefix('{')?.trim_start();
    let rest = rest
        .strip_prefix("\"schema\"")?
        .trim_start()
        .strip_prefix(':')?;
    let schema: String = serde_json::Deserializer::from_str(rest.trim_start())
        .into_iter::<String>()
        .next()?
        .ok()?;
    file.seek(SeekFrom::Start(len.saturating_sub(END))).ok()?;
    let mut tail = Vec::new();
    file.take(END).read_to_end(&mut tail).ok()?;
    let tail = String::from_utf8_lossy(&tail);
    // The last member: `"shard": { … }` then the document's closing brace.
    let at = tail.rfind("\"shard\"")?;
    let value = tail[at + "\"shard\"".len()..]
        .trim_start()
        .strip_prefix(':')?;
    let close = value.find('}')?;
    let shard: ShardDocument = serde_json::from_str(&value[..=close]).ok()?;
    let after = value[close + 1..].trim();
    (after == "}").then_some(Header {
        schema: Some(schema),
        shard: Some(shard),
    })
}

/// The bytes of a report, or an error naming it.
fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path)
        .with_context(|| format!("failed to read the shard report {}", path.display()))
        .map_err(|error| usage(format!("{error:#}")))
}

/// The merge so far.
#[derive(Default)]
struct Fold {
    /// One per verifier, in the first shard's order.
    verifiers: Vec<Part>,
    known_failures: u64,
    budget: Option<usize>,
    /// The shards' project (see [`RunDocument::project`]).
    project: Option<String>,
}

/// One verifier's merge so far.
struct Part {
    name: String,
    kind: verdict_core::Kind,
    /// The shards that ran it (not `not_in_shard`), with how.
    ran_in: Vec<(u32, Status)>,
    /// The reason the first shard that did not run it gave.
    not_run_reason: Option<String>,
    report: Option<Report>,
    /// How many times each fingerprint is in the merged report (the most of any one shard).
    fingerprints: HashMap<Fingerprint, u32>,
    /// Errors of the shards where it could not verify, each naming its shard.
    errors: Vec<String>,
    command: Option<Vec<String>>,
    log: Option<String>,
    duration: Duration,
    notes: Vec<String>,
}

impl Fold {
    fn add(
        &mut self,
        index: u32,
        total: u32,
        path: &Path,
        mut document: RunDocument,
    ) -> Result<()> {
        let expected = ShardDocument { index, total };
        if document.schema != SCHEMA || document.shard != Some(expected) {
            bail!(usage(format!(
                "{} does not read the same whole as at its ends (schema `{}`, shard {}): it \
                 cannot be merged",
                path.display(),
                document.schema,
                document
                    .shard
                    .map_or_else(|| "none".to_owned(), |s| format!("{}/{}", s.index, s.total))
            )));
        }
        let project = document.project.trim_matches('/');
        let project = if project == "." { "" } else { project };
        match &self.project {
            None => self.project = Some(project.to_owned()),
            Some(first) if first != project => bail!(usage(format!(
                "{} (shard {index}/{total}) verified the project `{}`, but shard 1/{total} \
                 verified `{}`: the shards of one run verify one project",
                path.display(),
                if project.is_empty() { "." } else { project },
                if first.is_empty() {
                    "."
                } else {
                    first.as_str()
                }
            ))),
            Some(_) => {}
        }
        // The digest and the fingerprints' files are the project's paths, as in the shards.
        document.to_project_paths();
        self.known_failures += document.known_failures;
        self.budget.get_or_insert(document.digest.budget);
        let names: Vec<&str> = document
            .verifications
            .iter()
            .map(|v| v.verifier.as_str())
            .collect();
        if self.verifiers.is_empty() {
            for v in &document.verifications {
                self.verifiers.push(Part::new(&v.verifier, v.kind));
            }
        } else {
            let expected: Vec<&str> = self.verifiers.iter().map(|p| p.name.as_str()).collect();
            if names != expected {
                bail!(usage(format!(
                    "{} (shard {index}/{total}) ran the verifiers {}, but shard 1/{total} ran {}: \
                     the shards of one run must run the same verifiers",
                    path.display(),
                    names.join(", "),
                    expected.join(", ")
                )));
            }
        }
        for (part, verification) in self.verifiers.iter_mut().zip(document.verifications) {
            part.add(index, total, verification);
        }
        Ok(())
    }

    fn finish(self, total: u32) -> Merged {
        Merged {
            verifications: self
                .verifiers
                .into_iter()
                .map(|part| {
                    // A shard's report may come from a verdict that did not redact it.
                    let mut verification = part.finish(total);
                    verification.report.redact();
                    verification
                })
                .collect(),
            known_failures: self.known_failures,
            budget: self.budget.unwrap_or(verdict_core::digest::DEFAULT_BUDGET),
            project: self.project.unwrap_or_default(),
        }
    }
}

impl Part {
    fn new(name: &str, kind: verdict_core::Kind) -> Part {
        Part {
            name: name.to_owned(),
            kind,
            ran_in: Vec::new(),
            not_run_reason: None,
            report: None,
            fingerprints: HashMap::new(),
            errors: Vec::new(),
            command: None,
            log: None,
            duration: Duration::ZERO,
            notes: Vec::new(),
        }
    }

    /// Folds in shard `index`'s verification of this verifier.
    fn add(&mut self, index: u32, total: u32, v: VerificationDocument) {
        if v.status == Status::NotInShard {
            if self.not_run_reason.is_none() {
                self.not_run_reason = v.report.error.clone();
            }
            return;
        }
        self.ran_in.push((index, v.status));
        let shard_report = v.report;
        if shard_report.outcome == Outcome::Errored {
            let why = shard_report
                .error
                .clone()
                .unwrap_or_else(|| "no reason given".to_owned());
            self.errors.push(format!("shard {index}/{total}: {why}"));
        }
        self.duration = self.duration.max(Duration::from_millis(v.duration_ms));
        if self.command.is_none() {
            self.command = v.command;
            self.log = v.log;
        }
        for note in v.notes {
            if !self.notes.contains(&note) {
                self.notes.push(note);
            }
        }
        let Some(report) = &mut self.report else {
            for d in &shard_report.diagnostics {
                *self.fingerprints.entry(d.fingerprint).or_default() += 1;
            }
            self.report = Some(shard_report);
            return;
        };
        report.counts.add(&shard_report.counts);
        // What each shard's baseline set aside is in its counts, so it adds up with them.
        report.set_aside = match (report.set_aside, shard_report.set_aside) {
            (Some(mut a), Some(b)) => {
                a.add(&b);
                Some(a)
            }
            (a, b) => a.or(b),
        };
        report.outcome = worst(report.outcome, shard_report.outcome);
        // A diagnostic's copies: as many as the shard that has the most of them.
        let mut this_shard: HashMap<Fingerprint, u32> = HashMap::new();
        for d in shard_report.diagnostics {
            let here = this_shard.entry(d.fingerprint).or_default();
            *here += 1;
            let merged = self.fingerprints.entry(d.fingerprint).or_default();
            if *here > *merged {
                *merged += 1;
                if report.diagnostics.len() < MAX_DIAGNOSTICS {
                    report.diagnostics.push(d);
                } else {
                    report.diagnostics_dropped += 1;
                }
            }
        }
        report.diagnostics_dropped += shard_report.diagnostics_dropped;
        report.tests_dropped += shard_report.tests_dropped;
        for test in shard_report.tests {
            report.push_test(test);
        }
        for note in shard_report.notes {
            if !report.notes.contains(&note) {
                report.note(note);
            }
        }
        // Each shard's summary line is of its part only.
        report.summary = None;
    }

    fn finish(self, total: u32) -> Verification {
        let name = self.name;
        let Some(mut report) = self.report else {
            // No shard ran it: a test runner split into shards that ran no test anywhere, or a
            // verifier that shard 1 did not run either. Nothing was verified.
            let reason = self
                .not_run_reason
                .unwrap_or_else(|| "no reason given".to_owned());
            return Verification {
                verifier: name.clone(),
                kind: self.kind,
                status: Status::Ran,
                report: Report::errored(
                    &name,
                    format!("{name} ran in none of the {total} shards ({reason})"),
                ),
                command: None,
                log: None,
                duration: Duration::ZERO,
                notes: Vec::new(),
            };
        };
        let statuses: Vec<Status> = self.ran_in.iter().map(|(_, s)| *s).collect();
        let status = if statuses.contains(&Status::Cancelled) {
            Status::Cancelled
        } else if statuses.contains(&Status::Skipped) {
            Status::Skipped
        } else if statuses.iter().all(|s| *s == Status::Cached) {
            Status::Cached
        } else {
            Status::Ran
        };
        let split = self.ran_in.len() > 1;
        if !self.errors.is_empty() {
            report.outcome = Outcome::Errored;
            report.error = Some(if split {
                self.errors.join("; ")
            } else {
                report
                    .error
                    .take()
                    .unwrap_or_else(|| self.errors.join("; "))
            });
        }
        let mut notes = self.notes;
        if split {
            if self.ran_in.len() == total as usize {
                notes.push(format!("merged from all {total} shards"));
            } else {
                let shards: Vec<String> = self
                    .ran_in
                    .iter()
                    .map(|(index, _)| format!("{index}/{total}"))
                    .collect();
                notes.push(format!("merged from shards {}", shards.join(", ")));
            }
        }
        Verification {
            verifier: name,
            kind: self.kind,
            status,
            report,
            command: self.command,
            // A split runner's logs are on several machines.
            log: if split { None } else { self.log },
            duration: self.duration,
            notes,
        }
    }
}

/// The worse of two outcomes: errored over failed over passed.
fn worst(a: Outcome, b: Outcome) -> Outcome {
    let rank = |o: Outcome| match o {
        Outcome::Passed => 0,
        Outcome::Failed => 1,
        Outcome::Errored => 2,
    };
    if rank(b) > rank(a) { b } else { a }
}

#[cfg(test)]
mod tests {
    use super::*;
    use verdict_core::model::{Diagnostic, Kind, Severity};
    use verdict_core::render::json::DigestDocument;

    fn document(index: u32, total: u32, verifications: Vec<VerificationDocument>) -> RunDocument {
        RunDocument {
            schema: SCHEMA.to_owned(),
            verdict_version: "0.0.0-test".to_owned(),
            outcome: Outcome::Failed,
            exit_code: 1,
            known_failures: 0,
            project: ".".to_owned(),
            verifications,
            digest: DigestDocument {
                text: String::new(),
                tokens: 0,
                budget: 300,
            },
            shard: Some(ShardDocument { index, total }),
        }
    }

    fn verification(status: Status, report: Report) -> VerificationDocument {
        VerificationDocument {
            verifier: "jest".to_owned(),
            kind: Kind::Test,
            status,
            outcome: report.outcome,
            duration_ms: 10,
            command: None,
            log: None,
            notes: Vec::new(),
            report,
        }
    }

    fn failing(messages: &[&str], passed: u64) -> Report {
        let mut report = Report::new("jest", Outcome::Failed);
        for message in messages {
            report.push(Diagnostic::new(
                "jest",
                Kind::Test,
                Severity::Error,
                *message,
            ));
        }
        report.counts.tests_passed = Some(passed);
        report.counts.tests_failed = Some(messages.len() as u64);
        for n in 0..passed {
            report.push_test(verdict_core::model::TestCase {
                name: format!("{} {n}", messages.len()),
                file: None,
                status: verdict_core::model::TestStatus::Passed,
                duration_ms: Some(n),
            });
        }
        report
    }

    fn merged(documents: Vec<RunDocument>) -> Verification {
        let total = documents.len() as u32;
        let mut fold = Fold::default();
        for (i, document) in documents.into_iter().enumerate() {
            fold.add(i as u32 + 1, total, Path::new("x.json"), document)
                .expect("folds");
        }
        let mut merged = fold.finish(total);
        assert_eq!(merged.budget, 300);
        merged.verifications.remove(0)
    }

    #[test]
    fn diagnostics_keep_the_most_copies_of_any_one_shard_and_counts_add_up() {
        let jest = merged(vec![
            document(
                1,
                2,
                vec![verification(Status::Ran, failing(&["a", "a"], 3))],
            ),
            document(
                2,
                2,
                vec![verification(Status::Ran, failing(&["a", "b"], 4))],
            ),
        ]);
        let messages: Vec<&str> = jest
            .report
            .diagnostics
            .iter()
            .map(|d| d.message.as_str())
            .collect();
        assert_eq!(messages, ["a", "a", "b"]);
        assert_eq!(jest.report.counts.tests_passed, Some(7));
        assert_eq!(jest.report.counts.tests_failed, Some(4));
        assert_eq!(jest.report.outcome, Outcome::Failed);
        assert_eq!(jest.status, Status::Ran);
        assert_eq!(jest.notes, ["merged from all 2 shards"]);
        // Every shard's tests, in shard order.
        assert_eq!(jest.report.tests.len(), 7);
        assert_eq!(jest.report.tests[3].name, "2 0");
    }

    #[test]
    fn a_split_verifier_that_ran_in_no_shard_is_errored() {
        let not_here = || {
            verification(
                Status::NotInShard,
                Report::errored("jest", "not run: jest found no test for shard"),
            )
        };
        let jest = merged(vec![
            document(1, 2, vec![not_here()]),
            document(2, 2, vec![not_here()]),
        ]);
        assert_eq!(jest.report.outcome, Outcome::Errored);
        assert_eq!(jest.status, Status::Ran, "it decides the run");
        assert!(
            jest.report
                .error
                .as_deref()
                .is_some_and(|e| e.contains("ran in none of the 2 shards")),
            "{jest:?}"
        );
    }

    #[test]
    fn skipped_in_one_shard_is_skipped_and_cancelled_wins() {
        let skipped = Report::errored("jest", "not run: it needs `tsc`, which did not pass");
        let jest = merged(vec![
            document(1, 2, vec![verification(Status::Skipped, skipped.clone())]),
            document(2, 2, vec![verification(Status::Ran, failing(&[], 5))]),
        ]);
        assert_eq!(jest.status, Status::Skipped);
        assert_eq!(jest.report.outcome, Outcome::Errored);
        assert_eq!(
            jest.report.error.as_deref(),
            Some("shard 1/2: not run: it needs `tsc`, which did not pass")
        );
        let cancelled = Report::errored("jest", "the run was interrupted");
        let jest = merged(vec![
            document(1, 2, vec![verification(Status::Skipped, skipped)]),
            document(2, 2, vec![verification(Status::Cancelled, cancelled)]),
        ]);
        assert_eq!(jest.status, Status::Cancelled);
    }

    #[test]
    fn a_report_whose_body_disagrees_with_its_ends_is_refused() {
        let mut fold = Fold::default();
        let error = fold
            .add(2, 3, Path::new("x.json"), document(1, 3, Vec::new()))
            .expect_err("shard 1/3 read as 2/3");
        assert!(error.to_string().contains("shard 1/3"), "{error}");
    }
}
