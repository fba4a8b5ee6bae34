//! The Kafka sink: one topic per table (`PREFIX.SCHEMA.TABLE`, Debezium's
//! naming), the primary key as Debezium's key struct JSON, today's envelope
//! as the value, and the checkpoint stored in Kafka itself.
//!
//! Exactly-once: a transactional producer (idempotent, `acks=all`) writes
//! each batch of events and the checkpoint that covers them to the
//! compacted `PREFIX.cdcctl.offsets` topic in one Kafka transaction. At start
//! the producer first fences and aborts whatever a killed predecessor left
//! open, then the last checkpoint is read back with a `read_committed`
//! consumer, so capture resumes exactly after the last committed batch.
//!
//! The checkpoint record is produced only once every event before it is
//! acknowledged, so a checkpoint a consumer can see never covers an event
//! the log lacks, even on a broker that shows aborted records to
//! `read_committed` consumers (tansu 0.6 does: it writes the abort marker
//! but sends no aborted-transaction list in fetch responses). There a
//! batch cut short by a crash is seen as well as its re-sent copy, and
//! consumers de-duplicate with [`EventId`]: (commit SCN, XID, index), also
//! sent as the `cdcctl.commit_scn`, `cdcctl.xid` and `cdcctl.index`
//! headers, identifies an event.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::{Header, Headers, Message, OwnedHeaders};
use rdkafka::producer::{BaseRecord, DefaultProducerContext, Producer, ThreadedProducer};
use rdkafka::TopicPartitionList;

use super::{EventSink, SinkError};
use crate::engine::checkpoint::{Checkpoint, EventPosition};
use crate::engine::event::{CapturedEvent, ChangeEvent, ColumnKinds, Op, ValueForms};
use crate::source::catalog::TableName;

/// How the sink reaches Kafka and names what it writes.
#[derive(Debug, Clone, Default)]
pub struct KafkaConfig {
    /// `HOST:PORT,...`
    pub brokers: String,
    /// Topic prefix and `source.name` (Debezium's `topic.prefix`).
    pub server_name: String,
    /// `SCHEMA.TABLE` → topic, overriding `PREFIX.SCHEMA.TABLE`.
    pub routes: BTreeMap<String, String>,
    /// Primary key columns per table, for the message key.
    pub key_columns: BTreeMap<TableName, Vec<String>>,
    /// none, gzip, snappy, lz4 or zstd.
    pub compression: String,
    /// A null-valued message after each delete (for compacted topics).
    pub tombstones: bool,
    /// librdkafka properties set as given (`linger.ms`, `batch.size`, ...).
    pub properties: Vec<(String, String)>,
    /// How values are written, as the file sink writes them.
    pub forms: ValueForms,
}

impl KafkaConfig {
    /// The compacted topic that holds the checkpoint.
    pub fn offsets_topic(&self) -> String {
        format!("{}.cdcctl.offsets", self.server_name)
    }

    /// The topic of a table's changes.
    pub fn topic_for(&self, schema: &str, table: &str) -> String {
        self.routes
            .get(&format!("{schema}.{table}"))
            .cloned()
            .unwrap_or_else(|| format!("{}.{schema}.{table}", self.server_name))
    }

    fn transactional_id(&self) -> String {
        format!("cdcctl-{}", self.server_name)
    }
}

fn kafka_error(what: &str, e: &KafkaError) -> SinkError {
    SinkError::Kafka {
        message: format!("{what}: {e}"),
    }
}

/// How long to wait for the broker in one call before trying again.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// Longest pause between attempts while the broker is away.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// The message key: Debezium's key struct JSON of the primary key, taken
/// from the after image (the before image for a delete). `None` for a
/// table without a known key, as Debezium sends then.
pub fn message_key(
    change: &ChangeEvent,
    key_columns: &[String],
    forms: ValueForms,
) -> Option<String> {
    if key_columns.is_empty() {
        return None;
    }
    let image = match change.op {
        Op::Delete => change.before.as_ref()?,
        _ => change.after.as_ref().or(change.before.as_ref())?,
    };
    let mut key = serde_json::Map::new();
    for col in key_columns {
        let value = image.get(col)?;
        key.insert(col.clone(), forms.field_json(value));
    }
    serde_json::to_string(&key).ok()
}

