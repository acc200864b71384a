//! What verifiers share to name their infrastructure (`Verifier::infrastructure`): the files
//! that declare the project's command, and the files a command line names (`--require
//! test/setup.js`, `-c jest.unit.config.js`), as globs relative to the workspace root.

use std::path::{Component, Path, PathBuf};

use verdict_model::tools::{ConfigFile, Tool};
use verdict_model::verifier::{InfraFile, Infrastructure, Part, Workspace};

use crate::declared::{Command, Declared};

/// `infra` with `file` added, unless it is there already.
pub fn add(mut infra: Infrastructure, file: InfraFile) -> Infrastructure {
    if !infra.files.contains(&file) {
        infra.files.push(file);
    }
    infra
}

/// `infra` with each of `globs` added whole.
pub fn wholes(infra: Infrastructure, globs: &[&str]) -> Infrastructure {
    globs.iter().fold(infra, |infra, glob| {
        add(
            infra,
            InfraFile {
                glob: (*glob).to_owned(),
                part: Part::Whole,
            },
        )
    })
}

/// `infra` with the `part` of `glob` added.
pub fn part(infra: Infrastructure, glob: &str, part: Part) -> Infrastructure {
    add(
        infra,
        InfraFile {
            glob: glob.to_owned(),
            part,
        },
    )
}

/// `infra` with the project file `path` (relative to the workspace root, as [`project_path`]
/// gives it) added whole, its glob characters escaped.
pub fn path(infra: Infrastructure, path: &str) -> Infrastructure {
    add(
        infra,
        InfraFile {
            glob: escape(path),
            part: Part::Whole,
        },
    )
}

/// What the tool of verifier `tool` reads by name in every run, whatever command starts it: its
/// config files and its parts of shared files. The one list of them, read by the tool's
/// verifier and by the `script` verifier when a declared command runs the tool in a way its
/// verifier does not (`c8 jest`, a second jest run). Empty for a tool it does not know.
pub fn tool_configs(tool: &str) -> Infrastructure {
    let Some(tool) = Tool::named(tool) else {
        return Infrastructure::default();
    };
    let mut infra = match tool {
        Tool::CargoTest | Tool::CargoCheck | Tool::Clippy => {
            let mut infra = Infrastructure::default();
            for keys in CARGO_MANIFEST_KEYS {
                infra = part(infra, "**/Cargo.toml", Part::Toml(strings(keys)));
            }
            wholes(infra, &[".cargo/config.toml", ".cargo/config"])
        }
        _ => Infrastructure::default(),
    };
    for config in tool.spec().configs {
        infra = add(infra, config_file(config));
    }
    if tool == Tool::Pytest {
        // pytest-cov fails a run under its `fail_under` with coverage.py's configuration.
        infra = python_coverage(infra, &[]);
    }
    infra
}

/// The infrastructure file of a tool's [`ConfigFile`].
fn config_file(config: &ConfigFile) -> InfraFile {
    let (glob, part) = match *config {
        ConfigFile::Whole(glob) => (glob, Part::Whole),
        ConfigFile::Json(glob, keys) => (glob, Part::Json(strings(keys))),
        ConfigFile::Toml(glob, keys) => (glob, Part::Toml(strings(keys))),
        ConfigFile::Ini(glob, section) => (glob, Part::Ini(section.to_owned())),
    };
    InfraFile {
        glob: glob.to_owned(),
        part,
    }
}

fn strings(keys: &[&str]) -> Vec<String> {
    keys.iter().map(|k| (*k).to_owned()).collect()
}

/// The keys of a manifest that decide which targets build and which of their tests run: the
/// target tables (`test = false`, `harness = false`, `doctest = false`, `required-features`),
/// target discovery (`autotests = false` drops `tests/`), the profiles (`overflow-checks`,
/// `debug-assertions`, `panic`), which members a workspace has, and the lint levels (a denied
/// lint that fails the build turned down). Never a whole `Cargo.toml`: an honest fix often adds
/// a dependency or a feature, which must not cost the attempt its pass. `[features]` is left out
/// for that reason too; a test a changed default feature compiles out no longer runs, which the
/// guard sees by the tests' identities.
const CARGO_MANIFEST_KEYS: &[&[&str]] = &[
    &["lib"],
    &["bin"],
    &["test"],
    &["bench"],
    &["example"],
    &["package", "auto*"],
    &["profile"],
    &["lints"],
    &["workspace", "members"],
    &["workspace", "exclude"],
    &["workspace", "default-members"],
    &["workspace", "lints"],
];

