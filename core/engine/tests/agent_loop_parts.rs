//! The retry loop's pure parts over real data: classification of reports parsed from real captured
//! logs, failure sets, policies and decisions, retry prompts (snapshots and the token bound over
//! generated histories), and the cheating guard over real `git diff` output from temporary repos.

use crate::support::repo;

use std::path::{Path, PathBuf};
use std::time::Duration;

use repo::Repo;

use verdict_core::agent_loop::classify::{
    Category, Classification, FailureSet, classify, flaky, flaky_failures,
};
use verdict_core::agent_loop::guard::{Guard, Sources, ViolationKind, as_verification};
use verdict_core::agent_loop::policy::{
    AttemptRecord, DEFAULTS, Decision, LoopConfig, Policies, PolicyError, RecoveryAction,
    RepeatAction, decide, parse_duration,
};
use verdict_core::agent_loop::prompt::{
    BaselineFound, EarlierAttempt, OVERHEAD_TOKENS, PreviousAttempt, RetryPrompt, first_prompt,
    retry_prompt, token_bound,
};
use verdict_core::digest::{self, tokens};
use verdict_core::{Kind, Report, Status, Verification};

// ---------------------------------------------------------------------------------------------
// Helpers

fn testdata(tool: &str, case: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../summarizers/testdata")
        .join(tool)
        .join(format!("{case}.log"))
}

/// A verification whose report is parsed by the real summarizer from a real captured log.
fn parsed(tool: &str, case: &str, verifier: &str) -> Verification {
    let path = testdata(tool, case);
    let log = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let summarizer = verdict_summarizers::by_name(tool).expect("known summarizer");
    let report = summarizer.parse(&log);
    verification(verifier, summarizer.kind(), report)
}

fn verification(verifier: &str, kind: Kind, report: Report) -> Verification {
    Verification {
        verifier: verifier.to_owned(),
        kind,
        status: Status::Ran,
        report,
        command: None,
        log: None,
        duration: Duration::ZERO,
        notes: Vec::new(),
    }
}

fn errored(verifier: &str, kind: Kind, reason: &str) -> Verification {
    verification(verifier, kind, Report::errored(verifier, reason))
}

fn check_class(verifications: &[Verification], category: Category, min_confidence: f32) {
    let c = classify(verifications);
    assert_eq!(c.category, category, "{c:?}");
    assert!(
        c.confidence >= min_confidence && c.confidence <= 1.0,
        "confidence {} below {min_confidence}: {c:?}",
        c.confidence
    );
}

// ---------------------------------------------------------------------------------------------
// Classification

#[test]
fn tsc_errors_are_a_code_error_located_at_the_first_root_cause_or_error() {
    let tsc = parsed("tsc", "many-errors-plain", "tsc");
    assert_eq!(tsc.outcome(), verdict_core::Outcome::Failed);
    let c = classify(std::slice::from_ref(&tsc));
    assert_eq!(c.category, Category::CodeError);
    assert!(c.confidence >= 0.85, "{c:?}");
    let location = c.main_location.expect("a location");
    let (file, line) = location.rsplit_once(':').expect("file:line");
    assert!(file.ends_with(".ts"), "{location}");
    assert!(line.parse::<u32>().is_ok(), "{location}");
    assert!(c.summary.starts_with("tsc failed: "), "{}", c.summary);
}

#[test]
fn failing_tests_lint_and_their_mixtures_are_classified_by_what_explains_the_rest() {
    let jest = parsed("jest", "failing", "jest");
    let eslint = parsed("eslint", "many-problems", "eslint");
    let tsc = parsed("tsc", "one-error-pretty", "tsc");
    let pytest = parsed("pytest", "failing", "pytest");
    check_class(std::slice::from_ref(&jest), Category::TestFailure, 0.8);
    check_class(std::slice::from_ref(&pytest), Category::TestFailure, 0.8);
    check_class(std::slice::from_ref(&eslint), Category::Lint, 0.85);
    // A build error explains failing tests and lint: it is named, with less certainty.
    let mixed = [eslint.clone(), jest.clone(), tsc];
    let c = classify(&mixed);
    assert_eq!(c.category, Category::CodeError);
    assert!(c.confidence < 0.85, "{c:?}");
    assert_eq!(c.summary.matches("; ").count(), 2, "{}", c.summary);
    // Tests explain lint.
    check_class(&[eslint, jest], Category::TestFailure, 0.7);
}

#[test]
fn missing_modules_alone_are_a_missing_dependency_and_among_other_errors_are_not() {
    let pytest = parsed("pytest", "collect-errors", "pytest");
    // Three collection errors: a missing module, a KeyError, a syntax error.
    check_class(std::slice::from_ref(&pytest), Category::TestFailure, 0.8);
    let mut only_missing = pytest.clone();
    only_missing.report.diagnostics.retain(|d| {
        d.message.contains("No module named")
            || d.detail
                .as_deref()
                .is_some_and(|t| t.contains("No module named"))
    });
    assert_eq!(
        only_missing.report.diagnostics.len(),
        1,
        "{:?}",
        pytest.report.diagnostics
    );
    check_class(&[only_missing], Category::DependencyMissing, 0.7);
}