/// What identifies an event for a consumer that de-duplicates: the
/// (commit SCN, XID, index) headers every event message carries (the index
/// is empty for a DDL event, which its commit SCN and XID identify).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventId {
    pub commit_scn: String,
    pub xid: String,
    pub index: String,
}

impl EventId {
    /// The id in a message's headers; `None` without the commit SCN and
    /// XID headers (a message cdcctl did not write).
    pub fn from_headers<H: Headers>(headers: &H) -> Option<Self> {
        let get = |name: &str| {
            headers
                .iter()
                .find(|h| h.key == name)
                .and_then(|h| h.value)
                .and_then(|v| std::str::from_utf8(v).ok())
                .map(str::to_string)
        };
        Some(Self {
            commit_scn: get("cdcctl.commit_scn")?,
            xid: get("cdcctl.xid")?,
            index: get("cdcctl.index").unwrap_or_default(),
        })
    }
}

/// A message ready to produce.
struct Outgoing {
    topic: String,
    key: Option<String>,
    value: Option<String>,
    commit_scn: String,
    xid: String,
    index: String,
}

pub struct KafkaSink {
    config: KafkaConfig,
    producer: ThreadedProducer<DefaultProducerContext>,
    /// The checkpoint committed last (read back at start, then each commit).
    committed: Option<Checkpoint>,
    in_transaction: bool,
    last: Option<EventPosition>,
    /// Events up to the committed checkpoint's last event are already in
    /// Kafka (a transaction cut short by `--count` is re-read from its start).
    resume: super::ResumeAfter,
    /// Column kinds for --decimal-handling and --time-precision.
    kinds: Option<Arc<ColumnKinds>>,
}

impl KafkaSink {
    /// Connects, fences any earlier producer of this server name (aborting
    /// its open transaction), and reads back the last committed checkpoint.
    pub fn open(config: KafkaConfig) -> Result<Self, SinkError> {
        let mut cc = ClientConfig::new();
        cc.set("bootstrap.servers", &config.brokers)
            .set("transactional.id", config.transactional_id())
            .set("enable.idempotence", "true")
            .set("acks", "all")
            .set("compression.type", &config.compression)
            // Each transaction waits for its last batch: a long linger
            // would be paid once per commit.
            .set("linger.ms", "5")
            .set("batch.num.messages", "10000")
            .set("queue.buffering.max.messages", "200000")
            // A window holding one huge transaction is one Kafka
            // transaction: allow the broker's usual ceiling
            // (transaction.max.timeout.ms, 15 min) rather than a minute,
            // and let a message wait as long for a broker that is away.
            .set("transaction.timeout.ms", "900000")
            .set("message.timeout.ms", "900000");
        for (k, v) in &config.properties {
            cc.set(k, v);
        }
        let producer: ThreadedProducer<DefaultProducerContext> = cc
            .create()
            .map_err(|e| kafka_error(&format!("kafka {}", config.brokers), &e))?;
        ensure_offsets_topic(&config);
        retrying("initialise the transactional producer", || {
            producer.init_transactions(CALL_TIMEOUT)
        })?;
        let committed = read_checkpoint(&config)?;
        let resume_after = committed.as_ref().and_then(|c| c.last_event.clone());
        Ok(Self {
            config,
            producer,
            committed,
            in_transaction: false,
            last: resume_after.clone(),
            resume: super::ResumeAfter::new(resume_after),
            kinds: None,
        })
    }

    /// The primary key columns per table, known once the source is open.
    pub fn set_key_columns(&mut self, key_columns: BTreeMap<TableName, Vec<String>>) {
        self.config.key_columns = key_columns;
    }

