//! A package of a monorepo verified on its own (`verdict run -C packages/a`), as README
//! recommends: the CI reports name files from the repository's root, each package has its own
//! SARIF category, GitHub gets at most 10 error annotations and a notice about the rest, and the
//! digest keeps the package's own paths.
//!
//! The fixture is `cli/tests/run/monorepo/`: `packages/a` has 30 real tsc errors in three files,
//! `packages/b` one.

use serde_json::Value;

use super::sarif_multitool_errors;
use crate::support::project::Project;

/// The monorepo fixture in a git repository, with the shared tools linked in at its root.
fn monorepo() -> Project {
    let project = Project::fixture("monorepo");
    project.link_node_modules();
    project.git_init();
    project
}

/// The repository root as the SARIF's `%SRCROOT%` names it.
fn root_uri(project: &Project) -> String {
    let root = std::fs::canonicalize(project.root()).expect("the root resolves");
    format!("file://{}/", root.to_str().expect("a UTF-8 path"))
}

#[test]
fn a_package_of_a_monorepo_is_reported_from_the_repository_root() {
    let project = monorepo();

    // SARIF: repository paths, the package's category, a complete %SRCROOT%, valid for GitHub.
    let sarif = project.verdict(&["run", "-C", "packages/a", "--format", "sarif"]);
    assert_eq!(sarif.code, 1, "{}", sarif.all());
    let log = sarif.json();
    let runs = log["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 1, "tsc only: {log:#}");
    let run = &runs[0];
    assert_eq!(run["automationDetails"]["id"], "verdict/packages/a/tsc/");
    assert_eq!(
        run["originalUriBaseIds"]["%SRCROOT%"]["uri"],
        root_uri(&project).as_str()
    );
    let results = run["results"].as_array().expect("results");
    assert_eq!(results.len(), 30, "{run:#}");
    let mut hashes = std::collections::BTreeSet::new();
    for (i, result) in results.iter().enumerate() {
        let location = &result["locations"][0]["physicalLocation"];
        assert_eq!(
            location["artifactLocation"]["uri"],
            format!("packages/a/src/f{}.ts", i / 10),
            "{result:#}"
        );
        assert_eq!(location["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        assert_eq!(location["region"]["startLine"], i % 10 + 2);
        let hash = result["partialFingerprints"]["primaryLocationLineHash"]
            .as_str()
            .expect("a line hash");
        assert!(hashes.insert(hash.to_owned()), "{hash} twice");
    }
    let file = project.path("verdict.sarif");
    std::fs::write(&file, &sarif.stdout).expect("write the SARIF");
    let errors = sarif_multitool_errors(project.root(), &file, 1);
    assert!(errors.is_empty(), "SARIF Multitool errors: {errors:#?}");

    // Another package has a category of its own, so its upload closes none of a's alerts; a
    // matrix job sets its own prefix.
    let b = project.verdict(&[
        "run",
        "-C",
        "packages/b",
        "--format",
        "sarif",
        "--category",
        "verdict-node20",
    ]);
    assert_eq!(b.code, 1, "{}", b.all());
    let b = b.json();
    assert_eq!(
        b["runs"][0]["automationDetails"]["id"],
        "verdict-node20/packages/b/tsc/"
    );
    assert_eq!(
        b["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "packages/b/src/index.ts"
    );

    // JSON: repository paths, the same fingerprints as a run from inside the package.
    let json = project.verdict(&["run", "-C", "packages/a", "--format", "json"]);
    assert_eq!(json.code, 1, "{}", json.all());
    let document = json.json();
    assert_eq!(document["project"], "packages/a");
    let inside = project
        .verdict_in("packages/a", &["run", "--format", "json"])
        .json();
    let diagnostics = |document: &Value| -> Vec<(String, String)> {
        document["verifications"][0]["report"]["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .map(|d| {
                (
                    d["file"].as_str().expect("a file").to_owned(),
                    d["fingerprint"].as_str().expect("a fingerprint").to_owned(),
                )
            })
            .collect()
    };
    let from_root = diagnostics(&document);
    assert_eq!(from_root.len(), 30);
    assert_eq!(
        from_root,
        diagnostics(&inside),
        "the same, wherever verdict starts"
    );
    assert!(
        from_root
            .iter()
            .all(|(file, _)| file.starts_with("packages/a/src/f")),
        "{from_root:#?}"
    );

    // GitLab Code Quality and rdjson: the same repository paths.
    let gitlab = project.verdict(&["run", "-C", "packages/a", "--format", "gitlab"]);
    assert_eq!(gitlab.code, 1, "{}", gitlab.all());
    let issues = gitlab.json();
    let paths: Vec<&str> = issues
        .as_array()
        .expect("an array of issues")
        .iter()
        .map(|issue| issue["location"]["path"].as_str().expect("a path"))
        .collect();
    assert_eq!(paths.len(), 30, "{paths:#?}");
    assert!(
        paths.iter().all(|p| p.starts_with("packages/a/src/f")),
        "{paths:#?}"
    );
    let rdjson = project.verdict(&["run", "-C", "packages/a", "--format", "rdjson"]);
    let result = rdjson.json();
    let paths: Vec<&str> = result["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["location"]["path"].as_str().expect("a path"))
        .collect();
    assert_eq!(paths.len(), 30, "{paths:#?}");
    assert!(
        paths.iter().all(|p| p.starts_with("packages/a/src/f")),
        "{paths:#?}"
    );
}

#[test]
fn thirty_errors_make_ten_annotations_and_one_notice() {
    let project = monorepo();
    let summary = project.path("step-summary.md");
    let summary = summary.to_str().expect("a UTF-8 path");
    let out = project.verdict_env(
        &["run", "-C", "packages/a"],
        &[("GITHUB_ACTIONS", "true"), ("GITHUB_STEP_SUMMARY", summary)],
    );
    assert_eq!(out.code, 1, "{}", out.all());
    let commands: Vec<&str> = out
        .stdout
        .lines()
        .chain(out.stderr.lines())
        .filter(|l| l.starts_with("::"))
        .collect();
    let errors: Vec<&&str> = commands
        .iter()
        .filter(|l| l.starts_with("::error "))
        .collect();
    let notices: Vec<&&str> = commands
        .iter()
        .filter(|l| l.starts_with("::notice "))
        .collect();
    assert_eq!(errors.len(), 10, "{}", out.all());
    assert_eq!(notices.len(), 1, "{}", out.all());
    assert_eq!(commands.len(), 11, "{}", out.all());
    // The first error of each file first, then the rest in tsc's order.
    let places: Vec<&str> = errors
        .iter()
        .map(|l| {
            let start = l.find("file=").expect("a file") + "file=".len();
            let end = start + l[start..].find(",col=").expect("a column");
            &l[start..end]
        })
        .collect();
    assert_eq!(
        places,
        [
            "packages/a/src/f0.ts,line=2",
            "packages/a/src/f1.ts,line=2",
            "packages/a/src/f2.ts,line=2",
            "packages/a/src/f0.ts,line=3",
            "packages/a/src/f0.ts,line=4",
            "packages/a/src/f0.ts,line=5",
            "packages/a/src/f0.ts,line=6",
            "packages/a/src/f0.ts,line=7",
            "packages/a/src/f0.ts,line=8",
            "packages/a/src/f0.ts,line=9",
        ]
    );
    let notice = notices[0];
    assert!(
        notice.contains("::20 more errors not annotated: GitHub shows at most 10 errors"),
        "{notice}"
    );
    assert!(
        notice.contains("(packages/a/.verdict/runs/") && notice.contains("/tsc.log)"),
        "{notice}"
    );
    // The digest for people and agents keeps the package's own paths.
    let digest: String = out
        .stdout
        .lines()
        .filter(|l| !l.starts_with("::"))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(digest.contains("src/f0.ts:2:"), "{digest}");
    assert!(!digest.contains("packages/a/src"), "{digest}");
}
