//! The JSON Schemas of the tools' arguments and structured results, as the server declares them
//! in `tools/list` (`inputSchema`, `outputSchema`). docs/mcp.md documents the same fields; the
//! end-to-end tests check every result against these schemas with the Python SDK's client.

use serde_json::{Value, json};

/// The counts a tool reported, as in verdict's JSON report: only those the tool gave.
fn counts() -> Value {
    let count = json!({ "type": "integer", "minimum": 0 });
    json!({
        "type": "object",
        "description": "The tool's own counts; a count the tool did not give is absent",
        "properties": {
            "tests_passed": count,
            "tests_failed": count,
            "tests_skipped": count,
            "tests_xfailed": count,
            "tests_xpassed": count,
            "tests_deselected": count,
            "suites_errored": count,
            "errors": count,
            "warnings": count,
            "files": count,
        },
    })
}

fn outcome() -> Value {
    json!({
        "type": "string",
        "enum": ["passed", "failed", "errored"],
        "description": "passed; failed: failures in the code; errored: could not verify (never a pass)",
    })
}

fn exit_code() -> Value {
    json!({
        "type": "integer",
        "enum": [0, 1, 2],
        "description": "What `verdict run` (or `verdict summarize`) exits with: 0 passed, 1 failed, 2 errored",
    })
}

fn budget() -> Value {
    json!({
        "type": "integer",
        "minimum": 1,
        "description": "Hard limit of the digest, in tokens (o200k) [default: 500, or run.budget of verdict.toml]",
    })
}

fn names(what: &str) -> Value {
    json!({
        "type": "array",
        "items": { "type": "string" },
        "description": what,
    })
}

/// What a `verify` with `files` was scoped to.
fn scope() -> Value {
    let named = |what: &str, key: &str| {
        json!({
            "type": "array",
            "description": what,
            "items": {
                "type": "object",
                "required": [key, "reason"],
                "properties": {
                    key: { "type": "string" },
                    "reason": { "type": "string" },
                },
            },
        })
    };
    json!({
        "type": "object",
        "description": "With files: the files checked; the verifiers not run and why (cannot scope to files, none of the files is of a kind it checks, no test related to the files); what was named but not checked",
        "required": ["files", "not_run", "left_out", "missing"],
        "properties": {
            "files": names("The files checked, relative to the project (node ids kept)"),
            "not_run": named("Verifiers not run, and why: the outcome does not cover them", "verifier"),
            "left_out": {
                "type": "array",
                "description": "Files a test verifier ran no test for (a source file pytest cannot map to its tests)",
                "items": {
                    "type": "object",
                    "required": ["verifier", "files"],
                    "properties": {
                        "verifier": { "type": "string" },
                        "files": names("The files"),
                    },
                },
            },
            "missing": named("Files named that do not exist or are not files", "file"),
        },
    })
}

/// The arguments of `verify`.
pub(crate) fn verify_input() -> Value {
    json!({
        "type": "object",
        "properties": {
            "only": names("Run only these verifiers (names from list_verifiers) [default: run.only of verdict.toml, else all that apply]"),
            "skip": names("Do not run these verifiers"),
            "budget": budget(),
            "failed_first": {
                "type": "boolean",
                "description": "Re-run first only the tests that failed last time, and the full run only once they pass",
            },
            "changed_only": {
                "type": "boolean",
                "description": "Report only the verifiers whose inputs changed since their last pass; the others, whose pass still stands, are named in `unchanged`",
            },
            "files": {
                "type": "array",
                "items": { "type": "string" },
                "minItems": 1,
                "description": "Check only these files (relative to the project, or absolute inside it; a test's node id `tests/test_x.py::test_y` too): linters on the files, test runners on their related tests (jest --findRelatedTests, vitest related, pytest by test file and node id). What cannot be scoped is not run and named in `scope.not_run`; the result is never the whole project's. Not with failed_first",
            },
        },
        "additionalProperties": false,
    })
}