#[test]
fn errored_reasons_decide_timeouts_resources_dependencies_and_transient_failures() {
    let jest = parsed("jest", "failing", "jest");
    let cases = [
        (
            "jest timed out after 90s and was stopped",
            Category::Timeout,
        ),
        ("jest was killed by signal 9", Category::ResourceExhaustion),
        (
            "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
            Category::ResourceExhaustion,
        ),
        (
            "ENOSPC: No space left on device, write",
            Category::ResourceExhaustion,
        ),
        (
            "eslint is not installed: run `npm install`",
            Category::DependencyMissing,
        ),
        (
            "Error: Cannot find module 'vitest/config'",
            Category::DependencyMissing,
        ),
        (
            "failed to start pytest: No such file or directory",
            Category::DependencyMissing,
        ),
        (
            "request to registry failed: ECONNRESET",
            Category::Transient,
        ),
    ];
    for (reason, category) in cases {
        let alone = classify(&[errored("other", Kind::Custom, reason)]);
        assert_eq!(alone.category, category, "{reason}: {alone:?}");
        // Beside a verifier that merely failed, the errored one's reason decides.
        let verifications = [jest.clone(), errored("other", Kind::Custom, reason)];
        let c = classify(&verifications);
        assert_eq!(c.category, category, "{reason}: {c:?}");
        assert!(c.summary.contains("other errored"), "{}", c.summary);
    }
    // An errored verifier for a reason verdict does not recognise: unknown alone; beside failing
    // tests, the tests decide.
    let config = errored(
        "tsc",
        Kind::Type,
        "tsconfig.json: Unknown compiler option 'strictest'",
    );
    check_class(std::slice::from_ref(&config), Category::Unknown, 0.5);
    check_class(&[jest.clone(), config], Category::TestFailure, 0.7);
    // A crashed tool's own errored report parsed from a real log (jest with a bad config) is not a
    // code or test failure.
    let bad = parsed("jest", "bad-config", "jest");
    assert_eq!(bad.outcome(), verdict_core::Outcome::Errored);
    let c = classify(std::slice::from_ref(&bad));
    assert!(
        !matches!(c.category, Category::CodeError | Category::TestFailure),
        "{c:?}"
    );
}

#[test]
fn classifying_a_pass_invents_no_failure() {
    let passing = parsed("jest", "passing", "jest");
    let c = classify(&[passing]);
    assert_eq!(
        c,
        Classification {
            category: Category::Unknown,
            confidence: 0.0,
            main_location: None,
            summary: "nothing failed".to_owned(),
        }
    );
}

// ---------------------------------------------------------------------------------------------
// Failure sets

#[test]
fn failure_sets_ignore_lines_and_tell_new_failures_from_known_ones() {
    let tsc = parsed("tsc", "many-errors-plain", "tsc");
    let set = FailureSet::from_verifications(std::slice::from_ref(&tsc));
    assert!(!set.is_empty());
    // The same errors a few lines further down are the same failures.
    let mut moved = tsc.clone();
    for d in &mut moved.report.diagnostics {
        d.line = d.line.map(|l| l + 7);
        d.refresh_fingerprint();
    }
    assert!(FailureSet::from_verifications(&[moved]).same_as(&set));
    // One error fixed, a new one made.
    let mut next = tsc.clone();
    let fixed = next.report.diagnostics.remove(0);
    let mut new = fixed.clone();
    new.message = "Property 'total' does not exist on type 'Cart'.".to_owned();
    new.code = Some("TS2339".to_owned());
    new.refresh_fingerprint();
    next.report.diagnostics.push(new.clone());
    let next_set = FailureSet::from_verifications(&[next]);
    assert!(!next_set.same_as(&set));
    let fresh = next_set.new_since(&set);
    assert_eq!(fresh.len(), 1);
    assert!(fresh.contains(new.fingerprint));
    assert_eq!(next_set.known_in(&set).len(), next_set.len() - 1);
    // Under --new-failures-only only the new one blocks.
    assert_eq!(next_set.blocking(Some(&set), true), fresh);
    assert_eq!(next_set.blocking(Some(&set), false), next_set);
    assert_eq!(next_set.blocking(None, true), next_set);
    // Sets serialize (for the state database) and come back equal.
    let json = serde_json::to_string(&next_set).expect("serializes");
    let back: FailureSet = serde_json::from_str(&json).expect("deserializes");
    assert_eq!(back, next_set);
}

#[test]
fn errored_verifiers_are_failures_that_ignore_digits_and_warnings_are_not() {
    let a =
        FailureSet::from_verifications(&[errored("jest", Kind::Test, "jest timed out after 90s")]);
    let b =
        FailureSet::from_verifications(&[errored("jest", Kind::Test, "jest timed out after 91s")]);
    let c = FailureSet::from_verifications(&[errored(
        "vitest",
        Kind::Test,
        "vitest timed out after 90s",
    )]);
    assert_eq!(a.len(), 1);
    assert!(a.same_as(&b));
    assert!(!a.same_as(&c));
    let warnings = parsed("eslint", "warnings-only", "eslint");
    assert_eq!(warnings.outcome(), verdict_core::Outcome::Passed);
    assert!(FailureSet::from_verifications(&[warnings]).is_empty());
}

