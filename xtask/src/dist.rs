//! `cargo xtask dist`: builds what a release publishes for this machine's platform (or another
//! Rust target this machine can build) into `target/dist/`:
//!
//! - `verdict-<version>-<target>.tar.gz` with the `verdict` binary and its man page
//!   (`man/verdict.1`), and its `.sha256`;
//! - the Python wheel, built by maturin (`pyproject.toml`, `bindings = "bin"`); with `--binary`,
//!   that binary wrapped around the `.dist-info` maturin writes, which compiles nothing;
//! - under `npm/`, the npm tarballs of the main package `verdict-cli` (`npm/verdict-cli/`) and of
//!   this platform's package (`@verdict-cli/<platform>`, generated here), staged and packed with
//!   `npm pack`; the main package carries the man page (`"man"` in its manifest).
//!
//! The man page is what `verdict man` prints, from the binary being packaged when it runs on this
//! machine; a binary that cannot start here (another target: a cross build) is stood in for by a
//! dev build for the host, whose clap definition, and so whose page, is the same. The wheel has no
//! page: maturin takes data files only from the source tree, and the page is generated.
//!
//! The version is the workspace's (`[workspace.package] version` in the root Cargo.toml, which
//! this crate inherits); the npm manifests get it here, so no checked-in file repeats it. The
//! platforms npm knows are listed once, in `npm/platforms.json`, which the shim reads too. The
//! release workflow (`.github/workflows/release.yml`) runs this command on each platform.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::{capture, tools};

/// The version every package gets: the workspace's, which this crate inherits.
pub(crate) const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The venv under the tools' root with the pinned maturin (`xtask/tools/dist/requirements.txt`).
pub(crate) const DIST_VENV: &str = "dist-venv";

/// What `cargo xtask dist` builds, and where.
pub(crate) struct Options {
    /// The cargo profile of the binary and the wheel (`dist` for a release).
    pub(crate) profile: String,
    /// The Rust target; the host's when `None`.
    pub(crate) target: Option<String>,
    /// An already-built binary to package instead of building one (the archive and npm).
    pub(crate) binary: Option<PathBuf>,
    /// Where everything goes.
    pub(crate) out: PathBuf,
    /// Whether to build the wheel (it needs maturin, which `cargo xtask tools` installs).
    pub(crate) wheel: bool,
}

/// One platform with an npm package, as `npm/platforms.json` lists it.
#[derive(Debug, Deserialize)]
pub(crate) struct Platform {
    /// The npm package, `@verdict-cli/<name>`.
    pub(crate) package: String,
    /// `process.platform` (npm's `os`).
    pub(crate) os: String,
    /// `process.arch` (npm's `cpu`).
    pub(crate) cpu: String,
    /// `glibc` or `musl` on Linux (npm's `libc`).
    pub(crate) libc: Option<String>,
    /// The Rust target its binary is built for.
    pub(crate) target: String,
}

/// The npm tarballs of one platform.
#[derive(Debug)]
pub(crate) struct NpmTarballs {
    /// The main package, `verdict-cli-<version>.tgz`.
    pub(crate) main: PathBuf,
    /// The platform's package, `verdict-cli-<platform>-<version>.tgz`.
    pub(crate) platform: PathBuf,
}

/// Runs `cargo xtask dist`.
pub(crate) fn run(options: &Options) -> Result<()> {
    let target = match &options.target {
        Some(target) => target.clone(),
        None => host_target()?,
    };
    fs::create_dir_all(&options.out)
        .with_context(|| format!("failed to create {}", options.out.display()))?;
    let binary = match &options.binary {
        Some(binary) => binary.clone(),
        None => build_binary(&options.profile, options.target.as_deref())?,
    };
    let page = man_page(&binary, &options.out)?;
    let archive = archive(&binary, &target, &page, &options.out)?;
    println!("{}", archive.display());
    if options.wheel {
        let wheel = match &options.binary {
            Some(binary) => wheel_from_binary(binary, &options.out)?,
            None => wheel(&options.profile, options.target.as_deref(), &options.out)?,
        };
        println!("{}", wheel.display());
    }
    let npm = npm_packages(&binary, &target, &page, &options.out.join("npm"))?;
    println!("{}\n{}", npm.main.display(), npm.platform.display());
    Ok(())
}

/// The host's Rust target, from `rustc -vV`.
pub(crate) fn host_target() -> Result<String> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let info = duct::cmd!(rustc, "-vV")
        .read()
        .context("failed to run rustc -vV")?;
    info.lines()
        .find_map(|line| line.strip_prefix("host: "))
        .map(str::to_owned)
        .context("rustc -vV printed no host line")
}

/// The directory under `target/` where cargo puts the artifacts of `profile`.
fn profile_dir(profile: &str) -> &str {
    match profile {
        "dev" | "test" => "debug",
        "release" | "bench" => "release",
        other => other,
    }
}

