//! Test runners under a coverage wrapper: `nyc mocha`, `c8 node --test`, `coverage run -m
//! pytest`. The project's command runs the runner through the wrapper, which passes the runner's
//! exit code on and adds a verdict of its own — a coverage threshold (`nyc --check-coverage`,
//! c8's `--lines 90`, a `.nycrc`'s `check-coverage`) fails the command even when every test
//! passed. A runner's verifier runs the same wrapper with the same options ([`wrap`]) and reads
//! the wrapper's failure on top of the runner's report ([`add_wrapper_failures`]).

use std::io::{BufRead, BufReader};
use std::path::Path;

use verdict_model::verifier::{Captured, CommandSpec, VerifierError, Workspace};
use verdict_model::{Diagnostic, Kind, Outcome, Report, Severity};

use crate::declared::{Declared, coverage_wrapper};
use crate::node_bin;

/// The programs [`wrap`] puts in front of a runner, by file name.
const WRAPPERS: &[&str] = &["nyc", "c8"];

/// `spec` (the runner's command, as `verifier` builds it) run under the coverage wrapper of the
/// project's command for `verifier`, with the wrapper's options; `spec` unchanged when that
/// command has no wrapper. `nyc`/`c8` come from the project's `node_modules/.bin`; coverage.py
/// runs as a module of the Python that runs the tests (`python -m coverage run … -m pytest …`).
pub fn wrap(
    spec: CommandSpec,
    workspace: &Workspace,
    verifier: &str,
) -> Result<CommandSpec, VerifierError> {
    let declared = Declared::of(workspace);
    let Some(command) = declared.for_verifier(verifier) else {
        return Ok(spec);
    };
    let words = command.program_words();
    let Some(wrapper) = coverage_wrapper(words) else {
        return Ok(spec);
    };
    let wrapper_words = &words[..wrapper.len];
    let mut spec = spec;
    if wrapper.python_module {
        // `coverage run [options]` or `python -m coverage run [options]`: the options after `run`.
        let run = wrapper_words
            .iter()
            .position(|w| w == "run")
            .map_or(wrapper_words.len(), |at| at + 1);
        if spec.args.first().is_none_or(|a| a != "-m") {
            return Err(VerifierError::Project {
                tool: verifier.to_owned(),
                message: format!(
                    "the project runs {verifier} under `{}`, which verdict runs only with \
                     `python -m`",
                    wrapper_words.join(" ")
                ),
            });
        }
        let mut args: Vec<String> = ["-m", "coverage", "run"].map(str::to_owned).to_vec();
        args.extend(wrapper_words[run..].iter().cloned());
        args.append(&mut spec.args);
        spec.args = args;
        return Ok(spec);
    }
    let name = crate::declared::program_name(&wrapper_words[0]);
    let program = node_bin(workspace, &name).ok_or_else(|| VerifierError::NotInstalled {
        tool: name.clone(),
        hint: format!("npm install --save-dev {name}"),
    })?;
    let mut args: Vec<String> = wrapper_words[1..].to_vec();
    args.push(spec.program.to_string_lossy().into_owned());
    args.append(&mut spec.args);
    spec.program = program;
    spec.args = args;
    Ok(spec)
}

/// Whether `spec` runs its tool under a coverage wrapper (see [`wrap`]).
pub fn is_wrapped(spec: &CommandSpec) -> bool {
    let program = spec
        .program
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    WRAPPERS.contains(&program.as_str())
        || spec
            .args
            .iter()
            .take(3)
            .map(String::as_str)
            .eq(["-m", "coverage", "run"])
}

