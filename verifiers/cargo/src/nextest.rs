//! `cargo-test` through cargo-nextest, where the project configures it.
//!
//! A project that keeps a `.config/nextest.toml` at its cargo workspace's root runs its tests
//! with `cargo nextest run`: its profile may retry flaky tests, stop slow ones, group tests that
//! must not run at once, or set up a database first, and `cargo test` would run the same tests
//! without any of that (and fail where the project's own runs pass). There, `cargo-test` runs
//! `cargo nextest run --workspace --no-fail-fast --cargo-message-format json`:
//! - the profile is the project's (`NEXTEST_PROFILE`, else `default`), with all its settings but
//!   fail-fast: `--no-fail-fast` runs every test, so all the failures are reported at once;
//! - the build part in JSON, as `cargo test` is run, so a test that does not compile is exact;
//! - the `nextest` summarizer reads the status lines, each failing test's output and the summary;
//!   when the profile writes a JUnit report (`[profile.<name>.junit] path`, under
//!   `<store.dir>/<profile>/`, `target/nextest/<profile>/` by default, relative to the workspace
//!   root whatever the target directory), any failing test it names that the log does not is
//!   added, so the log cannot drop a failure the report has.
//!
//! nextest does not run doc-tests (rustdoc has no per-test binaries): the `cargo-doctest`
//! verifier runs `cargo test --doc` beside it (see [`crate::doctest`]).
//!
//! A project that configures nextest is never tested with `cargo test` instead: with no
//! `cargo-nextest` on `PATH` or in `$CARGO_HOME/bin` (where cargo looks for subcommands), the
//! verifier cannot run, and says how to install it. Exit codes (nextest's documented ones): 0
//! passed, 100 tests failed, 101 the build failed; anything else (4: no tests to run, 96: a setup
//! script failed, …) is errored.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use verdict_model::{Kind, Outcome, Report, Severity};

/// The hint shown when cargo-nextest is missing.
pub const NEXTEST_HINT: &str = "cargo install cargo-nextest --locked";

/// Where a cargo workspace keeps its nextest configuration.
pub const CONFIG_FILE: &str = ".config/nextest.toml";

/// How many profiles [`junit_path`] follows through `inherits` before it gives up.
const MAX_INHERITS: usize = 16;

/// The project's nextest configuration, as far as verdict needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NextestConfig {
    /// The configuration file.
    pub file: PathBuf,
    /// The profile that runs: `NEXTEST_PROFILE`, else `default`.
    pub profile: String,
    /// Where that profile writes its JUnit report, when it writes one.
    pub junit: Option<PathBuf>,
}

/// The nextest configuration of the project at `root`, when it has one: `.config/nextest.toml`
/// at the root of its cargo workspace (a member's workspace may be above it).
///
/// This is the one place that decides whether the project runs its tests with nextest, so that
/// what the project declares it runs can decide instead later.
pub fn nextest_config(root: &Path) -> Option<NextestConfig> {
    let profile = std::env::var("NEXTEST_PROFILE").ok();
    config_with_profile(root, profile.filter(|p| !p.is_empty()))
}

/// [`nextest_config`] with the profile given (`None` for `default`).
pub fn config_with_profile(root: &Path, profile: Option<String>) -> Option<NextestConfig> {
    let workspace_root = crate::workspace_root_above(root).unwrap_or_else(|| root.to_path_buf());
    let file = workspace_root.join(CONFIG_FILE);
    if !file.is_file() {
        return None;
    }
    let profile = profile.unwrap_or_else(|| "default".to_owned());
    // A file that does not parse is still nextest's to report: the run says what is wrong.
    let table = std::fs::read_to_string(&file)
        .ok()
        .and_then(|text| text.parse::<toml::Table>().ok())
        .unwrap_or_default();
    let junit = junit_path(&table, &profile).map(|path| {
        let store = table
            .get("store")
            .and_then(|store| store.get("dir"))
            .and_then(toml::Value::as_str)
            .unwrap_or("target/nextest");
        workspace_root.join(store).join(&profile).join(path)
    });
    Some(NextestConfig {
        file,
        profile,
        junit,
    })
}

