//! Saying what a blocked call waits for. librdkafka retries quietly for as
//! long as its timeouts allow, so a broker that is down or frozen would
//! leave the operator with no line at all; while a call is marked as
//! waiting, one watcher thread per sink says, after a few seconds and then
//! at intervals, what is awaited, for how long, and what to check. One
//! thread for the sink's life, not one per call: a commit makes several
//! such calls.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Silence allowed before the first line: most calls return well within it.
const FIRST_AFTER: Duration = Duration::from_secs(5);
/// Between later lines.
const EVERY: Duration = Duration::from_secs(15);

/// The call being waited on, if any.
struct Call {
    id: u64,
    what: String,
    started: Instant,
    next_report: Instant,
}

#[derive(Default)]
struct Slot {
    call: Option<Call>,
    calls: u64,
    closed: bool,
}

struct Shared {
    slot: Mutex<Slot>,
    changed: Condvar,
    brokers: String,
    first_after: Duration,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Slot> {
        // A panic while reporting leaves the slot usable: it holds plain data.
        self.slot
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The sink's watcher; dropping it stops the thread.
pub(super) struct WaitWatch {
    shared: Arc<Shared>,
    watcher: Option<JoinHandle<()>>,
}

impl WaitWatch {
    /// A watcher for calls to `brokers`, reporting through the log.
    pub fn new(brokers: &str) -> Self {
        Self::reporting(brokers, FIRST_AFTER, |line| tracing::warn!("kafka: {line}"))
    }

    fn reporting(
        brokers: &str,
        first_after: Duration,
        say: impl Fn(String) + Send + 'static,
    ) -> Self {
        let shared = Arc::new(Shared {
            slot: Mutex::new(Slot::default()),
            changed: Condvar::new(),
            brokers: brokers.to_string(),
            first_after,
        });
        let watched = Arc::clone(&shared);
        let watcher = std::thread::Builder::new()
            .name("kafka-wait".into())
            .spawn(move || watch(&watched, &say))
            .ok();
        Self { shared, watcher }
    }

    /// Marks a call that waits for `what` until the returned guard drops.
    pub fn on(&self, what: &str) -> Waiting {
        let mut slot = self.shared.lock();
        slot.calls += 1;
        let now = Instant::now();
        slot.call = Some(Call {
            id: slot.calls,
            what: what.to_string(),
            started: now,
            next_report: now + self.shared.first_after,
        });
        let id = slot.calls;
        drop(slot);
        self.shared.changed.notify_one();
        Waiting {
            shared: Arc::clone(&self.shared),
            id,
        }
    }
}

impl Drop for WaitWatch {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.changed.notify_one();
        if let Some(w) = self.watcher.take() {
            let _ = w.join();
        }
    }
}

/// A call being waited on; dropping it ends the reports.
pub(super) struct Waiting {
    shared: Arc<Shared>,
    id: u64,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        let mut slot = self.shared.lock();
        if slot.call.as_ref().is_some_and(|c| c.id == self.id) {
            slot.call = None;
        }
    }
}

fn watch(shared: &Shared, say: &dyn Fn(String)) {
    let mut slot = shared.lock();
    loop {
        if slot.closed {
            return;
        }
        let now = Instant::now();
        let pause = match slot.call.as_mut() {
            None => None,
            Some(call) if now >= call.next_report => {
                say(format!(
                    "waiting for Kafka ({}) to {}: check that the brokers are up and \
                     reachable from here, and that the transaction coordinator has a leader \
                     ({} s so far)",
                    shared.brokers,
                    call.what,
                    call.started.elapsed().as_secs()
                ));
                call.next_report = now + EVERY;
                continue;
            }
            Some(call) => Some(call.next_report - now),
        };
        slot = match pause {
            None => shared
                .changed
                .wait(slot)
                .unwrap_or_else(std::sync::PoisonError::into_inner),
            Some(p) => {
                shared
                    .changed
                    .wait_timeout(slot, p)
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .0
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said() -> (Arc<Mutex<Vec<String>>>, impl Fn(String) + Send + 'static) {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&lines);
        (lines, move |l| sink.lock().expect("lines").push(l))
    }

    fn lines_now(lines: &Mutex<Vec<String>>) -> Vec<String> {
        lines.lock().expect("lines").clone()
    }

    #[test]
    fn a_call_that_returns_before_the_first_report_says_nothing() {
        let (lines, say) = said();
        let watch = WaitWatch::reporting("b:9092", Duration::from_secs(3600), say);
        drop(watch.on("commit"));
        drop(watch);
        assert!(lines_now(&lines).is_empty());
    }

    #[test]
    fn a_long_wait_is_said_with_the_brokers_and_what_to_check() {
        let (lines, say) = said();
        let watch = WaitWatch::reporting("b:9092", Duration::from_millis(1), say);
        let w = watch.on("commit");
        std::thread::sleep(Duration::from_millis(100));
        drop(w);
        drop(watch);
        let lines = lines_now(&lines);
        assert_eq!(
            lines.len(),
            1,
            "one line, then one every {EVERY:?}: {lines:?}"
        );
        assert!(lines[0].contains("b:9092") && lines[0].contains("to commit"));
    }

    #[test]
    fn one_watcher_reports_each_call_in_turn_and_nothing_between_them() {
        let (lines, say) = said();
        let watch = WaitWatch::reporting("b:9092", Duration::from_millis(20), say);
        for what in ["deliver", "commit"] {
            let w = watch.on(what);
            std::thread::sleep(Duration::from_millis(150));
            drop(w);
        }
        std::thread::sleep(Duration::from_millis(100));
        drop(watch);
        let lines = lines_now(&lines);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].contains("to deliver") && lines[1].contains("to commit"));
    }

    #[test]
    fn a_guard_dropped_late_does_not_end_the_call_after_it() {
        let (lines, say) = said();
        let watch = WaitWatch::reporting("b:9092", Duration::from_millis(30), say);
        let first = watch.on("read back the checkpoint");
        let second = watch.on("commit");
        drop(first);
        std::thread::sleep(Duration::from_millis(150));
        drop(second);
        drop(watch);
        let lines = lines_now(&lines);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].contains("to commit"));
    }
}
