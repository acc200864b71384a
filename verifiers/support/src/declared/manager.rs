//! The package manager a JavaScript project uses, and how a person runs one of its scripts with
//! it: `npm test`, `pnpm run lint`, `yarn typecheck`. The project says which manager it uses by
//! `packageManager` in package.json or by the lock file beside it (or at its workspace's root).

use std::path::Path;

/// How far above a package its workspace's lock file is looked for.
const MAX_UP: usize = 8;

/// A JavaScript package manager.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Manager {
    /// npm, the default when nothing says otherwise.
    Npm,
    /// pnpm (`pnpm-lock.yaml`).
    Pnpm,
    /// Yarn (`yarn.lock`).
    Yarn,
    /// Bun (`bun.lock`, `bun.lockb`).
    Bun,
}

/// The lock files each manager writes, in the order they are looked for.
const LOCK_FILES: &[(&str, Manager)] = &[
    ("pnpm-lock.yaml", Manager::Pnpm),
    ("yarn.lock", Manager::Yarn),
    ("bun.lock", Manager::Bun),
    ("bun.lockb", Manager::Bun),
    ("package-lock.json", Manager::Npm),
    ("npm-shrinkwrap.json", Manager::Npm),
];

impl Manager {
    /// The manager of the package at `root`: its `packageManager` field (`pnpm@9.1.0`), else
    /// the nearest lock file in `root` or above it up to the repository's root (a workspace
    /// keeps one lock file at its root), else npm.
    pub fn of(root: &Path) -> Manager {
        if let Some(manager) = declared_manager(root) {
            return manager;
        }
        for dir in root.ancestors().take(MAX_UP) {
            if let Some((_, manager)) = LOCK_FILES.iter().find(|(file, _)| dir.join(file).is_file())
            {
                return *manager;
            }
            // A lock file above the repository belongs to another project.
            if dir.join(".git").exists() {
                break;
            }
        }
        Manager::Npm
    }

    /// Its program's name.
    pub fn program(self) -> &'static str {
        match self {
            Manager::Npm => "npm",
            Manager::Pnpm => "pnpm",
            Manager::Yarn => "yarn",
            Manager::Bun => "bun",
        }
    }

    /// The ways a person runs script `name` with it, each as argv words: `npm run lint`, and
    /// the shorter forms that run the same script (`npm test`, `pnpm lint`). Never a form that
    /// runs something else: `bun test` is bun's own test runner, `yarn check` a command of
    /// Yarn 1.
    pub fn runs(self, name: &str) -> Vec<Vec<String>> {
        let program = self.program();
        let mut forms = vec![vec![program, "run", name]];
        let short = match self {
            Manager::Npm => name == "test",
            Manager::Pnpm => name == "test" || !PNPM_COMMANDS.contains(&name),
            Manager::Yarn => name == "test" || !YARN_COMMANDS.contains(&name),
            Manager::Bun => false,
        };
        if short {
            forms.insert(0, vec![program, name]);
        }
        forms
            .into_iter()
            .map(|words| words.into_iter().map(str::to_owned).collect())
            .collect()
    }
}

/// pnpm's own commands that a script's name could shadow: `pnpm <name>` runs the command.
const PNPM_COMMANDS: &[&str] = &[
    "add", "audit", "bin", "config", "create", "dedupe", "dlx", "env", "exec", "fetch", "import",
    "init", "install", "link", "list", "ls", "outdated", "pack", "patch", "prune", "publish",
    "rebuild", "remove", "root", "run", "server", "setup", "start", "store", "unlink", "update",
    "why",
];

/// Yarn's own commands (Yarn 1 and later) that a script's name could shadow.
const YARN_COMMANDS: &[&str] = &[
    "add",
    "audit",
    "bin",
    "cache",
    "check",
    "config",
    "create",
    "dlx",
    "exec",
    "info",
    "init",
    "install",
    "link",
    "list",
    "node",
    "outdated",
    "pack",
    "plugin",
    "publish",
    "remove",
    "run",
    "unlink",
    "up",
    "upgrade",
    "why",
    "workspace",
    "workspaces",
];

/// The manager `packageManager` in `root`'s package.json names (`pnpm@9.1.0+sha512…`).
fn declared_manager(root: &Path) -> Option<Manager> {
    let text = std::fs::read_to_string(root.join("package.json")).ok()?;
    let package: serde_json::Value = serde_json::from_str(&text).ok()?;
    let field = package.get("packageManager")?.as_str()?;
    match field.split('@').next()? {
        "npm" => Some(Manager::Npm),
        "pnpm" => Some(Manager::Pnpm),
        "yarn" => Some(Manager::Yarn),
        "bun" => Some(Manager::Bun),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forms(manager: Manager, name: &str) -> Vec<String> {
        manager
            .runs(name)
            .iter()
            .map(|words| words.join(" "))
            .collect()
    }

    #[test]
    fn each_manager_runs_the_script_by_its_name() {
        assert_eq!(forms(Manager::Npm, "test"), ["npm test", "npm run test"]);
        assert_eq!(forms(Manager::Npm, "lint"), ["npm run lint"]);
        assert_eq!(forms(Manager::Pnpm, "lint"), ["pnpm lint", "pnpm run lint"]);
        assert_eq!(forms(Manager::Yarn, "check"), ["yarn run check"]);
        assert_eq!(forms(Manager::Bun, "test"), ["bun run test"]);
    }

    #[test]
    fn the_lock_file_or_the_package_manager_field_says_which() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        std::fs::create_dir(dir.path().join(".git")).expect("a repository");
        let package = dir.path().join("packages/a");
        std::fs::create_dir_all(&package).expect("a package");
        std::fs::write(package.join("package.json"), "{}").expect("write");
        assert_eq!(Manager::of(&package), Manager::Npm);
        std::fs::write(dir.path().join("pnpm-lock.yaml"), "").expect("write");
        assert_eq!(Manager::of(&package), Manager::Pnpm);
        std::fs::write(package.join("yarn.lock"), "").expect("write");
        assert_eq!(Manager::of(&package), Manager::Yarn);
        std::fs::write(
            package.join("package.json"),
            r#"{"packageManager": "bun@1.2.0"}"#,
        )
        .expect("write");
        assert_eq!(Manager::of(&package), Manager::Bun);
    }
}
