//! `verdict run`'s pipeline as the loop's verification: the whole selection, a re-run of some
//! verifiers, and the flaky re-run of the failed tests alone with each tool's own filter.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use async_trait::async_trait;
use verdict_core::Verification;
use verdict_core::agent_loop::driver::{Verify, VerifyError, VerifyRequest};
use verdict_core::cache::Cache;
use verdict_core::model::{Kind, Outcome, Report};
use verdict_core::paths;
use verdict_core::pipeline::{self, Entry};
use verdict_core::process::ProcessRunner;
use verdict_core::verifier::{
    Applicability, Captured, CommandSpec, InfraFile, Infrastructure, Verifier, VerifierError,
    Workspace,
};

use crate::verify::{Cut, Plan, Scope};

/// `verdict run`'s verification path as the loop's verification.
pub(super) struct PipelineVerify {
    pub(super) plan: Plan,
    pub(super) runner: ProcessRunner,
}

#[async_trait]
impl Verify for PipelineVerify {
    async fn verify(&self, request: VerifyRequest) -> Result<Vec<Verification>, VerifyError> {
        let workspace = self
            .plan
            .start()
            .map_err(|e| VerifyError::RunDir(e.into()))?;
        let entries: Vec<Entry> = self
            .plan
            .entries()
            .iter()
            .filter(|e| {
                request
                    .only
                    .as_ref()
                    .is_none_or(|only| only.iter().any(|n| n == e.verifier.name()))
            })
            .map(|e| {
                let mut entry = e.clone();
                // A re-run of some verifiers drops the needs it does not include: they passed.
                if let Some(only) = &request.only {
                    entry.needs.retain(|n| only.contains(n));
                }
                entry
            })
            .collect();
        if request.failed_first {
            return self.failed_only(entries, &workspace).await;
        }
        let scope = Scope {
            cache: true,
            run_all: request.fresh,
            failed_first: false,
        };
        self.pipeline(&entries, &workspace, scope).await
    }

    /// Each planned verifier's infrastructure, read from the plan's workspace (verdict.toml's
    /// commands, no run directory) and from the tree as it is when the loop asks: before the
    /// first attempt, the starting tree.
    fn infrastructure(&self) -> Vec<(String, Infrastructure)> {
        infrastructure(self.plan.entries(), self.plan.workspace())
    }
}

/// The infrastructure of each of `entries`' verifiers in `workspace`, by verifier name. A
/// verifier whose command verdict.toml runs in another directory (`cwd`) has its tool find its
/// config files there: each file it names in the root alone (`jest.config.*`) counts there too.
fn infrastructure(entries: &[Entry], workspace: &Workspace) -> Vec<(String, Infrastructure)> {
    entries
        .iter()
        .map(|entry| {
            let mut infra = entry.verifier.infrastructure(workspace);
            let dir = entry
                .cwd
                .as_deref()
                .and_then(|cwd| cwd.strip_prefix(&workspace.root).ok())
                .map(|dir| dir.to_string_lossy().replace('\\', "/"))
                .filter(|dir| !dir.is_empty() && !dir.starts_with(".."));
            if let Some(dir) = dir {
                let there: Vec<InfraFile> = infra
                    .files
                    .iter()
                    .filter(|file| !file.glob.contains('/'))
                    .map(|file| InfraFile {
                        glob: format!(
                            "{}/{}",
                            verdict_verifier_support::infra::escape(&dir),
                            file.glob
                        ),
                        part: file.part.clone(),
                    })
                    .collect();
                infra.files.extend(there);
            }
            (entry.verifier.name().to_owned(), infra)
        })
        .collect()
}

impl PipelineVerify {
    /// The verification path itself, never cut: Ctrl-C and SIGTERM reach the runner.
    async fn pipeline(
        &self,
        entries: &[Entry],
        workspace: &Workspace,
        scope: Scope,
    ) -> Result<Vec<Verification>, VerifyError> {
        let mut on_event = |_: pipeline::Event<'_>| {};
        let ran = self
            .plan
            .run(
                workspace,
                entries,
                scope,
                &self.runner,
                &mut on_event,
                Cut::never(),
            )
            .await
            .map_err(VerifyError::Pipeline)?;
        let Ok(verifications) = ran;
        Ok(verifications)
    }