/// The `junit.path` of `profile`, or of the profile it inherits from (`inherits`, else
/// `default`), as nextest resolves it.
fn junit_path(table: &toml::Table, profile: &str) -> Option<String> {
    let profiles = table.get("profile")?;
    let mut name = profile.to_owned();
    for _ in 0..MAX_INHERITS {
        let this = profiles.get(&name);
        if let Some(path) = this
            .and_then(|p| p.get("junit"))
            .and_then(|junit| junit.get("path"))
            .and_then(toml::Value::as_str)
        {
            return Some(path.to_owned());
        }
        name = match this
            .and_then(|p| p.get("inherits"))
            .and_then(toml::Value::as_str)
        {
            Some(parent) => parent.to_owned(),
            None if name != "default" => "default".to_owned(),
            None => return None,
        };
    }
    None
}

/// The `cargo-nextest` cargo would run: on `PATH`, else in `$CARGO_HOME/bin` (`~/.cargo/bin`).
pub fn nextest_program() -> Option<PathBuf> {
    find_nextest(
        std::env::var_os("PATH"),
        std::env::var_os("CARGO_HOME").map(PathBuf::from),
        std::env::var_os("HOME").map(PathBuf::from),
    )
}

/// [`nextest_program`] given the values of `PATH`, `CARGO_HOME` and `HOME`.
pub fn find_nextest(
    path: Option<OsString>,
    cargo_home: Option<PathBuf>,
    home: Option<PathBuf>,
) -> Option<PathBuf> {
    crate::find_program("cargo-nextest", path, cargo_home, home)
}

/// The arguments of `cargo nextest run`: every member, every test, the build in JSON.
pub(crate) fn args() -> Vec<String> {
    [
        "nextest",
        "run",
        "--workspace",
        "--no-fail-fast",
        "--cargo-message-format",
        "json",
        // Names the tests it does not run (ignored, filtered out) with a `SKIP` line, so that
        // the report lists them as the summary counts them.
        "--status-level",
        "skip",
    ]
    .iter()
    .map(|a| (*a).to_owned())
    .collect()
}

/// Whether `spec_args` run nextest.
pub(crate) fn runs_nextest(spec_args: &[String]) -> bool {
    spec_args.first().is_some_and(|a| a == "nextest")
}

/// A filterset that selects exactly the tests `names` (`test(=a) | test(=b)`), or `None` when a
/// name holds something a filterset would read as syntax (test names are Rust paths).
pub(crate) fn filterset(names: &[String]) -> Option<String> {
    let plain = |name: &String| {
        !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
    };
    if !names.iter().all(plain) {
        return None;
    }
    let parts: Vec<String> = names.iter().map(|name| format!("test(={name})")).collect();
    Some(parts.join(" | "))
}

