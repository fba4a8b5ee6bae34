//! What the broker said of each message. A message that fails leaves the
//! producer's in-flight count like one that was acknowledged, so waiting
//! for that count to reach zero proves nothing; the producer context
//! records every failed delivery, and a transaction with one is aborted
//! instead of carrying a checkpoint past events Kafka does not hold.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use rdkafka::client::ClientContext;
use rdkafka::message::{DeliveryResult, Headers, Message};
use rdkafka::producer::ProducerContext;

/// Failed deliveries described in full; past these only the count grows,
/// so a topic that refuses everything cannot flood the log.
const DESCRIBED: usize = 20;

/// The producer's context: counts and describes failed deliveries.
#[derive(Default)]
pub struct DeliveryLedger {
    failed: AtomicU64,
    described: Mutex<Vec<String>>,
}

/// The failed deliveries of a transaction, taken from the ledger.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failures {
    pub count: u64,
    /// The first failures: topic, commit SCN, XID and the broker's reason.
    pub described: Vec<String>,
}

impl DeliveryLedger {
    /// Whether a delivery failed since the last [`Self::take`].
    pub fn has_failed(&self) -> bool {
        self.failed.load(Ordering::Acquire) > 0
    }

    /// The failures recorded so far, clearing the ledger for the next
    /// transaction.
    pub fn take(&self) -> Option<Failures> {
        let count = self.failed.swap(0, Ordering::AcqRel);
        let described = std::mem::take(&mut *self.lock());
        (count > 0).then_some(Failures { count, described })
    }

    /// Records one failed delivery and says it on the log.
    pub fn record(&self, what: String) {
        let n = self.failed.fetch_add(1, Ordering::AcqRel);
        let mut described = self.lock();
        if described.len() < DESCRIBED {
            tracing::error!("kafka: delivery failed: {what}");
            described.push(what);
        } else if n == DESCRIBED as u64 {
            tracing::error!("kafka: more deliveries failed; only their count is kept");
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<String>> {
        // A poisoned list only lost descriptions; the count stays exact.
        self.described
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl ClientContext for DeliveryLedger {}

impl ProducerContext for DeliveryLedger {
    type DeliveryOpaque = ();

    fn delivery(&self, result: &DeliveryResult<'_>, _: Self::DeliveryOpaque) {
        if let Err((e, m)) = result {
            let header = |name: &str| {
                m.headers()
                    .and_then(|h| h.iter().find(|h| h.key == name))
                    .and_then(|h| h.value)
                    .and_then(|v| std::str::from_utf8(v).ok())
                    .unwrap_or("?")
                    .to_string()
            };
            self.record(format!(
                "topic {} (commit SCN {}, XID {}): {e}",
                m.topic(),
                header("cdcctl.commit_scn"),
                header("cdcctl.xid")
            ));
        }
    }
}

impl Failures {
    /// One line for the error that ends the run.
    pub fn summary(&self) -> String {
        let more = self.count.saturating_sub(self.described.len() as u64);
        let mut s = format!(
            "{} message(s) were not delivered, so the transaction was aborted and no \
             checkpoint covers them: {}",
            self.count,
            self.described.join("; ")
        );
        if more > 0 {
            s.push_str(&format!("; and {more} more"));
        }
        if self.described.iter().any(|d| d.contains("too large")) {
            s.push_str(
                ". A broker refused a message as too large: raise the topic's \
                 max.message.bytes (and the brokers' message.max.bytes and \
                 replica.fetch.max.bytes) to the producer's message.max.bytes",
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rdkafka::config::ClientConfig;
    use rdkafka::message::{Header, OwnedHeaders};
    use rdkafka::producer::{BaseRecord, Producer, ThreadedProducer};
    use std::time::{Duration, Instant};

    #[test]
    fn ledger_counts_every_failure_and_describes_the_first_ones() {
        let ledger = DeliveryLedger::default();
        assert!(!ledger.has_failed() && ledger.take().is_none());
        for i in 0..25 {
            ledger.record(format!("topic t (commit SCN {i})"));
        }
        assert!(ledger.has_failed());
        let f = ledger.take().expect("failures");
        assert_eq!((f.count, f.described.len()), (25, DESCRIBED));
        assert!(f.summary().contains("25 message(s)") && f.summary().ends_with("and 5 more"));
        assert!(ledger.take().is_none(), "taken failures are cleared");
    }

    /// A real producer whose broker never answers: the message times out,
    /// leaves the in-flight count, and the ledger has it with its SCN.
    #[test]
    fn a_message_that_times_out_is_recorded_with_its_topic_and_scn() {
        let producer: ThreadedProducer<DeliveryLedger> = ClientConfig::new()
            .set("bootstrap.servers", "127.0.0.1:1")
            .set("message.timeout.ms", "100")
            .create_with_context(DeliveryLedger::default())
            .expect("a producer needs no broker to be created");
        let headers = OwnedHeaders::new().insert(Header {
            key: "cdcctl.commit_scn",
            value: Some("4242"),
        });
        let record = BaseRecord::<str, str>::to("erp.APP.ORDERS")
            .payload("{}")
            .headers(headers);
        producer.send(record).map_err(|(e, _)| e).expect("queued");
        let deadline = Instant::now() + Duration::from_secs(20);
        while producer.in_flight_count() > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(producer.in_flight_count(), 0, "the message never timed out");
        let f = producer.context().take().expect("the timeout is a failure");
        assert_eq!(f.count, 1);
        assert!(
            f.described[0].contains("erp.APP.ORDERS") && f.described[0].contains("4242"),
            "{f:?}"
        );
    }
}
