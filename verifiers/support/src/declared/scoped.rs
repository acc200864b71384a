//! A workspace package's tests as its workspace runs them: in an npm, yarn or pnpm workspace the
//! root's `test` script often runs every package's tests at once (`c8 node --test` finds every
//! test file under the root) while a package declares no test of its own. In the package, the
//! root's test command scoped to it is what the workspace runs for it: `node --test` with the
//! root's options, from the package's directory (node then finds the package's test files), its
//! path arguments kept where they lie in the package and made relative to it. A coverage wrapper
//! is left out: its threshold is over the whole run, which a run at the root checks.

use std::path::{Path, PathBuf};

use super::{Command, Declared, Purpose, Unrun, has_glob, is_variable_name, quote};

/// How many directories up a workspace root is looked for.
const MAX_UP: usize = 8;

/// node's options whose value is the next word.
const NODE_VALUE_OPTIONS: &[&str] = &[
    "-r",
    "--require",
    "--import",
    "--loader",
    "--experimental-loader",
    "--env-file",
    "-C",
    "--conditions",
    "--test-name-pattern",
    "--test-skip-pattern",
    "--test-reporter",
    "--test-reporter-destination",
    "--test-concurrency",
    "--test-timeout",
];

/// The workspace root's test commands that run node's test runner, scoped to the package at
/// `dir`; none when `dir` is no package of a workspace, or the root runs no such command for it.
pub(super) fn commands(dir: &Path) -> Vec<Command> {
    let Some(root) = workspace_root(dir) else {
        return Vec::new();
    };
    let Ok(rel) = dir.strip_prefix(&root) else {
        return Vec::new();
    };
    let rel: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let declared = Declared::from_files(&root);
    declared
        .commands
        .iter()
        .filter(|c| c.purpose == Purpose::Test && c.verifier() == Some("node-test"))
        .filter_map(|c| scope(c, &rel))
        .collect()
}

/// The workspace root's test, as a check not run, for a package at `dir` whose root declares a
/// test that cannot be scoped to it (`node test/index.js`, which imports every package's tests):
/// the root's command runs this package's tests, but only a run at the root runs it.
pub(super) fn unscoped(dir: &Path) -> Option<Unrun> {
    let root = workspace_root(dir)?;
    if !Declared::from_files(&root).declares(Purpose::Test) {
        return None;
    }
    let up = dir.strip_prefix(&root).ok()?.components().count();
    let prefix = vec![".."; up].join("/");
    Some(Unrun {
        what: "the workspace root's `test` script".to_owned(),
        tools: Vec::new(),
        argv: ["npm", "--prefix", &prefix, "test"]
            .map(str::to_owned)
            .to_vec(),
        name: "workspace-test".to_owned(),
        kind: "test",
    })
}

/// The nearest directory above `dir` whose package.json declares `workspaces` or that holds a
/// `pnpm-workspace.yaml`.
fn workspace_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .skip(1)
        .take(MAX_UP)
        .find(|up| {
            up.join("pnpm-workspace.yaml").is_file()
                || std::fs::read_to_string(up.join("package.json"))
                    .ok()
                    .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
                    .is_some_and(|package| package.get("workspaces").is_some())
        })
        .map(Path::to_path_buf)
}

/// `command` (`[env] [wrapper] node … --test [paths]`) scoped to the package at `rel`, or `None`
/// when its paths all lie outside it.
fn scope(command: &Command, rel: &[String]) -> Option<Command> {
    let words = command.runner_words();
    let (program, args) = words.split_first()?;
    let mut kept: Vec<String> = vec![program.clone()];
    let mut paths = 0;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if arg.starts_with('-') {
            kept.push(arg.clone());
            if NODE_VALUE_OPTIONS.contains(&arg.as_str())
                && let Some(value) = args.next()
            {
                kept.push(value.clone());
            }
            continue;
        }
        paths += 1;
        if let Some(inside) = within(arg, rel) {
            kept.push(inside);
        }
    }
    let scoped_paths = kept.iter().skip(1).filter(|w| !w.starts_with('-')).count();
    if paths > 0 && scoped_paths == 0 {
        return None;
    }
    let mut all: Vec<String> = command
        .env()
        .into_iter()
        .filter(|(name, _)| is_variable_name(name))
        .map(|(name, value)| format!("{name}={value}"))
        .collect();
    all.extend(kept);
    let text = all.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ");
    Some(Command {
        purpose: Purpose::Test,
        origin: format!(
            "{} at the workspace root, scoped to {}",
            command.origin,
            rel.join("/")
        ),
        words: all,
        globs: has_glob(&text),
        text,
        shell: false,
        after: Vec::new(),
        python: false,
        from_workspace_root: true,
        // The root's files lie outside this package's workspace, where the loop's guard
        // does not look.
        sources: Vec::new(),
        // The root's `npm test` runs every package's tests, not this one's alone.
        run_by: Vec::new(),
    })
}

