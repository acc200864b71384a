//! `export!` in this test binary, called through the exported symbols as a host would (without
//! loading a library): the answers' JSON, the errors for bad input, and panics caught.

#![allow(unsafe_code)] // Calling the exported `extern "C"` functions is the point of these tests.

use std::time::Duration;

use verdict_model::model::{Kind, Outcome, Report};
use verdict_model::verifier::{
    Applicability, Captured, CommandSpec, ExitCodes, Verifier, VerifierError, Workspace,
};
use verdict_plugin_abi::{ABI_VERSION, CallResult, STATUS_ERROR, STATUS_OK, Str, VTable};

/// Applies when the root has a `marker` file; its report echoes the output files it was given.
struct Echo;

impl Verifier for Echo {
    fn name(&self) -> &str {
        "echo"
    }

    fn kind(&self) -> Kind {
        Kind::Test
    }

    fn applies(&self, workspace: &Workspace) -> Applicability {
        if workspace.path("marker").exists() {
            Applicability::Applies("marker".into())
        } else {
            Applicability::DoesNotApply("no marker".into())
        }
    }

    fn command(&self, workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
        if workspace.root.ends_with("uninstalled") {
            return Err(VerifierError::NotInstalled {
                tool: "echo".into(),
                hint: "install echo".into(),
            });
        }
        Ok(CommandSpec {
            program: "echo".into(),
            args: vec!["hi".into()],
            env: Default::default(),
            cwd: workspace.root.clone(),
            timeout: Duration::from_millis(2500),
            exit_codes: ExitCodes {
                pass: vec![0],
                fail: vec![1],
            },
            output_files: vec![workspace.run_dir.join("echo.json")],
        })
    }

    fn interpret(&self, spec: &CommandSpec, captured: &Captured) -> Report {
        let mut report = Report::new("echo", Outcome::Passed);
        report.summary = Some(format!(
            "{} {:?} {:?}",
            spec.timeout.as_millis(),
            captured.output_files,
            captured.exit
        ));
        report
    }
}

/// Panics everywhere but its name and kind.
struct Panics;

impl Verifier for Panics {
    fn name(&self) -> &str {
        "panics"
    }

    fn kind(&self) -> Kind {
        Kind::Custom
    }

    fn applies(&self, _: &Workspace) -> Applicability {
        panic!("boom in applies")
    }

    fn command(&self, _: &Workspace) -> Result<CommandSpec, VerifierError> {
        panic!("boom in command {}", 42)
    }

    fn interpret(&self, _: &CommandSpec, _: &Captured) -> Report {
        panic!("boom in interpret")
    }
}

verdict_plugin_abi::export!(Echo, Panics);

unsafe extern "C" {
    fn verdict_plugin_abi_version() -> u32;
    fn verdict_plugin_vtable() -> *const VTable;
}

fn table() -> &'static VTable {
    // SAFETY: `export!` above defines the symbol, returning a pointer to a static table.
    unsafe { &*verdict_plugin_vtable() }
}

/// Takes a call's answer as (status, JSON), freeing the buffer as a host does.
fn answer(result: CallResult) -> (u32, serde_json::Value) {
    // SAFETY: the buffer was just returned by the table and is freed once, below.
    let bytes = unsafe { result.payload.as_bytes() }.to_vec();
    // SAFETY: the buffer came from this table's library.
    unsafe { (table().free_buffer)(result.payload) };
    (
        result.status,
        serde_json::from_slice(&bytes).expect("the answer is JSON"),
    )
}

fn workspace(root: &str) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({"root": root, "run_dir": format!("{root}/run")}))
        .expect("serializes")
}

fn call2(
    f: verdict_plugin_abi::WorkspaceFn,
    name: &str,
    second: &[u8],
) -> (u32, serde_json::Value) {
    // SAFETY: both buffers outlive the call.
    answer(unsafe { f(Str::new(name.as_bytes()), Str::new(second)) })
}

#[test]
fn version_and_table_size() {
    // SAFETY: defined by `export!` above.
    assert_eq!(unsafe { verdict_plugin_abi_version() }, ABI_VERSION);
    assert_eq!(table().size, verdict_plugin_abi::VTABLE_V1_SIZE);
    assert!(table().inputs.is_some() && table().rerun_failed.is_some());
}

#[test]
fn describe_lists_the_verifiers() {
    // SAFETY: `describe` takes nothing.
    let (status, json) = answer(unsafe { (table().describe)() });
    assert_eq!(status, STATUS_OK);
    assert_eq!(
        json,
        serde_json::json!({"verifiers": [
            {"name": "echo", "kind": "test"},
            {"name": "panics", "kind": "custom"},
        ]})
    );
}

