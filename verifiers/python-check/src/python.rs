//! What the three checkers share: finding the tool where the project installed it, and the
//! arguments of the command the project declares for it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use verdict_model::verifier::{Exit, VerifierError, Workspace};
use verdict_verifier_support::declared::Declared;

/// Where a checker is looked for, besides `PATH`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Home {
    /// A Python package: the project's virtualenv only, when it has one, since a checker from
    /// elsewhere would not see the project's dependencies (mypy's imports).
    Venv,
    /// A standalone program: the project's virtualenv, then `PATH` (ruff checks files alone).
    VenvThenPath,
    /// An npm package (pyright): the project's `node_modules/.bin`, then its virtualenv (the
    /// PyPI wrapper), then `PATH`.
    Node,
}

/// The program `name` of the project in `workspace`, or [`VerifierError::NotInstalled`] with
/// `install` (how to install it) as the hint.
pub(crate) fn program(
    workspace: &Workspace,
    name: &str,
    home: Home,
    install: &str,
) -> Result<PathBuf, VerifierError> {
    find(
        workspace,
        name,
        home,
        std::env::var_os("VIRTUAL_ENV").map(PathBuf::from),
        std::env::var_os("PATH"),
    )
    .ok_or_else(|| VerifierError::NotInstalled {
        tool: name.to_owned(),
        hint: install.to_owned(),
    })
}

/// [`program`] given the values of `VIRTUAL_ENV` and `PATH`.
pub(crate) fn find(
    workspace: &Workspace,
    name: &str,
    home: Home,
    virtual_env: Option<PathBuf>,
    path: Option<OsString>,
) -> Option<PathBuf> {
    if home == Home::Node
        && let Some(bin) = verdict_verifier_support::node_bin(workspace, name)
    {
        return Some(absolute(&bin));
    }
    let venv = venv_bin(&workspace.root).or_else(|| virtual_env.map(|venv| venv.join("bin")));
    if let Some(bin) = &venv {
        let program = bin.join(name);
        if is_executable(&program) {
            return Some(absolute(&program));
        }
        if home == Home::Venv {
            return None;
        }
    }
    let path = path?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

/// The `bin` directory of the project's virtualenv (`.venv`, `venv`), if it has one.
pub(crate) fn venv_bin(root: &Path) -> Option<PathBuf> {
    [".venv", "venv"]
        .iter()
        .map(|name| root.join(name))
        .find(|dir| dir.join("pyvenv.cfg").is_file() || dir.join("bin/python").exists())
        .map(|dir| dir.join("bin"))
}

/// The arguments of the project's declared command for verifier `verifier` (after the program
/// and, for `python -m tool`, the module), without the options verdict sets itself: `owned`
/// lists each with whether its value is the next word (`--output-format=json` is dropped too).
/// Empty when the project declares no such command.
pub(crate) fn declared_args(
    workspace: &Workspace,
    verifier: &str,
    owned: &[(&str, bool)],
) -> Vec<String> {
    let declared = Declared::of(workspace);
    let Some(command) = declared.for_verifier(verifier) else {
        return Vec::new();
    };
    let words = command.program_words();
    // `python -m mypy …`: the arguments start after the module.
    let skip = if words.get(1).is_some_and(|w| w == "-m") {
        3
    } else {
        1
    };
    let mut args = Vec::new();
    let mut words = words.iter().skip(skip);
    while let Some(word) = words.next() {
        let name = word.split_once('=').map_or(word.as_str(), |(name, _)| name);
        match owned.iter().find(|(option, _)| *option == name) {
            Some((_, takes_value)) => {
                if *takes_value && !word.contains('=') {
                    words.next();
                }
            }
            None => args.push(word.clone()),
        }
    }
    args
}

/// `path` made absolute against the current directory: a workspace root may be relative to
/// verdict's directory.
pub(crate) fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Why `tool`'s command ended without an exit code of its own: a signal, the time-out, an
/// interrupted run, or a program that could not start.
pub(crate) fn stopped(tool: &str, exit: &Exit) -> String {
    match exit {
        Exit::Code { code } => format!("{tool} exited with {code}"),
        Exit::Signal { signal } => format!("{tool} was killed by signal {signal}"),
        Exit::TimedOut => format!("{tool} timed out and was stopped"),
        Exit::Cancelled => format!("{tool} was stopped: the run was interrupted"),
        Exit::NotStarted { message } => message.clone(),
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace_with(files: &[(&str, &str)]) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().expect("temp dir");
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(&path, text).expect("write");
        }
        let workspace = Workspace::new(dir.path());
        (dir, workspace)
    }

    fn make_executable(path: &Path) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    #[test]
    fn a_venv_without_the_tool_hides_path_only_for_venv_tools() {
        let (dir, workspace) = workspace_with(&[(".venv/pyvenv.cfg", ""), ("elsewhere/mypy", "")]);
        make_executable(&dir.path().join("elsewhere/mypy"));
        let path = Some(dir.path().join("elsewhere").into_os_string());
        assert_eq!(
            find(&workspace, "mypy", Home::Venv, None, path.clone()),
            None
        );
        assert_eq!(
            find(&workspace, "mypy", Home::VenvThenPath, None, path),
            Some(dir.path().join("elsewhere/mypy"))
        );
    }

    #[test]
    fn the_project_venv_comes_before_the_active_one_and_node_modules_first_for_node_tools() {
        let (dir, workspace) = workspace_with(&[
            (".venv/pyvenv.cfg", ""),
            (".venv/bin/pyright", ""),
            ("node_modules/.bin/pyright", ""),
            ("active/bin/pyright", ""),
        ]);
        for file in [
            ".venv/bin/pyright",
            "node_modules/.bin/pyright",
            "active/bin/pyright",
        ] {
            make_executable(&dir.path().join(file));
        }
        let active = Some(dir.path().join("active"));
        assert_eq!(
            find(&workspace, "pyright", Home::Node, active.clone(), None),
            Some(dir.path().join("node_modules/.bin/pyright"))
        );
        assert_eq!(
            find(&workspace, "pyright", Home::VenvThenPath, active, None),
            Some(dir.path().join(".venv/bin/pyright"))
        );
    }

    #[test]
    fn declared_args_drop_the_options_verdict_owns() {
        let (_dir, mut workspace) = workspace_with(&[]);
        workspace.commands.insert(
            "mypy".to_owned(),
            "python -m mypy --output=json --pretty -O text src tests --strict".to_owned(),
        );
        let args = declared_args(
            &workspace,
            "mypy",
            &[("-O", true), ("--output", true), ("--pretty", false)],
        );
        assert_eq!(args, ["src", "tests", "--strict"]);
    }
}
