//! The infrastructure of the JavaScript test runners (see `Verifier::infrastructure`): their
//! config files, their part of `package.json`, the files the declared command names
//! (`--require test/setup.js`, `-c jest.unit.config.js`) and the files that declare it.

use verdict_model::verifier::{Infrastructure, Part, Workspace};
use verdict_verifier_support::infra;

/// What a runner reads, by name.
pub(crate) struct Names<'a> {
    /// The verifier, whose declared command is read and whose tool's config files
    /// (`infra::tool_configs`) count.
    pub tool: &'a str,
    /// Its options whose value is a file it loads (config, set-up files, plugins).
    pub file_options: &'a [&'a str],
    /// Its options whose value is a directory it reads its config from (`vitest --root`): its
    /// config files there count too.
    pub dir_options: &'a [&'a str],
}

/// node's options whose value is a module it loads before anything else.
const NODE_FILE_OPTIONS: &[&str] = &[
    "-r",
    "--require",
    "--import",
    "--loader",
    "--experimental-loader",
    "--env-file",
    "--env-file-if-exists",
    "--experimental-config-file",
];

/// What node and the runners try after a module's name when it is no file as written.
const EXTENSIONS: &[&str] = &["", ".js", ".cjs", ".mjs", ".ts", ".mts", ".cts", ".json"];

/// The infrastructure of the runner `names` describes in `workspace` (see the module docs).
pub(crate) fn of(workspace: &Workspace, names: &Names<'_>) -> Infrastructure {
    let configs = infra::tool_configs(names.tool);
    let (command, mut infra) = infra::declared(workspace, names.tool, configs.clone());
    let Some(command) = command else {
        return infra;
    };
    let words = command.runner_words();
    let mut files = infra::option_values(&words, names.file_options, true);
    // node's own options, when node runs the runner or its test runner
    // (`node --import ./setup.mjs --test`), and those `NODE_OPTIONS` gives.
    files.extend(infra::option_values(
        node_options(&words),
        NODE_FILE_OPTIONS,
        false,
    ));
    if let Some(options) = command.env().get("NODE_OPTIONS") {
        let options: Vec<String> = options.split_whitespace().map(str::to_owned).collect();
        files.extend(infra::option_values(&options, NODE_FILE_OPTIONS, false));
    }
    for file in files {
        if let Some(path) = infra::project_path(workspace, "", &file, EXTENSIONS) {
            infra = infra::path(infra, &path);
        }
    }
    for dir in infra::option_values(&words, names.dir_options, false) {
        let Some(dir) = infra::project_dir(workspace, "", &dir).filter(|dir| !dir.is_empty())
        else {
            continue;
        };
        let root_files = configs
            .files
            .iter()
            .filter(|file| file.part == Part::Whole && !file.glob.contains('/'));
        for file in root_files {
            let glob = format!("{}/{}", infra::escape(&dir), file.glob);
            infra = infra::wholes(infra, &[&glob]);
        }
    }
    infra::coverage_wrapper(infra, &command)
}

/// node's own options when `words` run `node`: the words before the script it runs (`node
/// --experimental-vm-modules node_modules/jest/bin/jest.js`), or all of them for its test
/// runner, whose options and paths mix (`node --test --import ./setup.mjs test/`).
fn node_options(words: &[String]) -> &[String] {
    let Some((program, args)) = words.split_first() else {
        return &[];
    };
    if verdict_verifier_support::declared::program_name(program) != "node" {
        return &[];
    }
    if args.iter().any(|word| word == "--test") {
        return args;
    }
    let mut at = 0;
    while at < args.len() && args[at].starts_with('-') {
        let takes_value = NODE_FILE_OPTIONS.contains(&args[at].as_str())
            || matches!(args[at].as_str(), "-C" | "--conditions" | "--input-type");
        at += if takes_value { 2 } else { 1 };
    }
    &args[..at.min(args.len())]
}