    /// The checkpoint of the last committed Kafka transaction, if any.
    pub fn stored_checkpoint(&self) -> Option<&Checkpoint> {
        self.committed.as_ref()
    }

    fn begin(&mut self) -> Result<(), SinkError> {
        if !self.in_transaction {
            self.producer
                .begin_transaction()
                .map_err(|e| kafka_error("begin a transaction", &e))?;
            self.in_transaction = true;
        }
        Ok(())
    }

    /// Hands a message to the producer, waiting while its queue is full:
    /// back-pressure, never a dropped message.
    fn produce(&self, m: &Outgoing, partition: Option<i32>) -> Result<(), SinkError> {
        let headers = OwnedHeaders::new()
            .insert(Header {
                key: "cdcctl.commit_scn",
                value: Some(m.commit_scn.as_str()),
            })
            .insert(Header {
                key: "cdcctl.xid",
                value: Some(m.xid.as_str()),
            })
            .insert(Header {
                key: "cdcctl.index",
                value: Some(m.index.as_str()),
            });
        let mut pause = Duration::from_millis(5);
        loop {
            let mut record: BaseRecord<'_, str, str> =
                BaseRecord::to(&m.topic).headers(headers.clone());
            if let Some(k) = &m.key {
                record = record.key(k.as_str());
            }
            if let Some(v) = &m.value {
                record = record.payload(v.as_str());
            }
            if let Some(p) = partition {
                record = record.partition(p);
            }
            match self.producer.send(record) {
                Ok(()) => return Ok(()),
                Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), _)) => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(500));
                }
                Err((e, _)) => return Err(kafka_error(&format!("produce to {}", m.topic), &e)),
            }
        }
    }

    /// Waits until every message handed to the producer is acknowledged.
    /// The producer's own `flush` sleeps in steps of 100 ms while its
    /// polling thread takes the acknowledgements, a tenth of a second lost
    /// per transaction; watching the in-flight count returns within a
    /// millisecond of the last one.
    fn deliver_all(&self) -> Result<(), SinkError> {
        let deadline = Instant::now() + CALL_TIMEOUT;
        let mut pause = Duration::from_micros(200);
        loop {
            if self.producer.in_flight_count() == 0 {
                return Ok(());
            }
            if Instant::now() >= deadline {
                // The broker may be away: fall back to the producer's own
                // wait, which retries as any other call here.
                return retrying("deliver the batch", || self.producer.flush(CALL_TIMEOUT));
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(2));
        }
    }

    /// Commits the open transaction with `checkpoint` in it. A broker that
    /// is away is waited for; a transaction it refuses is aborted and the
    /// error returned, so the caller restarts from the last committed
    /// checkpoint.
    pub fn commit_with_checkpoint(
        &mut self,
        checkpoint: Option<&Checkpoint>,
    ) -> Result<(), SinkError> {
        let Some(cp) = checkpoint else {
            // Nothing to record yet: events without a checkpoint would be
            // written again after a crash, so keep the transaction open.
            return Ok(());
        };
        self.begin()?;
        // Every event acknowledged before the checkpoint is sent: see the
        // module docs for brokers that show aborted records.
        self.deliver_all()?;
        let m = Outgoing {
            topic: self.config.offsets_topic(),
            key: Some(self.config.server_name.clone()),
            value: Some(cp.to_json()),
            commit_scn: cp.commit_scn.to_string(),
            xid: String::new(),
            index: String::new(),
        };
        self.produce(&m, Some(0))?;
        // The commit flushes first, with the same 100 ms steps: the
        // checkpoint acknowledged here makes that flush return at once.
        self.deliver_all()?;
        let mut pause = Duration::from_millis(200);
        loop {
            match self.producer.commit_transaction(CALL_TIMEOUT) {
                Ok(()) => break,
                Err(e) if is_retriable(&e) => {
                    tracing::warn!("kafka: commit not acknowledged yet ({e}); retrying");
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(MAX_BACKOFF);
                }
                Err(e) => {
                    self.in_transaction = false;
                    let aborted = self.producer.abort_transaction(CALL_TIMEOUT);
                    return Err(SinkError::Kafka {
                        message: format!(
                            "the broker refused the transaction ({e}); it was {}; restart to \
                             write again from the last committed checkpoint (commit SCN {})",
                            if aborted.is_ok() {
                                "aborted"
                            } else {
                                "left to time out"
                            },
                            self.committed.as_ref().map_or(0, |c| c.commit_scn)
                        ),
                    });
                }
            }
        }
        self.in_transaction = false;
        self.committed = Some(cp.clone());
        Ok(())
    }

    fn outgoing(&self, event: &CapturedEvent) -> Vec<Outgoing> {
        let value = event.to_json_line_typed(self.config.forms, self.kinds.as_deref());
        match event {
            CapturedEvent::Change(c) => {
                let name = TableName {
                    owner: c.source.schema.clone(),
                    table: c.source.table.clone(),
                };
                let key = self
                    .config
                    .key_columns
                    .get(&name)
                    .and_then(|cols| message_key(c, cols, self.config.forms));
                let topic = self.config.topic_for(&c.source.schema, &c.source.table);
                let mut out = vec![Outgoing {
                    topic: topic.clone(),
                    key: key.clone(),
                    value: Some(value),
                    commit_scn: c.source.commit_scn.to_string(),
                    xid: c.source.xid.clone(),
                    index: c.index.to_string(),
                }];
                if self.config.tombstones && c.op == Op::Delete && key.is_some() {
                    out.push(Outgoing {
                        topic,
                        key,
                        value: None,
                        commit_scn: c.source.commit_scn.to_string(),
                        xid: c.source.xid.clone(),
                        index: c.index.to_string(),
                    });
                }
                out
            }
            // Debezium's schema change topic is the bare prefix.
            CapturedEvent::Ddl(d) => vec![Outgoing {
                topic: self.config.server_name.clone(),
                key: None,
                value: Some(value),
                commit_scn: d.source.commit_scn.to_string(),
                xid: d.source.xid.clone(),
                index: String::new(),
            }],
        }
    }
}