    /// The flaky re-run: each verifier runs only the tests that failed in its last run, with the
    /// tool's own filter (`Verifier::rerun_failed`, what `verdict run --failed-first` runs first),
    /// and never in full after it. A verifier with no such filter, or whose filtered run cannot
    /// verify (the filter matched nothing), runs in full. Nothing of it is cached: the next
    /// verification's `--failed-first` and cache see the full runs only.
    async fn failed_only(
        &self,
        entries: Vec<Entry>,
        workspace: &Workspace,
    ) -> Result<Vec<Verification>, VerifyError> {
        let cache = Cache::open(paths::cache(self.plan.root()));
        let uncached = Scope {
            cache: false,
            run_all: true,
            failed_first: false,
        };
        let mut narrowed = Vec::new();
        let entries: Vec<Entry> = entries
            .into_iter()
            .map(|mut entry| {
                let name = entry.verifier.name().to_owned();
                let previous = cache
                    .last(&name)
                    .filter(|report| report.outcome == Outcome::Failed);
                if let Some(previous) = previous
                    && let Some(spec) = entry.verifier.rerun_failed(workspace, &previous)
                {
                    let failed = previous
                        .errors()
                        .filter_map(|d| d.test.as_deref().or(d.file.as_deref()))
                        .collect::<std::collections::BTreeSet<_>>()
                        .len();
                    narrowed.push((name, entry.clone(), failed));
                    entry.verifier = Arc::new(FailedOnly {
                        inner: Arc::clone(&entry.verifier),
                        spec,
                    });
                }
                entry
            })
            .collect();
        let mut verifications = self.pipeline(&entries, workspace, uncached).await?;
        let mut again = Vec::new();
        for verification in &mut verifications {
            let Some((_, full, failed)) =
                narrowed.iter().find(|(n, ..)| *n == verification.verifier)
            else {
                continue;
            };
            let plural = if *failed == 1 { "" } else { "s" };
            if verification.outcome() == Outcome::Errored
                && !self.plan.interrupted().load(Ordering::SeqCst)
            {
                let mut full = full.clone();
                full.needs.clear();
                again.push(full);
            } else {
                verification.notes.push(format!(
                    "re-ran only the {failed} failed test{plural}, with the tool's own filter"
                ));
            }
        }
        if again.is_empty() {
            return Ok(verifications);
        }
        let full = self.pipeline(&again, workspace, uncached).await?;
        for mut run in full {
            run.notes.push(
                "the re-run of the failed tests alone could not verify; ran in full".to_owned(),
            );
            if let Some(slot) = verifications
                .iter_mut()
                .find(|v| v.verifier == run.verifier)
            {
                *slot = run;
            }
        }
        Ok(verifications)
    }
}

/// A verifier narrowed to what failed in its last run: its command is the tool's own filtered
/// re-run; reading the output, its name and kind are the verifier's.
struct FailedOnly {
    inner: Arc<dyn Verifier>,
    spec: CommandSpec,
}

#[async_trait]
impl Verifier for FailedOnly {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn kind(&self) -> Kind {
        self.inner.kind()
    }

    fn applies(&self, workspace: &Workspace) -> Applicability {
        self.inner.applies(workspace)
    }

    fn command(&self, _workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
        Ok(self.spec.clone())
    }

    fn interpret(&self, spec: &CommandSpec, captured: &Captured) -> Report {
        self.inner.interpret(spec, captured)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{registry, run};

    #[test]
    fn the_loop_verification_names_each_planned_verifiers_infrastructure() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join("test")).expect("mkdir");
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"scripts": {"test": "mocha -r ./test/spy.js"}, "devDependencies": {"mocha": "*"}}"#,
        )
        .expect("write");
        std::fs::write(dir.path().join("test/spy.js"), "").expect("write");
        std::fs::write(
            dir.path().join("verdict.toml"),
            "[verifiers.mocha]\ncwd = \"web\"\n",
        )
        .expect("write");
        let (root, config) = run::load_config(Some(dir.path())).expect("config");
        let known = registry::all(&config, &root).expect("registry");
        let only = vec!["mocha".to_owned()];
        let plan = Plan::new(&root, &config, known, &only, &[]).expect("plan");
        let verify = PipelineVerify {
            plan,
            runner: ProcessRunner::new(),
        };
        let infrastructure = verify.infrastructure();
        let names: Vec<&str> = infrastructure.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["mocha"]);
        let globs: Vec<&str> = infrastructure[0]
            .1
            .files
            .iter()
            .map(|f| f.glob.as_str())
            .collect();
        assert!(globs.contains(&".mocharc.json"), "{globs:?}");
        assert!(globs.contains(&"test/spy.js"), "{globs:?}");
        // Run in `web/` by verdict.toml, mocha finds its config there.
        assert!(globs.contains(&"web/.mocharc.json"), "{globs:?}");
        // No run directory is made to read it.
        assert!(!root.join(".verdict/runs").exists());
    }
}