/// Adds the coverage wrapper's own failures that `captured`'s log shows to `report`, which then
/// fails: nyc's and c8's `ERROR: Coverage for lines (50%) does not meet global threshold
/// (90%)`. Only for a `spec` that [`is_wrapped`]; an errored report stays errored.
pub fn add_wrapper_failures(report: &mut Report, spec: &CommandSpec, captured: &Captured) {
    if !is_wrapped(spec) {
        return;
    }
    let failures = wrapper_failures(&captured.log_path);
    if failures.is_empty() {
        return;
    }
    for failure in failures {
        let mut diagnostic = Diagnostic::new(&report.tool, Kind::Test, Severity::Error, failure);
        diagnostic.code = Some("coverage".to_owned());
        report.push(diagnostic);
    }
    if report.outcome == Outcome::Passed {
        report.outcome = Outcome::Failed;
    }
}

/// How many failures a log can add at most: one per metric and file is plenty to act on.
const MAX_FAILURES: usize = 50;

/// The threshold failures in the log at `path`: nyc's and c8's `ERROR: Coverage for …` lines.
fn wrapper_failures(path: &Path) -> Vec<String> {
    let Ok(file) = std::fs::File::open(path) else {
        return Vec::new();
    };
    let mut failures = Vec::new();
    for line in BufReader::new(file).split(b'\n') {
        let Ok(line) = line else {
            break;
        };
        let text = String::from_utf8_lossy(&line);
        let text = text.trim();
        if let Some(rest) = text.strip_prefix("ERROR: Coverage for ")
            && rest.contains("threshold")
        {
            failures.push(format!("coverage for {rest}"));
            if failures.len() == MAX_FAILURES {
                break;
            }
        }
    }
    failures
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(program: &str, args: &[&str]) -> CommandSpec {
        CommandSpec {
            program: program.into(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            env: Default::default(),
            cwd: ".".into(),
            timeout: std::time::Duration::from_secs(1),
            exit_codes: Default::default(),
            output_files: Vec::new(),
        }
    }

    fn project(package: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("package.json"), package).expect("write");
        let bin = dir.path().join("node_modules/.bin");
        std::fs::create_dir_all(&bin).expect("mkdir");
        for name in ["nyc", "c8"] {
            std::fs::write(bin.join(name), "").expect("write");
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(bin.join(name), std::fs::Permissions::from_mode(0o755))
                    .expect("chmod");
            }
        }
        dir
    }

    #[test]
    fn the_runner_runs_under_the_projects_wrapper_with_its_options() {
        let dir =
            project(r#"{"scripts": {"test": "nyc --reporter text --check-coverage mocha -r x"}}"#);
        let workspace = Workspace::new(dir.path());
        let wrapped = wrap(
            spec("/m/mocha", &["--reporter", "spec"]),
            &workspace,
            "mocha",
        )
        .expect("wraps");
        assert!(wrapped.program.ends_with("node_modules/.bin/nyc"));
        assert_eq!(
            wrapped.args,
            [
                "--reporter",
                "text",
                "--check-coverage",
                "/m/mocha",
                "--reporter",
                "spec"
            ]
        );
        assert!(is_wrapped(&wrapped));
        // Another verifier's command is left alone.
        let plain = wrap(spec("/n/node", &["--test"]), &workspace, "node-test").expect("plain");
        assert_eq!(plain.program, Path::new("/n/node"));
    }

    #[test]
    fn coverage_py_runs_as_a_module_of_the_tests_python() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(
            dir.path().join("Makefile"),
            "test:\n\tpython -m coverage run --source=pkg -m pytest -x tests\n",
        )
        .expect("write");
        let workspace = Workspace::new(dir.path());
        let wrapped = wrap(
            spec("/v/python", &["-m", "pytest", "--junitxml=r.xml"]),
            &workspace,
            "pytest",
        )
        .expect("wraps");
        assert_eq!(wrapped.program, Path::new("/v/python"));
        assert_eq!(
            wrapped.args,
            [
                "-m",
                "coverage",
                "run",
                "--source=pkg",
                "-m",
                "pytest",
                "--junitxml=r.xml"
            ]
        );
        assert!(is_wrapped(&wrapped));
    }
}