/// The project's declared command that verifier `name` runs, if any, with `infra` and the files
/// that declare it (see [`Command::sources`]).
pub fn declared(
    workspace: &Workspace,
    name: &str,
    infra: Infrastructure,
) -> (Option<Command>, Infrastructure) {
    let declared = Declared::of(workspace);
    let Some(command) = declared.for_verifier(name).cloned() else {
        return (None, infra);
    };
    let infra = command.sources.iter().cloned().fold(infra, add);
    (Some(command), infra)
}

/// coverage.py's configuration, whose `fail_under` fails a run whose tests all passed:
/// `.coveragerc` (or the `--rcfile` of `coverage run`), its sections of `setup.cfg` and
/// `tox.ini`, `[tool.coverage]` of pyproject.toml.
pub fn python_coverage(infra: Infrastructure, words: &[String]) -> Infrastructure {
    let mut infra = wholes(infra, &[".coveragerc"]);
    for rcfile in option_values(words, &["--rcfile"], false) {
        if let Some(rcfile) = inside(&rcfile) {
            infra = path(infra, &rcfile);
        }
    }
    let infra = part(infra, "setup.cfg", Part::Ini("coverage:*".to_owned()));
    let infra = part(infra, "tox.ini", Part::Ini("coverage:*".to_owned()));
    part(
        infra,
        "pyproject.toml",
        Part::Toml(vec!["tool".to_owned(), "coverage".to_owned()]),
    )
}

/// The configuration of the coverage wrapper `command` runs its runner under, if any (`nyc
/// --check-coverage mocha`, `c8 node --test`, `coverage run -m pytest`): a threshold there fails
/// the command.
pub fn coverage_wrapper(infra: Infrastructure, command: &Command) -> Infrastructure {
    let Some(wrapper) = command.wrapper() else {
        return infra;
    };
    match wrapper
        .first()
        .map(|w| crate::declared::program_name(w))
        .as_deref()
    {
        Some("nyc") => {
            let infra = wholes(
                infra,
                &[
                    ".nycrc",
                    ".nycrc.json",
                    ".nycrc.yml",
                    ".nycrc.yaml",
                    "nyc.config.js",
                    "nyc.config.cjs",
                    "nyc.config.mjs",
                ],
            );
            part(infra, "package.json", Part::Json(vec!["nyc".to_owned()]))
        }
        Some("c8") => {
            let mut infra = wholes(infra, &[".c8rc", ".c8rc.json", ".nycrc", ".nycrc.json"]);
            for config in option_values(wrapper, &["--config"], false) {
                if let Some(config) = inside(&config) {
                    infra = path(infra, &config);
                }
            }
            part(infra, "package.json", Part::Json(vec!["c8".to_owned()]))
        }
        _ => python_coverage(infra, wrapper),
    }
}

/// The values of `options` in `words`: `--opt value`, `--opt=value`, and for a one-letter
/// option `-rvalue`. A value may be a list (`--setupFiles a.js,b.js`); it is split at commas
/// when `lists` is set.
pub fn option_values(words: &[String], options: &[&str], lists: bool) -> Vec<String> {
    let mut values = Vec::new();
    let mut rest = words.iter();
    while let Some(word) = rest.next() {
        let value = if options.contains(&word.as_str()) {
            rest.next().cloned()
        } else if let Some((option, value)) = word.split_once('=')
            && options.contains(&option)
        {
            Some(value.to_owned())
        } else {
            options
                .iter()
                .filter(|o| o.len() == 2 && o.starts_with('-') && !o.starts_with("--"))
                .find_map(|o| word.strip_prefix(o))
                .filter(|value| !value.is_empty() && !value.starts_with('='))
                .map(str::to_owned)
        };
        let Some(value) = value else {
            continue;
        };
        if lists {
            values.extend(
                value
                    .split(',')
                    .filter(|v| !v.is_empty())
                    .map(str::to_owned),
            );
        } else {
            values.push(value);
        }
    }
    values
}

/// `value` (an option's value, read from `cwd` relative to the workspace root) as a path
/// relative to the workspace root, when it names a file of the project: a path that starts
/// with `./` or `../` (which the runners read as a file, existing or not), or a file that
/// exists with one of `extensions` added (`""` for as it is). A bare name that does not
/// exist is a package (`ts-node/register`), not the project's, and so is a path outside the
/// workspace.
pub fn project_path(
    workspace: &Workspace,
    cwd: &str,
    value: &str,
    extensions: &[&str],
) -> Option<String> {
    let value = value.strip_prefix("file://").unwrap_or(value);
    if value.is_empty() || value.starts_with(['{', '[']) {
        return None;
    }
    let relative = value.starts_with("./") || value.starts_with("../");
    let joined = normalize(&Path::new(cwd).join(value), &workspace.root)?;
    let found = extensions.iter().find_map(|extension| {
        let candidate = format!("{joined}{extension}");
        workspace.path(&candidate).is_file().then_some(candidate)
    });
    match found {
        Some(found) => Some(found),
        None if relative => Some(joined),
        None => None,
    }
}