/// The binary's file name on the target.
fn exe_name(target: &str) -> &'static str {
    if target.contains("windows") {
        "verdict.exe"
    } else {
        "verdict"
    }
}

/// Builds the `verdict` binary with `profile` and returns its path.
pub(crate) fn build_binary(profile: &str, target: Option<&str>) -> Result<PathBuf> {
    let mut args = vec![
        "build",
        "--locked",
        "--package",
        "verdict-cli",
        "--bin",
        "verdict",
        "--profile",
        profile,
    ];
    let mut dir = capture::repo_root().join("target");
    if let Some(target) = target {
        args.extend(["--target", target]);
        dir.push(target);
    }
    crate::cargo(&args)?;
    let host;
    let target = match target {
        Some(target) => target,
        None => {
            host = host_target()?;
            &host
        }
    };
    Ok(dir.join(profile_dir(profile)).join(exe_name(target)))
}

/// The man page's file name, in every package that carries it.
pub(crate) const MAN_PAGE: &str = "verdict.1";

/// Writes the man page, `verdict man` of `binary`, to `out/verdict.1`; returns its path. A binary
/// that cannot start here (built for another target) is replaced by a dev build for the host.
pub(crate) fn man_page(binary: &Path, out: &Path) -> Result<PathBuf> {
    let printed = match std::process::Command::new(binary).arg("man").output() {
        Ok(printed) => printed,
        Err(_) => {
            let host = build_binary("dev", None)?;
            std::process::Command::new(&host)
                .arg("man")
                .output()
                .with_context(|| format!("failed to start {}", host.display()))?
        }
    };
    if !printed.status.success() || !printed.stdout.starts_with(b".") {
        bail!(
            "`verdict man` printed no man page ({}): {}",
            printed.status,
            String::from_utf8_lossy(&printed.stderr)
        );
    }
    let page = out.join(MAN_PAGE);
    fs::write(&page, &printed.stdout)
        .with_context(|| format!("failed to write {}", page.display()))?;
    Ok(page)
}

/// Copies the man page `page` into `dir/man/`, where every package keeps it.
fn copy_man_page(page: &Path, dir: &Path) -> Result<()> {
    fs::create_dir_all(dir.join("man"))?;
    fs::copy(page, dir.join("man").join(MAN_PAGE))
        .with_context(|| format!("failed to copy {}", page.display()))?;
    Ok(())
}

