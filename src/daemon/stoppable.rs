//! Start-up waits a signal can cut short. Opening the Kafka sink blocks in
//! librdkafka for a call's whole timeout, retried while the broker is away,
//! so a SIGTERM that only sets the stop flag went unheard for as long as
//! the broker stayed down: the open runs on a thread of its own and the
//! daemon watches the flag meanwhile.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::time::Duration;

use crate::sink::kafka::{KafkaConfig, KafkaSink};

use super::error::DaemonError;

/// How often the stop flag is looked at while the open waits.
const STOP_POLL: Duration = Duration::from_millis(100);

/// The Kafka sink, or `None` when `stop` was set before it opened; the
/// abandoned open ends with the process.
pub fn open_kafka(
    config: KafkaConfig,
    stop: &AtomicBool,
) -> Result<Option<KafkaSink>, DaemonError> {
    let (tx, rx) = channel();
    std::thread::Builder::new()
        .name("cdcctl-kafka-open".into())
        .spawn(move || {
            let _ = tx.send(KafkaSink::open(config));
        })
        .map_err(|e| DaemonError::usage(format!("cannot start a thread to open Kafka: {e}")))?;
    wait(&rx, stop)
}

fn wait<T>(
    rx: &std::sync::mpsc::Receiver<Result<T, crate::sink::SinkError>>,
    stop: &AtomicBool,
) -> Result<Option<T>, DaemonError> {
    loop {
        match rx.recv_timeout(STOP_POLL) {
            Ok(opened) => return opened.map(Some).map_err(DaemonError::Sink),
            Err(RecvTimeoutError::Timeout) if stop.load(Ordering::Relaxed) => return Ok(None),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                return Err(DaemonError::usage("opening Kafka ended without an answer"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_ends_the_wait_for_an_open_that_never_answers() {
        let (tx, rx) = channel::<Result<(), crate::sink::SinkError>>();
        let stop = AtomicBool::new(true);
        assert!(matches!(wait(&rx, &stop), Ok(None)));
        drop(tx);
    }

    #[test]
    fn an_answer_before_a_stop_is_taken() {
        let (tx, rx) = channel();
        tx.send(Ok(7)).expect("send");
        assert!(matches!(wait(&rx, &AtomicBool::new(false)), Ok(Some(7))));
    }
}
