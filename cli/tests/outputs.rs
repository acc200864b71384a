//! The command-line conventions of issue 13: several reports from one run (`--format
//! FORMAT[=PATH]`, repeatable), `--color` with `NO_COLOR` / `CLICOLOR_FORCE` / GitHub Actions,
//! `-q` / `-v`, `verdict completions`, `--config` / `VERDICT_CONFIG`, and the JSON Schemas of the
//! report and of verdict.toml (in sync with the types, and met by what verdict writes and reads).

use std::process::{Command, Stdio};

use serde_json::Value;

use crate::run::{has_ansi, junitparser, sarif_multitool_errors};
use crate::support::project::{self, Out, Project};
use crate::support::schema;

/// A verifier defined in verdict.toml that prints one finding and fails (or passes, when the file
/// `fixed` exists): fast, and needs no installed tool.
const ONE_FINDING: &str = r#"
[[verifier]]
name = "check"
kind = "lint"
command = ["sh", "-c", "if [ -f fixed ]; then exit 0; fi; echo 'src/a.txt:3: a bad thing'; exit 1"]

[[verifier.pattern]]
regex = '^(?P<file>[^:]+):(?P<line>\d+): (?P<message>.+)$'
"#;

/// A git repository whose verdict.toml is [`ONE_FINDING`].
fn one_finding() -> Project {
    let project = Project::empty();
    project.write("verdict.toml", ONE_FINDING);
    project.git_init();
    project
}

/// Lines of `text` that are GitHub error annotations.
fn error_annotations(text: &str) -> usize {
    text.lines().filter(|l| l.starts_with("::error ")).count()
}

// ---------------------------------------------------------------------------------------------
// Several outputs from one run

