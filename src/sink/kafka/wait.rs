//! Saying what a blocked call waits for. librdkafka retries quietly for as
//! long as its timeouts allow, so a broker that is down or frozen would
//! leave the operator with no line at all; a guard around each blocking
//! call says, after a few seconds and then at intervals, what is awaited,
//! for how long, and what to check.

use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Silence allowed before the first line: most calls return well within it.
const FIRST_AFTER: Duration = Duration::from_secs(5);
/// Between later lines.
const EVERY: Duration = Duration::from_secs(15);

/// Reports a wait while it lasts; dropping it ends the reports.
pub(super) struct Waiting {
    done: Option<Sender<()>>,
    reporter: Option<JoinHandle<()>>,
}

impl Waiting {
    /// Starts watching a call that waits for `what` on `brokers`.
    pub fn on(what: &str, brokers: &str) -> Self {
        Self::reporting(what, brokers, FIRST_AFTER, |line| {
            tracing::warn!("kafka: {line}")
        })
    }

    fn reporting(
        what: &str,
        brokers: &str,
        first_after: Duration,
        say: impl Fn(String) + Send + 'static,
    ) -> Self {
        let (done, wait) = mpsc::channel::<()>();
        let line = format!(
            "waiting for Kafka ({brokers}) to {what}: check that the brokers are up and \
             reachable from here, and that the transaction coordinator has a leader"
        );
        let reporter = std::thread::Builder::new()
            .name("kafka-wait".into())
            .spawn(move || report_until_done(&wait, &line, first_after, &say))
            .ok();
        Self {
            done: Some(done),
            reporter,
        }
    }
}

fn report_until_done(
    done: &mpsc::Receiver<()>,
    line: &str,
    first_after: Duration,
    say: &dyn Fn(String),
) {
    let started = Instant::now();
    let mut pause = first_after;
    loop {
        match done.recv_timeout(pause) {
            Err(RecvTimeoutError::Timeout) => {
                say(format!("{line} ({} s so far)", started.elapsed().as_secs()));
                pause = EVERY;
            }
            Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        drop(self.done.take());
        if let Some(r) = self.reporter.take() {
            let _ = r.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    fn said() -> (Arc<Mutex<Vec<String>>>, impl Fn(String) + Send + 'static) {
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&lines);
        (lines, move |l| sink.lock().expect("lines").push(l))
    }

    #[test]
    fn a_call_that_returns_before_the_first_report_says_nothing() {
        let (lines, say) = said();
        drop(Waiting::reporting(
            "commit",
            "b:9092",
            Duration::from_secs(3600),
            say,
        ));
        assert!(lines.lock().expect("lines").is_empty());
    }

    #[test]
    fn a_long_wait_is_said_with_the_brokers_and_what_to_check() {
        let (lines, say) = said();
        let w = Waiting::reporting("commit", "b:9092", Duration::from_millis(1), say);
        std::thread::sleep(Duration::from_millis(100));
        drop(w);
        let lines = lines.lock().expect("lines");
        assert_eq!(
            lines.len(),
            1,
            "one line, then one every {EVERY:?}: {lines:?}"
        );
        assert!(lines[0].contains("b:9092") && lines[0].contains("to commit"));
    }
}
