//! The tools a headless Claude Code session of `verdict loop` may use without asking: a
//! `Bash(<command>:*)` rule for each command the loop verifies with, one for each command the
//! project declares for what the loop verifies (`npm test`, `npm run lint`, `make test`), and
//! the `verify` tool of `verdict mcp`.
//!
//! Claude Code's `acceptEdits` mode accepts file edits but asks before every shell command, and a
//! headless session has nobody to answer: without these rules the agent cannot run the tests it
//! is asked to fix. The rules are built from argv words, never from a shell string: a word that
//! is not plain (spaces, quotes, parentheses, commas, colons, `$`, globs…) ends the rule before
//! it, so no rule ever allows more than a command prefix of plain words. A rule is a prefix
//! match, so a program that runs whatever it is told by name (`npm`, `make`, `python`) never gets
//! one without the words that say what it runs: `npm run lint`, never `npm run` or `npm`.

use std::path::Path;

/// The `verify` tool of `verdict mcp` as Claude Code names it (`mcp__<server>__<tool>`, with the
/// server installed by `verdict mcp install claude` under the name `verdict`).
pub const MCP_VERIFY: &str = "mcp__verdict__verify";

/// The flag that takes the rules, as Claude Code spells it.
pub const FLAG: &str = "--allowedTools";

/// Programs that run any code, script, target or task they are given: a rule for one of them
/// alone would allow every command of theirs, so they only get a rule with the word that says
/// what they run (`python -m pytest`, `npm test`, `make test`).
const RUNNERS: &[&str] = &[
    "node",
    "python",
    "python3",
    "sh",
    "bash",
    "env",
    "ruby",
    "perl",
    "deno",
    "bun",
    "npx",
    "uv",
    "npm",
    "pnpm",
    "yarn",
    "bunx",
    "make",
    "just",
    "task",
    "tox",
    "nox",
    "poe",
    "pdm",
    "hatch",
    "poetry",
    "pipenv",
    "cargo",
    "go",
    "pre-commit",
];

/// Words after which a runner runs what comes next, whatever it is (`npm run`, `pnpm exec`,
/// `cargo run`): a rule never ends with one.
const DISPATCHERS: &[&str] = &["run", "run-script", "exec", "x", "dlx", "-m", "-c", "-e"];

/// The allow rules for the commands `commands` the loop verifies with (each an argv: program
/// first, run in `root`) and the project's own commands `declared` that run what it verifies
/// (`npm test`, `pnpm run lint`: each argv word for word), followed by [`MCP_VERIFY`]. Sorted
/// and without duplicates.
pub fn claude_allowed_tools(
    commands: &[Vec<String>],
    declared: &[Vec<String>],
    root: &Path,
) -> Vec<String> {
    let mut rules = std::collections::BTreeSet::new();
    let prefixes = commands.iter().flat_map(|argv| prefixes(argv, root)).chain(
        declared
            .iter()
            .filter(|argv| names_what_it_runs(argv))
            .cloned(),
    );
    for prefix in prefixes {
        rules.insert(format!("Bash({}:*)", prefix.join(" ")));
    }
    let mut rules: Vec<String> = rules.into_iter().collect();
    rules.push(MCP_VERIFY.to_owned());
    rules
}

/// Whether `prefix` (a program and words) can stand as a rule: plain words only, and for a
/// runner, words that name what it runs (`npm run lint`, not `npm run` or `npm`), which is not
/// another runner (`python -m tox`, `uv run python`).
fn names_what_it_runs(prefix: &[String]) -> bool {
    let Some((program, words)) = prefix.split_first() else {
        return false;
    };
    if !prefix.iter().all(|word| plain(word)) {
        return false;
    }
    if !runner(program) {
        return true;
    }
    words
        .last()
        .is_some_and(|last| !DISPATCHERS.contains(&last.as_str()) && !runner(last))
}

/// Whether `program` (a name or a path) is one of the [`RUNNERS`], or a versioned Python
/// (`python3.12`).
fn runner(program: &str) -> bool {
    let base = program.rsplit('/').next().unwrap_or(program);
    RUNNERS.contains(&base) || base.starts_with("python")
}

/// The command prefixes (as words) a person or an agent would type to run `argv` again.
fn prefixes(argv: &[String], root: &Path) -> Vec<Vec<String>> {
    let Some((program, args)) = argv.split_first() else {
        return Vec::new();
    };
    let path = Path::new(program);
    let Some(base) = path.file_name().and_then(|n| n.to_str()).map(str::to_owned) else {
        return Vec::new();
    };
    // The program as it can be typed: its name, and its path from the workspace's root when it
    // lives inside it (`.venv/bin/python`, `node_modules/.bin/jest`).
    let mut programs = vec![base.clone()];
    if path.is_absolute() {
        if let Ok(relative) = path.strip_prefix(root)
            && let Some(relative) = relative.to_str()
        {
            programs.push(relative.to_owned());
            programs.push(format!("./{relative}"));
        }
    } else if program != &base {
        programs.push(program.clone());
    }
    programs.retain(|p| plain(p));
    // The words after the program that say what it does (`test`, `run lint`, `-m pytest`).
    let mut words = Vec::new();
    let mut module = None;
    let mut rest = args.iter();
    while words.len() < 2 {
        let Some(arg) = rest.next() else { break };
        if arg == "-m" && base.starts_with("python") {
            if let Some(name) = rest.next().filter(|n| plain(n) && !n.starts_with('-')) {
                words.extend(["-m".to_owned(), name.clone()]);
                module = Some(name.clone());
            }
            break;
        }
        if arg.starts_with('-') || !plain(arg) || arg.contains('/') {
            break;
        }
        words.push(arg.clone());
    }
    let mut out: Vec<Vec<String>> = programs
        .iter()
        .map(|program| {
            std::iter::once(program.clone())
                .chain(words.iter().cloned())
                .collect()
        })
        .collect();
    // `python -m pytest` is also run as `pytest`; a tool in `node_modules/.bin` as `npx <tool>`.
    if let Some(module) = module {
        out.push(vec![module]);
    }
    if path
        .parent()
        .is_some_and(|p| p.ends_with("node_modules/.bin"))
    {
        out.push(
            std::iter::once("npx".to_owned())
                .chain(std::iter::once(base))
                .chain(words)
                .collect(),
        );
    }
    out.retain(|prefix| names_what_it_runs(prefix));
    out
}