#[test]
fn a_failure_that_comes_and_goes_without_a_change_is_flaky() {
    let jest = parsed("jest", "failing", "jest");
    let first = FailureSet::from_verifications(std::slice::from_ref(&jest));
    let mut fewer = jest.clone();
    fewer.report.diagnostics.truncate(1);
    let rerun = FailureSet::from_verifications(&[fewer]);
    assert!(first.len() > 1, "the fixture has several failures");
    assert!(flaky(&first, &rerun));
    assert_eq!(flaky_failures(&first, &rerun).len(), first.len() - 1);
    assert!(!flaky(&first, &first.clone()));
    // A failure that appears with no change since a pass.
    assert!(flaky(&FailureSet::default(), &rerun));
}

// ---------------------------------------------------------------------------------------------
// Policies and decisions

fn record(number: u32, category: Category, failures: &FailureSet, no_op: bool) -> AttemptRecord {
    AttemptRecord {
        number,
        category,
        failures: failures.clone(),
        no_op,
    }
}

fn class(category: Category) -> Classification {
    Classification {
        category,
        confidence: 0.9,
        main_location: None,
        summary: format!("{category} summary"),
    }
}

fn failures(seed: &str) -> FailureSet {
    FailureSet::from_verifications(&[errored("t", Kind::Custom, seed)])
}

#[test]
fn the_embedded_defaults_are_complete_and_follow_the_seeds() {
    assert!(DEFAULTS.contains("# "), "the defaults file is commented");
    let p = Policies::defaults();
    assert_eq!(p.max_attempts, 3);
    assert_eq!(p.on_repeat, RepeatAction::Escalate);
    assert!(!p.new_failures_only);
    for category in Category::ALL {
        let policy = p.policy(category);
        assert!(!policy.guidance.is_empty(), "{category}");
        assert!(policy.max_attempts >= 1, "{category}");
        assert!(!policy.delays.is_empty(), "{category}");
        assert_eq!(Category::from_name(category.as_str()), Some(category));
    }
    let transient = p.policy(Category::Transient);
    assert_eq!(transient.delay(1), Duration::from_secs(30));
    assert_eq!(transient.delay(2), Duration::from_secs(120));
    assert_eq!(transient.delay(9), Duration::from_secs(300));
    assert_eq!(p.policy(Category::CodeError).refresh_after, 3);
    assert_eq!(p.policy(Category::Timeout).max_attempts, 2);
    assert_eq!(parse_duration("500ms"), Some(Duration::from_millis(500)));
    assert_eq!(parse_duration("1h"), Some(Duration::from_secs(3600)));
    assert_eq!(parse_duration("soon"), None);
    assert_eq!(parse_duration("5"), None);
}

#[test]
fn a_loop_table_is_laid_over_the_defaults_key_by_key() {
    let p = Policies::from_toml(
        r#"
        max_attempts = 5
        on_repeat = "block"
        new_failures_only = true
        protected = [".github/**"]
        agents = ["claude", "codex exec {prompt}"]
        escalate_command = ["notify-send", "verdict"]

        [policy.lint]
        action = "block"

        [policy.transient]
        delays = ["1s"]
        "#,
    )
    .expect("valid");
    assert_eq!(p.max_attempts, 5);
    assert_eq!(p.on_repeat, RepeatAction::Block);
    assert!(p.new_failures_only);
    assert_eq!(p.protected, [".github/**"]);
    assert_eq!(p.agents.len(), 2);
    assert_eq!(p.policy(Category::Lint).action, RecoveryAction::Block);
    // Keys not given keep their defaults.
    assert_eq!(p.policy(Category::Lint).max_attempts, 5);
    assert_eq!(
        p.policy(Category::Transient).delays,
        [Duration::from_secs(1)]
    );
    assert_eq!(p.policy(Category::Transient).max_attempts, 3);
}

#[test]
fn mistakes_in_the_loop_table_are_errors_that_name_the_key() {
    let error = |text: &str| match Policies::from_toml(text) {
        Ok(p) => panic!("accepted: {text}\n{p:?}"),
        Err(e) => e.to_string(),
    };
    let unknown_key = error("[policy.lint]\nmax_attempt = 2");
    assert!(unknown_key.contains("max_attempt"), "{unknown_key}");
    let unknown_category = error("[policy.lints]\nmax_attempts = 2");
    assert!(unknown_category.contains("lints"), "{unknown_category}");
    let bad_delay = error("[policy.timeout]\ndelays = [\"soon\"]");
    assert!(
        bad_delay.contains("policy.timeout.delays") && bad_delay.contains("soon"),
        "{bad_delay}"
    );
    let zero = error("max_attempts = 0");
    assert!(
        zero.contains("max_attempts") && zero.contains("at least 1"),
        "{zero}"
    );
    let empty = error("[policy.lint]\ndelays = []");
    assert!(empty.contains("policy.lint.delays"), "{empty}");
    let action = error("[policy.lint]\naction = \"pray\"");
    assert!(action.contains("pray"), "{action}");
    assert!(matches!(
        Policies::from_toml("on_repeat = 3"),
        Err(PolicyError::Parse(_))
    ));
    // The [loop] table of a whole verdict.toml, as its reader keeps it (a toml::Table).
    let file: toml::Table = toml::from_str(
        "[run]\njobs = 2\n\n[loop]\nmax_attempts = 4\n[loop.policy.flaky]\nmax_attempts = 1\n",
    )
    .expect("toml");
    let table = file["loop"].as_table().expect("a table").clone();
    let p = Policies::with_config(&LoopConfig::from_table(table).expect("valid")).expect("valid");
    assert_eq!(
        (p.max_attempts, p.policy(Category::Flaky).max_attempts),
        (4, 1)
    );
    let bad: toml::Table = toml::from_str(
        "max_attempts = 4
retries = 2",
    )
    .expect("toml");
    assert!(LoopConfig::from_table(bad).is_err_and(|e| e.to_string().contains("retries")));
    let config = LoopConfig::from_toml("session_failures = \"retry\"").expect("valid");
    assert_eq!(
        Policies::with_config(&config)
            .expect("valid")
            .session_failures,
        verdict_core::agent_loop::policy::SessionFailures::Retry
    );
}

