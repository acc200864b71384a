//! A pass needs evidence that the tool checked something (issue 20): each tool verifier run on a
//! project whose tool is a program that only exits 0 — placed where the verifier finds the tool —
//! could not verify (exit 2), where such a tool used to pass. The real tools' clean runs still
//! pass (the green example's and the fixtures' tests).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::verification;
use crate::support::project::{Project, path_with_node};

/// A program that prints nothing and exits 0, at `path`.
fn no_op(path: &Path) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("create its directory");
    std::fs::write(path, "#!/bin/sh\nexit 0\n").expect("write the program");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("make it run");
}

/// How a verifier finds its tool.
enum Tool {
    /// `node_modules/.bin/<name>`.
    NodeBin(&'static str),
    /// A program of that name first on `PATH`.
    OnPath(&'static [&'static str]),
    /// The virtualenv's `python`.
    Venv,
}

/// One verifier, the project files that make it apply, and where its tool is found.
struct Case {
    verifier: &'static str,
    files: &'static [(&'static str, &'static str)],
    tool: Tool,
}

const PACKAGE_TS: &str =
    r#"{"name": "x", "private": true, "devDependencies": {"typescript": "5.9.3"}}"#;
const CARGO_TOML: &str = "[package]\nname = \"x\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";

const CASES: &[Case] = &[
    Case {
        verifier: "tsc",
        files: &[
            ("package.json", PACKAGE_TS),
            ("tsconfig.json", "{}"),
            ("src/a.ts", "export const a: number = 1;\n"),
        ],
        tool: Tool::NodeBin("tsc"),
    },
    Case {
        verifier: "eslint",
        files: &[
            (
                "package.json",
                r#"{"name": "x", "private": true, "scripts": {"lint": "eslint ."}, "devDependencies": {"eslint": "9.0.0"}}"#,
            ),
            ("eslint.config.mjs", "export default [];\n"),
            ("src/a.js", "export const a = 1;\n"),
        ],
        tool: Tool::NodeBin("eslint"),
    },
    Case {
        verifier: "jest",
        files: &[
            (
                "package.json",
                r#"{"name": "x", "private": true, "scripts": {"test": "jest"}, "devDependencies": {"jest": "30.0.0"}}"#,
            ),
            ("a.test.js", "test('a', () => {});\n"),
        ],
        tool: Tool::NodeBin("jest"),
    },
    Case {
        verifier: "vitest",
        files: &[
            (
                "package.json",
                r#"{"name": "x", "private": true, "scripts": {"test": "vitest run"}, "devDependencies": {"vitest": "3.0.0"}}"#,
            ),
            (
                "a.test.js",
                "import { test } from 'vitest';\ntest('a', () => {});\n",
            ),
        ],
        tool: Tool::NodeBin("vitest"),
    },
    Case {
        verifier: "mocha",
        files: &[
            (
                "package.json",
                r#"{"name": "x", "private": true, "scripts": {"test": "mocha"}, "devDependencies": {"mocha": "11.0.0"}}"#,
            ),
            ("test/a.js", "it('a', () => {});\n"),
        ],
        tool: Tool::NodeBin("mocha"),
    },
    Case {
        verifier: "node-test",
        files: &[
            (
                "package.json",
                r#"{"name": "x", "private": true, "scripts": {"test": "node --test"}}"#,
            ),
            ("test/a.test.js", "require('node:test')('a', () => {});\n"),
        ],
        tool: Tool::OnPath(&["node"]),
    },
    Case {
        verifier: "cargo-check",
        files: &[("Cargo.toml", CARGO_TOML), ("src/lib.rs", "")],
        tool: Tool::OnPath(&["cargo"]),
    },
    Case {
        verifier: "clippy",
        files: &[("Cargo.toml", CARGO_TOML), ("src/lib.rs", "")],
        tool: Tool::OnPath(&["cargo"]),
    },
    Case {
        verifier: "cargo-test",
        files: &[("Cargo.toml", CARGO_TOML), ("src/lib.rs", "")],
        tool: Tool::OnPath(&["cargo"]),
    },
    Case {
        verifier: "cargo-test",
        files: &[
            ("Cargo.toml", CARGO_TOML),
            ("src/lib.rs", ""),
            (".config/nextest.toml", "[profile.default]\n"),
        ],
        tool: Tool::OnPath(&["cargo", "cargo-nextest"]),
    },
    Case {
        verifier: "pytest",
        files: &[
            (
                "pyproject.toml",
                "[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\n",
            ),
            ("tests/test_a.py", "def test_a():\n    pass\n"),
        ],
        tool: Tool::Venv,
    },
    Case {
        verifier: "unittest",
        files: &[
            (
                "Makefile",
                "test:\n\tpython -m unittest discover -s tests\n",
            ),
            ("tests/__init__.py", ""),
            (
                "tests/test_a.py",
                "import unittest\n\nclass A(unittest.TestCase):\n    def test_a(self):\n        pass\n",
            ),
        ],
        tool: Tool::Venv,
    },
];

/// `case`'s project, with its tool replaced by a no-op; the `PATH` to run verdict with.
fn project(case: &Case) -> (Project, String) {
    let project = Project::empty();
    for (rel, text) in case.files {
        project.write(rel, text);
    }
    let bin = project.path(".fake-bin");
    std::fs::create_dir_all(&bin).expect("create the fake bin directory");
    match &case.tool {
        Tool::NodeBin(name) => no_op(&project.path(&format!("node_modules/.bin/{name}"))),
        Tool::OnPath(names) => {
            for name in *names {
                no_op(&bin.join(name));
            }
        }
        Tool::Venv => {
            project.write(".venv/pyvenv.cfg", "home = /usr/bin\n");
            no_op(&project.path(".venv/bin/python"));
        }
    }
    let mut path = vec![bin];
    path.extend(std::env::split_paths(&path_with_node()));
    let path = std::env::join_paths(path).expect("a PATH");
    (project, path.to_string_lossy().into_owned())
}

#[test]
fn a_tool_that_only_exits_0_is_could_not_verify() {
    let mut passed = Vec::new();
    for case in CASES {
        let (project, path) = project(case);
        let out = project.verdict_env(
            &[
                "run",
                "--only",
                case.verifier,
                "--no-cache",
                "--format",
                "json",
            ],
            &[("PATH", &path)],
        );
        let report = out.json();
        let verification: &Value = verification(&report, case.verifier);
        let outcome = verification["outcome"].as_str().unwrap_or_default();
        let error = verification["report"]["error"].as_str().unwrap_or_default();
        println!(
            "{}: {} {outcome}: {error}",
            case.verifier, verification["status"]
        );
        // It ran the no-op tool: not a verifier that does not apply, nor one that did not start.
        if out.code != 2 || outcome != "errored" || verification["status"] != "ran" {
            passed.push(format!(
                "{} ({}): exit {}, {outcome}: {}",
                case.verifier,
                files_of(case),
                out.code,
                out.all()
            ));
        }
    }
    assert!(
        passed.is_empty(),
        "a no-op tool was not could-not-verify:\n{}",
        passed.join("\n\n")
    );
}

fn files_of(case: &Case) -> String {
    case.files
        .iter()
        .map(|(rel, _)| PathBuf::from(rel).display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn tsc_says_it_printed_nothing_to_show_it_checked_a_file() {
    let (project, path) = project(&CASES[0]);
    let out = project.verdict_env(&["run", "--only", "tsc", "--no-cache"], &[("PATH", &path)]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(
        out.all()
            .contains("tsc printed nothing to show it checked any file"),
        "{}",
        out.all()
    );
}