fn is_retriable(e: &KafkaError) -> bool {
    matches!(e, KafkaError::Transaction(r) if r.is_retriable())
        || matches!(
            e.rdkafka_error_code(),
            Some(RDKafkaErrorCode::OperationTimedOut | RDKafkaErrorCode::RequestTimedOut)
        )
}

/// Runs `call` until it succeeds or fails for a reason waiting cannot fix.
fn retrying<T>(
    what: &str,
    mut call: impl FnMut() -> Result<T, KafkaError>,
) -> Result<T, SinkError> {
    let mut pause = Duration::from_millis(200);
    loop {
        match call() {
            Ok(v) => return Ok(v),
            Err(e) if is_retriable(&e) => {
                tracing::warn!("kafka: cannot {what} yet ({e}); retrying");
                std::thread::sleep(pause);
                pause = (pause * 2).min(MAX_BACKOFF);
            }
            Err(e) => return Err(kafka_error(&format!("cannot {what}"), &e)),
        }
    }
}

/// Creates the offsets topic compacted with one partition (only the last
/// checkpoint matters, and one partition keeps them in order). A broker
/// that refuses is reported and the topic left to auto-creation: the
/// checkpoint is always written to and read from partition 0.
fn ensure_offsets_topic(config: &KafkaConfig) {
    use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
    use rdkafka::client::DefaultClientContext;
    let topic = config.offsets_topic();
    let admin: Result<AdminClient<DefaultClientContext>, _> = ClientConfig::new()
        .set("bootstrap.servers", &config.brokers)
        .create();
    let outcome = admin.map_err(|e| e.to_string()).and_then(|admin| {
        let new =
            NewTopic::new(&topic, 1, TopicReplication::Fixed(-1)).set("cleanup.policy", "compact");
        let options = AdminOptions::new().operation_timeout(Some(CALL_TIMEOUT));
        block_on(admin.create_topics([&new], &options)).map_err(|e| e.to_string())
    });
    let failed = match outcome {
        Ok(results) => results.into_iter().find_map(|r| match r {
            Err((_, RDKafkaErrorCode::TopicAlreadyExists)) | Ok(_) => None,
            Err((_, code)) => Some(code.to_string()),
        }),
        Err(e) => Some(e),
    };
    if let Some(why) = failed {
        tracing::warn!("kafka: cannot create the compacted topic {topic} ({why}); it is left to the broker's auto-creation");
    }
}