#[test]
fn decisions_follow_attempts_categories_and_repeats() {
    let p = Policies::defaults();
    let (one, two, three) = (failures("one"), failures("two"), failures("three"));

    // Attempt 1 failed to build: retry at once with the policy's guidance.
    let h1 = [record(1, Category::CodeError, &one, false)];
    match decide(&h1, &class(Category::CodeError), &p) {
        Decision::Retry {
            delay,
            guidance,
            refresh,
            last,
        } => {
            assert_eq!(delay, Duration::ZERO);
            assert_eq!(guidance, p.policy(Category::CodeError).guidance);
            assert!(!refresh);
            assert!(!last, "attempt 2 of 3 is not the last");
        }
        other => panic!("{other:?}"),
    }
    // Attempt 2 failed differently: attempt 3 is the last.
    let h2 = [h1[0].clone(), record(2, Category::CodeError, &two, false)];
    assert!(matches!(
        decide(&h2, &class(Category::CodeError), &p),
        Decision::Retry { last: true, .. }
    ));
    // Attempt 3 failed: exhausted.
    let h3 = [
        h2[0].clone(),
        h2[1].clone(),
        record(3, Category::CodeError, &three, false),
    ];
    let d = decide(&h3, &class(Category::CodeError), &p);
    assert_eq!(d.name(), "exhausted", "{d:?}");

    // The same failures twice: escalate instead of spending attempt 3.
    let same = [h1[0].clone(), record(2, Category::CodeError, &one, false)];
    assert!(matches!(
        decide(&same, &class(Category::CodeError), &p),
        Decision::Escalate { ref reason, command: None } if reason.contains("attempt 2") && reason.contains("attempt 1")
    ));
    // … or as configured.
    let retrying =
        Policies::from_toml("on_repeat = \"retry\"\nescalate_command = [\"page\"]").expect("valid");
    assert_eq!(
        decide(&same, &class(Category::CodeError), &retrying).name(),
        "retry"
    );
    let blocking = Policies::from_toml("on_repeat = \"block\"").expect("valid");
    assert_eq!(
        decide(&same, &class(Category::CodeError), &blocking).name(),
        "block"
    );

    // A no-op is said plainly once; two in a row are the same failure.
    let noop = [h1[0].clone(), record(2, Category::CodeError, &one, true)];
    assert_eq!(
        decide(&noop, &class(Category::CodeError), &p).name(),
        "retry"
    );
    let five = Policies::from_toml("max_attempts = 5").expect("valid");
    let noops = [
        h1[0].clone(),
        record(2, Category::CodeError, &one, true),
        record(3, Category::CodeError, &one, true),
    ];
    assert_eq!(
        decide(&noops, &class(Category::CodeError), &five).name(),
        "escalate"
    );
}

#[test]
fn category_policies_bound_attempts_and_set_delays_refreshes_and_actions() {
    let five = Policies::from_toml("max_attempts = 5").expect("valid");
    // Timeouts: two in a run exhaust it, however many attempts are left.
    let t = [
        record(1, Category::Timeout, &failures("a"), false),
        record(2, Category::Timeout, &failures("b"), false),
    ];
    assert_eq!(
        decide(&t, &class(Category::Timeout), &five).name(),
        "exhausted"
    );
    // Transient: the delays of the seed.
    let tr = [record(1, Category::Transient, &failures("a"), false)];
    assert!(matches!(
        decide(&tr, &class(Category::Transient), &five),
        Decision::Retry { delay, .. } if delay == Duration::from_secs(30)
    ));
    let tr2 = [
        tr[0].clone(),
        record(2, Category::Transient, &failures("b"), false),
    ];
    assert!(matches!(
        decide(&tr2, &class(Category::Transient), &five),
        Decision::Retry { delay, .. } if delay == Duration::from_secs(120)
    ));
    // The third code error asks for a re-read of the requirements (seed 004).
    let code: Vec<AttemptRecord> = (1..=3)
        .map(|n| {
            record(
                n,
                Category::CodeError,
                &failures(&"abc"[..n as usize]),
                false,
            )
        })
        .collect();
    assert!(matches!(
        decide(&code[..2], &class(Category::CodeError), &five),
        Decision::Retry { refresh: false, .. }
    ));
    assert!(matches!(
        decide(&code, &class(Category::CodeError), &five),
        Decision::Retry {
            refresh: true,
            last: false,
            ..
        }
    ));
    // Configured actions.
    let p = Policies::from_toml(
        "escalate_command = [\"page\", \"--team\"]\n[policy.dependency_missing]\naction = \"escalate\"\n[policy.lint]\naction = \"refresh_requirements\"",
    )
    .expect("valid");
    let dep = [record(
        1,
        Category::DependencyMissing,
        &failures("a"),
        false,
    )];
    assert!(matches!(
        decide(&dep, &class(Category::DependencyMissing), &p),
        Decision::Escalate { command: Some(ref argv), .. } if argv == &["page", "--team"]
    ));
    let lint = [record(1, Category::Lint, &failures("a"), false)];
    assert!(matches!(
        decide(&lint, &class(Category::Lint), &p),
        Decision::Retry { refresh: true, .. }
    ));
}