/// Writes `verdict-<version>-<target>.tar.gz` (a directory of that name with the binary and the
/// man page `page` under `man/`) and its `.sha256` (in `sha256sum`'s format) into `out`; returns
/// the archive's path.
pub(crate) fn archive(binary: &Path, target: &str, page: &Path, out: &Path) -> Result<PathBuf> {
    let name = format!("verdict-{VERSION}-{target}");
    let staging = out.join("archive");
    let dir = staging.join(&name);
    if staging.exists() {
        fs::remove_dir_all(&staging)
            .with_context(|| format!("failed to empty {}", staging.display()))?;
    }
    fs::create_dir_all(&dir).with_context(|| format!("failed to create {}", dir.display()))?;
    copy_executable(binary, &dir.join(exe_name(target)))?;
    copy_licenses(&dir)?;
    copy_man_page(page, &dir)?;
    for doc in ["README.md", "CHANGELOG.md"] {
        fs::copy(capture::repo_root().join(doc), dir.join(doc))
            .with_context(|| format!("failed to copy {doc}"))?;
    }
    let file = format!("{name}.tar.gz");
    let archive = out.join(&file);
    // Relative paths only: GNU tar (Git Bash's, on Windows) takes `C:\…` for a remote host.
    duct::cmd!("tar", "-czf", &file, "-C", "archive", &name)
        .dir(out)
        .run()
        .with_context(|| format!("tar failed to write {}", archive.display()))?;
    fs::remove_dir_all(&staging)
        .with_context(|| format!("failed to remove {}", staging.display()))?;
    let bytes = fs::read(&archive).with_context(|| format!("read {}", archive.display()))?;
    let digest: String = Sha256::digest(&bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    let sum = out.join(format!("{name}.tar.gz.sha256"));
    fs::write(&sum, format!("{digest}  {name}.tar.gz\n"))
        .with_context(|| format!("failed to write {}", sum.display()))?;
    Ok(archive)
}

/// Copies `from` to `to` and makes the copy executable.
fn copy_executable(from: &Path, to: &Path) -> Result<()> {
    fs::copy(from, to)
        .with_context(|| format!("failed to copy {} to {}", from.display(), to.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(to, fs::Permissions::from_mode(0o755))
            .with_context(|| format!("failed to make {} executable", to.display()))?;
    }
    Ok(())
}

/// The pinned maturin in the dist venv (`cargo xtask tools` installs it), under
/// `$VERDICT_TOOLS` when it is set (as `cargo xtask test` does for the tests).
pub(crate) fn maturin() -> Result<PathBuf> {
    let root = std::env::var_os("VERDICT_TOOLS").map_or_else(tools::root, PathBuf::from);
    let venv = root.join(DIST_VENV);
    let maturin = if cfg!(windows) {
        venv.join("Scripts/maturin.exe")
    } else {
        venv.join("bin/maturin")
    };
    if !maturin.is_file() {
        bail!(
            "{} is missing: run `cargo xtask tools` (it installs the pinned maturin)",
            maturin.display()
        );
    }
    Ok(maturin)
}

/// Packs `binary` into a wheel for this machine in `out` (`xtask/tools/dist/wheel_from_binary.py`)
/// around the `.dist-info` maturin writes for `pyproject.toml` (`maturin pep517
/// write-dist-info`, which compiles nothing); returns its path. `maturin build` would compile the
/// binary again: it resolves the CLI's features alone, unlike a test build of the whole
/// workspace, so most dependencies differ and rebuild (minutes instead of seconds).
pub(crate) fn wheel_from_binary(binary: &Path, out: &Path) -> Result<PathBuf> {
    let maturin = maturin()?;
    let meta = out.join("dist-info");
    fresh_dir(&meta)?;
    let meta_arg = meta.to_string_lossy();
    let args = [
        "pep517",
        "write-dist-info",
        "--metadata-directory",
        &meta_arg,
    ];
    crate::run_in_repo(&maturin, &args, &[])?;
    let dist_info = fs::read_dir(&meta)
        .with_context(|| format!("read {}", meta.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .find(|path| path.extension().is_some_and(|ext| ext == "dist-info"))
        .with_context(|| format!("maturin wrote no .dist-info into {}", meta.display()))?;
    let python = maturin.with_file_name(if cfg!(windows) {
        "python.exe"
    } else {
        "python"
    });
    let script = capture::repo_root().join("xtask/tools/dist/wheel_from_binary.py");
    let printed = duct::cmd!(python, script, &dist_info, binary, out)
        .read()
        .context("wheel_from_binary.py failed")?;
    fs::remove_dir_all(&meta).with_context(|| format!("failed to remove {}", meta.display()))?;
    Ok(PathBuf::from(printed.trim()))
}

/// Builds the wheel with maturin and `profile` into `out`; returns its path.
pub(crate) fn wheel(profile: &str, target: Option<&str>, out: &Path) -> Result<PathBuf> {
    let maturin = maturin()?;
    let out_arg = out.to_string_lossy();
    let mut args = vec!["build", "--locked", "--profile", profile, "--out", &out_arg];
    if let Some(target) = target {
        args.extend(["--target", target]);
    }
    crate::run_in_repo(&maturin, &args, &crate::ci_build_env())?;
    // maturin names the wheel `verdict_cli-<version>-<tags>.whl`.
    let prefix = format!("verdict_cli-{VERSION}-");
    let mut wheels: Vec<PathBuf> = fs::read_dir(out)
        .with_context(|| format!("read {}", out.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with(&prefix) && name.ends_with(".whl"))
        })
        .collect();
    wheels.sort_by_key(|path| fs::metadata(path).and_then(|m| m.modified()).ok());
    wheels
        .pop()
        .with_context(|| format!("maturin wrote no {prefix}*.whl into {}", out.display()))
}

/// The platforms of `npm/platforms.json`.
pub(crate) fn platforms() -> Result<Vec<Platform>> {
    let path = capture::repo_root().join("npm/platforms.json");
    let text = fs::read_to_string(&path).with_context(|| format!("read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("failed to parse {}", path.display()))
}

/// The platform whose binary is built for `target`.
pub(crate) fn platform_of(target: &str) -> Result<Platform> {
    platforms()?
        .into_iter()
        .find(|p| p.target == target)
        .with_context(|| format!("npm/platforms.json has no npm package for {target}"))
}

/// Stages and packs the main npm package (with the man page `page`) and the package of
/// `target`'s platform (with `binary`) under `out`; returns the tarballs.
pub(crate) fn npm_packages(
    binary: &Path,
    target: &str,
    page: &Path,
    out: &Path,
) -> Result<NpmTarballs> {
    let platform = platform_of(target)?;
    let main = npm_main_package(page, out)?;
    let short = platform
        .package
        .rsplit('/')
        .next()
        .unwrap_or(&platform.package);
    let dir = out.join(short);
    stage_platform(&platform, binary, &dir)?;
    Ok(NpmTarballs {
        main,
        platform: npm_pack(&dir, out)?,
    })
}

/// Stages and packs the main npm package, with the man page `page`, under `out`; returns its
/// tarball.
pub(crate) fn npm_main_package(page: &Path, out: &Path) -> Result<PathBuf> {
    let dir = stage_main(&platforms()?, page, &out.join("verdict-cli"))?;
    npm_pack(&dir, out)
}

/// Copies the main package from `npm/verdict-cli/` to `dir`, and the man page `page` under
/// `man/`, with the version and the platforms' optional dependencies written into its manifest.
fn stage_main(platforms: &[Platform], page: &Path, dir: &Path) -> Result<PathBuf> {
    let src = capture::repo_root().join("npm");
    fresh_dir(dir)?;
    fs::create_dir_all(dir.join("bin"))?;
    copy_executable(
        &src.join("verdict-cli/bin/verdict.js"),
        &dir.join("bin/verdict.js"),
    )?;
    for file in ["verdict-cli/README.md", "platforms.json"] {
        let name = Path::new(file).file_name().unwrap_or(file.as_ref());
        fs::copy(src.join(file), dir.join(name)).with_context(|| format!("copy npm/{file}"))?;
    }
    copy_licenses(dir)?;
    copy_man_page(page, dir)?;
    let template = src.join("verdict-cli/package.json");
    let text =
        fs::read_to_string(&template).with_context(|| format!("read {}", template.display()))?;
    let mut manifest: Map<String, Value> = serde_json::from_str(&text)
        .with_context(|| format!("failed to parse {}", template.display()))?;
    manifest.insert("version".into(), VERSION.into());
    let optional: Map<String, Value> = platforms
        .iter()
        .map(|p| (p.package.clone(), Value::from(VERSION)))
        .collect();
    manifest.insert("optionalDependencies".into(), optional.into());
    write_json(&dir.join("package.json"), &manifest.into())?;
    Ok(dir.to_path_buf())
}

/// Writes the package of `platform` into `dir`: its manifest and the binary under `bin/`.
fn stage_platform(platform: &Platform, binary: &Path, dir: &Path) -> Result<()> {
    fresh_dir(dir)?;
    fs::create_dir_all(dir.join("bin"))?;
    copy_executable(binary, &dir.join("bin").join(exe_name(&platform.target)))?;
    copy_licenses(dir)?;
    let mut manifest = json!({
        "name": platform.package,
        "version": VERSION,
        "description": format!("The verdict binary for {} (install verdict-cli, not this package)", platform.target),
        "license": "MIT OR Apache-2.0",
        "homepage": "https://github.com/verdict-dev/verdict",
        "repository": {
            "type": "git",
            "url": "git+https://github.com/verdict-dev/verdict.git",
        },
        "os": [platform.os],
        "cpu": [platform.cpu],
        "files": ["bin", "LICENSE-MIT", "LICENSE-APACHE"],
        "preferUnplugged": true,
    });
    if let (Some(libc), Some(object)) = (&platform.libc, manifest.as_object_mut()) {
        object.insert("libc".into(), json!([libc]));
    }
    write_json(&dir.join("package.json"), &manifest)
}

/// The license texts every package carries, from the repository's root.
const LICENSES: [&str; 2] = ["LICENSE-MIT", "LICENSE-APACHE"];

/// Copies [`LICENSES`] into a staged package.
fn copy_licenses(dir: &Path) -> Result<()> {
    for license in LICENSES {
        fs::copy(capture::repo_root().join(license), dir.join(license))
            .with_context(|| format!("failed to copy {license}"))?;
    }
    Ok(())
}

/// Removes `dir` if it exists and creates it empty.
fn fresh_dir(dir: &Path) -> Result<()> {
    if dir.exists() {
        fs::remove_dir_all(dir).with_context(|| format!("failed to empty {}", dir.display()))?;
    }
    fs::create_dir_all(dir).with_context(|| format!("failed to create {}", dir.display()))
}

fn write_json(path: &Path, value: &Value) -> Result<()> {
    let text = serde_json::to_string_pretty(value).context("failed to serialize a manifest")?;
    fs::write(path, text + "\n").with_context(|| format!("failed to write {}", path.display()))
}

/// `npm pack` of the package in `dir`, into `out`; returns the tarball's path.
fn npm_pack(dir: &Path, out: &Path) -> Result<PathBuf> {
    // Windows has npm as a batch file, which is only found by its full name.
    let npm = if cfg!(windows) { "npm.cmd" } else { "npm" };
    let name = duct::cmd!(npm, "pack", "--silent", "--pack-destination", out)
        .dir(dir)
        .read()
        .with_context(|| format!("npm pack failed in {}", dir.display()))?;
    let name = name.lines().last().unwrap_or_default().trim();
    let tarball = out.join(name);
    if name.is_empty() || !tarball.is_file() {
        bail!("npm pack in {} wrote no tarball ({name:?})", dir.display());
    }
    Ok(tarball)
}

#[cfg(test)]
#[path = "dist_tests.rs"]
mod tests;
