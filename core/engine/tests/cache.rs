//! The result cache on real temporary project trees: what changes a key and what does not, the
//! stat cache and its racy-timestamp guard, stored entries, corruption and concurrent writers.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use verdict_core::cache::{Cache, Key, KeyStats};
use verdict_core::model::{Outcome, Report};
use verdict_core::verifier::{CommandSpec, ExitCodes, Inputs, Workspace};

/// A small project in a temporary directory, with one verifier's inputs and command.
struct Project {
    _dir: tempfile::TempDir,
    workspace: Workspace,
    inputs: Inputs,
    spec: CommandSpec,
    salt: String,
}

impl Project {
    fn new() -> Project {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().to_path_buf();
        let workspace = Workspace::new(&root).with_run_dir(root.join(".verdict/runs/run-1"));
        let spec = CommandSpec {
            program: root.join("node_modules/.bin/tsc"),
            args: vec![
                "--noEmit".to_owned(),
                "-p".to_owned(),
                "tsconfig.json".to_owned(),
            ],
            env: BTreeMap::new(),
            cwd: root.clone(),
            timeout: Duration::from_secs(60),
            exit_codes: ExitCodes {
                pass: vec![0],
                fail: vec![1, 2],
            },
            output_files: Vec::new(),
        };
        let project = Project {
            _dir: dir,
            workspace,
            inputs: Inputs {
                globs: vec!["**/*.ts".to_owned(), "tsconfig.json".to_owned()],
                tool_files: vec![PathBuf::from("node_modules/typescript/package.json")],
                root: None,
            },
            spec,
            salt: "verdict 0.1.0\n[tsc]".to_owned(),
        };
        project.write(
            "tsconfig.json",
            "{ \"compilerOptions\": { \"strict\": true } }\n",
        );
        project.write("src/index.ts", "export const answer: number = 42;\n");
        project.write(
            "src/util/math.ts",
            "export function add(a: number, b: number) { return a + b; }\n",
        );
        project.write("README.md", "# demo\n");
        project.write(".gitignore", "dist/\nnode_modules/\n");
        project.write(
            "node_modules/typescript/package.json",
            "{ \"version\": \"5.9.3\" }\n",
        );
        project
    }

    fn root(&self) -> &Path {
        &self.workspace.root
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.root().join(relative)
    }

    fn write(&self, relative: &str, content: &str) {
        let path = self.path(relative);
        fs::create_dir_all(path.parent().expect("has a parent")).expect("creates dirs");
        fs::write(path, content).expect("writes");
    }

    /// The key as the pipeline computes it, with the stat cache in the workspace.
    fn key(&self) -> Key {
        self.key_with_stats().0
    }

    fn key_with_stats(&self) -> (Key, KeyStats) {
        let stat_dir = verdict_core::paths::cache(self.root()).join("files");
        Cache::key_with_stats(
            &self.workspace,
            &self.inputs,
            &self.spec,
            &self.salt,
            Some(&stat_dir),
        )
        .expect("key")
    }

    /// Sets a file's modification time.
    fn set_mtime(&self, relative: &str, time: SystemTime) {
        let file = fs::File::options()
            .write(true)
            .open(self.path(relative))
            .expect("opens");
        file.set_modified(time).expect("sets mtime");
    }

    /// Makes every file in the project an hour old, as files are that nobody edits right now.
    fn age_all(&self) {
        let hour_ago = SystemTime::now() - Duration::from_secs(3600);
        for relative in [
            "tsconfig.json",
            "src/index.ts",
            "src/util/math.ts",
            "README.md",
            ".gitignore",
            "node_modules/typescript/package.json",
        ] {
            self.set_mtime(relative, hour_ago);
        }
    }

    fn cache(&self) -> Cache {
        Cache::in_workspace(&self.workspace)
    }
}

/// Checks that `change` changes the key (`misses`) or leaves it as it was.
fn check(misses: bool, change: impl FnOnce(&mut Project)) {
    let mut project = Project::new();
    let before = project.key();
    // A second computation, now with a stat cache, must agree.
    assert_eq!(project.key(), before, "the key is not stable");
    change(&mut project);
    let after = project.key();
    if misses {
        assert_ne!(after, before, "the change should have changed the key");
    } else {
        assert_eq!(after, before, "the change should not have changed the key");
    }
}