// ---------------------------------------------------------------------------------------------
// Prompts

const TASK: &str = "Add a `total()` method to `Cart` in src/cart.ts that sums the price of every \
item times its quantity, and make the tests in src/cart.test.ts pass.";

fn real_digest(tool: &str, case: &str, budget: usize) -> String {
    let log = std::fs::read(testdata(tool, case)).expect("testdata");
    let report = verdict_summarizers::by_name(tool)
        .expect("known")
        .parse(&log);
    let input = digest::Input {
        report: &report,
        log: Some(".verdict/logs/x.log"),
    };
    digest::render(&[input], &digest::Options::new(budget)).text
}

#[test]
fn the_first_prompt_is_the_task_alone_when_the_baseline_passed() {
    assert_eq!(first_prompt(TASK, None), TASK);
    let empty = BaselineFound {
        digest: "  ",
        known: false,
        digest_budget: 500,
    };
    assert_eq!(first_prompt(TASK, Some(&empty)), TASK);
}

#[test]
fn the_first_prompt_carries_what_the_baseline_found_within_its_bound() {
    for budget in [500, 120, 40] {
        let digest = real_digest("tsc", "one-error-pretty", budget);
        for known in [false, true] {
            let baseline = BaselineFound {
                digest: &digest,
                known,
                digest_budget: budget,
            };
            let prompt = first_prompt(TASK, Some(&baseline));
            assert!(prompt.starts_with(TASK), "{prompt}");
            assert!(
                prompt.contains("VERIFICATION BEFORE ANY CHANGE"),
                "{prompt}"
            );
            assert_eq!(
                prompt.contains("do not count against it"),
                known,
                "{prompt}"
            );
            let bound = tokens::count(TASK) + budget + OVERHEAD_TOKENS;
            assert!(tokens::count(&prompt) <= bound, "{budget}: {prompt}");
        }
    }
    // The digest itself is in it, whole when it fits.
    let digest = real_digest("tsc", "one-error-pretty", 500);
    let baseline = BaselineFound {
        digest: &digest,
        known: false,
        digest_budget: 500,
    };
    assert!(first_prompt(TASK, Some(&baseline)).contains(digest.trim()));
}

#[test]
fn retry_prompt_after_one_failed_attempt() {
    let digest = real_digest("tsc", "one-error-pretty", 500);
    let prompt = retry_prompt(&RetryPrompt {
        task: TASK,
        previous: PreviousAttempt {
            number: 1,
            digest: &digest,
            no_op: false,
        },
        earlier: &[],
        human_guidance: None,
        policy_guidance: Some(&Policies::defaults().policy(Category::CodeError).guidance),
        refresh: false,
        attempt: 2,
        max_attempts: 3,
        digest_budget: 500,
    });
    assert!(prompt.starts_with(TASK), "the task comes first and whole");
    assert!(prompt.contains(&digest));
    insta::assert_snapshot!(prompt);
}

#[test]
fn retry_prompt_for_the_last_attempt_with_history_guidance_and_refresh() {
    // A digest with some of its budget to spare: one that fills it leaves the prompt's overhead
    // no room for the history, whose oldest lines go first.
    let digest = real_digest("jest", "failing", 470);
    let earlier = [EarlierAttempt {
        number: 1,
        summary: "tsc failed: 2 errors".to_owned(),
        no_op: false,
    }];
    let prompt = retry_prompt(&RetryPrompt {
        task: TASK,
        previous: PreviousAttempt {
            number: 2,
            digest: &digest,
            no_op: false,
        },
        earlier: &earlier,
        human_guidance: Some("Prices are in cents; do not use floats."),
        policy_guidance: Some(&Policies::defaults().policy(Category::TestFailure).guidance),
        refresh: true,
        attempt: 3,
        max_attempts: 3,
        digest_budget: 500,
    });
    assert!(prompt.contains("the last one"));
    assert!(prompt.contains("- attempt 1: tsc failed: 2 errors"));
    insta::assert_snapshot!(prompt);
}

#[test]
fn retry_prompt_after_an_attempt_that_changed_nothing() {
    let digest = real_digest("pytest", "failing", 300);
    let earlier = [
        EarlierAttempt {
            number: 1,
            summary: "pytest failed: 3 failed".to_owned(),
            no_op: false,
        },
        EarlierAttempt {
            number: 2,
            summary: "pytest failed: 2 failed".to_owned(),
            no_op: false,
        },
    ];
    let prompt = retry_prompt(&RetryPrompt {
        task: "Make the failing tests in tests/ pass without changing them.",
        previous: PreviousAttempt {
            number: 3,
            digest: &digest,
            no_op: true,
        },
        earlier: &earlier,
        human_guidance: None,
        policy_guidance: None,
        refresh: false,
        attempt: 4,
        max_attempts: 5,
        digest_budget: 300,
    });
    assert!(prompt.contains("Attempt 3 changed nothing"));
    insta::assert_snapshot!(prompt);
}

