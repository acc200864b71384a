//! The prompts an agent receives: the task for attempt 1 (with what the verification of the
//! untouched workspace found, when it failed), then the retry prompt.
//!
//! A retry prompt (issue 4, item 2) is, in this order:
//!
//! ```text
//! <the original task, first and whole>
//!
//! PREVIOUS ATTEMPT 2 FAILED VERIFICATION
//! <the digest of attempt 2's verification>
//!
//! EARLIER ATTEMPTS
//! - attempt 1: tsc failed: 3 errors
//!
//! GUIDANCE FROM A PERSON
//! <human guidance, when there is some>
//!
//! <the policy's guidance>
//! <"re-read the requirements", when decided>
//! Fix the failures shown above and finish the task. This is attempt 3 of 3, the last one.
//! ```
//!
//! An attempt that changed nothing is said plainly under its heading. **Bound:** a retry prompt has
//! at most `tokens(task) + digest_budget + OVERHEAD_TOKENS + tokens(human guidance)` tokens
//! ([`crate::digest::tokens`]): the digest is clipped to its budget, and what verdict adds around it
//! (headings, the earlier attempts, the policy's guidance, the instruction) shares
//! [`OVERHEAD_TOKENS`] — the oldest earlier attempts go first, then the policy's guidance is cut,
//! never the task, the digest or a person's words.

use crate::digest::tokens;

/// The tokens a retry prompt may add beyond the task, the digest and a person's guidance.
pub const OVERHEAD_TOKENS: usize = 100;

/// The attempt that just failed.
#[derive(Debug, Clone, Copy)]
pub struct PreviousAttempt<'a> {
    /// Its 1-based number.
    pub number: u32,
    /// The digest of its verification (clipped to the prompt's digest budget if longer).
    pub digest: &'a str,
    /// It left the workspace unchanged.
    pub no_op: bool,
}

/// An attempt before the previous one: one line in the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EarlierAttempt {
    /// Its 1-based number.
    pub number: u32,
    /// What failed then, in one short line ([`super::classify::Classification::summary`]).
    pub summary: String,
    /// It left the workspace unchanged.
    pub no_op: bool,
}

/// Everything a retry prompt is made of.
#[derive(Debug, Clone, Copy)]
pub struct RetryPrompt<'a> {
    /// The original task, as the person gave it.
    pub task: &'a str,
    /// The attempt that just failed.
    pub previous: PreviousAttempt<'a>,
    /// The attempts before it, oldest first.
    pub earlier: &'a [EarlierAttempt],
    /// A person's guidance (`--guide`, `--interactive`), given whole.
    pub human_guidance: Option<&'a str>,
    /// The policy's guidance for the failure's category.
    pub policy_guidance: Option<&'a str>,
    /// Ask the agent to re-read the requirements first.
    pub refresh: bool,
    /// The number of the attempt this prompt starts (the run's attempt number, as in its events).
    pub attempt: u32,
    /// The number of the run's last attempt: the attempts allowed, plus one for each interrupted
    /// attempt (which does not count).
    pub max_attempts: u32,
    /// The digest's token budget.
    pub digest_budget: usize,
}

/// What the verification before attempt 1 (the baseline) found, for the first prompt.
#[derive(Debug, Clone, Copy)]
pub struct BaselineFound<'a> {
    /// The digest of the baseline verification.
    pub digest: &'a str,
    /// Its failures are set aside (`new_failures_only`): they do not count against the agent.
    pub known: bool,
    /// The digest's token budget.
    pub digest_budget: usize,
}

/// The prompt of attempt 1: the task, unchanged, and — when the verification of the untouched
/// workspace failed — what it found, under its own heading after the task, so that the agent
/// starts from the same facts its retries will get. Within `tokens(task) + digest_budget +
/// OVERHEAD_TOKENS`, like a retry prompt.
pub fn first_prompt(task: &str, baseline: Option<&BaselineFound<'_>>) -> String {
    let Some(baseline) = baseline.filter(|b| !b.digest.trim().is_empty()) else {
        return task.to_owned();
    };
    let mut digest = tokens::clip(baseline.digest.trim(), baseline.digest_budget).into_owned();
    let bound = tokens::count(task) + baseline.digest_budget + OVERHEAD_TOKENS;
    loop {
        let mut text = String::with_capacity(task.len() + digest.len() + 256);
        text.push_str(task.trim_end());
        text.push_str(
            "

VERIFICATION BEFORE ANY CHANGE
",
        );
        text.push_str(&digest);
        text.push('\n');
        text.push_str(if baseline.known {
            "\nThese failures were there before this task and do not count against it; do not \
             break anything else.\n"
        } else {
            "\nThis is what verification shows now; the task is done when it passes.\n"
        });
        if tokens::count(&text) <= bound || digest.is_empty() {
            return text;
        }
        let now = tokens::count(&digest);
        digest = tokens::clip(&digest, now.saturating_sub(8)).into_owned();
    }
}

