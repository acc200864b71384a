//! Where a run's reports go: `--format FORMAT[=PATH]`, as often as needed, so that one run writes
//! SARIF for code scanning, JUnit for the test dashboard and the human report for the log.
//!
//! [`OutputSpecParser`] reads one `--format` value; [`resolve`] checks the whole list (at most one
//! output on stdout, at most one human report, no two outputs to one file, the old `--output`
//! spelling); [`write_outputs`] renders and writes them, with GitHub Actions' annotations and job
//! summary written once per run however many formats there are. `verdict run` and any command that
//! renders a run (a merge of shards) go through here, so every format is available to each.
//!
//! The format names come from [`Format::ALL`]: a format added to the core enum is a `--format`
//! value without an edit here.

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::builder::{PossibleValue, TypedValueParser};
use verdict_core::render::{self, Format, RenderInput};

use crate::global::{self, ColorChoice, Stream, Verbosity};

/// One output of a run: a format and where it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OutputSpec {
    /// What to render.
    pub(crate) format: Format,
    /// Where to write it.
    pub(crate) destination: Destination,
}

/// Where an output goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Destination {
    /// Standard output (`--format json`, or `--format json=-`).
    Stdout,
    /// A file, created or replaced, its directory created (`--format json=report.json`).
    File(PathBuf),
}

impl OutputSpec {
    /// The default output: the human report on stdout.
    pub(crate) fn human() -> OutputSpec {
        OutputSpec {
            format: Format::Human,
            destination: Destination::Stdout,
        }
    }
}

/// Parses `FORMAT` or `FORMAT=PATH` (`-` as the path is stdout). The possible values it lists (in
/// `--help` and in shell completions) are the formats' names.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct OutputSpecParser;

impl TypedValueParser for OutputSpecParser {
    type Value = OutputSpec;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<OutputSpec, clap::Error> {
        let invalid = |message: String| {
            let arg = arg.map_or_else(|| "--format".to_owned(), ToString::to_string);
            clap::Error::raw(
                clap::error::ErrorKind::InvalidValue,
                format!(
                    "invalid value '{}' for '{arg}': {message}\n",
                    value.to_string_lossy()
                ),
            )
            .with_cmd(cmd)
        };
        let text = value
            .to_str()
            .ok_or_else(|| invalid("the value is not UTF-8".to_owned()))?;
        let (name, path) = match text.split_once('=') {
            Some((name, path)) => (name, Some(path)),
            None => (text, None),
        };
        let format: Format = name.parse().map_err(|_| {
            invalid(format!(
                "unknown format `{name}` (expected one of: {}; add `=PATH` to write a file)",
                names().join(", ")
            ))
        })?;
        let destination = match path {
            None | Some("-") => Destination::Stdout,
            Some("") => return Err(invalid(format!("no path after `{name}=`"))),
            Some(path) => Destination::File(PathBuf::from(path)),
        };
        Ok(OutputSpec {
            format,
            destination,
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            Format::ALL
                .into_iter()
                .map(|format| PossibleValue::new(format.as_str())),
        ))
    }
}

/// The names `--format` takes, in the order they are documented.
fn names() -> Vec<&'static str> {
    Format::ALL.into_iter().map(Format::as_str).collect()
}

/// A combination of outputs that cannot be written.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SpecError {
    /// Two outputs would interleave on stdout.
    #[error(
        "both `{0}` and `{1}` would be written to stdout; write all but one of them to a file \
         (`--format {0}=PATH`)"
    )]
    TwoOnStdout(&'static str, &'static str),
    /// Two human reports.
    #[error("`--format human` is given twice; a run has one human report")]
    TwoHuman,
    /// Two outputs to one file.
    #[error("`{0}` and `{1}` would both be written to {path}", path = .2.display())]
    SamePath(&'static str, &'static str, PathBuf),
    /// `--output` with several formats.
    #[error(
        "--output names one file but {0} formats are given; write `--format FORMAT=PATH` for each"
    )]
    OutputWithSeveral(usize),
    /// `--output` beside a format that has its own path.
    #[error("--output and `--format {0}=PATH` both name the file; keep one of them")]
    OutputAndPath(&'static str),
}

