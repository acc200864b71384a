//! Building the plugins the tests load: the example plugin, the panicking fixture and the raw-ABI
//! fixture's misbehaving variants.
//!
//! Each test builds what it loads itself, with the cargo that runs the tests, so that no test
//! depends on the order in which `cargo test --workspace` happens to build things. A build that is
//! already fresh costs a fraction of a second.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// The workspace root.
pub(crate) fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("the crate sits two levels below the workspace root")
        .to_path_buf()
}

/// The workspace's target directory.
fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => workspace_root().join(dir),
        None => workspace_root().join("target"),
    }
}

/// Builds the example plugin as the workspace builds it and returns a private copy of the library
/// (a copy, so that a later rebuild never changes a library this process has loaded).
pub(crate) fn example_plugin(copy_into: &Path) -> PathBuf {
    // Builds of the same package in one target directory overwrite one file: one at a time.
    static BUILD: Mutex<()> = Mutex::new(());
    let _one_at_a_time = BUILD
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let built = cargo_build(
        &["-p", "verdict-plugin-example"],
        "verdict_plugin_example",
        None,
    );
    copy(&built, copy_into, "example")
}

/// Builds the panicking fixture plugin (a workspace member, so it shares the workspace's target
/// directory and the dependencies already built there).
pub(crate) fn panicking_plugin(copy_into: &Path) -> PathBuf {
    let built = cargo_build(
        &["-p", "verdict-panicking-plugin-fixture"],
        "verdict_panicking_plugin_fixture",
        None,
    );
    copy(&built, copy_into, "panics")
}

/// Builds the raw-ABI fixture with one misbehaviour (`abi-2`, `no-vtable`, `small-vtable`,
/// `bad-json`, `bad-status`) in a target directory of its own.
pub(crate) fn raw_plugin(feature: &str, copy_into: &Path) -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fixtures")
        .join("raw-plugin")
        .join("Cargo.toml");
    let manifest = manifest.to_str().expect("a UTF-8 path");
    let built = cargo_build(
        &["--manifest-path", manifest, "--features", feature],
        "verdict_raw_plugin_fixture",
        Some(target_dir().join("plugin-fixtures").join(feature)),
    );
    copy(&built, copy_into, feature)
}

/// Runs `cargo build` and returns the cdylib it produced for `crate_name`, read from cargo's own
/// account of its artifacts.
fn cargo_build(args: &[&str], crate_name: &str, target_dir: Option<PathBuf>) -> PathBuf {
    let mut command = Command::new(env!("CARGO"));
    command
        .current_dir(workspace_root())
        .args(["build", "--message-format=json-render-diagnostics"])
        .args(args);
    if let Some(dir) = target_dir {
        command.arg("--target-dir").arg(dir);
    }
    let output = command.output().expect("cargo starts");
    assert!(
        output.status.success(),
        "cargo build {args:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|message| {
            message["reason"] == "compiler-artifact" && message["target"]["name"] == crate_name
        })
        .flat_map(|message| {
            message["filenames"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .filter_map(|name| name.as_str().map(PathBuf::from))
        })
        .find(|path| {
            path.extension()
                .is_some_and(|ext| ext == std::env::consts::DLL_EXTENSION)
        })
        .unwrap_or_else(|| panic!("cargo build {args:?} reported no library of {crate_name}"))
}

fn copy(built: &Path, dir: &Path, name: &str) -> PathBuf {
    use std::env::consts::{DLL_PREFIX, DLL_SUFFIX};
    let copy = dir.join(format!("{DLL_PREFIX}{name}{DLL_SUFFIX}"));
    std::fs::copy(built, &copy).expect("copies the library");
    copy
}