/// The part of `path` (relative to the workspace root; a glob's `*` matches within one
/// component, `**` any number) inside the package at `rel`, relative to the package; `None`
/// when it lies outside.
fn within(path: &str, rel: &[String]) -> Option<String> {
    let parts: Vec<&str> = path
        .trim_start_matches("./")
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    for (i, dir) in rel.iter().enumerate() {
        let Some(part) = parts.get(i) else {
            // The path is a directory above the package: all of the package.
            return Some(".".to_owned());
        };
        if *part == "**" {
            return Some(parts[i..].join("/"));
        }
        if !component_matches(part, dir) {
            return None;
        }
    }
    let rest = parts[rel.len().min(parts.len())..].join("/");
    Some(if rest.is_empty() {
        ".".to_owned()
    } else {
        rest
    })
}

/// Whether a glob's component (`*`, `retext-*`, `a`) matches the name `name`.
fn component_matches(pattern: &str, name: &str) -> bool {
    let Some(star) = pattern.find('*') else {
        return pattern == name;
    };
    let (head, tail) = (&pattern[..star], &pattern[star + 1..]);
    if tail.contains('*') {
        // Several stars: matched loosely, by the literal ends.
        let last = tail.rsplit('*').next().unwrap_or_default();
        return name.starts_with(head) && name.ends_with(last);
    }
    name.len() >= head.len() + tail.len() && name.starts_with(head) && name.ends_with(tail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_inside_the_package_are_kept_relative_to_it() {
        let rel = ["packages".to_owned(), "x".to_owned()];
        assert_eq!(
            within("packages/*/test/*.js", &rel).as_deref(),
            Some("test/*.js")
        );
        assert_eq!(within("packages/x/test", &rel).as_deref(), Some("test"));
        assert_eq!(within("packages/y/test", &rel), None);
        assert_eq!(within("test", &rel), None);
        assert_eq!(within("packages", &rel).as_deref(), Some("."));
        assert_eq!(
            within("**/*.test.js", &rel).as_deref(),
            Some("**/*.test.js")
        );
        assert_eq!(within("./packages/x-*/t.js", &rel), None);
    }

    #[test]
    fn a_package_without_a_test_runs_the_roots_node_test_in_it() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        std::fs::write(
            root.join("package.json"),
            r#"{"workspaces": ["packages/*"], "scripts": {"test": "c8 --100 node --test --test-timeout 5000 packages/*/test/*.js"}}"#,
        )
        .expect("write");
        std::fs::create_dir_all(root.join("packages/x")).expect("mkdir");
        std::fs::write(root.join("packages/x/package.json"), r#"{"name": "x"}"#).expect("write");
        let declared = Declared::from_files(&root.join("packages/x"));
        let got: Vec<(&str, &str, bool)> = declared
            .commands
            .iter()
            .map(|c| (c.origin.as_str(), c.text.as_str(), c.from_workspace_root))
            .collect();
        assert_eq!(
            got,
            [(
                "the `test` script at the workspace root, scoped to packages/x",
                "node --test --test-timeout 5000 'test/*.js'",
                true
            )]
        );
        assert_eq!(declared.commands[0].verifier(), Some("node-test"));
        assert!(declared.unrun.is_empty());
        // A root test that cannot be scoped (one script importing every package's tests) is
        // named as not run in the package.
        std::fs::write(
            root.join("package.json"),
            r#"{"workspaces": ["packages/*"], "scripts": {"test": "node --conditions development test.js"}}"#,
        )
        .expect("write");
        let declared = Declared::from_files(&root.join("packages/x"));
        assert!(declared.commands.is_empty(), "{:?}", declared.commands);
        let unrun: Vec<String> = declared
            .unrun
            .iter()
            .map(|u| format!("{}: {}", u.describe(), u.argv.join(" ")))
            .collect();
        assert_eq!(
            unrun,
            ["the workspace root's `test` script: npm --prefix ../.. test"]
        );
    }
}