/// A small deterministic generator, so that the bound is checked over the same histories each run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % below.max(1)
    }

    /// Between `plus` and `below + plus - 1` words.
    fn words(&mut self, below: u64, plus: u64) -> String {
        let n = self.next(below) + plus;
        self.text(n)
    }

    fn text(&mut self, words: u64) -> String {
        const WORDS: &[&str] = &[
            "cart",
            "total",
            "src/cart.ts:14:3",
            "TS2345",
            "expected",
            "received",
            "→",
            "✗",
            "`price`",
            "{ id: string }",
            "λ",
            "日本語",
            "\u{1F600}",
            "::",
            "assert",
            "==",
            "\t",
            "quantity",
            "0.1 + 0.2",
            "failed",
            "\n",
        ];
        (0..words)
            .map(|_| WORDS[self.next(WORDS.len() as u64) as usize])
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[test]
fn retry_prompts_never_exceed_the_task_the_digest_budget_and_the_overhead() {
    let logs = [
        ("tsc", "many-errors-plain"),
        ("jest", "failing"),
        ("eslint", "many-problems"),
        ("pytest", "failing-verbose"),
        ("cargo", "build-errors"),
    ];
    let mut rng = Lcg(42);
    let mut checked = 0;
    for round in 0..150u64 {
        let budget = [40, 120, 300, 500, 900][round as usize % 5];
        let (tool, case) = logs[rng.next(logs.len() as u64) as usize];
        // Real digests within the budget, and raw text far over it (a caller's mistake is clipped).
        let digest = if testdata(tool, case).exists() && round % 3 != 0 {
            real_digest(tool, case, budget)
        } else {
            rng.words(3 * budget as u64, 1)
        };
        let task = rng.words(400, 1);
        let earlier: Vec<EarlierAttempt> = (0..rng.next(12))
            .map(|n| EarlierAttempt {
                number: n as u32 + 1,
                summary: rng.words(80, 0),
                no_op: rng.next(5) == 0,
            })
            .collect();
        let human = (rng.next(3) == 0).then(|| rng.words(60, 1));
        let guidance = (rng.next(4) != 0).then(|| rng.words(120, 0));
        let attempt = earlier.len() as u32 + 2;
        let input = RetryPrompt {
            task: &task,
            previous: PreviousAttempt {
                number: attempt - 1,
                digest: &digest,
                no_op: rng.next(4) == 0,
            },
            earlier: &earlier,
            human_guidance: human.as_deref(),
            policy_guidance: guidance.as_deref(),
            refresh: rng.next(2) == 0,
            attempt,
            max_attempts: attempt + rng.next(2) as u32,
            digest_budget: budget,
        };
        let prompt = retry_prompt(&input);
        let bound = token_bound(&input);
        assert_eq!(
            bound,
            tokens::count(&task)
                + budget
                + OVERHEAD_TOKENS
                + human.as_deref().map_or(0, tokens::count)
        );
        let used = tokens::count(&prompt);
        assert!(used <= bound, "round {round}: {used} > {bound}\n{prompt}");
        assert!(
            prompt.starts_with(task.trim_end()),
            "round {round}: task first"
        );
        assert!(prompt.contains(&format!(
            "PREVIOUS ATTEMPT {} FAILED VERIFICATION",
            attempt - 1
        )));
        assert!(prompt.contains("finish the task"));
        if let Some(human) = &human {
            assert!(
                prompt.contains(human.trim()),
                "round {round}: human guidance whole"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 150);
}

// ---------------------------------------------------------------------------------------------
// The cheating guard, over real `git diff` output

/// `(kind, file, line)` of each violation in the attempt of `repo`.
fn violations(guard: &Guard, repo: &Repo) -> Vec<(ViolationKind, Option<String>, Option<u32>)> {
    repo.check(guard, None)
        .into_iter()
        .map(|v| {
            let expected_at = match (&v.file, v.line) {
                (Some(f), Some(l)) => format!("{f}:{l}"),
                (Some(f), None) => f.clone(),
                _ => String::new(),
            };
            assert!(v.message.starts_with(&expected_at), "{v:?}");
            (v.kind, v.file, v.line)
        })
        .collect()
}

const CART_TEST: &str = r#"const { Cart } = require("./cart");

describe("cart", () => {
  it("starts empty", () => {
    expect(new Cart().items).toEqual([]);
  });

  it("adds items", () => {
    expect(new Cart().add("a").items.length).toBe(1);
  });

  test("totals prices", () => {
    expect(new Cart().add("a", 3).total()).toBe(3);
  });
});
"#;

#[test]
fn guard_catches_removed_and_skipped_javascript_tests() {
    let repo = Repo::new(&[
        ("src/cart.test.js", CART_TEST),
        ("src/cart.js", "// cart\n"),
    ]);
    let cheated = CART_TEST
        .replace(
            "  it(\"adds items\", () => {\n    expect(new Cart().add(\"a\").items.length).toBe(1);\n  });\n\n",
            "",
        )
        .replace("test(\"totals prices\"", "test.skip(\"totals prices\"")
        .replace("it(\"starts empty\"", "it.only(\"starts empty\"");
    repo.write(&[("src/cart.test.js", &cheated)]);
    let found = violations(&Guard::new::<&str>(&[]).expect("guard"), &repo);
    let file = Some("src/cart.test.js".to_owned());
    assert_eq!(
        found,
        [
            (ViolationKind::SkipAdded, file.clone(), Some(4)),
            (ViolationKind::TestRemoved, file.clone(), Some(8)),
            (ViolationKind::SkipAdded, file.clone(), Some(8)),
        ],
        "the removed test is at line 8 of the old file; the markers at lines 4 and 8 of the new one"
    );
}

#[test]
fn guard_catches_deleted_and_renamed_python_test_files_and_skip_markers() {
    let test_a = "import pytest\n\n\ndef test_one():\n    assert 1 == 1\n\n\ndef test_two():\n    assert 2 == 2\n";
    let repo = Repo::new(&[
        ("tests/test_a.py", test_a),
        ("tests/test_b.py", "def test_b():\n    assert False\n"),
        ("tests/test_c.py", "def test_c():\n    assert False\n"),
        ("shop/cart.py", "TOTAL = 0\n"),
    ]);
    repo.write(&[(
        "tests/test_a.py",
        "import pytest\n\n\n@pytest.mark.skip(reason=\"later\")\ndef test_one():\n    assert 1 == 1\n",
    )]);
    repo.remove("tests/test_b.py");
    repo.git(&["mv", "tests/test_c.py", "tests/old_c.py"]);
    let found = violations(&Guard::new::<&str>(&[]).expect("guard"), &repo);
    assert_eq!(
        found,
        [
            (
                ViolationKind::SkipAdded,
                Some("tests/test_a.py".to_owned()),
                Some(4)
            ),
            (
                ViolationKind::TestRemoved,
                Some("tests/test_a.py".to_owned()),
                Some(8)
            ),
            (
                ViolationKind::TestFileRemoved,
                Some("tests/test_b.py".to_owned()),
                None
            ),
            (
                ViolationKind::TestFileRemoved,
                Some("tests/test_c.py".to_owned()),
                None
            ),
        ]
    );
}

#[test]
fn guard_catches_removed_and_ignored_rust_tests() {
    let lib = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n        assert_eq!(super::add(1, 2), 3);\n    }\n\n    #[test]\n    fn adds_negatives() {\n        assert_eq!(super::add(-1, -2), -3);\n    }\n}\n";
    let repo = Repo::new(&[("src/lib.rs", lib)]);
    let cheated = lib
        .replace("    #[test]\n    fn adds_negatives() {\n        assert_eq!(super::add(-1, -2), -3);\n    }\n", "")
        .replace("    #[test]\n    fn adds() {", "    #[test]\n    #[ignore]\n    fn adds() {");
    repo.write(&[("src/lib.rs", &cheated)]);
    let found = violations(&Guard::new::<&str>(&[]).expect("guard"), &repo);
    let file = Some("src/lib.rs".to_owned());
    assert_eq!(
        found,
        [
            (ViolationKind::SkipAdded, file.clone(), Some(8)),
            (ViolationKind::TestRemoved, file.clone(), Some(12)),
        ]
    );
}

#[test]
fn guard_reports_changes_under_protected_globs() {
    let repo = Repo::new(&[
        (".github/workflows/ci.yml", "on: push\n"),
        ("tests/fixtures/data.json", "{\"a\": 1}\n"),
        ("src/main.py", "print(1)\n"),
    ]);
    repo.write(&[
        (".github/workflows/ci.yml", "on: push\njobs: {}\n"),
        ("src/main.py", "print(2)\n"),
    ]);
    repo.remove("tests/fixtures/data.json");
    let guard = Guard::new(&[".github/**", "tests/fixtures/**"]).expect("guard");
    let found = violations(&guard, &repo);
    assert_eq!(
        found,
        [
            (
                ViolationKind::ProtectedChanged,
                Some(".github/workflows/ci.yml".to_owned()),
                Some(2)
            ),
            (
                ViolationKind::ProtectedChanged,
                Some("tests/fixtures/data.json".to_owned()),
                Some(1)
            ),
        ]
    );
    assert!(Guard::new(&["src/[a"]).is_err_and(|e| e.to_string().contains("src/[a")));
}

#[test]
fn honest_changes_raise_nothing() {
    let py = "def test_one():\n    assert total([1]) == 1\n\n\ndef test_two():\n    assert total([]) == 0\n";
    let repo = Repo::new(&[
        ("src/cart.test.js", CART_TEST),
        ("tests/test_cart.py", py),
        ("tests/test_more.py", "def test_more():\n    assert True\n"),
        (
            "tests/test_rename.py",
            "def test_renamed():\n    assert True\n",
        ),
        ("tests/test_old.py", "def test_moved():\n    assert True\n"),
        ("src/cart.js", "module.exports = {};\n"),
        ("docs/my file é.md", "notes\n"),
    ]);
    // Fix the code, reword an assertion, re-indent a test, move a Python test to another test file,
    // rename a test file to another test file's name, edit a file with an unusual name, and keep an
    // existing skip marker as it was.
    repo.write(&[
        ("src/cart.js", "class Cart {}\nmodule.exports = { Cart };\n"),
        (
            "src/cart.test.js",
            &CART_TEST
                .replace("toBe(3)", "toEqual(3)")
                .replace("  it(\"starts empty\"", "    it(\"starts empty\""),
        ),
        (
            "tests/test_cart.py",
            "def test_one():\n    assert total([1]) == 1\n",
        ),
        (
            "tests/test_more.py",
            "def test_more():\n    assert True\n\n\ndef test_two():\n    assert total([]) == 0\n",
        ),
        (
            "tests/test_moved.py",
            "def test_moved():\n    assert True\n",
        ),
        ("docs/my file é.md", "more notes\n"),
    ]);
    repo.git(&["mv", "tests/test_rename.py", "tests/test_extra.py"]);
    // A test file deleted whose tests all reappear in a new file is a move, even when git does not
    // pair the two as a rename.
    repo.remove("tests/test_old.py");
    let diff = repo.diff();
    assert!(diff.contains("rename to tests/test_extra.py"), "{diff}");
    let guard = Guard::new(&[".github/**"]).expect("guard");
    assert_eq!(violations(&guard, &repo), []);
}

#[test]
fn guard_reports_fewer_tests_than_the_baseline() {
    let baseline = parsed("jest", "failing", "jest");
    let before = baseline.report.counts.tests_passed.unwrap_or(0)
        + baseline.report.counts.tests_failed.unwrap_or(0);
    assert!(before > 1, "the fixture ran several tests");
    let mut current = baseline.clone();
    current.report.outcome = verdict_core::Outcome::Passed;
    current.report.counts.tests_failed = Some(0);
    current.report.counts.tests_passed = Some(before - 1);
    let guard = Guard::new::<&str>(&[]).expect("guard");
    let none = Sources::new();
    let found = guard.check(
        Some(std::slice::from_ref(&baseline)),
        &[current.clone()],
        "",
        &none,
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].kind, ViolationKind::FewerTests);
    assert!(
        found[0].message.contains(&format!(
            "{} tests ran, {before} in the baseline",
            before - 1
        )),
        "{}",
        found[0].message
    );
    // As many tests as before: nothing.
    current.report.counts.tests_passed = Some(before);
    assert!(
        guard
            .check(Some(&[baseline]), &[current], "", &none)
            .is_empty()
    );
}

#[test]
fn guard_catches_emptied_tests_and_its_reasons_are_a_failed_verification() {
    let repo = Repo::new(&[
        ("src/cart.test.js", CART_TEST),
        ("src/cart.js", "// cart\n"),
    ]);
    let emptied = CART_TEST.replace(
        "    expect(new Cart().add(\"a\", 3).total()).toBe(3);\n",
        "    // checked by hand\n",
    );
    repo.write(&[("src/cart.test.js", &emptied)]);
    let guard = Guard::new::<&str>(&[]).expect("guard");
    // Read whole, the test is an empty body (at its definition); from the diff's lines alone
    // (its text not handed over), an assertion removed from its file.
    let diff = repo.diff();
    let only_diff = guard.check(None, &[], &diff, &Sources::new());
    assert_eq!(only_diff.len(), 1, "{only_diff:?}");
    assert_eq!(only_diff[0].kind, ViolationKind::AssertionsRemoved);
    assert_eq!(only_diff[0].line, Some(13));
    let found = repo.check(&guard, None);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].kind, ViolationKind::EmptyBody);
    assert_eq!(found[0].line, Some(12));
    // As a failed verification: in failure sets, classified as a test failure, shown in the digest.
    let verification = as_verification(&found).expect("a violation");
    assert_eq!(verification.outcome(), verdict_core::Outcome::Failed);
    let set = FailureSet::from_verifications(std::slice::from_ref(&verification));
    assert_eq!(set.len(), 1);
    assert_eq!(
        classify(std::slice::from_ref(&verification)).category,
        Category::TestFailure
    );
    let input = digest::Input {
        report: &verification.report,
        log: None,
    };
    let text = digest::render(&[input], &digest::Options::default()).text;
    assert!(
        text.contains("src/cart.test.js:12")
            && text.contains(
                "test \"totals prices\" can no longer fail: its body is reduced to nothing"
            )
            && text.contains("the task forbids making tests pass by changing them"),
        "{text}"
    );
    assert!(as_verification(&[]).is_none());
}

