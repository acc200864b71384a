//! `cargo xtask tools`: installs the real tools the test suite runs — the pinned npm tools with
//! the Node.js they need, a Python venv with pytest (and junitparser and markdown-it-py, which
//! read verdict's reports back in the render tests), and Microsoft's SARIF Multitool with GitHub's
//! `@actions/core` (the render tests' references for SARIF and workflow commands), and the
//! official MCP Python SDK in a venv of its own (the client of `verdict mcp`'s tests),
//! actionlint with pre-commit in another (the checkers of the GitHub Action and the hooks), and
//! maturin in a third (`cargo xtask dist` and the packaging tests build the wheel with it) — into
//! `target/verdict-tools/`, outside the tracked tree; and the distribution's PostgreSQL (Debian's
//! `postgresql` package) when `initdb` is missing, whose throw-away clusters the fleet's tests
//! start; and the distribution's Chromium with its WebDriver (Debian's `chromium` and
//! `chromium-driver`) when either is missing, which the dashboard's browser tests drive (never a
//! browser download). `cargo xtask test` calls it first and hands
//! the path to the tests in `VERDICT_TOOLS`.
//!
//! The versions are the ones `cargo xtask capture` pins (`xtask/capture/package.json`, its lock
//! file, and `xtask/capture/requirements.txt`), so the tests run the same tools the captured logs
//! came from. Each install is skipped when its pins are unchanged since the last one.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::capture;

/// Where the tools go: `target/verdict-tools` in the repository.
pub(crate) fn root() -> PathBuf {
    capture::repo_root().join("target/verdict-tools")
}

/// Installs everything; returns the root.
pub(crate) fn install() -> Result<PathBuf> {
    let root = root();
    fs::create_dir_all(&root).with_context(|| format!("failed to create {}", root.display()))?;
    capture::install_node(&root)?;
    capture::install_python(&root)?;
    install_sarif(&root.join("sarif"))?;
    // Its own venv: the SDK's pins stay apart from the pinned tools the captures come from.
    capture::install_venv(
        &capture::repo_root().join("xtask/tools/mcp/requirements.txt"),
        &root.join(MCP_VENV),
    )?;
    // actionlint and pre-commit, which check the GitHub Action and the pre-commit hooks.
    capture::install_venv(
        &capture::repo_root().join("xtask/tools/action/requirements.txt"),
        &root.join(ACTION_VENV),
    )?;
    // maturin, which `cargo xtask dist` and the packaging tests build the wheel with.
    capture::install_venv(
        &capture::repo_root().join("xtask/tools/dist/requirements.txt"),
        &root.join(crate::dist::DIST_VENV),
    )?;
    install_postgres()?;
    install_chromium()?;
    Ok(root)
}

/// Installs Debian's `postgresql` package unless an `initdb` is on `PATH` or in
/// `/usr/lib/postgresql/*/bin`, where the test support looks for one.
fn install_postgres() -> Result<()> {
    let on_path = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join("initdb").is_file()));
    let installed = fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.ok())
        .any(|entry| entry.path().join("bin/initdb").is_file());
    if on_path || installed {
        return Ok(());
    }
    apt_install(&["postgresql"])
}

/// Where the browser tests look for the browser and its WebDriver (`verdict_test_support::browser`).
const CHROMIUM: [&str; 2] = ["/usr/bin/chromium", "/usr/bin/chromedriver"];

/// Installs Debian's `chromium` and `chromium-driver` unless both of [`CHROMIUM`] are there: the
/// distribution's build, since nothing but the package registries is reachable here.
fn install_chromium() -> Result<()> {
    if CHROMIUM.iter().all(|path| Path::new(path).is_file()) {
        return Ok(());
    }
    apt_install(&["chromium", "chromium-driver"])
}

/// `apt-get install -y PACKAGES` (through sudo unless root), updating the package lists first
/// when the install fails without them.
fn apt_install(packages: &[&str]) -> Result<()> {
    let is_root = duct::cmd!("id", "-u")
        .read()
        .is_ok_and(|uid| uid.trim() == "0");
    let apt = |args: &[&str]| {
        let mut argv: Vec<&str> = if is_root { vec![] } else { vec!["sudo"] };
        argv.push("apt-get");
        argv.extend_from_slice(args);
        eprintln!("$ {}", argv.join(" "));
        duct::cmd(argv[0], &argv[1..])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .stdout_to_stderr()
            .run()
    };
    let mut install = vec!["install", "-y"];
    install.extend_from_slice(packages);
    if apt(&install).is_err() {
        // A fresh container has no package lists yet.
        apt(&["update"]).context("apt-get update failed")?;
        apt(&install).with_context(|| format!("installing {} failed", packages.join(" ")))?;
    }
    Ok(())
}

/// The venv under the tools' root with the official MCP Python SDK, whose client the tests of
/// `verdict mcp` drive it with.
pub(crate) const MCP_VENV: &str = "mcp-venv";

/// The venv under the tools' root with actionlint and pre-commit, which the tests of the GitHub
/// Action (`action.yml`) and of `.pre-commit-hooks.yaml` run.
pub(crate) const ACTION_VENV: &str = "action-venv";

/// The SARIF Multitool's executable under `sarif`, relative to it. The npm package
/// `@microsoft/sarif-multitool` is a thin wrapper whose `bin.js` runs this file through a shell;
/// the tests run the file itself with an argv vector instead.
pub(crate) const SARIF_MULTITOOL: &str =
    "node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool";

/// Installs the pinned `@microsoft/sarif-multitool` and `@actions/core` (`xtask/tools/sarif/`)
/// into `dir` (skipped when its lock file is unchanged since the last install).
fn install_sarif(dir: &Path) -> Result<()> {
    let src = capture::repo_root().join("xtask/tools/sarif");
    let lock = fs::read(src.join("package-lock.json")).context("read sarif package-lock.json")?;
    let stamp = dir.join("node_modules/.verdict-lock");
    if fs::read(&stamp).ok().as_deref() == Some(&lock[..]) {
        return Ok(());
    }
    fs::create_dir_all(dir).with_context(|| format!("failed to create {}", dir.display()))?;
    fs::copy(src.join("package.json"), dir.join("package.json"))?;
    fs::write(dir.join("package-lock.json"), &lock)?;
    eprintln!("installing the SARIF Multitool into {}", dir.display());
    duct::cmd!("npm", "install", "--no-audit", "--no-fund")
        .dir(dir)
        .stdout_to_stderr()
        .run()
        .context("npm install of the SARIF Multitool failed")?;
    // The package's postinstall, which npm does not run here, is what would make the
    // self-contained .NET executable executable.
    let binary = dir.join(SARIF_MULTITOOL);
    make_executable(&binary)?;
    fs::write(stamp, lock)?;
    Ok(())
}

/// Adds the execute bits wherever the read bits are set.
fn make_executable(path: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mut permissions = fs::metadata(path)
            .with_context(|| format!("{} is missing after npm install", path.display()))?
            .permissions();
        let mode = permissions.mode();
        permissions.set_mode(mode | ((mode & 0o444) >> 2));
        fs::set_permissions(path, permissions)
            .with_context(|| format!("failed to make {} executable", path.display()))?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}