#[test]
fn one_run_writes_every_ci_report_and_human_with_one_job_summary() {
    let project = Project::polyglot();
    let summary = project.path("step-summary.md");
    let out = project.verdict_env(
        &[
            "run",
            "--format",
            "sarif=reports/verdict.sarif",
            "--format",
            "junit=junit.xml",
            "--format",
            "json=reports/run.json",
            "--format",
            "gitlab=reports/code-quality.json",
            "--format",
            "rdjson=reports/reviewdog.json",
            "--format",
            "human",
        ],
        &[
            ("GITHUB_ACTIONS", "true"),
            (
                "GITHUB_STEP_SUMMARY",
                summary.to_str().expect("a UTF-8 path"),
            ),
            ("NO_COLOR", "1"),
        ],
    );
    assert_eq!(out.code, 1, "{}", out.all());

    // The human report on stdout, beside the annotations, each written once.
    for name in ["tsc", "eslint", "jest", "pytest"] {
        assert!(
            out.stdout.contains(&format!(" {name} failed")),
            "no status line for {name}:\n{}",
            out.stdout
        );
    }
    assert_eq!(error_annotations(&out.stdout), 5, "{}", out.all());
    assert_eq!(error_annotations(&out.stderr), 0, "{}", out.all());

    // SARIF: valid for GitHub, naming every failure.
    let sarif_path = project.path("reports/verdict.sarif");
    let errors = sarif_multitool_errors(project.root(), &sarif_path, 4);
    assert!(errors.is_empty(), "SARIF Multitool errors: {errors:#?}");
    let sarif: Value = serde_json::from_str(&project.read("reports/verdict.sarif"))
        .expect("the SARIF file is JSON");
    let results: Vec<String> = sarif["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .flat_map(|run| run["results"].as_array().cloned().unwrap_or_default())
        .map(|result| result.to_string())
        .collect();
    assert_eq!(results.len(), 5, "{sarif:#}");
    for needle in [
        "src/cart.ts",
        "src/format.js",
        "test/format.test.js",
        "tests/test_vat.py",
    ] {
        assert!(
            results.iter().any(|r| r.contains(needle)),
            "no SARIF result at {needle}"
        );
    }

    // JUnit, read back by junitparser.
    let junit = junitparser(project.root(), &project.read("junit.xml"));
    let failures: u64 = junit["suites"]
        .as_array()
        .expect("suites")
        .iter()
        .map(|s| s["failures"].as_u64().unwrap_or(0))
        .sum();
    assert!(failures >= 2, "{junit:#}");
    // And against Jenkins' schema and GitLab's rules.
    let checked = crate::junit::validate(&project, &project.read("junit.xml"));
    for key in ["schema_errors", "gitlab_errors"] {
        assert_eq!(checked[key], Value::Array(Vec::new()), "{key}: {checked:#}");
    }

    // GitLab Code Quality and rdjson, against the schemas their readers publish: the five
    // findings each.
    crate::run::gitlab_rdjson::valid(
        &project,
        "gitlab",
        &project.read("reports/code-quality.json"),
        5,
    );
    crate::run::gitlab_rdjson::valid(
        &project,
        "rdjson",
        &project.read("reports/reviewdog.json"),
        5,
    );

    // JSON, against the checked-in schema.
    let json: Value =
        serde_json::from_str(&project.read("reports/run.json")).expect("the JSON report parses");
    assert_eq!(json["outcome"], "failed");
    let errors = schema::run_errors(&json);
    assert!(errors.is_empty(), "{errors:#?}");

    // One job summary however many formats.
    let written = project.read("step-summary.md");
    let headings = written
        .lines()
        .filter(|l| l.starts_with("## ") && l.contains("verdict:"))
        .count();
    assert_eq!(headings, 1, "{written}");
}

#[test]
fn a_machine_format_on_stdout_sends_the_annotations_to_stderr() {
    let project = one_finding();
    let out = project.verdict_env(
        &["run", "--format", "json", "--format", "human=human.txt"],
        &[("GITHUB_ACTIONS", "true")],
    );
    assert_eq!(out.code, 1, "{}", out.all());
    assert_eq!(out.json()["outcome"], "failed");
    assert_eq!(error_annotations(&out.stderr), 1, "{}", out.all());
    let human = project.read("human.txt");
    assert!(human.contains("check failed"), "{human}");
    // A file is coloured only under --color always, whatever Actions does for its log.
    assert!(!has_ansi(&human), "{human:?}");
}

#[test]
fn output_combinations_that_cannot_be_written_are_usage_errors() {
    let project = one_finding();
    let cases: [(&[&str], &str); 7] = [
        (
            &["--format", "json", "--format", "human"],
            "both `json` and `human` would be written to stdout",
        ),
        (
            &["--format", "human", "--format", "human=h.txt"],
            "a run has one human report",
        ),
        (
            &[
                "--format",
                "json=r.json",
                "--format",
                "sarif=./sub/../r.json",
            ],
            "would both be written to",
        ),
        (
            &["--format", "json", "--format", "sarif", "--output", "x"],
            "--output names one file but 2 formats are given",
        ),
        (
            &["--format", "json=a.json", "--output", "b.json"],
            "both name the file",
        ),
        (&["--format", "xml"], "unknown format `xml`"),
        (&["--format", "json="], "no path after `json=`"),
    ];
    for (args, message) in cases {
        let out = project.verdict(&[&["run"], args].concat());
        assert_eq!(out.code, 2, "{args:?}: {}", out.all());
        assert!(out.stderr.contains(message), "{args:?}: {}", out.all());
        assert!(out.stdout.is_empty(), "{args:?}: {}", out.all());
    }
    // Nothing ran: the outputs are checked first.
    assert!(
        !project.path(".verdict").exists(),
        "a usage error ran the verifiers"
    );
}

#[test]
fn the_old_output_flag_still_writes_the_one_format() {
    let project = one_finding();
    let out = project.verdict(&["run", "--format", "json", "--output", "old.json"]);
    assert_eq!(out.code, 1, "{}", out.all());
    assert!(out.stdout.is_empty(), "{}", out.all());
    let json: Value = serde_json::from_str(&project.read("old.json")).expect("JSON");
    assert!(schema::run_errors(&json).is_empty());
    // `-` is stdout.
    let dash = project.verdict(&["run", "--format", "json=-"]);
    assert_eq!(dash.json()["outcome"], "failed");
}

// ---------------------------------------------------------------------------------------------
// The same value names everywhere

#[test]
fn every_format_flag_takes_human() {
    let project = one_finding();
    let log = "src/a.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.\n";
    for format in ["human", "text"] {
        let out = crate::support::verdict(&["summarize", "--tool", "tsc", "--format", format], log);
        assert_eq!(out.code, 1, "{format}: {}", out.stderr);
        assert!(out.stdout.contains("TS2322"), "{format}: {}", out.stdout);
    }
    // `text` is an alias kept for old scripts, not a name to learn.
    let help = crate::support::verdict(&["summarize", "--help"], "");
    assert!(help.stdout.contains("human"), "{}", help.stdout);
    assert!(!help.stdout.contains("- text"), "{}", help.stdout);
    for command in [
        &["run"][..],
        &["history"],
        &["stats"],
        &["loop", "--task", "x"],
    ] {
        let help = project.verdict(&[command, &["--help"]].concat());
        assert!(
            help.stdout.contains("human"),
            "{command:?} --help:\n{}",
            help.stdout
        );
    }
    let history = project.verdict(&["history", "--format", "human"]);
    assert_eq!(history.code, 0, "{}", history.all());
}

// ---------------------------------------------------------------------------------------------
// Colour

#[test]
fn colour_follows_the_flag_then_the_environment() {
    let project = one_finding();
    let human = |args: &[&str], env: &[(&str, &str)]| {
        let out = project.verdict_env(&[&["run"], args].concat(), env);
        assert_eq!(out.code, 1, "{}", out.all());
        assert!(out.stdout.contains("a bad thing"), "{}", out.all());
        has_ansi(&out.stdout)
    };
    // In a pipe: none by default, forced by the flag or CLICOLOR_FORCE, and GitHub Actions' log
    // renders colours.
    assert!(!human(&[], &[]));
    assert!(human(&["--color", "always"], &[]));
    assert!(human(&[], &[("CLICOLOR_FORCE", "1")]));
    assert!(!human(&[], &[("CLICOLOR_FORCE", "0")]));
    assert!(human(&[], &[("GITHUB_ACTIONS", "true")]));
    // NO_COLOR and CLICOLOR=0 win over the environment's other hints, never over the flag.
    assert!(!human(&[], &[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")]));
    assert!(!human(
        &[],
        &[("CLICOLOR", "0"), ("GITHUB_ACTIONS", "true")]
    ));
    assert!(human(&["--color", "always"], &[("NO_COLOR", "1")]));
    assert!(!human(&["--color", "never"], &[("CLICOLOR_FORCE", "1")]));
    // A global option goes before the command too.
    let out = project.verdict(&["--color", "always", "run"]);
    assert!(has_ansi(&out.stdout), "{}", out.all());
}

/// `--color never` on a terminal (under `script`, which gives verdict a pseudo-terminal).
#[test]
fn colour_never_holds_on_a_terminal() {
    let project = one_finding();
    let binary = assert_cmd::cargo::cargo_bin!("verdict");
    let quoted = format!("'{}'", binary.display().to_string().replace('\'', r"'\''"));
    let on_a_terminal = |flags: &str| {
        let output = Command::new("script")
            .env("VERDICT_STATE_DIR", ".verdict")
            .args(["-qec", &format!("{quoted} run {flags}"), "/dev/null"])
            .current_dir(project.root())
            .env("TERM", "xterm-256color")
            .env_remove("NO_COLOR")
            .env_remove("GITHUB_ACTIONS")
            .env_remove("CLICOLOR_FORCE")
            .env_remove("CLICOLOR")
            .stdin(Stdio::null())
            .output()
            .expect("script runs");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let coloured = on_a_terminal("");
    assert!(coloured.contains("a bad thing"), "{coloured}");
    assert!(has_ansi(&coloured), "{coloured:?}");
    let plain = on_a_terminal("--color never");
    assert!(plain.contains("a bad thing"), "{plain}");
    assert!(!has_ansi(&plain), "{plain:?}");
}

// ---------------------------------------------------------------------------------------------
// -q and -v

#[test]
fn quiet_and_verbose_run() {
    let project = one_finding();
    let quiet = project.verdict(&["run", "-q"]);
    assert_eq!(quiet.code, 1, "{}", quiet.all());
    assert!(quiet.stdout.contains("a bad thing"), "{}", quiet.all());
    assert!(
        !quiet.stdout.contains("check failed"),
        "-q printed the status lines:\n{}",
        quiet.stdout
    );
    let verbose = project.verdict(&["run", "--verbose"]);
    assert_eq!(verbose.code, 1, "{}", verbose.all());
    assert!(verbose.stdout.contains("check failed"), "{}", verbose.all());
    for needle in [
        "running check",
        "check failed (ran",
        "ran: sh -c",
        "log: .verdict/runs/",
    ] {
        assert!(
            verbose.stderr.contains(needle),
            "-v does not say `{needle}`:\n{}",
            verbose.stderr
        );
    }
    let both = project.verdict(&["run", "-q", "-v"]);
    assert_eq!(both.code, 2, "{}", both.all());

    project.write("fixed", "");
    let pass = project.verdict(&["-q", "run"]);
    assert_eq!(pass.code, 0, "{}", pass.all());
    assert_eq!(pass.stdout, "", "-q printed something for a pass");
    assert_eq!(pass.stderr, "", "-q printed something for a pass");
    // -q is about the human report: a document asked for is still written.
    let json = project.verdict(&["-q", "run", "--format", "json"]);
    assert_eq!(json.json()["outcome"], "passed");
}

#[test]
fn quiet_and_verbose_summarize() {
    let passing = "Tests: 3 passed, 3 total\nTest Suites: 1 passed, 1 total\n";
    let normal = crate::support::verdict(&["summarize", "--tool", "jest"], passing);
    assert_eq!(normal.code, 0, "{}", normal.stderr);
    assert!(!normal.stdout.trim().is_empty());
    let quiet = crate::support::verdict(&["summarize", "-q", "--tool", "jest"], passing);
    assert_eq!(quiet.code, 0, "{}", quiet.stderr);
    assert_eq!(quiet.stdout, "");
    let verbose = crate::support::verdict(&["-v", "summarize", "--tool", "jest"], passing);
    assert!(
        verbose.stderr.contains("read as jest: passed"),
        "{}",
        verbose.stderr
    );
    let failing = "src/a.ts(1,7): error TS2322: Type 'string' is not assignable.\n";
    let quiet = crate::support::verdict(&["-q", "summarize", "--tool", "tsc"], failing);
    assert_eq!(quiet.code, 1);
    assert!(quiet.stdout.contains("TS2322"), "{}", quiet.stdout);
}

#[test]
fn quiet_and_verbose_loop() {
    // An agent that fixes the one finding; each run starts from the broken tree.
    let agent = "sh -c 'cat >/dev/null; touch fixed'";
    let project = one_finding();
    let run = |flag: Option<&str>| {
        let _ = std::fs::remove_file(project.path("fixed"));
        let mut args = vec!["loop", "--task", "fix it", "--agent", agent];
        args.extend(flag);
        let out = project.verdict(&args);
        assert_eq!(out.code, 0, "{}", out.all());
        assert!(
            out.stdout.starts_with("verdict loop: run ") && out.stdout.contains("passed"),
            "{}",
            out.all()
        );
        out
    };
    let normal = run(None);
    assert!(
        normal.stderr.contains("attempt 1: verified green"),
        "{}",
        normal.all()
    );
    assert!(!normal.stderr.contains("{\"event\""), "{}", normal.all());
    let quiet = run(Some("-q"));
    assert_eq!(quiet.stderr, "", "-q printed steps:\n{}", quiet.all());
    let verbose = run(Some("--verbose"));
    assert!(
        verbose.stderr.contains("attempt 1: verified green"),
        "{}",
        verbose.all()
    );
    for event in ["run_started", "baseline_finished", "run_finished"] {
        assert!(
            verbose.stderr.contains(&format!("{{\"event\":\"{event}\"")),
            "-v does not show {event}:\n{}",
            verbose.stderr
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Completions

#[test]
fn completions_for_every_shell() {
    let bash = crate::support::verdict(&["completions", "bash"], "");
    assert_eq!(bash.code, 0, "{}", bash.stderr);
    for word in [
        "run",
        "summarize",
        "completions",
        "--format",
        "--color",
        "sarif",
    ] {
        assert!(bash.stdout.contains(word), "the bash script lacks {word}");
    }
    if Command::new("bash").arg("--version").output().is_ok() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let script = dir.path().join("verdict.bash");
        std::fs::write(&script, &bash.stdout).expect("write the script");
        let check = Command::new("bash")
            .arg("-n")
            .arg(&script)
            .output()
            .expect("bash runs");
        assert!(
            check.status.success(),
            "bash -n rejects the script: {}",
            String::from_utf8_lossy(&check.stderr)
        );
    }
    for shell in ["zsh", "fish", "powershell", "elvish"] {
        let out = crate::support::verdict(&["completions", shell], "");
        assert_eq!(out.code, 0, "{shell}: {}", out.stderr);
        assert!(out.stdout.contains("summarize"), "{shell}: {}", out.stdout);
    }
    let unknown = crate::support::verdict(&["completions", "tcsh"], "");
    assert_eq!(unknown.code, 2);
}

// ---------------------------------------------------------------------------------------------
// --config and VERDICT_CONFIG

/// The config line of `verdict list`.
fn config_line(out: &Out) -> String {
    assert_eq!(out.code, 0, "{}", out.all());
    out.stdout.lines().next().unwrap_or_default().to_owned()
}

#[test]
fn the_config_flag_then_the_variable_then_discovery() {
    let project = one_finding();
    let other = |name: &str| {
        format!(
            "[[verifier]]\nname = \"{name}\"\nkind = \"lint\"\ncommand = [\"sh\", \"-c\", \"echo {name}; exit 0\"]\n"
        )
    };
    project.write("ci/flag.toml", &other("from-flag"));
    project.write("ci/env.toml", &other("from-env"));
    let env_path = project.path("ci/env.toml");
    let env_path = env_path.to_str().expect("a UTF-8 path");

    let discovered = project.verdict(&["list"]);
    assert!(
        config_line(&discovered).ends_with("verdict.toml"),
        "{}",
        discovered.stdout
    );
    let by_env = project.verdict_env(&["list"], &[("VERDICT_CONFIG", env_path)]);
    assert!(
        config_line(&by_env).ends_with("env.toml"),
        "{}",
        by_env.stdout
    );
    let by_flag = project.verdict_env(
        &["list", "--config", "ci/flag.toml"],
        &[("VERDICT_CONFIG", env_path)],
    );
    assert!(
        config_line(&by_flag).ends_with("flag.toml"),
        "{}",
        by_flag.stdout
    );
    // An empty variable is no choice.
    let empty = project.verdict_env(&["list"], &[("VERDICT_CONFIG", "")]);
    assert!(
        config_line(&empty).ends_with("verdict.toml"),
        "{}",
        empty.stdout
    );

    // `init` writes the file the flag names.
    let init = project.verdict(&["--config", "ci/new.toml", "init"]);
    assert_eq!(init.code, 0, "{}", init.all());
    assert!(
        schema::config_errors(&project.read("ci/new.toml")).is_empty(),
        "{}",
        project.read("ci/new.toml")
    );

    // The run uses the named file's verifiers, in the project (not the file's directory).
    let run = project.verdict(&["--config", "ci/flag.toml", "run", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.all());
    let report = run.json();
    assert_eq!(report["verifications"][0]["verifier"], "from-flag");
    let log = report["verifications"][0]["log"].as_str().expect("a log");
    assert!(
        project.path(log).is_file(),
        "the run was not in the project: {log}"
    );

    // A file that is not there is a usage error, named with how it was named.
    for (args, env, named_by) in [
        (&["list", "--config", "nope.toml"][..], None, "--config"),
        (&["run"][..], Some("missing.toml"), "VERDICT_CONFIG"),
    ] {
        let env: Vec<(&str, &str)> = env.map(|p| ("VERDICT_CONFIG", p)).into_iter().collect();
        let out = project.verdict_env(args, &env);
        assert_eq!(out.code, 2, "{}", out.all());
        assert!(
            out.stderr
                .contains(&format!("named by {named_by} does not exist")),
            "{}",
            out.all()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// JSON Schemas

/// What `verdict schema WHICH` prints.
fn generated(which: &str) -> String {
    let out = crate::support::verdict(&["schema", which], "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.stdout
}

#[test]
fn the_checked_in_schemas_are_those_the_types_generate() {
    for (which, file) in [
        ("run", schema::RUN_SCHEMA),
        ("config", schema::CONFIG_SCHEMA),
    ] {
        let path = project::repo().join(file);
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            checked_in == generated(which),
            "{file} is out of date with the Rust types: run `cargo xtask schemas`"
        );
    }
}

#[test]
fn the_schemas_reject_what_verdict_rejects() {
    // A report whose outcome is not one verdict writes, and one without its digest.
    let mut report: Value =
        serde_json::from_str(&generated_report()).expect("a report from the schema test");
    assert!(schema::run_errors(&report).is_empty());
    report["outcome"] = "green".into();
    assert!(!schema::run_errors(&report).is_empty());
    report["outcome"] = "failed".into();
    report.as_object_mut().map(|o| o.remove("digest"));
    assert!(!schema::run_errors(&report).is_empty());
    report = serde_json::from_str(&generated_report()).expect("JSON");
    report["schema"] = "verdict-run/2".into();
    assert!(!schema::run_errors(&report).is_empty());

    for bad in [
        "[run]\ntimout = 5\n",
        "[run]\ntimeout = \"5 minutes\"\n",
        "[run]\ntimeout = 0\n",
        "[verifiers.tsc]\nenabled = \"yes\"\n",
        "[[verifier]]\nname = \"x\"\nkind = \"nonsense\"\ncommand = [\"true\"]\n",
        "[loop]\non_repeat = \"shrug\"\n",
        "[[agent]]\npreset = \"claude\"\npatterns.bogus = [\"x\"]\n",
    ] {
        assert!(
            !schema::config_errors(bad).is_empty(),
            "the schema accepts:\n{bad}"
        );
        // …and so does verdict, which must reject it too.
        let project = Project::empty();
        project.write("verdict.toml", bad);
        let out = project.verdict(&["list"]);
        assert_eq!(out.code, 2, "verdict accepts:\n{bad}\n{}", out.all());
    }
}

/// A real report: the one-finding project's run as JSON.
fn generated_report() -> String {
    let project = one_finding();
    let out = project.verdict(&["run", "--format", "json"]);
    assert_eq!(out.code, 1, "{}", out.all());
    out.stdout
}

/// Every verdict.toml the repository ships (fixtures, examples) and every TOML example in the
/// docs that verdict accepts as a whole file matches the schema.
#[test]
fn every_shipped_config_matches_the_schema() {
    let repo = project::repo();
    let listed = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(&repo)
        .output()
        .expect("git runs");
    let files: Vec<String> = String::from_utf8_lossy(&listed.stdout)
        .split('\0')
        .filter(|f| f.ends_with("verdict.toml"))
        .map(str::to_owned)
        .collect();
    assert!(!files.is_empty(), "no verdict.toml is tracked");
    for file in &files {
        let text = std::fs::read_to_string(repo.join(file)).expect("read the file");
        let errors = schema::config_errors(&text);
        assert!(errors.is_empty(), "{file}: {errors:#?}");
    }

    let mut checked = 0;
    for doc in [
        "docs/config.md",
        "docs/loop.md",
        "docs/hooks.md",
        "README.md",
    ] {
        let Ok(text) = std::fs::read_to_string(repo.join(doc)) else {
            continue;
        };
        for block in toml_blocks(&text) {
            if !verdict_accepts(&block) {
                continue;
            }
            let errors = schema::config_errors(&block);
            assert!(
                errors.is_empty(),
                "{doc}: verdict accepts this example, the schema does not: {errors:#?}\n{block}"
            );
            checked += 1;
        }
    }
    assert!(
        checked >= 3,
        "only {checked} examples of the docs were checked"
    );
}

/// The ```toml blocks of a Markdown text.
fn toml_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match &mut current {
            None if line.trim_start().starts_with("```toml") => current = Some(String::new()),
            Some(block) if line.trim_start().starts_with("```") => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
    }
    blocks
}

/// Whether verdict reads `text` as a whole verdict.toml (`verdict --config FILE list`).
fn verdict_accepts(text: &str) -> bool {
    let dir = tempfile::tempdir().expect("a temp dir");
    let file = dir.path().join("verdict.toml");
    std::fs::write(&file, text).expect("write the example");
    let out = Command::new(env!("CARGO_BIN_EXE_verdict"))
        .env("VERDICT_STATE_DIR", ".verdict")
        .arg("--config")
        .arg(&file)
        .args(["list", "-C"])
        .arg(dir.path())
        .output()
        .expect("verdict runs");
    out.status.success()
}

/// `verdict init`'s file is a config the schema accepts (and `Project` checks every config a
/// test run accepted).
#[test]
fn the_file_init_writes_matches_the_schema() {
    let project = Project::polyglot();
    let init = project.verdict(&["init"]);
    assert_eq!(init.code, 0, "{}", init.all());
    let errors = schema::config_errors(&project.read("verdict.toml"));
    assert!(errors.is_empty(), "{errors:#?}");
}
