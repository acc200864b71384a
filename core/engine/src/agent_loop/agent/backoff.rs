//! Backoff as data: a [`BackoffPolicy`], the [`Backoff`] iterator of delays it yields, and the
//! [`Clock`] that does the sleeping (so that tests can count waits instead of waiting).

use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;

/// How long to wait before retrying a transient agent failure (seed 002).
///
/// A wait the agent printed (`retry-after`) is used as is, clamped to
/// `min_retry_after..=max_retry_after`; otherwise the wait grows exponentially from `initial` by
/// `multiplier` up to `max`, each delay moved by up to ± `jitter` (a fraction) so that several
/// loops hitting one provider do not retry in step.
#[derive(Debug, Clone, PartialEq)]
pub struct BackoffPolicy {
    /// The first fallback delay.
    pub initial: Duration,
    /// The growth factor between fallback delays.
    pub multiplier: f64,
    /// The largest fallback delay.
    pub max: Duration,
    /// The fraction by which a fallback delay is moved at random, up or down (0.0–1.0).
    pub jitter: f64,
    /// The shortest printed retry-after honoured.
    pub min_retry_after: Duration,
    /// The longest printed retry-after honoured.
    pub max_retry_after: Duration,
    /// The seed of the jitter; `None` draws one from the clock.
    pub seed: Option<u64>,
}

impl Default for BackoffPolicy {
    /// 1 s doubling to 60 s with ± 20 % jitter; retry-after clamped to 1–60 s.
    fn default() -> Self {
        BackoffPolicy {
            initial: Duration::from_secs(1),
            multiplier: 2.0,
            max: Duration::from_secs(60),
            jitter: 0.2,
            min_retry_after: Duration::from_secs(1),
            max_retry_after: Duration::from_secs(60),
            seed: None,
        }
    }
}

impl BackoffPolicy {
    /// The fallback delays, first to last (endless: the caller bounds the retries).
    pub fn delays(&self) -> Backoff {
        let seed = self.seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0x9e37_79b9)
        });
        Backoff {
            policy: self.clone(),
            next: self.initial.min(self.max),
            rng: seed,
        }
    }

    /// A printed retry-after, clamped to the policy's bounds.
    pub fn clamp_retry_after(&self, retry_after: Duration) -> Duration {
        retry_after.clamp(
            self.min_retry_after,
            self.max_retry_after.max(self.min_retry_after),
        )
    }
}

/// The iterator of fallback delays of a [`BackoffPolicy`].
#[derive(Debug, Clone)]
pub struct Backoff {
    policy: BackoffPolicy,
    next: Duration,
    rng: u64,
}

impl Backoff {
    /// A uniform number in [0, 1) (splitmix64: small, fast, good enough for jitter).
    fn uniform(&mut self) -> f64 {
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

impl Iterator for Backoff {
    type Item = Duration;

    fn next(&mut self) -> Option<Duration> {
        let base = self.next;
        self.next = base
            .mul_f64(self.policy.multiplier.max(1.0))
            .min(self.policy.max);
        let jitter = self.policy.jitter.clamp(0.0, 1.0);
        let factor = 1.0 + jitter * (2.0 * self.uniform() - 1.0);
        Some(base.mul_f64(factor).min(self.policy.max))
    }
}

/// What sleeps between retries: [`TokioClock`] really waits; [`RecordingClock`] notes the wait and
/// returns at once (tests, dry runs).
#[async_trait]
pub trait Clock: Send + Sync {
    /// Waits for `duration`.
    async fn sleep(&self, duration: Duration);
}

/// The [`Clock`] that really sleeps (`tokio::time::sleep`).
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioClock;

#[async_trait]
impl Clock for TokioClock {
    async fn sleep(&self, duration: Duration) {
        tokio::time::sleep(duration).await;
    }
}

/// A [`Clock`] that records each wait and does not sleep.
#[derive(Debug, Default)]
pub struct RecordingClock {
    sleeps: Mutex<Vec<Duration>>,
}

impl RecordingClock {
    /// A clock with no waits recorded.
    pub fn new() -> RecordingClock {
        RecordingClock::default()
    }

    /// The waits asked for so far, in order.
    pub fn sleeps(&self) -> Vec<Duration> {
        self.sleeps
            .lock()
            .map(|sleeps| sleeps.clone())
            .unwrap_or_default()
    }
}

#[async_trait]
impl Clock for RecordingClock {
    async fn sleep(&self, duration: Duration) {
        if let Ok(mut sleeps) = self.sleeps.lock() {
            sleeps.push(duration);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exponential_within_jitter_and_capped() {
        let policy = BackoffPolicy {
            seed: Some(7),
            ..BackoffPolicy::default()
        };
        let delays: Vec<Duration> = policy.delays().take(9).collect();
        let bases = [1u64, 2, 4, 8, 16, 32, 60, 60, 60];
        for (delay, base) in delays.iter().zip(bases) {
            let base = Duration::from_secs(base);
            assert!(
                *delay >= base.mul_f64(0.8) && *delay <= base.mul_f64(1.2).min(policy.max),
                "{delay:?} vs {base:?}"
            );
        }
        // Jitter really moves the delays, and a seed makes them repeatable.
        assert!(delays.iter().any(|d| d.subsec_nanos() != 0));
        assert_eq!(delays, policy.delays().take(9).collect::<Vec<_>>());
        let plain = BackoffPolicy {
            jitter: 0.0,
            ..policy.clone()
        };
        assert_eq!(
            plain.delays().take(3).collect::<Vec<_>>(),
            [1, 2, 4].map(Duration::from_secs)
        );
    }

    #[test]
    fn retry_after_is_clamped() {
        let policy = BackoffPolicy::default();
        assert_eq!(
            policy.clamp_retry_after(Duration::ZERO),
            Duration::from_secs(1)
        );
        assert_eq!(
            policy.clamp_retry_after(Duration::from_secs(7)),
            Duration::from_secs(7)
        );
        assert_eq!(
            policy.clamp_retry_after(Duration::from_secs(3600)),
            Duration::from_secs(60)
        );
    }
}
