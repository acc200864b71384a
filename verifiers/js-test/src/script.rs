//! What the project's own test script says about how its runner runs: `"test": "jest -c
//! jest.unit.config.js"`, `"test": "NODE_OPTIONS=--experimental-vm-modules jest"`, `"test": "node
//! --experimental-vm-modules node_modules/jest/bin/jest.js"`, `"test": "vitest run --project
//! unit"`, `"test": "tsc && mocha -r ts-node/register 'src/**/*.spec.ts'"`.
//!
//! verdict runs the runner's binary itself, with the options it needs for a report it can read.
//! Without what the script adds, a project whose tests need a config file of another name, an
//! experimental Node.js flag or a spec glob would fail under verdict and pass under `npm test`.
//!
//! The script is split into words the way a shell would (nothing is expanded and no shell runs).
//! Of the first command in it that runs the runner (commands end at `&&`, `||`, `;`, `|`, `&`):
//! - `NAME=value` words before the program become its environment, as do those after `cross-env`
//!   or `env`;
//! - options given to `node` when it runs the runner's script (`node --experimental-vm-modules
//!   node_modules/jest/bin/jest.js`) are passed in `NODE_OPTIONS`, which Node.js reads the same way;
//! - the words after the program, up to a redirection, become arguments — but for the options
//!   that verdict sets itself or that would change what it reads (reporters, colour, watch mode,
//!   runs limited to changed files), which each runner lists.

use std::collections::BTreeMap;

use verdict_model::verifier::Workspace;
use verdict_verifier_support::declared::{Declared, is_variable_name};

/// What the script that runs a runner adds to verdict's command line.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Script {
    /// Variables the script sets for the runner (`NODE_OPTIONS`, `TZ`, …).
    pub env: BTreeMap<String, String>,
    /// The runner's arguments in the script, without those verdict sets itself.
    pub args: Vec<String>,
}

/// How a runner reads its own command line.
pub(crate) struct Runner<'a> {
    /// The program names that run it (`mocha`, `_mocha`).
    pub programs: &'a [&'a str],
    /// The options verdict sets itself or that would change what it reads, each with whether it
    /// takes a value (see [`dropped`]); the script's other words are kept.
    pub dropped: &'a [(&'a str, bool)],
}

impl Script {
    /// What the project's declared command for `runner` adds: the first command of its `test`
    /// script (then `lint`, the type checks) that runs the runner, followed through `npm run` and
    /// chains (see [`verdict_verifier_support::declared`]), or the command verdict.toml gives it.
    /// Nothing when none does.
    pub(crate) fn of(workspace: &Workspace, runner: &Runner<'_>) -> Script {
        let declared = Declared::of(workspace);
        runner
            .programs
            .first()
            .and_then(|name| declared.for_verifier(name))
            .and_then(|command| Script::from_words(&command.words, runner))
            .unwrap_or_default()
    }

    /// What `command` (a script's text) adds for `runner`, or `None` when no command in it runs
    /// the runner (or it cannot be split).
    #[cfg(test)]
    pub(crate) fn parse(command: &str, runner: &Runner<'_>) -> Option<Script> {
        let words = verdict_model::split::split_command(command).ok()?;
        Script::from_words(&words, runner)
    }

    /// [`Script::parse`] of a command already split into words.
    pub(crate) fn from_words(words: &[String], runner: &Runner<'_>) -> Option<Script> {
        commands(words).find_map(|command| {
            let start = command
                .iter()
                .position(|word| is_program(word, runner.programs))?;
            let mut script = Script::default();
            prefix(&command[..start], &mut script.env);
            let mut skip_value = false;
            for word in &command[start + 1..] {
                if word.starts_with(['<', '>']) || word.starts_with("2>") || word.starts_with("1>")
                {
                    break;
                }
                if skip_value {
                    skip_value = false;
                } else if let Some(takes_value) = dropped(word, runner.dropped) {
                    skip_value = takes_value;
                } else if !word.is_empty() {
                    script.args.push(word.clone());
                }
            }
            Some(script)
        })
    }

    /// The options among [`Script::args`] named in `keep` (`--config`, `-c`), with their values:
    /// what a narrowed re-run needs of the script when its own file and name filters replace the
    /// script's positional arguments.
    pub(crate) fn options(&self, keep: &[&str]) -> Vec<String> {
        let mut kept = Vec::new();
        let mut words = self.args.iter();
        while let Some(word) = words.next() {
            let (option, inline) = match word.split_once('=') {
                Some((option, _)) => (option, true),
                None => (word.as_str(), false),
            };
            if keep.contains(&option) {
                kept.push(word.clone());
                if !inline && let Some(value) = words.next() {
                    kept.push(value.clone());
                }
            }
        }
        kept
    }
}

/// The commands of a split script: runs of words between the shell's control operators. The
/// splitter keeps operators as ordinary characters, so `a.js;` ends a command as `;` does.
fn commands(words: &[String]) -> impl Iterator<Item = Vec<String>> + '_ {
    let mut rest = words;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut command = Vec::new();
        let mut used = rest.len();
        for (index, word) in rest.iter().enumerate() {
            if word.starts_with(['&', '|', ';']) {
                used = index + 1;
                break;
            }
            if let Some(before) = word.strip_suffix(';') {
                command.push(before.to_owned());
                used = index + 1;
                break;
            }
            command.push(word.clone());
        }
        rest = &rest[used..];
        Some(command)
    })
}

