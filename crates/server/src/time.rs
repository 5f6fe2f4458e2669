//! Time as the server sees it: milliseconds since the Unix epoch, and
//! sleeps until such an instant. Every clock, timer, expiry, connection
//! timeout and rate limit reads this one source, so a test can drive the
//! whole server with [`ManualTime`] and never sleep.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::watch;

/// A sleep returned by a [`TimeSource`].
pub type Sleep = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Where the server's time comes from.
pub trait TimeSource: Send + Sync + 'static {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> u64;
    /// A future that completes once `now_ms() >= at_ms`.
    fn sleep_until(&self, at_ms: u64) -> Sleep;
}

/// The server's time source, cheap to clone.
#[derive(Clone)]
pub struct Time(Arc<dyn TimeSource>);

impl std::fmt::Debug for Time {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Time({})", self.now_ms())
    }
}

impl Default for Time {
    fn default() -> Self {
        Time::system()
    }
}

/// A deadline passed before the work it bounded was done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("timed out")]
pub struct Elapsed;

impl Time {
    /// The operating system's clock.
    pub fn system() -> Time {
        Time(Arc::new(SystemClock))
    }

    /// Any source, e.g. a [`ManualTime`] shared with a test.
    pub fn from_source(source: Arc<dyn TimeSource>) -> Time {
        Time(source)
    }

    /// Milliseconds since the Unix epoch.
    pub fn now_ms(&self) -> u64 {
        self.0.now_ms()
    }

    /// Sleep until the instant `at_ms`.
    pub fn sleep_until(&self, at_ms: u64) -> Sleep {
        self.0.sleep_until(at_ms)
    }

    /// Sleep for `ms` milliseconds.
    pub fn sleep(&self, ms: u64) -> Sleep {
        self.0.sleep_until(self.now_ms().saturating_add(ms))
    }

    /// Run `work`, giving up after `ms` milliseconds.
    pub async fn timeout<F: Future>(&self, ms: u64, work: F) -> Result<F::Output, Elapsed> {
        tokio::select! {
            out = work => Ok(out),
            _ = self.sleep(ms) => Err(Elapsed),
        }
    }
}

/// Rate limiters count on the server's time too (see the `limits` module).
impl governor::clock::Clock for Time {
    type Instant = Duration;
    fn now(&self) -> Duration {
        Duration::from_millis(self.now_ms())
    }
}

struct SystemClock;

impl TimeSource for SystemClock {
    fn now_ms(&self) -> u64 {
        SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
    }

    fn sleep_until(&self, at_ms: u64) -> Sleep {
        let wait = at_ms.saturating_sub(self.now_ms());
        Box::pin(tokio::time::sleep(Duration::from_millis(wait)))
    }
}

/// Time that moves only when told to: tests advance it by hand and every
/// timer of the server fires as if that much time had passed.
///
/// ```
/// use tabula_server::time::{ManualTime, Time};
/// let manual = ManualTime::new(1_000);
/// let time = Time::from_source(manual.clone());
/// manual.advance(500);
/// assert_eq!(time.now_ms(), 1_500);
/// ```
pub struct ManualTime {
    now: watch::Sender<u64>,
}

impl ManualTime {
    /// Time standing at `start_ms`.
    pub fn new(start_ms: u64) -> Arc<ManualTime> {
        Arc::new(ManualTime { now: watch::Sender::new(start_ms) })
    }

    /// Move time forward by `ms` milliseconds, waking every sleep that is due.
    pub fn advance(&self, ms: u64) {
        self.now.send_modify(|t| *t = t.saturating_add(ms));
    }

    /// The current instant.
    pub fn now_ms(&self) -> u64 {
        *self.now.borrow()
    }
}

impl TimeSource for ManualTime {
    fn now_ms(&self) -> u64 {
        *self.now.borrow()
    }

    fn sleep_until(&self, at_ms: u64) -> Sleep {
        let mut rx = self.now.subscribe();
        Box::pin(async move {
            if rx.wait_for(|now| *now >= at_ms).await.is_err() {
                // The clock is gone: time never moves again.
                std::future::pending::<()>().await;
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn manual_sleeps_wake_when_time_is_advanced() {
        let manual = ManualTime::new(0);
        let time = Time::from_source(manual.clone());
        let sleeper = tokio::spawn(time.sleep(1_000));
        tokio::task::yield_now().await;
        assert!(!sleeper.is_finished());
        manual.advance(999);
        tokio::task::yield_now().await;
        assert!(!sleeper.is_finished());
        manual.advance(1);
        sleeper.await.unwrap();
        assert_eq!(time.timeout(5, async { 7 }).await, Ok(7));
    }
}