#[test]
fn a_long_history_keeps_the_newest_earlier_attempts_within_the_bound() {
    let digest = real_digest("tsc", "one-error-pretty", 200);
    let earlier: Vec<EarlierAttempt> = (1..=12)
        .map(|n| EarlierAttempt {
            number: n,
            summary: format!(
                "tsc failed: {n} errors in src/cart.ts, src/checkout.ts and src/pricing/rules.ts"
            ),
            no_op: false,
        })
        .collect();
    let input = RetryPrompt {
        task: TASK,
        previous: PreviousAttempt {
            number: 13,
            digest: &digest,
            no_op: false,
        },
        earlier: &earlier,
        human_guidance: None,
        policy_guidance: Some("Fix the first error first."),
        refresh: false,
        attempt: 14,
        max_attempts: 20,
        digest_budget: 200,
    };
    let prompt = retry_prompt(&input);
    assert!(tokens::count(&prompt) <= token_bound(&input));
    assert!(prompt.contains("- attempt 12: "), "{prompt}");
    assert!(
        !prompt.contains("- attempt 1: "),
        "the oldest goes first: {prompt}"
    );
    assert!(prompt.contains("Fix the first error first."), "{prompt}");
    assert!(prompt.contains(&digest), "the digest is whole: {prompt}");
}