/// Waits for a future on this thread: the admin API is async, the sink
/// is not, and one call does not justify an async runtime.
fn block_on<F: std::future::Future>(f: F) -> F::Output {
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

/// The last checkpoint committed to the offsets topic (partition 0), read
/// with `read_committed` from the beginning to the end of the partition.
fn read_checkpoint(config: &KafkaConfig) -> Result<Option<Checkpoint>, SinkError> {
    let topic = config.offsets_topic();
    let consumer: BaseConsumer = ClientConfig::new()
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
        .map_err(|e| kafka_error("kafka consumer", &e))?;
    let mut tpl = TopicPartitionList::new();
    tpl.add_partition_offset(&topic, 0, rdkafka::Offset::Beginning)
        .map_err(|e| kafka_error(&topic, &e))?;
    // No group join: assign() reads at once (joins take long on some brokers).
    consumer
        .assign(&tpl)
        .map_err(|e| kafka_error(&format!("read {topic}"), &e))?;
    let mut last = None;
    let deadline = Instant::now() + CALL_TIMEOUT;
    // A topic the broker does not know yet holds no checkpoint; some
    // brokers answer for it with silence rather than an error.
    let mut quiet_since = Instant::now();
    loop {
        match consumer.poll(Duration::from_millis(200)) {
            Some(Ok(m)) => {
                quiet_since = Instant::now();
                if let Some(text) = m.payload_view::<str>().and_then(Result::ok) {
                    let cp = Checkpoint::from_json(text).map_err(|e| SinkError::Kafka {
                        message: format!("{topic} offset {}: {e}", m.offset()),
                    })?;
                    last = Some(cp);
                }
            }
            Some(Err(KafkaError::PartitionEOF(_))) => return Ok(last),
            Some(Err(e))
                if matches!(
                    e.rdkafka_error_code(),
                    Some(
                        RDKafkaErrorCode::UnknownTopicOrPartition
                            | RDKafkaErrorCode::UnknownTopic
                            | RDKafkaErrorCode::UnknownPartition
                    )
                ) =>
            {
                return Ok(last)
            }
            Some(Err(e)) if is_retriable(&e) => {}
            Some(Err(e)) => return Err(kafka_error(&format!("read {topic}"), &e)),
            None if last.is_none() && quiet_since.elapsed() > Duration::from_secs(5) => {
                return Ok(None)
            }
            None if Instant::now() > deadline => {
                return Err(SinkError::Kafka {
                    message: format!(
                        "read {topic}: no end of the partition within {}s",
                        CALL_TIMEOUT.as_secs()
                    ),
                })
            }
            None => {}
        }
    }
}

impl EventSink for KafkaSink {
    fn set_column_kinds(&mut self, kinds: Arc<ColumnKinds>) {
        self.kinds = Some(kinds);
    }

    fn write(&mut self, event: &CapturedEvent) -> Result<(), SinkError> {
        let key = super::event_key(event);
        if !self.resume.admits(&key) {
            return Ok(());
        }
        self.begin()?;
        for m in self.outgoing(event) {
            self.produce(&m, None)?;
        }
        self.last = Some(key);
        Ok(())
    }

    fn skipped_duplicates(&self) -> u64 {
        self.resume.skipped()
    }

    /// Events become durable only with a checkpoint, in
    /// [`KafkaSink::commit_with_checkpoint`].
    fn commit(&mut self) -> Result<(), SinkError> {
        Ok(())
    }

    fn commit_with(&mut self, checkpoint: Option<&Checkpoint>) -> Result<(), SinkError> {
        self.commit_with_checkpoint(checkpoint)
    }

    fn keeps_checkpoint(&self) -> bool {
        true
    }

    fn in_flight(&self) -> u64 {
        u64::try_from(self.producer.in_flight_count()).unwrap_or(0)
    }

    fn last_position(&self) -> Option<EventPosition> {
        self.last.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::event::{Field, Image, SourcePosition};

    fn change(op: Op) -> ChangeEvent {
        let image = Image::from(vec![
            ("ID".to_string(), Field::text("7")),
            ("NAME".to_string(), Field::text("x")),
        ]);
        ChangeEvent {
            op,
            before: (op != Op::Create).then(|| image.clone()),
            after: (op != Op::Delete).then_some(image),
            source: SourcePosition {
                schema: "APP".into(),
                table: "ORDERS".into(),
                ..SourcePosition::default()
            },
            snapshot: false,
            partial: false,
            commit_ts_ms: 0,
            index: 0,
            table_order: 1,
        }
    }

    #[test]
    fn key_is_the_primary_key_struct_from_the_image_the_op_keeps() {
        let cols = vec!["ID".to_string()];
        assert_eq!(
            message_key(&change(Op::Create), &cols, ValueForms::default()).as_deref(),
            Some(r#"{"ID":"7"}"#)
        );
        assert_eq!(
            message_key(&change(Op::Delete), &cols, ValueForms::default()).as_deref(),
            Some(r#"{"ID":"7"}"#)
        );
        assert_eq!(
            message_key(&change(Op::Create), &[], ValueForms::default()),
            None
        );
        assert_eq!(
            message_key(
                &change(Op::Create),
                &["NOPE".to_string()],
                ValueForms::default()
            ),
            None
        );
    }

    #[test]
    fn key_writes_binary_columns_in_the_envelope_forms() {
        use crate::engine::event::BinaryHandling;
        let mut c = change(Op::Create);
        c.after = Some(vec![("ID".to_string(), Field::Binary("0aff".into()))].into());
        let cols = vec!["ID".to_string()];
        assert_eq!(
            message_key(&c, &cols, ValueForms::default()).as_deref(),
            Some(r#"{"ID":"Cv8="}"#)
        );
        let hex = ValueForms {
            binary: BinaryHandling::Hex,
            ..ValueForms::default()
        };
        assert_eq!(
            message_key(&c, &cols, hex).as_deref(),
            Some(r#"{"ID":"0aff"}"#)
        );
    }

    #[test]
    fn event_id_is_read_from_the_headers_the_sink_writes() {
        let h = OwnedHeaders::new()
            .insert(Header {
                key: "cdcctl.commit_scn",
                value: Some("42"),
            })
            .insert(Header {
                key: "cdcctl.xid",
                value: Some("0001000200030004"),
            })
            .insert(Header {
                key: "cdcctl.index",
                value: Some("3"),
            });
        assert_eq!(
            EventId::from_headers(&h),
            Some(EventId {
                commit_scn: "42".into(),
                xid: "0001000200030004".into(),
                index: "3".into(),
            })
        );
        assert_eq!(EventId::from_headers(&OwnedHeaders::new()), None);
    }

    #[test]
    fn topics_follow_debezium_naming_unless_routed() {
        let mut c = KafkaConfig {
            server_name: "erp".into(),
            ..KafkaConfig::default()
        };
        assert_eq!(c.topic_for("APP", "ORDERS"), "erp.APP.ORDERS");
        c.routes.insert("APP.ORDERS".into(), "orders".into());
        assert_eq!(c.topic_for("APP", "ORDERS"), "orders");
        assert_eq!(c.offsets_topic(), "erp.cdcctl.offsets");
    }
}