fn passed(summary: &str) -> Report {
    let mut report = Report::new("tsc", Outcome::Passed);
    report.summary = Some(summary.to_owned());
    report
}

#[test]
fn an_edit_to_a_tracked_input_misses() {
    check(true, |p| {
        p.write("src/index.ts", "export const answer: number = 43;\n")
    });
    check(true, |p| {
        p.write(
            "tsconfig.json",
            "{ \"compilerOptions\": { \"strict\": false } }\n",
        )
    });
}

/// A file the project ignores is an input like any other (a gitignored fixture, a generated file
/// the tests read), but for what lies in an ignored dependency, build or tool-cache directory.
#[test]
fn an_edit_to_an_ignored_file_misses_outside_dependency_directories() {
    // Ignored by .gitignore and matched by a glob: `dist/` is not a dependency directory.
    check(true, |p| p.write("dist/index.ts", "export {};\n"));
    check(true, |p| {
        p.write(".gitignore", "dist/\nnode_modules/\nfixtures/\n");
        p.write("fixtures/data.ts", "export const x = 1;\n");
    });
}

#[test]
fn an_edit_in_an_ignored_dependency_directory_or_outside_the_globs_hits() {
    // Outside every glob.
    check(false, |p| p.write("README.md", "# changed\n"));
    // Under node_modules (ignored), except the tool file itself.
    check(false, |p| {
        p.write(
            "node_modules/typescript/lib/lib.d.ts",
            "declare const x: 1;\n",
        )
    });
    // Every directory of the list, ignored, at any depth.
    for dir in verdict_core::cache::SKIPPED_WHEN_IGNORED {
        check(false, |p| {
            p.write(".gitignore", &format!("{dir}\n"));
            p.write(&format!("pkg/{dir}/x.ts"), "x\n");
        });
    }
    // verdict's own directory and git's are never inputs.
    check(false, |p| p.write(".verdict/runs/run-1/tsc.ts", "x\n"));
    check(false, |p| {
        p.write("packages/a/.verdict/runs/run-1/tsc.ts", "x\n")
    });
    check(false, |p| p.write(".git/info/x.ts", "x\n"));
}

/// A dependency directory the project does not ignore (a committed `node_modules`, a `target/`
/// that holds sources) counts as any other, and so does one the project un-ignores.
#[test]
fn a_dependency_directory_the_project_does_not_ignore_counts() {
    check(true, |p| p.write("target/gen.ts", "export {};\n"));
    check(true, |p| {
        p.write(".gitignore", "coverage/\n");
        p.write("src/.gitignore", "!coverage/\n");
        p.write("src/coverage/x.ts", "export {};\n");
    });
}

#[test]
fn git_info_exclude_is_honoured() {
    // An excluded dependency directory is left out…
    check(false, |p| {
        p.write(".git/info/exclude", "target/\n");
        p.write("target/api.ts", "export {};\n");
    });
    // …and any other excluded file counts.
    check(true, |p| {
        p.write(".git/info/exclude", "generated/\n");
        p.write("generated/api.ts", "export {};\n");
    });
}