/// The outputs a command line asks for: the `--format` values and the old `--output FILE` (which
/// applies to the one format given, human when none is). None given is the human report on stdout.
pub(crate) fn resolve(
    formats: &[OutputSpec],
    output: Option<&Path>,
) -> Result<Vec<OutputSpec>, SpecError> {
    let mut specs = formats.to_vec();
    if specs.is_empty() {
        specs.push(OutputSpec::human());
    }
    if let Some(path) = output {
        match specs.as_mut_slice() {
            [spec] => match spec.destination {
                Destination::Stdout => spec.destination = Destination::File(path.to_path_buf()),
                Destination::File(_) => return Err(SpecError::OutputAndPath(spec.format.as_str())),
            },
            several => return Err(SpecError::OutputWithSeveral(several.len())),
        }
    }
    let mut on_stdout: Option<Format> = None;
    let mut human = false;
    let mut files: Vec<(PathBuf, Format)> = Vec::new();
    for spec in &specs {
        if spec.format == Format::Human {
            if human {
                return Err(SpecError::TwoHuman);
            }
            human = true;
        }
        match &spec.destination {
            Destination::Stdout => {
                if let Some(first) = on_stdout {
                    return Err(SpecError::TwoOnStdout(first.as_str(), spec.format.as_str()));
                }
                on_stdout = Some(spec.format);
            }
            Destination::File(path) => {
                let key = comparable(path);
                if let Some((_, first)) = files.iter().find(|(p, _)| *p == key) {
                    return Err(SpecError::SamePath(
                        first.as_str(),
                        spec.format.as_str(),
                        path.clone(),
                    ));
                }
                files.push((key, spec.format));
            }
        }
    }
    Ok(specs)
}

/// A path in a form where two spellings of one file compare equal: absolute, with `.` and `..`
/// resolved, and its directory's symbolic links followed where the directory exists.
fn comparable(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut normal = PathBuf::new();
    for component in absolute.components() {
        match component {
            std::path::Component::ParentDir => {
                normal.pop();
            }
            std::path::Component::CurDir => {}
            other => normal.push(other),
        }
    }
    match (normal.parent(), normal.file_name()) {
        (Some(parent), Some(name)) => match std::fs::canonicalize(parent) {
            Ok(parent) => parent.join(name),
            Err(_) => normal,
        },
        _ => normal,
    }
}

/// What of the environment the outputs depend on: read once by [`Environment::from_process`], and
/// built by hand in tests.
#[derive(Debug, Clone)]
pub(crate) struct Environment {
    /// Colour on stdout (`--color`, the terminal, `NO_COLOR` …).
    pub(crate) color_stdout: bool,
    /// `--color always`: colour even in files.
    pub(crate) color_files: bool,
    /// `-q`: the human report says nothing for a pass and only the digest otherwise.
    pub(crate) quiet: bool,
    /// Running in GitHub Actions (`GITHUB_ACTIONS=true`): annotations are written.
    pub(crate) github_actions: bool,
    /// `$GITHUB_STEP_SUMMARY` in GitHub Actions: the job summary is appended to it.
    pub(crate) step_summary: Option<PathBuf>,
}

impl Environment {
    /// The environment of this process and its global options.
    pub(crate) fn from_process() -> Environment {
        let global = global::get();
        let github_actions = std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true");
        Environment {
            color_stdout: global::color(Stream::Stdout),
            color_files: global.color == ColorChoice::Always,
            quiet: global.verbosity == Verbosity::Quiet,
            github_actions,
            step_summary: std::env::var_os("GITHUB_STEP_SUMMARY")
                .filter(|p| github_actions && !p.is_empty())
                .map(PathBuf::from),
        }
    }
}

/// Renders the run in each of `specs` and writes each where it goes; in GitHub Actions, also the
/// annotations (once, unless `--format github` already prints them) and the job summary (once).
///
/// Files are written first, so that a reader gone from stdout (`| head`) never costs a report;
/// then the annotations, then stdout, then the job summary. The first write that fails is the
/// error, naming the file.
pub(crate) fn write_outputs(
    specs: &[OutputSpec],
    input: &RenderInput<'_>,
    env: &Environment,
) -> Result<()> {
    for spec in specs {
        let Destination::File(path) = &spec.destination else {
            continue;
        };
        let input = RenderInput {
            color: env.color_files,
            ..*input
        };
        let text = with_newline(render::render(spec.format, &input));
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("failed to create {}", parent.display()))?;
        }
        std::fs::write(path, text)
            .with_context(|| format!("failed to write {}", path.display()))?;
    }

    let on_stdout = specs
        .iter()
        .find(|spec| spec.destination == Destination::Stdout)
        .map(|spec| spec.format);
    let mut stdout = std::io::stdout().lock();
    if env.github_actions && on_stdout != Some(Format::Github) {
        // The runner reads workflow commands from a step's stdout and stderr alike. They go to
        // stdout beside the human report (or when nothing else is printed there), and to stderr
        // when stdout carries a document they would corrupt.
        let annotations = render::render(Format::Github, input);
        if matches!(on_stdout, None | Some(Format::Human)) {
            stdout.write_all(annotations.as_bytes())?;
        } else {
            std::io::stderr().lock().write_all(annotations.as_bytes())?;
        }
    }
    if let Some(format) = on_stdout {
        let input = RenderInput {
            color: env.color_stdout,
            ..*input
        };
        let text = match format {
            Format::Human if env.quiet => quiet_human(&input),
            _ => with_newline(render::render(format, &input)),
        };
        stdout.write_all(text.as_bytes())?;
    }
    stdout.flush()?;

    if let Some(summary) = &env.step_summary {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(summary)
            .with_context(|| format!("failed to open {}", summary.display()))?;
        file.write_all(render::github::job_summary(input).as_bytes())
            .with_context(|| format!("failed to write {}", summary.display()))?;
    }
    Ok(())
}