/// Adds to the log's report the failing tests of nextest's JUnit report that the log does not
/// name (the log is read first: it has each failure's place and message as the summarizer reads
/// them). A report that cannot be read is noted; it never makes a run pass.
pub(crate) fn merge_junit(mut report: Report, junit: Option<&Option<Vec<u8>>>) -> Report {
    let Some(junit) = junit else {
        return report;
    };
    let Some(xml) = junit else {
        if report.outcome != Outcome::Errored {
            report.note("nextest wrote no JUnit report where its profile puts it");
        }
        return report;
    };
    let from_junit = verdict_summarizers::junit::parse("nextest", xml);
    if from_junit.outcome == Outcome::Errored {
        report.note(format!(
            "nextest's JUnit report could not be read: {}",
            from_junit.error.as_deref().unwrap_or("malformed")
        ));
        return report;
    }
    // The JUnit report names a test `<binary id>::<test>`; the log, `<test>`.
    let in_log: Vec<String> = report
        .diagnostics
        .iter()
        .filter(|d| d.kind == Kind::Test)
        .filter_map(|d| d.test.clone())
        .collect();
    let mut added = 0u64;
    for d in from_junit.diagnostics {
        let Some(test) = d.test.as_deref() else {
            continue;
        };
        let known = in_log
            .iter()
            .any(|name| test == name || test.ends_with(&format!("::{name}")));
        if !known && d.severity == Severity::Error {
            report.push(d);
            added += 1;
        }
    }
    if added > 0 {
        report.note(format!(
            "{added} failing test(s) of nextest's JUnit report were not in its log"
        ));
        if report.outcome == Outcome::Passed {
            report.outcome = Outcome::Failed;
        }
        let failed = report.counts.tests_failed.unwrap_or(0);
        let junit_failed = from_junit.counts.tests_failed.unwrap_or(0);
        report.counts.tests_failed = Some(failed.max(junit_failed));
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(config: Option<&str>) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"a\"\n").expect("write");
        if let Some(config) = config {
            std::fs::create_dir_all(dir.path().join(".config")).expect("mkdir");
            std::fs::write(dir.path().join(CONFIG_FILE), config).expect("write");
        }
        dir
    }

    #[test]
    fn junit_path_follows_the_profile_its_inheritance_and_the_store() {
        let text = "[store]\ndir = \"out/nx\"\n\
                    [profile.default.junit]\npath = \"junit.xml\"\n\
                    [profile.ci]\nretries = 2\n\
                    [profile.ci-quiet]\ninherits = \"ci\"\n\
                    [profile.ci-own.junit]\npath = \"reports/ci.xml\"\n";
        let dir = project(Some(text));
        let root = dir.path();
        let junit = |profile: Option<&str>| {
            config_with_profile(root, profile.map(str::to_owned))
                .expect("configured")
                .junit
        };
        assert_eq!(junit(None), Some(root.join("out/nx/default/junit.xml")));
        assert_eq!(junit(Some("ci")), Some(root.join("out/nx/ci/junit.xml")));
        assert_eq!(
            junit(Some("ci-quiet")),
            Some(root.join("out/nx/ci-quiet/junit.xml"))
        );
        assert_eq!(
            junit(Some("ci-own")),
            Some(root.join("out/nx/ci-own/reports/ci.xml"))
        );
    }

    #[test]
    fn no_config_no_nextest_and_no_junit_without_a_path() {
        let dir = project(None);
        assert_eq!(config_with_profile(dir.path(), None), None);
        let dir = project(Some("[profile.default]\nretries = 1\n"));
        let config = config_with_profile(dir.path(), None).expect("configured");
        assert_eq!(config.junit, None);
        assert_eq!(config.profile, "default");
        // A loop of `inherits` ends.
        let dir = project(Some(
            "[profile.a]\ninherits = \"b\"\n[profile.b]\ninherits = \"a\"\n",
        ));
        let config = config_with_profile(dir.path(), Some("a".to_owned())).expect("configured");
        assert_eq!(config.junit, None);
        // A file nextest will reject is still nextest's to report.
        let dir = project(Some("[profile.default\n"));
        assert!(config_with_profile(dir.path(), None).is_some());
    }

    #[test]
    fn failing_tests_of_the_junit_report_missing_from_the_log_fail_the_run() {
        // A real report of cargo-nextest 0.9.143: 9 failing tests of 12.
        let xml = include_bytes!("../../../summarizers/testdata/nextest/failing.truth.xml");
        let log = Report::new("cargo-test", Outcome::Passed);
        let report = merge_junit(log, Some(&Some(xml.to_vec())));
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(report.counts.tests_failed, Some(9));
        assert!(
            report
                .diagnostics
                .iter()
                .any(|d| d.test.as_deref() == Some("nxdemo::tests::adds_wrong")),
            "{report:#?}"
        );
        // What the log already names is not added twice.
        let mut log = Report::new("cargo-test", Outcome::Failed);
        let named = report.diagnostics.iter().map(|d| {
            let test = d.test.as_deref().unwrap_or("");
            let short = test.split_once("::").map_or(test, |(_, rest)| rest);
            d.clone().with_test(short)
        });
        for d in named.collect::<Vec<_>>() {
            log.push(d);
        }
        let merged = merge_junit(log, Some(&Some(xml.to_vec())));
        assert_eq!(merged.diagnostics.len(), 9);
        // No report where the profile writes one: noted, never a pass made of it.
        let missing = merge_junit(Report::new("cargo-test", Outcome::Failed), Some(&None));
        assert_eq!(missing.outcome, Outcome::Failed);
        assert_eq!(missing.notes.len(), 1);
        // A report cut short is noted and changes nothing.
        let cut = merge_junit(
            Report::new("cargo-test", Outcome::Passed),
            Some(&Some(xml[..xml.len() / 2].to_vec())),
        );
        assert_eq!(cut.outcome, Outcome::Passed);
        assert_eq!(cut.notes.len(), 1, "{cut:#?}");
    }

    #[test]
    fn filterset_names_plain_test_paths_only() {
        let names = ["tests::a".to_owned(), "b".to_owned()];
        assert_eq!(
            filterset(&names).as_deref(),
            Some("test(=tests::a) | test(=b)")
        );
        assert_eq!(filterset(&["a)|all(".to_owned()]), None);
        assert_eq!(filterset(&[String::new()]), None);
    }
}