/// The program the command runs, and the interpreter its `#!` line names, are the tool's version
/// where no tool file says it: a new one misses.
#[test]
fn a_changed_program_or_interpreter_misses() {
    let mut project = Project::new();
    project.write("bin/interp", "#!/bin/sh\necho one\n");
    project.write("bin/tool", "#!/usr/bin/env -S interp --flag\nrun\n");
    for file in ["bin/interp", "bin/tool"] {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(project.path(file), fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    project.spec.program = PathBuf::from("tool");
    let path = project.path("bin").display().to_string();
    project.spec.env.insert("PATH".to_owned(), path);
    let before = project.key();
    project.write("bin/interp", "#!/bin/sh\necho two\n");
    let interpreter = project.key();
    assert_ne!(interpreter, before, "a new interpreter misses");
    project.write("bin/tool", "#!/usr/bin/env -S interp --flag\nrun again\n");
    assert_ne!(project.key(), interpreter, "a new program misses");
}

/// A file rewritten while a verifier runs changes the fingerprint, even when it ends with the
/// content it had: the tool may have read it in between.
#[test]
fn a_rewrite_changes_the_fingerprint_but_not_the_key() {
    let project = Project::new();
    project.age_all();
    let fingerprint = || {
        Cache::fingerprint(
            &project.workspace,
            &project.inputs,
            &project.spec,
            &project.salt,
        )
        .expect("fingerprint")
    };
    let before = fingerprint();
    assert!(before.unchanged_at(&fingerprint()), "nothing was written");
    let text = fs::read_to_string(project.path("src/index.ts")).expect("reads");
    project.write("src/index.ts", "export const answer: number = 43;\n");
    project.write("src/index.ts", &text);
    let after = fingerprint();
    assert_eq!(after.key, before.key, "the same content has the same key");
    assert!(!before.unchanged_at(&after), "the rewrite is seen");
    // A tool file too.
    let before = fingerprint();
    project.write(
        "node_modules/typescript/package.json",
        "{ \"version\": \"5.9.3\" }\n",
    );
    assert!(!before.unchanged_at(&fingerprint()));
}

#[test]
fn a_new_file_matching_a_glob_misses() {
    check(true, |p| p.write("src/new.ts", "export {};\n"));
    // Hidden files count (`.eslintrc.json`, `.babelrc` are inputs of their tools).
    check(true, |p| p.write("src/.hidden.ts", "export {};\n"));
}

#[test]
fn a_glob_with_a_slash_is_anchored_and_one_without_is_not() {
    // `tsconfig.json` has no slash: gitignore syntax matches it at any depth.
    check(true, |p| p.write("packages/a/tsconfig.json", "{}\n"));
    let mut project = Project::new();
    project.inputs.globs = vec!["/src/*.ts".to_owned()];
    let before = project.key();
    project.write("lib/src/other.ts", "export {};\n");
    project.write("src/util/deeper.ts", "export {};\n");
    assert_eq!(project.key(), before);
    project.write("src/other.ts", "export {};\n");
    assert_ne!(project.key(), before);
}

#[test]
fn a_negated_glob_excludes() {
    let mut project = Project::new();
    project.inputs.globs = vec!["**/*.ts".to_owned(), "!**/*.test.ts".to_owned()];
    let before = project.key();
    project.write("src/index.test.ts", "test('x', () => {});\n");
    assert_eq!(project.key(), before);
}

/// Excluded directories the project does not ignore are skipped whole; a later glob that
/// includes something in them again keeps them in.
#[test]
fn excluded_directories_are_skipped_unless_a_later_glob_includes_again() {
    let mut project = Project::new();
    fs::remove_file(project.path(".gitignore")).expect("removes");
    project.inputs.globs = vec![
        "*.ts".to_owned(),
        "!**/vendor/**".to_owned(),
        "!/dist/**".to_owned(),
    ];
    project.write("vendor/lib.ts", "export {};\n");
    project.write("src/vendor/deep/lib.ts", "export {};\n");
    project.write("dist/out.ts", "export {};\n");
    let before = project.key();
    project.write("vendor/lib.ts", "export const changed = 1;\n");
    project.write("src/vendor/deep/lib.ts", "export const changed = 1;\n");
    project.write("dist/out.ts", "export const changed = 1;\n");
    assert_eq!(project.key(), before);
    // `!/dist/**` is anchored: another `dist/` still counts.
    project.write("src/dist/out.ts", "export {};\n");
    assert_ne!(project.key(), before);

    let mut project = Project::new();
    project.inputs.globs = vec![
        "*.ts".to_owned(),
        "!**/vendor/**".to_owned(),
        "vendor/keep/*.ts".to_owned(),
    ];
    project.write("vendor/keep/a.ts", "export {};\n");
    let before = project.key();
    project.write("vendor/other/b.ts", "export {};\n");
    assert_eq!(project.key(), before);
    project.write("vendor/keep/a.ts", "export const changed = 1;\n");
    assert_ne!(project.key(), before);
}

#[test]
fn deleting_or_renaming_an_input_misses() {
    check(true, |p| {
        fs::remove_file(p.path("src/util/math.ts")).expect("removes")
    });
    check(true, |p| {
        fs::rename(p.path("src/util/math.ts"), p.path("src/math.ts")).expect("renames")
    });
}

#[test]
fn a_changed_command_misses() {
    check(true, |p| p.spec.args.push("--strict".to_owned()));
    check(true, |p| {
        p.spec.env.insert(
            "NODE_OPTIONS".to_owned(),
            "--max-old-space-size=4096".to_owned(),
        );
    });
    check(true, |p| p.spec.cwd = p.path("src"));
    check(true, |p| p.spec.program = PathBuf::from("tsc"));
    check(true, |p| p.spec.exit_codes.pass.push(2));
    // Moving an argument to another position is another command.
    check(true, |p| p.spec.args.swap(0, 1));
}

#[test]
fn the_time_out_and_the_run_id_do_not_count() {
    check(false, |p| p.spec.timeout = Duration::from_secs(5));
    // Each run has its own directory, named in the command's output options.
    let set_run = |p: &mut Project, id: &str| {
        let run_dir = p.path(&format!(".verdict/runs/{id}"));
        let output = run_dir.join("jest.json");
        p.workspace = p.workspace.clone().with_run_dir(&run_dir);
        p.spec.args = vec![
            "--json".to_owned(),
            format!("--outputFile={}", output.display()),
        ];
        p.spec.env = BTreeMap::from([("REPORT_DIR".to_owned(), run_dir.display().to_string())]);
        p.spec.output_files = vec![output];
    };
    let mut project = Project::new();
    set_run(&mut project, "2026-11-22T03-00-00-1");
    let first = project.key();
    set_run(&mut project, "2026-11-22T04-30-00-22");
    assert_eq!(project.key(), first);
}

#[test]
fn a_changed_salt_or_tool_file_misses() {
    check(true, |p| p.salt.push_str("\nstrict = true"));
    check(true, |p| {
        p.write(
            "node_modules/typescript/package.json",
            "{ \"version\": \"5.9.4\" }\n",
        )
    });
    check(true, |p| {
        fs::remove_file(p.path("node_modules/typescript/package.json")).expect("removes")
    });
    // An absent tool file counts as absent, and appearing is a change.
    let mut project = Project::new();
    project
        .inputs
        .tool_files
        .push(PathBuf::from("package-lock.json"));
    let before = project.key();
    project.write("package-lock.json", "{}\n");
    assert_ne!(project.key(), before);
}

#[test]
fn a_changed_symlink_target_misses() {
    let project = Project::new();
    project.write("shared/a.ts", "export const a = 1;\n");
    project.write("shared/b.ts", "export const b = 2;\n");
    let link = project.path("src/link.ts");
    std::os::unix::fs::symlink("../shared/a.ts", &link).expect("links");
    let before = project.key();
    assert_eq!(project.key(), before);
    fs::remove_file(&link).expect("removes");
    std::os::unix::fs::symlink("../shared/b.ts", &link).expect("links");
    assert_ne!(project.key(), before);
}

#[test]
fn a_fifo_matching_a_glob_is_not_read() {
    check(true, |p| {
        let status = std::process::Command::new("mkfifo")
            .arg(p.path("src/pipe.ts"))
            .status()
            .expect("runs mkfifo");
        assert!(status.success());
    });
}

#[test]
fn unchanged_old_files_come_from_the_stat_cache() {
    let project = Project::new();
    project.age_all();
    let (cold, stats) = project.key_with_stats();
    // Three project files (tsconfig.json, two .ts) and the tool file.
    assert_eq!(
        (stats.files, stats.hashed, stats.from_stat_cache),
        (3, 4, 0)
    );
    assert!(stats.stat_cache_written);
    let (warm, stats) = project.key_with_stats();
    assert_eq!(warm, cold);
    assert_eq!(
        (stats.files, stats.hashed, stats.from_stat_cache),
        (3, 0, 4)
    );
    assert!(
        !stats.stat_cache_written,
        "nothing changed, nothing written"
    );
    // The same key without any stat cache.
    let (plain, stats) = Cache::key_with_stats(
        &project.workspace,
        &project.inputs,
        &project.spec,
        &project.salt,
        None,
    )
    .expect("key");
    assert_eq!(plain, cold);
    assert_eq!(stats.hashed, 4);
}

#[test]
fn a_tool_file_listed_twice_does_not_rewrite_the_stat_cache() {
    let mut project = Project::new();
    project
        .inputs
        .tool_files
        .push(PathBuf::from("node_modules/typescript/package.json"));
    project.age_all();
    let (cold, stats) = project.key_with_stats();
    assert!(stats.stat_cache_written);
    let (warm, stats) = project.key_with_stats();
    assert_eq!(warm, cold);
    assert!(!stats.stat_cache_written);
    assert_eq!(stats.hashed, 0);
}

#[test]
fn files_edited_just_now_are_read_again_every_time() {
    let project = Project::new();
    project.age_all();
    let _ = project.key();
    project.write("src/index.ts", "export const answer: number = 43;\n");
    let (_, stats) = project.key_with_stats();
    assert_eq!((stats.hashed, stats.from_stat_cache), (1, 3));
    // Still within the racy window: not trusted yet, read again.
    let (_, stats) = project.key_with_stats();
    assert_eq!((stats.hashed, stats.from_stat_cache), (1, 3));
}

/// The "racy git" case: an edit of the same size within the same timestamp tick as the hash that
/// was taken of the file must not look unchanged.
#[test]
fn a_racy_same_size_edit_within_the_same_second_misses() {
    let project = Project::new();
    let tick = SystemTime::now();
    project.write("src/index.ts", "export const answer: number = 42;\n");
    project.set_mtime("src/index.ts", tick);
    let before = project.key();
    // Same size, same modification time: what a file system with one-second timestamps shows
    // for an edit within the same second.
    project.write("src/index.ts", "export const answer: number = 24;\n");
    project.set_mtime("src/index.ts", tick);
    assert_ne!(project.key(), before);
}

/// An edit that puts back the old size and modification time is caught by the change time.
#[test]
fn an_edit_restoring_an_old_mtime_misses() {
    let project = Project::new();
    project.age_all();
    let before = project.key();
    let old = fs::metadata(project.path("src/index.ts"))
        .and_then(|m| m.modified())
        .expect("mtime");
    project.write("src/index.ts", "export const answer: number = 24;\n");
    project.set_mtime("src/index.ts", old);
    assert_ne!(project.key(), before);
}

#[test]
fn a_damaged_stat_cache_is_ignored() {
    let project = Project::new();
    project.age_all();
    let key = project.key();
    let stat_dir = verdict_core::paths::cache(project.root()).join("files");
    let mut damaged = 0;
    for entry in fs::read_dir(&stat_dir).expect("stat dir") {
        let path = entry.expect("entry").path();
        let mut bytes = fs::read(&path).expect("reads");
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0xff;
        fs::write(&path, bytes).expect("writes");
        damaged += 1;
    }
    assert_eq!(damaged, 1);
    let (again, stats) = project.key_with_stats();
    assert_eq!(again, key);
    assert_eq!((stats.hashed, stats.from_stat_cache), (4, 0));
}

#[test]
fn an_invalid_glob_is_an_error_not_a_key() {
    let mut project = Project::new();
    project.inputs.globs.push("src/[z-a].ts".to_owned());
    let result = Cache::key_with_stats(
        &project.workspace,
        &project.inputs,
        &project.spec,
        &project.salt,
        None,
    );
    assert!(result.is_err(), "{result:?}");
}

#[test]
fn only_passes_are_stored_and_looked_up_by_key() {
    let project = Project::new();
    let cache = project.cache();
    let key = project.key();
    assert_eq!(cache.lookup("tsc", &key), None);
    assert!(
        !cache.dir().join("tsc.pass.json").exists(),
        "entries are created on the first store"
    );

    let mut failed = Report::new("tsc", Outcome::Failed);
    failed.summary = Some("Found 1 error.".to_owned());
    let refused = cache.store_pass("tsc", &key, &failed);
    assert_eq!(
        refused.map_err(|e| e.kind()),
        Err(std::io::ErrorKind::InvalidInput)
    );
    assert!(
        cache
            .store_pass("tsc", &key, &Report::errored("tsc", "crashed"))
            .is_err()
    );
    assert_eq!(cache.lookup("tsc", &key), None);

    cache
        .store_pass("tsc", &key, &passed("ok"))
        .expect("stores");
    assert_eq!(cache.lookup("tsc", &key), Some(passed("ok")));
    // Another verifier, another key: misses.
    assert_eq!(cache.lookup("eslint", &key), None);
    project.write("src/index.ts", "export const answer = 1;\n");
    assert_eq!(cache.lookup("tsc", &project.key()), None);

    cache.forget("tsc").expect("forgets");
    assert_eq!(cache.lookup("tsc", &key), None);
    cache.forget("tsc").expect("forgetting twice is fine");
}

#[test]
fn the_last_report_is_kept_whatever_its_outcome() {
    let project = Project::new();
    let cache = project.cache();
    assert_eq!(cache.last("jest"), None);
    let mut failed = Report::new("jest", Outcome::Failed);
    failed.summary = Some("Tests: 1 failed, 3 passed, 4 total".to_owned());
    cache.store_last("jest", &failed).expect("stores");
    assert_eq!(cache.last("jest"), Some(failed));
    cache.store_last("jest", &passed("all")).expect("stores");
    assert_eq!(cache.last("jest"), Some(passed("all")));
    // Forgetting the pass keeps the last report.
    cache.forget("jest").expect("forgets");
    assert_eq!(cache.last("jest"), Some(passed("all")));
}

#[test]
fn a_corrupt_or_foreign_entry_is_a_miss() {
    let project = Project::new();
    let cache = project.cache();
    let key = project.key();
    cache
        .store_pass("tsc", &key, &passed("ok"))
        .expect("stores");
    cache.store_last("tsc", &passed("ok")).expect("stores");
    let entries: Vec<PathBuf> = fs::read_dir(cache.dir())
        .expect("cache dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    assert_eq!(entries.len(), 2, "{entries:?}");
    let pass = cache.dir().join("tsc.pass.json");
    let original = fs::read_to_string(&pass).expect("reads");

    for damaged in [
        String::new(),
        original[..original.len() / 2].to_owned(),
        "not json at all".to_owned(),
        original.replace("\"passed\"", "\"failed\""),
        original.replace(&key.to_string(), &"0".repeat(64)),
        original.replace("\"format\":1", "\"format\":999"),
        original.replace("\"verifier\":\"tsc\"", "\"verifier\":\"eslint\""),
    ] {
        assert_ne!(damaged, original);
        fs::write(&pass, &damaged).expect("writes");
        assert_eq!(cache.lookup("tsc", &key), None, "{damaged}");
    }
    fs::write(cache.dir().join("tsc.last.json"), "{").expect("writes");
    assert_eq!(cache.last("tsc"), None);
    // An entry that is a directory is unreadable: a miss too.
    fs::remove_file(&pass).expect("removes");
    fs::create_dir(&pass).expect("creates");
    assert_eq!(cache.lookup("tsc", &key), None);
}

#[test]
fn verifier_names_unsafe_in_file_names_are_kept_apart() {
    let project = Project::new();
    let cache = project.cache();
    let key = project.key();
    let names = [
        "tsc",
        "../tsc",
        "a/b",
        "a%2Fb",
        "..",
        "",
        "lint: säkerhet",
        &"x".repeat(400),
        &"x".repeat(401),
    ];
    for (i, name) in names.iter().enumerate() {
        cache
            .store_pass(name, &key, &passed(&i.to_string()))
            .expect("stores");
    }
    for (i, name) in names.iter().enumerate() {
        assert_eq!(
            cache.lookup(name, &key),
            Some(passed(&i.to_string())),
            "{name}"
        );
    }
    // Everything stayed inside the cache directory.
    assert!(!project.path(".verdict/tsc.pass.json").exists());
    for entry in fs::read_dir(cache.dir()).expect("cache dir") {
        let entry = entry.expect("entry");
        assert!(entry.file_type().expect("type").is_file() || entry.file_name() == "files");
    }
}

/// Readers never see a half-written entry while writers replace it, in threads here as in two
/// verdict processes.
#[test]
fn concurrent_writers_and_readers_see_whole_entries() {
    let project = Project::new();
    let cache = project.cache();
    let key = project.key();
    cache.store_pass("tsc", &key, &passed("0")).expect("stores");
    cache.store_last("tsc", &passed("0")).expect("stores");
    std::thread::scope(|scope| {
        for writer in 0..3 {
            let cache = cache.clone();
            scope.spawn(move || {
                for i in 0..150 {
                    let summary = format!("{writer}-{i}-{}", "x".repeat(i * 20));
                    cache
                        .store_pass("tsc", &key, &passed(&summary))
                        .expect("stores");
                    cache.store_last("tsc", &passed(&summary)).expect("stores");
                }
            });
        }
        for _ in 0..2 {
            let cache = cache.clone();
            scope.spawn(move || {
                for _ in 0..300 {
                    assert!(cache.lookup("tsc", &key).is_some());
                    assert!(cache.last("tsc").is_some());
                }
            });
        }
    });
    // No temporary files are left behind.
    let leftovers: Vec<_> = fs::read_dir(cache.dir())
        .expect("cache dir")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// `Cache::key`, what the pipeline calls, keeps its stat cache in the workspace's cache directory.
#[test]
fn the_pipeline_key_uses_the_workspace_stat_cache() {
    let project = Project::new();
    project.age_all();
    let key = Cache::key(
        &project.workspace,
        &project.inputs,
        &project.spec,
        &project.salt,
    )
    .expect("key");
    assert!(
        verdict_core::paths::cache(project.root())
            .join("files")
            .is_dir()
    );
    let (again, stats) = project.key_with_stats();
    assert_eq!(again, key);
    assert_eq!((stats.hashed, stats.from_stat_cache), (0, 4));
}

#[test]
fn keys_display_as_hex() {
    let project = Project::new();
    let text = project.key().to_string();
    assert_eq!(text.len(), 64);
    assert!(text.bytes().all(|b| b.is_ascii_hexdigit()));
}

/// A package of a monorepo imports its siblings: with `Inputs::root` at the monorepo's root, an
/// edit in a sibling package misses; without it, the package's own files are all that count.
#[test]
fn a_sibling_package_counts_when_the_globs_walk_from_the_monorepo_root() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mono = dir.path();
    for (file, text) in [
        (
            "packages/a/src/a.test.js",
            "require('../../b/src/val.js');\n",
        ),
        ("packages/b/src/val.js", "module.exports = { B: 1 };\n"),
    ] {
        let path = mono.join(file);
        fs::create_dir_all(path.parent().expect("has a parent")).expect("creates dirs");
        fs::write(path, text).expect("writes");
    }
    let package = mono.join("packages/a");
    let workspace = Workspace::new(&package);
    let spec = CommandSpec {
        program: PathBuf::from("jest"),
        args: Vec::new(),
        env: BTreeMap::new(),
        cwd: package.clone(),
        timeout: Duration::from_secs(60),
        exit_codes: ExitCodes {
            pass: vec![0],
            fail: vec![1],
        },
        output_files: Vec::new(),
    };
    let key = |root: Option<&Path>| {
        let inputs = Inputs {
            globs: vec!["*".to_owned()],
            tool_files: Vec::new(),
            root: root.map(Path::to_path_buf),
        };
        Cache::key_with_stats(&workspace, &inputs, &spec, "salt", None)
            .expect("key")
            .0
    };
    let (alone, whole) = (key(None), key(Some(mono)));
    fs::write(
        mono.join("packages/b/src/val.js"),
        "module.exports = { B: 2 };\n",
    )
    .expect("writes");
    assert_eq!(
        key(None),
        alone,
        "the package alone does not see its sibling"
    );
    assert_ne!(key(Some(mono)), whole, "the monorepo's walk sees the edit");
}
