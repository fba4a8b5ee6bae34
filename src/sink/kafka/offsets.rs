//! The offsets topic (`PREFIX.cdcctl.offsets`): one compacted partition
//! whose last record under the server name's key is the checkpoint.
//! Created with the settings that keep it small; refused when the broker
//! would delete records by age (a stop longer than the retention would
//! then lose the checkpoint); read back to its end, never to a pause, since
//! a checkpoint missed is a fresh start that loses what changed meanwhile.

use std::time::{Duration, Instant};

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, ResourceSpecifier, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::Message;
use rdkafka::TopicPartitionList;

use super::{is_retriable, kafka_error, KafkaConfig, SinkError, CALL_TIMEOUT};
use crate::engine::checkpoint::Checkpoint;

/// Settings the topic is created with: compacted, with segments rolled
/// hourly and cleaned early, so one record a commit leaves a few records
/// rather than every checkpoint ever written.
const TOPIC_SETTINGS: [(&str, &str); 3] = [
    ("cleanup.policy", "compact"),
    ("segment.ms", "3600000"),
    ("min.cleanable.dirty.ratio", "0.1"),
];

/// How long reading the topic may go without a record or its end before
/// the broker is reported as not answering.
const QUIET_LIMIT: Duration = CALL_TIMEOUT;

/// An admin client of the brokers, with the connection's own properties
/// (security, SASL, TLS) from `--kafka-property`: a secured cluster
/// refuses a client without them.
pub(super) fn admin(config: &KafkaConfig) -> Result<AdminClient<DefaultClientContext>, String> {
    let mut cc = ClientConfig::new();
    // Asking whether a topic exists must not create it.
    cc.set("bootstrap.servers", &config.brokers)
        .set("allow.auto.create.topics", "false");
    for (k, v) in &config.properties {
        if CONNECTION_PREFIXES.iter().any(|p| k.starts_with(p)) {
            cc.set(k, v);
        }
    }
    cc.create().map_err(|e| e.to_string())
}

/// Properties that say how to reach and authenticate to the brokers, as
/// opposed to how to produce.
const CONNECTION_PREFIXES: [&str; 6] = ["security.", "sasl.", "ssl.", "ssl_", "client.", "socket."];

/// Creates the offsets topic (one partition keeps checkpoints in order)
/// unless it exists, then checks that it is compacted. A broker that
/// cannot create or describe topics is reported and trusted.
pub(super) fn ensure_offsets_topic(config: &KafkaConfig) -> Result<(), SinkError> {
    let topic = config.offsets_topic();
    let admin = match admin(config) {
        Ok(a) => a,
        Err(why) => {
            tracing::warn!("kafka: no admin client for {topic} ({why})");
            return Ok(());
        }
    };
    let options = AdminOptions::new().operation_timeout(Some(CALL_TIMEOUT));
    let created = create_topic(&admin, &topic, &options);
    let policy = cleanup_policy(&admin, &topic, &options);
    tracing::debug!("kafka: {topic} cleanup.policy: {policy:?}");
    let unknown = match policy {
        Ok(Some(policy)) => return policy_verdict(&topic, &policy),
        // Created here as compacted: nothing to doubt.
        Ok(None) if created => return Ok(()),
        Ok(None) => "the broker does not report it".to_string(),
        Err(why) => why,
    };
    tracing::warn!(
        "kafka: cannot read the cleanup.policy of {topic} ({unknown}); make sure it is \
         `compact`, or a stop longer than the topic's retention loses the checkpoint"
    );
    Ok(())
}

/// Creates the topic compacted; whether it was created now.
fn create_topic(
    admin: &AdminClient<DefaultClientContext>,
    topic: &str,
    options: &AdminOptions,
) -> bool {
    let mut new = NewTopic::new(topic, 1, TopicReplication::Fixed(-1));
    for (k, v) in TOPIC_SETTINGS {
        new = new.set(k, v);
    }
    let failed = match block_on(admin.create_topics([&new], options)) {
        Ok(results) => results.into_iter().find_map(|r| match r {
            Ok(_) => None,
            Err((_, code)) => Some(code),
        }),
        Err(e) => {
            tracing::warn!("kafka: cannot create the compacted topic {topic} ({e})");
            return false;
        }
    };
    match failed {
        None => true,
        Some(RDKafkaErrorCode::TopicAlreadyExists) => false,
        Some(code) => {
            tracing::warn!(
                "kafka: cannot create the compacted topic {topic} ({code}); it is left to \
                 the broker's auto-creation"
            );
            false
        }
    }
}

fn cleanup_policy(
    admin: &AdminClient<DefaultClientContext>,
    topic: &str,
    options: &AdminOptions,
) -> Result<Option<String>, String> {
    let resource = ResourceSpecifier::Topic(topic);
    let results =
        block_on(admin.describe_configs([&resource], options)).map_err(|e| e.to_string())?;
    let described = results
        .into_iter()
        .next()
        .ok_or("no answer")?
        .map_err(|code| code.to_string())?;
    Ok(described
        .get("cleanup.policy")
        .and_then(|e| e.value.clone()))
}

/// Refuses an offsets topic that deletes records by age or size.
fn policy_verdict(topic: &str, policy: &str) -> Result<(), SinkError> {
    let policies: Vec<&str> = policy.split(',').map(str::trim).collect();
    if policies == ["compact"] {
        return Ok(());
    }
    Err(SinkError::Kafka {
        message: format!(
            "the offsets topic {topic} has cleanup.policy={policy}: the checkpoint would be \
             deleted once it is older than the topic's retention, and the next start would \
             capture from scratch. Make it compacted: kafka-configs.sh --alter --entity-type \
             topics --entity-name {topic} --add-config cleanup.policy=compact"
        ),
    })
}

