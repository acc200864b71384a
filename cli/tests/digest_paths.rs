//! Paths in a digest are relative to the project verdict verifies: the agent opens them from
//! there. Each test runs a real tool that names files absolute, and reads the digest.

use crate::support::project::{Out, Project};

/// The digest part of a human run's output: what the agent reads.
fn digest_of(run: &Out) -> &str {
    &run.stdout
}

/// Fails when `text` names the project's absolute directory or says paths are relative to one.
fn assert_relative(project: &Project, text: &str) {
    let root = project.root().to_string_lossy().into_owned();
    let canonical = std::fs::canonicalize(project.root())
        .map(|path| path.to_string_lossy().into_owned())
        .unwrap_or_else(|_| root.clone());
    // The footer names the run's log, which lies in the project.
    let body: String = text
        .lines()
        .filter(|line| !line.contains("full log"))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        !body.contains(&root) && !body.contains(&canonical),
        "an absolute path of the project: {text}"
    );
    assert!(!body.contains("relative to"), "{text}");
}

/// npm workspaces whose root runs each package's node:test tests; three tests fail in each of
/// the two packages, and node names their files absolute.
fn workspaces() -> Project {
    let project = Project::empty();
    project.write(
        "package.json",
        r#"{"name": "mono", "private": true, "workspaces": ["packages/*"],
        "scripts": {"test": "npm test --workspaces"}}"#,
    );
    for name in ["alpha", "beta"] {
        project.write(
            &format!("packages/{name}/package.json"),
            &format!(
                r#"{{"name": "{name}", "version": "1.0.0", "scripts": {{"test": "node --test"}}}}"#
            ),
        );
        project.write(
            &format!("packages/{name}/test/{name}.test.js"),
            "const test = require('node:test');\nconst assert = require('node:assert');\n\
             test('adds', () => assert.strictEqual(1 + 1, 3));\n\
             test('subtracts', () => assert.strictEqual(2 - 1, 0));\n\
             test('multiplies', () => assert.strictEqual(2 * 2, 5));\n\
             test('passes', () => assert.ok(true));\n",
        );
    }
    project.git_init();
    project
}

#[test]
fn a_workspaces_run_names_each_failing_test_with_its_package() {
    let project = workspaces();
    let run = project.verdict(&["run", "--no-cache"]);
    assert_eq!(run.code, 1, "{}", run.all());
    let digest = digest_of(&run);
    // Each failing test by name, at its place in its package.
    for package in ["alpha", "beta"] {
        for (line, name) in [(3, "adds"), (4, "subtracts"), (5, "multiplies")] {
            let place = format!("{name} — packages/{package}/test/{package}.test.js:{line}");
            assert!(digest.contains(&place), "{place} in {}", run.all());
        }
    }
    assert!(!digest.contains("more failed"), "{digest}");
    assert_relative(&project, digest);
}

#[test]
fn a_package_run_names_its_files_from_the_package() {
    let project = workspaces();
    let run = project.verdict(&["run", "--no-cache", "-C", "packages/beta"]);
    assert_eq!(run.code, 1, "{}", run.all());
    let digest = digest_of(&run);
    assert!(
        digest.contains("adds — test/beta.test.js:3"),
        "{}",
        run.all()
    );
    assert_relative(&project, digest);
}

/// A pytest test that opens a data file beside it, by its absolute path, and finds none: the
/// message names the path the agent must create, relative to the project.
#[test]
fn a_message_names_the_projects_files_relative_to_it() {
    let project = Project::empty();
    project.write("pytest.ini", "[pytest]\n");
    project.write(
        "tests/test_data.py",
        "import os\n\n\ndef test_reads_the_data():\n    \
         path = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data.txt')\n    \
         with open(path) as f:\n        assert f.read()\n",
    );
    project.link_venv();
    project.git_init();
    let run = project.verdict(&["run", "--no-cache"]);
    assert_eq!(run.code, 1, "{}", run.all());
    let digest = digest_of(&run);
    assert!(
        digest.contains("No such file or directory: 'tests/data.txt'"),
        "{}",
        run.all()
    );
    assert_relative(&project, digest);
}

/// unittest under `coverage run` names its files absolute; `verdict summarize` of its log, in
/// the project, names them from there.
#[test]
fn a_unittest_log_summarized_in_the_project_names_its_files_from_it() {
    let project = Project::empty();
    project.write("tests/__init__.py", "");
    project.write(
        "tests/test_ops.py",
        "import unittest\n\n\nclass Ops(unittest.TestCase):\n    def test_add(self):\n        \
         self.assertEqual(1 + 1, 3)\n\n    def test_sub(self):\n        \
         self.assertEqual(2 - 1, 0)\n",
    );
    project.link_venv();
    let output = std::process::Command::new(project.path(".venv/bin/python"))
        .args(["-m", "coverage", "run", "-m", "unittest", "discover"])
        .args(["-s", "tests", "-t", "."])
        .current_dir(project.root())
        .output()
        .expect("the venv's python runs");
    assert!(!output.status.success(), "{output:?}");
    project.write("unittest.log", &String::from_utf8_lossy(&output.stderr));
    assert!(
        project.read("unittest.log").contains(&format!(
            "File \"{}",
            std::fs::canonicalize(project.root())
                .expect("the project exists")
                .display()
        )),
        "unittest names its files absolute: {}",
        project.read("unittest.log")
    );
    let run = project.verdict(&["summarize", "unittest.log"]);
    assert_eq!(run.code, 1, "{}", run.all());
    let digest = digest_of(&run);
    assert!(
        digest.contains("test_add — tests/test_ops.py:6"),
        "{}",
        run.all()
    );
    assert!(
        digest.contains("test_sub — tests/test_ops.py:9"),
        "{}",
        run.all()
    );
    assert_relative(&project, digest);
}
