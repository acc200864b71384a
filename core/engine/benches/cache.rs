//! How long computing a cache key takes — the cost of a fully cached `verdict run` is mostly this.
//!
//! Two generated TypeScript-like trees (200 and 5 000 files of about 1.5 KiB, in nested
//! directories, with an ignored `dist/` beside them), each keyed *cold* (no stat cache: every file
//! is read and hashed, and the stat cache written) and *warm* (the stat cache from the previous
//! run is valid: files are only `stat`ed). Files are aged an hour so that the stat cache trusts
//! them, as it trusts files nobody edited in the last seconds.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use verdict_core::cache::Cache;
use verdict_core::verifier::{CommandSpec, ExitCodes, Inputs, Workspace};

/// A generated project and what a verifier would key on.
struct Tree {
    _dir: tempfile::TempDir,
    workspace: Workspace,
    inputs: Inputs,
    spec: CommandSpec,
    stat_dir: PathBuf,
}

impl Tree {
    fn new(files: usize) -> Tree {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().to_path_buf();
        let hour_ago = SystemTime::now() - Duration::from_secs(3600);
        let write = |relative: &str, content: &str| {
            let path = root.join(relative);
            fs::create_dir_all(path.parent().expect("parent")).expect("dirs");
            fs::write(&path, content).expect("writes");
            fs::File::options()
                .write(true)
                .open(&path)
                .and_then(|file| file.set_modified(hour_ago))
                .expect("ages");
        };
        write(".gitignore", "dist/\nnode_modules/\n");
        write(
            "tsconfig.json",
            "{ \"compilerOptions\": { \"strict\": true } }\n",
        );
        write("package.json", "{ \"name\": \"bench\" }\n");
        write(
            "node_modules/typescript/package.json",
            "{ \"version\": \"5.9.3\" }\n",
        );
        for i in 0..files {
            // 20 files per directory, directories two levels deep.
            let relative = format!("src/m{}/d{}/file{i}.ts", i / 400, (i / 20) % 20);
            let body = format!("export function f{i}(x: number): number {{ return x + {i}; }}\n")
                .repeat(24);
            write(&relative, &body);
            if i % 10 == 0 {
                write(&format!("dist/file{i}.js"), "module.exports = {};\n");
            }
        }
        let workspace = Workspace::new(&root).with_run_dir(root.join(".verdict/runs/bench"));
        let spec = CommandSpec {
            program: root.join("node_modules/.bin/tsc"),
            args: vec![
                "--noEmit".to_owned(),
                "-p".to_owned(),
                "tsconfig.json".to_owned(),
            ],
            env: BTreeMap::new(),
            cwd: root.clone(),
            timeout: Duration::from_secs(600),
            exit_codes: ExitCodes {
                pass: vec![0],
                fail: vec![1, 2],
            },
            output_files: Vec::new(),
        };
        Tree {
            stat_dir: root.join(".verdict/cache/files"),
            _dir: dir,
            workspace,
            inputs: Inputs {
                globs: vec![
                    "**/*.ts".to_owned(),
                    "tsconfig.json".to_owned(),
                    "package.json".to_owned(),
                ],
                tool_files: vec![PathBuf::from("node_modules/typescript/package.json")],
                root: None,
            },
            spec,
        }
    }

    fn key(&self, stat_dir: &Path) -> usize {
        let (_, stats) = Cache::key_with_stats(
            &self.workspace,
            &self.inputs,
            &self.spec,
            "bench",
            Some(stat_dir),
        )
        .expect("key");
        stats.hashed
    }
}

fn keys(c: &mut Criterion) {
    for files in [200, 5_000] {
        let tree = Tree::new(files);
        let mut group = c.benchmark_group(format!("key/{files}-files"));
        if files > 1_000 {
            group.sample_size(20);
        }
        group.bench_function("cold", |b| {
            b.iter_batched(
                || {
                    let _ = fs::remove_dir_all(&tree.stat_dir);
                },
                |()| tree.key(&tree.stat_dir),
                BatchSize::PerIteration,
            )
        });
        // One run to fill the stat cache; then no file is read.
        tree.key(&tree.stat_dir);
        assert_eq!(tree.key(&tree.stat_dir), 0, "the warm run read files");
        group.bench_function("warm", |b| b.iter(|| tree.key(&tree.stat_dir)));
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(5));
    targets = keys
}
criterion_main!(benches);