/// The structured result of `verify`.
pub(crate) fn verify_output() -> Value {
    json!({
        "type": "object",
        "required": ["outcome", "exit_code", "project", "verifiers", "unchanged", "digest"],
        "properties": {
            "outcome": outcome(),
            "exit_code": exit_code(),
            "project": { "type": "string", "description": "The project's root" },
            "verifiers": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["name", "kind", "status", "outcome", "counts", "diagnostics", "duration_ms"],
                    "properties": {
                        "name": { "type": "string" },
                        "kind": { "type": "string", "description": "build, lint, test, …" },
                        "status": {
                            "type": "string",
                            "enum": ["ran", "cached", "skipped", "cancelled"],
                            "description": "ran; cached: its inputs are unchanged since it passed; skipped: a verifier it needs did not pass",
                        },
                        "outcome": outcome(),
                        "counts": counts(),
                        "diagnostics": {
                            "type": "integer",
                            "minimum": 0,
                            "description": "Errors, warnings and failing tests found (kept and dropped)",
                        },
                        "summary": { "type": "string", "description": "The tool's own summary line" },
                        "error": { "type": "string", "description": "Why it could not verify" },
                        "log": {
                            "type": "string",
                            "description": "file:// URI of the tool's full output (also a resource_link in content)",
                        },
                        "duration_ms": { "type": "integer", "minimum": 0 },
                        "notes": names("How it ran: `cached`, `re-ran 1 failed test first; they pass now, then ran in full`, …"),
                        "scope": {
                            "type": "string",
                            "enum": ["files", "related_tests", "project"],
                            "description": "With files: checked the files alone, ran their related tests, or checked the whole project the files are part of (tsc, clippy)",
                        },
                    },
                },
            },
            "unchanged": names("With changed_only: the verifiers left out because their last pass stands"),
            "note": {
                "type": "string",
                "description": "At a monorepo's root: the workspace packages with verifiers of their own that this run did not verify",
            },
            "scope": scope(),
            "digest": {
                "type": "object",
                "required": ["tokens", "budget"],
                "properties": {
                    "tokens": { "type": "integer", "minimum": 0 },
                    "budget": { "type": "integer", "minimum": 1 },
                },
            },
        },
    })
}

/// The arguments of `summarize_log`; `tools` are the names `tool` takes.
pub(crate) fn summarize_input(tools: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": { "type": "string", "description": "The log file (relative to the project): a regular file inside the project or its runs directory. Give path or text, not both" },
            "text": { "type": "string", "description": "The log itself" },
            "tool": {
                "type": "string",
                "enum": tools,
                "description": "The tool that wrote the log [default: detected; a log of several tools' runs gets a report per run]",
            },
            "budget": budget(),
        },
        "additionalProperties": false,
    })
}

/// The structured result of `summarize_log`.
pub(crate) fn summarize_output() -> Value {
    json!({
        "type": "object",
        "required": ["outcome", "exit_code", "reports"],
        "properties": {
            "outcome": outcome(),
            "exit_code": exit_code(),
            "reports": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["tool", "outcome", "counts", "diagnostics"],
                    "properties": {
                        "tool": { "type": "string" },
                        "outcome": outcome(),
                        "counts": counts(),
                        "diagnostics": { "type": "integer", "minimum": 0 },
                        "summary": { "type": "string" },
                        "error": { "type": "string" },
                    },
                },
            },
        },
    })
}

/// The arguments of `list_verifiers`: none.
pub(crate) fn list_input() -> Value {
    json!({ "type": "object", "properties": {}, "additionalProperties": false })
}

/// The structured result of `list_verifiers`.
pub(crate) fn list_output() -> Value {
    json!({
        "type": "object",
        "required": ["verifiers", "uncovered_packages"],
        "properties": {
            "config": { "type": ["string", "null"], "description": "The configuration file in force: verdict.toml, .config/verdict.toml or a pyproject.toml with [tool.verdict]" },
            "ignored_configs": {
                "type": "array",
                "items": { "type": "string" },
                "description": "Files of the same directory that would configure verdict but lose to `config`"
            },
            "verifiers": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["name", "kind", "runs", "reason", "origin"],
                    "properties": {
                        "name": { "type": "string" },
                        "kind": { "type": "string" },
                        "runs": { "type": "boolean", "description": "Whether verify runs it" },
                        "reason": { "type": "string", "description": "Why it applies or not" },
                        "origin": { "type": "string" },
                    },
                },
            },
            "uncovered_packages": {
                "type": "array",
                "description": "Workspace packages with verifiers of their own, which verify here leaves out",
                "items": {
                    "type": "object",
                    "required": ["dir", "verifiers"],
                    "properties": {
                        "dir": { "type": "string" },
                        "verifiers": names("Their verifiers"),
                    },
                },
            },
        },
    })
}