/// `value` (read from `cwd` relative to the workspace root) as a path relative to the
/// workspace root, when it names a directory of the project (`vitest --root packages/app`);
/// `""` for the root itself.
pub fn project_dir(workspace: &Workspace, cwd: &str, value: &str) -> Option<String> {
    let joined = Path::new(cwd).join(value);
    let path = normalize(&joined, &workspace.root).or_else(|| {
        // The root itself (`--root .`).
        let inside = joined.strip_prefix(&workspace.root).unwrap_or(&joined);
        inside
            .components()
            .all(|c| matches!(c, Component::CurDir))
            .then(String::new)
    })?;
    workspace.path(&path).is_dir().then_some(path)
}

/// A relative path with `.` and `..` resolved, when it stays inside the directory it is
/// relative to.
fn inside(value: &str) -> Option<String> {
    normalize(Path::new(value), Path::new("/")).filter(|_| !value.starts_with('/'))
}

/// `path` with `.` and `..` resolved, relative to `root`, `/` separated; `None` when it leaves
/// the root. An absolute path counts when it lies under the root.
fn normalize(path: &Path, root: &Path) -> Option<String> {
    let path = match path.strip_prefix(root) {
        Ok(inside) => inside.to_path_buf(),
        Err(_) if path.is_absolute() => return None,
        Err(_) => path.to_path_buf(),
    };
    let mut parts: Vec<String> = Vec::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// `path` with the characters a glob reads (`*`, `?`, `[`, `]`, `{`, `}`, `\`) escaped, so
/// that it matches that one file.
pub fn escape(path: &str) -> String {
    let mut escaped = String::with_capacity(path.len());
    for c in path.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\' | '!') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

/// The directory `cwd` (relative to the workspace root) a command runs in, as [`project_path`]
/// takes it: the empty string for the root.
pub fn relative_dir(workspace: &Workspace, cwd: &Path) -> String {
    normalize(cwd, &workspace.root).unwrap_or_default()
}

/// A Python module given by its dotted name (`-p tests.plugin`, a pytest plugin) as the project
/// files that may hold it, when one of them exists: `tests/plugin.py`, `tests/plugin/`.
pub fn python_module(workspace: &Workspace, module: &str) -> Vec<String> {
    if module.is_empty()
        || !module
            .split('.')
            .all(|part| !part.is_empty() && part.chars().all(|c| c.is_alphanumeric() || c == '_'))
    {
        return Vec::new();
    }
    let base: PathBuf = module.split('.').collect();
    let base = base.to_string_lossy().replace('\\', "/");
    let mut found = Vec::new();
    if workspace.path(format!("{base}.py")).is_file() {
        found.push(format!("{base}.py"));
    }
    if workspace.path(&base).is_dir() {
        found.push(format!("{base}/**"));
    }
    found
}

/// Each file of `infra` in one line, for people and tests: `jest.config.*`, `package.json
/// json:jest`, `pyproject.toml toml:tool.pytest`, `setup.cfg ini:tool:pytest`.
pub fn lines(infra: &Infrastructure) -> Vec<String> {
    infra
        .files
        .iter()
        .map(|file| match &file.part {
            Part::Whole => file.glob.clone(),
            Part::Json(keys) => format!("{} json:{}", file.glob, keys.join(".")),
            Part::Toml(keys) => format!("{} toml:{}", file.glob, keys.join(".")),
            Part::Ini(section) => format!("{} ini:{section}", file.glob),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn option_values_take_each_spelling() {
        let got = option_values(
            &words("mocha -r a.js --require=b.js -rc.js --file d.js -x e.js --setup f.js,g.js"),
            &["-r", "--require", "--file", "--setup"],
            true,
        );
        assert_eq!(got, ["a.js", "b.js", "c.js", "d.js", "f.js", "g.js"]);
    }

    #[test]
    fn project_paths_are_files_of_the_project_only() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join("test")).expect("mkdir");
        std::fs::write(dir.path().join("test/setup.js"), "").expect("write");
        let workspace = Workspace::new(dir.path());
        let at = |cwd: &str, value: &str| project_path(&workspace, cwd, value, &["", ".js"]);
        assert_eq!(at("", "test/setup"), Some("test/setup.js".to_owned()));
        assert_eq!(at("", "./test/setup.js"), Some("test/setup.js".to_owned()));
        assert_eq!(at("test", "../spy.cjs"), Some("spy.cjs".to_owned()));
        assert_eq!(at("", "ts-node/register"), None);
        assert_eq!(at("", "../outside.js"), None);
        assert_eq!(escape("src/[id].test.js"), r"src/\[id\].test.js");
    }
}