/// Waits for a future on this thread: the admin API is async, the sink
/// is not, and one call does not justify an async runtime.
pub(super) fn block_on<F: std::future::Future>(f: F) -> F::Output {
    use std::sync::Arc;
    use std::task::{Context, Poll, Wake, Waker};
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut f = std::pin::pin!(f);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park();
    }
}

fn checkpoint_consumer(config: &KafkaConfig) -> Result<BaseConsumer, SinkError> {
    ClientConfig::new()
        .set("bootstrap.servers", &config.brokers)
        .set(
            "group.id",
            format!("cdcctl-{}-checkpoint", config.server_name),
        )
        .set("enable.auto.commit", "false")
        .set("isolation.level", "read_committed")
        .set("enable.partition.eof", "true")
        .set("auto.offset.reset", "earliest")
        .create()
        .map_err(|e| kafka_error("kafka consumer", &e))
}

fn is_unknown_topic(e: &KafkaError) -> bool {
    matches!(
        e.rdkafka_error_code(),
        Some(
            RDKafkaErrorCode::UnknownTopicOrPartition
                | RDKafkaErrorCode::UnknownTopic
                | RDKafkaErrorCode::UnknownPartition
        )
    )
}

/// The broker did not answer in time: exit 3, as an unreachable source.
fn not_answering(topic: &str, what: &str) -> SinkError {
    SinkError::Unreachable {
        message: format!(
            "kafka: {what} of {topic} within {}s, so whether a checkpoint exists is unknown; \
             capture does not start fresh on a guess. Check that the brokers are up and the \
             partition has a leader (kafka-topics.sh --describe --topic {topic})",
            QUIET_LIMIT.as_secs()
        ),
    }
}

/// Whether the partition holds records: its low and high offsets, asked
/// until the broker answers. `Ok(false)` also for a topic it does not know.
fn holds_records(consumer: &BaseConsumer, topic: &str) -> Result<bool, SinkError> {
    let deadline = Instant::now() + QUIET_LIMIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match consumer.fetch_watermarks(topic, 0, left) {
            Ok((low, high)) => return Ok(high > low),
            Err(e) if is_unknown_topic(&e) => return Ok(false),
            Err(e) if Instant::now() + Duration::from_millis(500) < deadline => {
                tracing::warn!("kafka: offsets of {topic} not known yet ({e}); asking again");
                std::thread::sleep(Duration::from_millis(500));
            }
            Err(_) => return Err(not_answering(topic, "no offsets")),
        }
    }
}

/// The last checkpoint committed to the offsets topic (partition 0): the
/// partition is read with `read_committed` to its end, and only the last
/// record under the server name's key is parsed.
pub(super) fn read_checkpoint(config: &KafkaConfig) -> Result<Option<Checkpoint>, SinkError> {
    let topic = config.offsets_topic();
    let consumer = checkpoint_consumer(config)?;
    if !holds_records(&consumer, &topic)? {
        return Ok(None);
    }
    let mut tpl = TopicPartitionList::new();
    tpl.add_partition_offset(&topic, 0, rdkafka::Offset::Beginning)
        .map_err(|e| kafka_error(&topic, &e))?;
    // No group join: assign() reads at once (joins take long on some brokers).
    consumer
        .assign(&tpl)
        .map_err(|e| kafka_error(&format!("read {topic}"), &e))?;
    let last = read_to_end(&consumer, &topic, &config.server_name)?;
    last.map(|(offset, text)| {
        Checkpoint::from_json(&text).map_err(|e| SinkError::Kafka {
            message: format!("{topic} offset {offset}: {e}"),
        })
    })
    .transpose()
}

/// The offset and text of the last record under `key`, once the partition's
/// end is reached.
fn read_to_end(
    consumer: &BaseConsumer,
    topic: &str,
    key: &str,
) -> Result<Option<(i64, String)>, SinkError> {
    let mut last = None;
    let mut quiet_since = Instant::now();
    loop {
        match consumer.poll(Duration::from_millis(200)) {
            Some(Ok(m)) => {
                quiet_since = Instant::now();
                let ours = m.key().is_none_or(|k| k == key.as_bytes());
                if let (true, Some(Ok(text))) = (ours, m.payload_view::<str>()) {
                    last = Some((m.offset(), text.to_string()));
                }
            }
            Some(Err(KafkaError::PartitionEOF(_))) => return Ok(last),
            Some(Err(e)) if is_unknown_topic(&e) && last.is_none() => return Ok(None),
            Some(Err(e)) if is_retriable(&e) => {}
            Some(Err(e)) => return Err(kafka_error(&format!("read {topic}"), &e)),
            None if quiet_since.elapsed() > QUIET_LIMIT => {
                return Err(not_answering(topic, "no records and no end"))
            }
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_offsets_topic_that_deletes_by_age_is_refused_with_the_command_to_fix_it() {
        assert!(policy_verdict("erp.cdcctl.offsets", "compact").is_ok());
        for policy in ["delete", "compact,delete", "delete, compact"] {
            let e = policy_verdict("erp.cdcctl.offsets", policy)
                .expect_err(policy)
                .to_string();
            assert!(
                e.contains("cleanup.policy=compact") && e.contains("erp.cdcctl.offsets"),
                "{e}"
            );
        }
    }
}