#[test]
fn applies_and_command_answer_in_the_documented_shapes() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("marker"), "").expect("write");
    let root = dir.path().to_str().expect("UTF-8");
    assert_eq!(
        call2(table().applies, "echo", &workspace(root)),
        (
            STATUS_OK,
            serde_json::json!({"applies": true, "reason": "marker"})
        )
    );
    assert_eq!(
        call2(table().applies, "echo", &workspace("/nowhere")),
        (
            STATUS_OK,
            serde_json::json!({"applies": false, "reason": "no marker"})
        )
    );
    assert_eq!(
        call2(table().command, "echo", &workspace("/p")),
        (
            STATUS_OK,
            serde_json::json!({
                "program": "echo", "args": ["hi"], "env": {}, "cwd": "/p", "timeout_ms": 2500,
                "exit_codes": {"pass": [0], "fail": [1]}, "output_files": ["/p/run/echo.json"],
            })
        )
    );
    assert_eq!(
        call2(table().command, "echo", &workspace("/p/uninstalled")),
        (
            STATUS_ERROR,
            serde_json::json!({"kind": "not_installed", "tool": "echo", "hint": "install echo"})
        )
    );
    let inputs = table().inputs.expect("inputs");
    assert_eq!(
        call2(inputs, "echo", &workspace("/p")),
        (STATUS_OK, serde_json::Value::Null)
    );
}

#[test]
fn interpret_receives_the_spec_and_the_decoded_output_files() {
    let spec = serde_json::json!({
        "program": "echo", "args": [], "cwd": "/p", "timeout_ms": 70,
        "exit_codes": {"pass": [0], "fail": [1]},
    });
    let captured = serde_json::json!({
        "exit": {"status": "signal", "signal": 9}, "log_path": "/p/x.log", "log_bytes": 0,
        "output_files": ["aGk=", null], "duration_ms": 5,
    });
    let (spec, captured) = (spec.to_string(), captured.to_string());
    // SAFETY: all three buffers outlive the call.
    let (status, json) = answer(unsafe {
        (table().interpret)(
            Str::new(b"echo"),
            Str::new(spec.as_bytes()),
            Str::new(captured.as_bytes()),
        )
    });
    assert_eq!(status, STATUS_OK);
    let report: Report = serde_json::from_value(json).expect("a report");
    assert_eq!(
        report.summary.as_deref(),
        Some("70 [Some([104, 105]), None] Signal { signal: 9 }")
    );
}

#[test]
fn rerun_failed_answers_null_when_the_verifier_has_no_filter() {
    let rerun = table().rerun_failed.expect("rerun_failed");
    let previous = serde_json::to_vec(&Report::new("echo", Outcome::Failed)).expect("serializes");
    let workspace = workspace("/p");
    // SAFETY: all three buffers outlive the call.
    let answered =
        answer(unsafe { rerun(Str::new(b"echo"), Str::new(&workspace), Str::new(&previous)) });
    assert_eq!(answered, (STATUS_OK, serde_json::Value::Null));
}

#[test]
fn bad_input_is_an_error_not_a_crash() {
    assert_eq!(
        call2(table().applies, "nope", &workspace("/p")),
        (
            STATUS_ERROR,
            serde_json::json!({"kind": "invalid_input", "message": "this plugin has no verifier named `nope`"})
        )
    );
    let (status, json) = call2(table().command, "echo", b"{not json");
    assert_eq!(status, STATUS_ERROR);
    assert_eq!(json["kind"], "invalid_input");
    assert!(
        json["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("workspace: ")),
        "{json}"
    );
    let spec = r#"{"program": "echo", "args": [], "cwd": "/p", "timeout_ms": 1,
        "exit_codes": {"pass": [0], "fail": [1]}}"#;
    let captured = r#"{"exit": {"status": "timed_out"}, "log_path": "/p/x.log", "log_bytes": 0,
        "output_files": ["not base64!"], "duration_ms": 5}"#;
    // SAFETY: all three buffers outlive the call.
    let (status, json) = answer(unsafe {
        (table().interpret)(
            Str::new(b"echo"),
            Str::new(spec.as_bytes()),
            Str::new(captured.as_bytes()),
        )
    });
    assert_eq!(status, STATUS_ERROR);
    assert_eq!(json["kind"], "invalid_input");
    assert!(
        json["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("captured: output file is not base64")),
        "{json}"
    );
}

#[test]
fn panics_are_caught_and_answered_as_errors() {
    let panic_message = |(status, json): (u32, serde_json::Value)| {
        assert_eq!(status, STATUS_ERROR);
        assert_eq!(json["kind"], "panic", "{json}");
        json["message"].as_str().unwrap_or_default().to_owned()
    };
    let message = panic_message(call2(table().applies, "panics", &workspace("/p")));
    assert!(
        message.starts_with("boom in applies (at verifiers/plugin-abi/tests/export.rs:"),
        "{message}"
    );
    let message = panic_message(call2(table().command, "panics", &workspace("/p")));
    assert!(message.starts_with("boom in command 42 (at "), "{message}");
    // A panic outside the guard still reaches the test harness as usual.
    let outside = std::panic::catch_unwind(|| panic!("outside"));
    assert!(outside.is_err());
}