/// Whether `word` runs one of `programs`: the program itself (`jest`, `./node_modules/.bin/jest`),
/// or its script in the package (`node_modules/jest/bin/jest.js`, `node_modules/vitest/vitest.mjs`).
fn is_program(word: &str, programs: &[&str]) -> bool {
    let file = word.rsplit('/').next().unwrap_or(word);
    let stem = [".js", ".mjs", ".cjs"]
        .iter()
        .find_map(|extension| file.strip_suffix(extension))
        .unwrap_or(file);
    programs.iter().any(|program| {
        stem == *program && (file == stem || word.contains(&format!("node_modules/{program}/")))
    })
}

/// The environment the words before the program set: `NAME=value` assignments (also after
/// `cross-env` and `env`), and `node`'s own options, passed on in `NODE_OPTIONS`.
fn prefix(words: &[String], env: &mut BTreeMap<String, String>) {
    let mut node_options: Vec<String> = Vec::new();
    let mut after_node = false;
    let mut words = words.iter();
    while let Some(word) = words.next() {
        if after_node && word.starts_with('-') {
            // The options that take their value as the next word.
            if matches!(
                word.as_str(),
                "-r" | "--require" | "--import" | "--loader" | "--experimental-loader"
            ) {
                let option = if word == "-r" { "--require" } else { word };
                if let Some(value) = words.next() {
                    node_options.push(format!("{option}={value}"));
                }
            } else {
                node_options.push(word.clone());
            }
            continue;
        }
        after_node = word == "node" || word.ends_with("/node");
        if let Some((name, value)) = word.split_once('=')
            && is_variable_name(name)
        {
            env.insert(name.to_owned(), value.to_owned());
        }
    }
    // Node.js splits NODE_OPTIONS on spaces: an option whose value has one cannot be passed on.
    node_options.retain(|option| !option.contains(char::is_whitespace));
    if !node_options.is_empty() {
        let joined = env
            .get("NODE_OPTIONS")
            .into_iter()
            .cloned()
            .chain(node_options)
            .collect::<Vec<_>>()
            .join(" ");
        env.insert("NODE_OPTIONS".to_owned(), joined);
    }
}

/// For an option in `set`, whether its value is the next word (`--reporter dot`) rather than after
/// an `=` or absent; `None` for any other word. `set` lists `(option, takes a value)`; an entry
/// ending with `.` covers every option under it (`--outputFile.` for `--outputFile.json=report.json`).
fn dropped(word: &str, set: &[(&str, bool)]) -> Option<bool> {
    let (option, inline_value) = match word.split_once('=') {
        Some((option, _)) => (option, true),
        None => (word, false),
    };
    set.iter().find_map(|&(name, takes_value)| {
        let matches = match name.strip_suffix('.') {
            Some(prefix) => option.starts_with(name) || option == prefix,
            None => option == name,
        };
        matches.then_some(takes_value && !inline_value)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const JEST: Runner<'static> = Runner {
        programs: &["jest"],
        dropped: &[
            ("--json", false),
            ("--outputFile", true),
            ("--coverage.", false),
        ],
    };

    fn check(command: &str, env: &[(&str, &str)], args: &[&str]) {
        let script = Script::parse(command, &JEST).expect("runs jest");
        let env: BTreeMap<String, String> = env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        assert_eq!(
            (script.env, script.args),
            (env, args.iter().map(|a| (*a).to_owned()).collect()),
            "{command}"
        );
    }

    #[test]
    fn arguments_after_the_program_without_verdicts_own() {
        check("jest -c jest.unit.js --json", &[], &["-c", "jest.unit.js"]);
        check(
            "tsc -p . && ./node_modules/.bin/jest --outputFile out.json src/ --coverage.enabled=false; echo done",
            &[],
            &["src/"],
        );
        check(
            "jest --outputFile=x.json --runInBand > log.txt",
            &[],
            &["--runInBand"],
        );
        check("jest 'a b.test.js'", &[], &["a b.test.js"]);
    }

    #[test]
    fn environment_from_assignments_cross_env_and_node_options() {
        check(
            "NODE_OPTIONS=--experimental-vm-modules TZ=UTC jest",
            &[("NODE_OPTIONS", "--experimental-vm-modules"), ("TZ", "UTC")],
            &[],
        );
        check(
            "cross-env NODE_ENV=test jest --ci",
            &[("NODE_ENV", "test")],
            &["--ci"],
        );
        check(
            "node --experimental-vm-modules -r dotenv/config node_modules/jest/bin/jest.js -i",
            &[(
                "NODE_OPTIONS",
                "--experimental-vm-modules --require=dotenv/config",
            )],
            &["-i"],
        );
        check(
            "NODE_OPTIONS=--no-warnings node --expose-gc node_modules/.bin/jest",
            &[("NODE_OPTIONS", "--no-warnings --expose-gc")],
            &[],
        );
    }

    #[test]
    fn only_a_command_that_runs_the_runner() {
        assert_eq!(Script::parse("eslint . && tsc", &JEST), None);
        assert_eq!(Script::parse("jest-codemods src", &JEST), None);
        assert_eq!(Script::parse("echo 'unbalanced", &JEST), None);
        // The first command that runs it; an earlier command's variables are not its own.
        check("FOO=1 tsc && jest a; jest b", &[], &["a"]);
    }

    #[test]
    fn options_keep_the_named_ones_with_their_values() {
        let script = Script {
            env: BTreeMap::new(),
            args: ["--config", "j.js", "src/", "--project=unit", "-i"]
                .map(str::to_owned)
                .to_vec(),
        };
        assert_eq!(
            script.options(&["--config", "-c", "--project"]),
            ["--config", "j.js", "--project=unit"]
        );
    }
}
