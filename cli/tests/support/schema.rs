//! The checked-in JSON Schemas (`schemas/`), compiled once per test process, and the checks of
//! documents against them: every `verdict-run/1` report a test reads back ([`super::project::Out::json`],
//! [`super::Run::json`]) and every verdict.toml verdict accepts in a test project. Also Claude
//! Code's published settings schema, kept beside the hook tests, for the settings that
//! `verdict hook install claude` writes.

use std::sync::OnceLock;

use serde_json::Value;

/// The `verdict-run/1` report's schema file, relative to the repository root.
pub(crate) const RUN_SCHEMA: &str = "schemas/verdict-run-1.schema.json";
/// verdict.toml's schema file, relative to the repository root.
pub(crate) const CONFIG_SCHEMA: &str = "schemas/verdict-toml.schema.json";
/// Claude Code's settings schema as the Schema Store publishes it (its source in the README
/// beside it), relative to the repository root.
pub(crate) const CLAUDE_SETTINGS_SCHEMA: &str =
    "cli/tests/hook/schemastore/claude-code-settings.json";

fn compile(rel: &str) -> jsonschema::Validator {
    let path = verdict_test_support::repo_root().join(rel);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let schema: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
    jsonschema::validator_for(&schema)
        .unwrap_or_else(|e| panic!("{} is not a valid JSON Schema: {e}", path.display()))
}

fn run_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| compile(RUN_SCHEMA))
}

fn config_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| compile(CONFIG_SCHEMA))
}

fn claude_settings_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| compile(CLAUDE_SETTINGS_SCHEMA))
}

/// Where `instance` breaks `validator`'s schema, one line per error.
fn errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|error| format!("at `{}`: {error}", error.instance_path()))
        .collect()
}

/// Where a `verdict-run/1` report breaks the schema.
pub(crate) fn run_errors(report: &Value) -> Vec<String> {
    errors(run_validator(), report)
}

/// Where a Claude Code settings file (`.claude/settings.json`, `settings.local.json`, the user's)
/// breaks Claude Code's published schema.
pub(crate) fn claude_settings_errors(settings: &Value) -> Vec<String> {
    errors(claude_settings_validator(), settings)
}

/// Where a verdict.toml breaks the schema (its TOML read as JSON); a file that is not TOML at all
/// is one error.
pub(crate) fn config_errors(text: &str) -> Vec<String> {
    match toml::from_str::<Value>(text) {
        Ok(document) => errors(config_validator(), &document),
        Err(error) => vec![format!("not TOML: {error}")],
    }
}

/// Fails the test unless a document that says it is a `verdict-run/1` report matches the schema.
/// Other JSON (`verdict summarize --format json`, the MCP tools) is left alone.
pub(crate) fn check_if_run_report(document: &Value) {
    if document.get("schema").and_then(Value::as_str) != Some("verdict-run/1") {
        return;
    }
    let errors = run_errors(document);
    assert!(
        errors.is_empty(),
        "the report does not match {RUN_SCHEMA} (regenerate it with `cargo xtask schemas` if \
         the report's types changed):\n{}\n{document:#}",
        errors.join("\n")
    );
}