/// The human report under `-q`: nothing for a pass (the exit code says it), else the digest alone.
fn quiet_human(input: &RenderInput<'_>) -> String {
    if input.outcome == verdict_core::Outcome::Passed {
        return String::new();
    }
    let digest = input.digest.text.trim_end();
    if digest.is_empty() {
        // A run that did not pass always says why; the full report does when the digest cannot.
        return with_newline(render::render(Format::Human, input));
    }
    format!("{digest}\n")
}

fn with_newline(mut text: String) -> String {
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(value: &str) -> Result<OutputSpec, clap::Error> {
        OutputSpecParser.parse_ref(&clap::Command::new("verdict"), None, OsStr::new(value))
    }

    fn file(format: Format, path: &str) -> OutputSpec {
        OutputSpec {
            format,
            destination: Destination::File(PathBuf::from(path)),
        }
    }

    fn stdout(format: Format) -> OutputSpec {
        OutputSpec {
            format,
            destination: Destination::Stdout,
        }
    }

    #[test]
    fn a_spec_is_a_format_and_maybe_a_path() {
        assert_eq!(parse("sarif").ok(), Some(stdout(Format::Sarif)));
        assert_eq!(parse("json=-").ok(), Some(stdout(Format::Json)));
        assert_eq!(
            parse("junit=out/junit.xml").ok(),
            Some(file(Format::Junit, "out/junit.xml"))
        );
        // Only the first `=` separates: a path may hold one.
        assert_eq!(
            parse("json=a=b.json").ok(),
            Some(file(Format::Json, "a=b.json"))
        );
        for bad in ["xml", "json=", "", "=x"] {
            assert!(parse(bad).is_err(), "{bad} was accepted");
        }
    }

    #[test]
    fn every_core_format_is_a_value() {
        for format in Format::ALL {
            assert_eq!(parse(format.as_str()).ok(), Some(stdout(format)));
        }
        let listed: Vec<String> = OutputSpecParser
            .possible_values()
            .into_iter()
            .flatten()
            .map(|v| v.get_name().to_owned())
            .collect();
        assert_eq!(listed, names());
    }

    #[test]
    fn combinations_that_cannot_be_written() {
        let ok = resolve(
            &[
                file(Format::Sarif, "v.sarif"),
                file(Format::Junit, "junit.xml"),
                stdout(Format::Human),
            ],
            None,
        );
        assert_eq!(ok.map(|s| s.len()).ok(), Some(3));
        assert!(matches!(
            resolve(&[stdout(Format::Json), stdout(Format::Human)], None),
            Err(SpecError::TwoOnStdout("json", "human"))
        ));
        assert!(matches!(
            resolve(&[stdout(Format::Human), file(Format::Human, "h.txt")], None),
            Err(SpecError::TwoHuman)
        ));
        assert!(matches!(
            resolve(
                &[
                    file(Format::Json, "out/r"),
                    file(Format::Sarif, "out/./x/../r")
                ],
                None
            ),
            Err(SpecError::SamePath("json", "sarif", _))
        ));
    }

    #[test]
    fn the_old_output_flag_takes_the_one_format() {
        assert_eq!(
            resolve(&[stdout(Format::Sarif)], Some(Path::new("v.sarif"))).ok(),
            Some(vec![file(Format::Sarif, "v.sarif")])
        );
        assert_eq!(
            resolve(&[], Some(Path::new("r.txt"))).ok(),
            Some(vec![file(Format::Human, "r.txt")])
        );
        assert_eq!(resolve(&[], None).ok(), Some(vec![OutputSpec::human()]));
        assert!(matches!(
            resolve(
                &[stdout(Format::Sarif), stdout(Format::Json)],
                Some(Path::new("x"))
            ),
            Err(SpecError::OutputWithSeveral(2))
        ));
        assert!(matches!(
            resolve(&[file(Format::Sarif, "a")], Some(Path::new("b"))),
            Err(SpecError::OutputAndPath("sarif"))
        ));
    }
}