/// The most tokens [`retry_prompt`] returns for `prompt`: the bound it is built to.
pub fn token_bound(prompt: &RetryPrompt<'_>) -> usize {
    tokens::count(prompt.task)
        + prompt.digest_budget
        + OVERHEAD_TOKENS
        + prompt.human_guidance.map_or(0, tokens::count)
}

/// Builds the retry prompt; see the module documentation for its layout and bound.
pub fn retry_prompt(prompt: &RetryPrompt<'_>) -> String {
    const SUMMARY_TOKENS: usize = 30;
    let bound = token_bound(prompt);
    let digest = tokens::clip(prompt.previous.digest.trim(), prompt.digest_budget).into_owned();
    let earlier: Vec<String> = prompt
        .earlier
        .iter()
        .map(|a| {
            if a.no_op {
                format!("- attempt {}: changed nothing", a.number)
            } else {
                let summary = tokens::clip(a.summary.trim(), SUMMARY_TOKENS);
                format!("- attempt {}: {summary}", a.number)
            }
        })
        .collect();
    let mut parts = Parts {
        prompt,
        digest,
        earlier: &earlier,
        skip_earlier: 0,
        policy_guidance: prompt
            .policy_guidance
            .map(str::trim)
            .unwrap_or_default()
            .into(),
    };
    let task_tokens = tokens::count(prompt.task.trim_end());
    loop {
        let text = parts.render();
        // The task and what follows it split at a line break, where the tokenizer splits too, so
        // their counts add up; the sum is a cheap first test, and only a text that passes it is
        // counted whole (which decides).
        let rest = &text[prompt.task.trim_end().len()..];
        if task_tokens + tokens::count(rest) <= bound && tokens::count(&text) <= bound {
            return text;
        }
        // Too long: the oldest earlier attempt goes first, then the policy's guidance shrinks.
        if parts.skip_earlier < earlier.len() {
            parts.skip_earlier += 1;
        } else if !parts.policy_guidance.is_empty() {
            let now = tokens::count(&parts.policy_guidance);
            parts.policy_guidance = if now <= 5 {
                String::new()
            } else {
                tokens::clip(&parts.policy_guidance, now / 2).into_owned()
            };
        } else if !parts.digest.is_empty() {
            // Only the fixed text is left besides the task, the digest and a person's words, and it
            // is well within the overhead; what remains over the bound can only come from tokens
            // merging across the joins, so the digest gives way a little.
            let now = tokens::count(&parts.digest);
            parts.digest = tokens::clip(&parts.digest, now.saturating_sub(8)).into_owned();
        } else {
            return text;
        }
    }
}

/// The parts of a retry prompt as they stand while it is fitted to its bound.
struct Parts<'a> {
    prompt: &'a RetryPrompt<'a>,
    digest: String,
    earlier: &'a [String],
    skip_earlier: usize,
    policy_guidance: String,
}

impl Parts<'_> {
    fn render(&self) -> String {
        let p = self.prompt;
        let previous = p.previous.number;
        let mut text = String::with_capacity(p.task.len() + self.digest.len() + 1024);
        text.push_str(p.task.trim_end());
        text.push_str(&format!(
            "\n\nPREVIOUS ATTEMPT {previous} FAILED VERIFICATION\n"
        ));
        if p.previous.no_op {
            text.push_str(&format!(
                "Attempt {previous} changed nothing: no file in the workspace was modified, so \
                 the failures below are still there.\n"
            ));
        }
        text.push_str(&self.digest);
        text.push('\n');
        let earlier = &self.earlier[self.skip_earlier.min(self.earlier.len())..];
        if !earlier.is_empty() {
            text.push_str("\nEARLIER ATTEMPTS\n");
            for line in earlier {
                text.push_str(line);
                text.push('\n');
            }
        }
        if let Some(human) = p.human_guidance.map(str::trim).filter(|h| !h.is_empty()) {
            text.push_str("\nGUIDANCE FROM A PERSON\n");
            text.push_str(human);
            text.push('\n');
        }
        text.push('\n');
        if !self.policy_guidance.is_empty() {
            text.push_str(&self.policy_guidance);
            text.push('\n');
        }
        if p.refresh {
            text.push_str(
                "Re-read the requirements in the task above before changing anything: the \
                 failures suggest they were misunderstood.\n",
            );
        }
        text.push_str(&format!(
            "Fix the failures shown above and finish the task. This is attempt {} of {}",
            p.attempt, p.max_attempts
        ));
        if p.attempt >= p.max_attempts {
            text.push_str(", the last one.");
        } else {
            text.push('.');
        }
        text
    }
}
