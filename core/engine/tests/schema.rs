//! The `verdict-run/1` report against its JSON Schema (`schemas/verdict-run-1.schema.json`,
//! generated from the report's types by `cargo xtask schemas`): every captured log, read by the
//! summarizers and rendered as a run's JSON report, matches it — reports of every shape the tools
//! give (counts, failing tests, named tests, errors, notes), not only the CLI tests' fixtures.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use verdict_core::digest;
use verdict_core::model::{Kind, Status, Verification, overall};
use verdict_core::render::{self, Format, RenderInput};
use verdict_summarizers::sections;

use crate::support::captured::{case_names, log, testdata};

/// The schema, compiled.
fn validator() -> jsonschema::Validator {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas/verdict-run-1.schema.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::validator_for(&schema).expect("the schema is a valid JSON Schema")
}

/// The JSON report of a run whose one verifier printed `bytes`.
fn report_of(name: &str, bytes: &[u8]) -> Value {
    let (reports, _) =
        sections::summarize_all_reader(&mut &bytes[..]).expect("reading from memory");
    let verifications: Vec<Verification> = reports
        .into_iter()
        .enumerate()
        .map(|(i, report)| Verification {
            verifier: format!("{name}-{i}"),
            kind: Kind::Test,
            status: Status::Ran,
            command: Some(vec![name.to_owned()]),
            log: Some(format!(".verdict/runs/r1/{name}.log")),
            duration: Duration::from_millis(1200),
            notes: vec!["captured".to_owned()],
            report,
        })
        .collect();
    let inputs: Vec<digest::Input<'_>> = verifications
        .iter()
        .map(|v| digest::Input {
            report: &v.report,
            log: v.log.as_deref(),
        })
        .collect();
    let digest = digest::render(&inputs, &digest::Options::default());
    let input = RenderInput {
        verifications: &verifications,
        digest: &digest,
        outcome: overall(&verifications),
        known_failures: 0,
        exit_code: 1,
        tool_version: "0.0.0-test",
        color: false,
        repo: verdict_core::render::Repo::default(),
        shard: None,
    };
    serde_json::from_str(&render::render(Format::Json, &input)).expect("the report is JSON")
}

#[test]
fn every_captured_log_renders_a_report_the_schema_accepts() {
    let validator = validator();
    let root = testdata("");
    let mut tools: Vec<String> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|entry| {
            let entry = entry.ok()?;
            entry
                .path()
                .is_dir()
                .then(|| entry.file_name().into_string().ok())?
        })
        .collect();
    tools.sort();
    let mut checked = 0;
    let mut failures = Vec::new();
    for tool in &tools {
        let has_logs = std::fs::read_dir(testdata(tool))
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .any(|e| e.file_name().to_string_lossy().ends_with(".log"));
        if !has_logs {
            continue;
        }
        for case in case_names(tool) {
            let report = report_of(tool, &log(tool, &case));
            let errors: Vec<String> = validator
                .iter_errors(&report)
                .map(|e| format!("at `{}`: {e}", e.instance_path()))
                .collect();
            if !errors.is_empty() {
                failures.push(format!("{tool}/{case}: {}", errors.join("; ")));
            }
            checked += 1;
        }
    }
    assert!(checked >= 100, "only {checked} captured logs were checked");
    assert!(
        failures.is_empty(),
        "reports that do not match the schema (regenerate it with `cargo xtask schemas` if the \
         report's types changed):\n{}",
        failures.join("\n")
    );
}

#[test]
fn the_schema_rejects_a_report_verdict_would_not_write() {
    let validator = validator();
    let good = report_of("tsc", &log("tsc", &case_names("tsc")[0]));
    assert!(validator.is_valid(&good));
    let mut bad = good.clone();
    bad["verifications"][0]["status"] = "maybe".into();
    assert!(!validator.is_valid(&bad));
    let mut bad = good;
    bad["verifications"][0]["report"]["diagnostics"] = serde_json::json!([{"message": "no tool"}]);
    assert!(!validator.is_valid(&bad));
}
