//! The prompt of an attempt, built from what the run recorded: the first one with what the
//! baseline found, a retry with the last failure's digest, the earlier attempts and the guidance.

use super::judge::digest_of;
use super::run::Driver;
use crate::agent_loop::prompt::{
    BaselineFound, EarlierAttempt, PreviousAttempt, RetryPrompt, first_prompt, retry_prompt,
};
use crate::model::Outcome;

impl Driver<'_> {
    /// The prompt of attempt `number`, of `of` the run may make now.
    pub(super) fn prompt(&self, number: u32, of: u32) -> String {
        let Some((previous, digest, no_op)) = &self.progress.last_failure else {
            return self.first_prompt();
        };
        let spec = self.spec;
        let scheduled = self.progress.scheduled.clone().unwrap_or_default();
        let earlier: Vec<EarlierAttempt> = self
            .progress
            .earlier
            .iter()
            .filter(|e| e.number != *previous)
            .cloned()
            .collect();
        let human: Option<String> = match (&spec.guidance, &scheduled.human) {
            (Some(a), Some(b)) => Some(format!("{a}\n{b}")),
            (Some(a), None) => Some(a.clone()),
            (None, Some(b)) => Some(b.clone()),
            (None, None) => None,
        };
        retry_prompt(&RetryPrompt {
            task: &spec.task,
            previous: PreviousAttempt {
                number: *previous,
                digest,
                no_op: *no_op,
            },
            earlier: &earlier,
            human_guidance: human.as_deref(),
            policy_guidance: Some(scheduled.guidance.as_str()).filter(|g| !g.is_empty()),
            refresh: scheduled.refresh,
            attempt: number,
            max_attempts: of,
            digest_budget: spec.digest_budget,
        })
    }

    /// The first prompt, with what the baseline found: rebuilt from its stored reports, so that a
    /// resumed run writes the same first prompt.
    fn first_prompt(&self) -> String {
        let spec = self.spec;
        let digest = self
            .progress
            .baseline
            .as_ref()
            .filter(|b| b.outcome != Outcome::Passed)
            .and_then(|_| self.progress.baseline_verifications())
            .map(|verifications| digest_of(&verifications, spec.digest_budget, &spec.root).text);
        let baseline = digest.as_deref().map(|digest| BaselineFound {
            digest,
            known: spec.policies.new_failures_only,
            digest_budget: spec.digest_budget,
        });
        first_prompt(&spec.task, baseline.as_ref())
    }
}