/// A word that can stand in a rule as it is: no space, quote, parenthesis, comma, colon, shell
/// operator or glob.
fn plain(word: &str) -> bool {
    !word.is_empty()
        && word.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/' | '+' | '@' | '=')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn rules_come_from_the_argv_words() {
        let root = Path::new("/home/me/shop");
        let rules = claude_allowed_tools(
            &[
                argv(&["cargo", "test", "--workspace", "--message-format=json"]),
                argv(&[
                    "/home/me/shop/.venv/bin/python",
                    "-m",
                    "pytest",
                    "-q",
                    "--junitxml=/x",
                ]),
                argv(&[
                    "/home/me/shop/node_modules/.bin/tsc",
                    "--noEmit",
                    "-p",
                    "tsconfig.json",
                ]),
                argv(&[
                    "/usr/bin/node",
                    "/home/me/shop/node_modules/jest/bin/jest.js",
                ]),
                argv(&["make", "check; rm -rf /", "x"]),
            ],
            &[],
            root,
        );
        assert_eq!(
            rules,
            [
                "Bash(./.venv/bin/python -m pytest:*)",
                "Bash(./node_modules/.bin/tsc:*)",
                "Bash(.venv/bin/python -m pytest:*)",
                "Bash(cargo test:*)",
                "Bash(node_modules/.bin/tsc:*)",
                "Bash(npx tsc:*)",
                "Bash(pytest:*)",
                "Bash(python -m pytest:*)",
                "Bash(tsc:*)",
                MCP_VERIFY,
            ]
        );
        // `node <script>` alone would allow any script, `make` any target: no rule.
        assert!(
            !rules
                .iter()
                .any(|r| r.starts_with("Bash(node ") || r == "Bash(node:*)")
        );
        assert!(!rules.iter().any(|r| r.starts_with("Bash(make")));
    }

    #[test]
    fn the_projects_own_commands_are_allowed_word_for_word() {
        let root = Path::new("/home/me/shop");
        let rules = claude_allowed_tools(
            &[argv(&["/usr/bin/node", "--test", "--test-reporter=tap"])],
            &[
                argv(&["npm", "test"]),
                argv(&["npm", "run", "test"]),
                argv(&["npm", "run", "lint"]),
                argv(&["pnpm", "typecheck"]),
                argv(&["make", "test"]),
                argv(&["tox", "-e", "typing"]),
                argv(&["nox", "-s", "lint"]),
                argv(&["hatch", "run", "types:check"]),
                argv(&["pre-commit", "run", "ruff", "--all-files"]),
            ],
            root,
        );
        assert_eq!(
            rules,
            [
                "Bash(make test:*)",
                "Bash(nox -s lint:*)",
                "Bash(npm run lint:*)",
                "Bash(npm run test:*)",
                "Bash(npm test:*)",
                "Bash(pnpm typecheck:*)",
                "Bash(pre-commit run ruff --all-files:*)",
                "Bash(tox -e typing:*)",
                MCP_VERIFY,
            ]
        );
    }

    #[test]
    fn a_runner_never_gets_a_rule_without_what_it_runs() {
        let root = Path::new("/home/me/shop");
        // As verifier commands: a runner followed by an option or a dispatching word.
        let verified = [
            argv(&["npm", "--silent", "test"]),
            argv(&["npm", "run", "--silent", "lint"]),
            argv(&["make", "-s", "test"]),
            argv(&["cargo", "--locked", "test"]),
            argv(&["pnpm", "exec", "--", "jest"]),
            argv(&["python3.12", "-c", "print(1)"]),
            argv(&["/usr/bin/python3", "-m", "tox"]),
            argv(&["uv", "run", "python", "x.py"]),
        ];
        // As declared commands: the same, and words that are not plain.
        let declared = [
            argv(&["npm"]),
            argv(&["npm", "run"]),
            argv(&["make"]),
            argv(&["yarn", "exec"]),
            argv(&["npm", "run", "lint:fix"]),
            argv(&["npm", "run", "$(rm -rf /)"]),
        ];
        let rules = claude_allowed_tools(&verified, &declared, root);
        assert_eq!(rules, [MCP_VERIFY]);
    }
}