#[cfg(test)]
mod tests {
    use verdict_model::Verifier;

    use super::*;

    /// The infrastructure `verifier` names in a project of `files`, one line a file (see
    /// `infra::lines`).
    fn check(verifier: &dyn Verifier, files: &[(&str, &str)], expect: &[&str]) {
        let dir = tempfile::tempdir().expect("temp dir");
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
        let workspace = Workspace::new(dir.path());
        assert_eq!(infra::lines(&verifier.infrastructure(&workspace)), expect);
    }

    const SCRIPTS: [&str; 3] = [
        "package.json json:scripts.pretest",
        "package.json json:scripts.test",
        "package.json json:scripts.posttest",
    ];

    #[test]
    fn jest_names_its_configs_and_what_the_script_loads() {
        let mut expect = vec![
            "jest.config.*",
            "babel.config.*",
            "**/.babelrc",
            "**/.babelrc.*",
            "package.json json:jest",
            "package.json json:babel",
        ];
        expect.extend(SCRIPTS);
        expect.extend(["jest.unit.config.js", "test/env.js", "test/polyfill.cjs"]);
        check(
            &crate::Jest::default(),
            &[
                (
                    "package.json",
                    r#"{"scripts": {"test": "NODE_OPTIONS='--require ./test/polyfill.cjs' jest -c jest.unit.config.js --setupFiles ./test/env.js"}}"#,
                ),
                ("jest.unit.config.js", "module.exports = {};"),
            ],
            &expect,
        );
    }

    #[test]
    fn vitest_names_the_configs_of_its_root() {
        let mut expect = vec!["vitest.config.*", "vite.config.*", "vitest.workspace.*"];
        expect.extend(SCRIPTS);
        expect.extend([
            "vitest.ci.config.ts",
            "web/vitest.config.*",
            "web/vite.config.*",
            "web/vitest.workspace.*",
        ]);
        check(
            &crate::Vitest::default(),
            &[
                (
                    "package.json",
                    r#"{"scripts": {"test": "vitest run --config=vitest.ci.config.ts --root web"}}"#,
                ),
                ("vitest.ci.config.ts", ""),
                ("web/index.ts", ""),
            ],
            &expect,
        );
    }

    #[test]
    fn mocha_names_required_files_but_not_packages() {
        let mut expect = vec![
            ".mocharc.js",
            ".mocharc.cjs",
            ".mocharc.mjs",
            ".mocharc.json",
            ".mocharc.jsonc",
            ".mocharc.yaml",
            ".mocharc.yml",
            "test/mocha.opts",
            "package.json json:mocha",
        ];
        expect.extend(SCRIPTS);
        expect.extend([
            "package.json json:scripts.pretest:unit",
            "package.json json:scripts.test:unit",
            "package.json json:scripts.posttest:unit",
            "test/hooks.js",
            "test/global.js",
            ".nycrc",
            ".nycrc.json",
            ".nycrc.yml",
            ".nycrc.yaml",
            "nyc.config.js",
            "nyc.config.cjs",
            "nyc.config.mjs",
            "package.json json:nyc",
        ]);
        check(
            &crate::Mocha::default(),
            &[
                (
                    "package.json",
                    r#"{"scripts": {"test": "npm run test:unit", "test:unit": "nyc --check-coverage mocha -r ts-node/register --require test/hooks --file=./test/global.js"}}"#,
                ),
                ("test/hooks.js", ""),
            ],
            &expect,
        );
    }

    #[test]
    fn node_test_names_what_node_imports() {
        let mut expect = SCRIPTS.to_vec();
        expect.extend(["test/setup.mjs", ".env.test"]);
        check(
            &crate::NodeTest::default(),
            &[
                (
                    "package.json",
                    r#"{"scripts": {"test": "node --import ./test/setup.mjs --env-file=.env.test --import tsx --test test/"}}"#,
                ),
                (".env.test", "TZ=UTC\n"),
            ],
            &expect,
        );
    }
}
