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
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::producer::{BaseRecord, Producer, ThreadedProducer};

use super::{EventSink, SinkError};
use crate::engine::checkpoint::{Checkpoint, EventPosition};
use crate::engine::event::{CapturedEvent, ColumnKinds, ValueForms};
use crate::source::catalog::TableName;

mod delivery;
mod messages;
mod offsets;
mod oversize;
pub mod topic;
pub mod topics;
mod wait;

use delivery::DeliveryLedger;
pub use messages::{message_key, EventId};
use messages::{ChunkRows, Framing, Outgoing, Routes};

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
    /// Where an event too large for a message goes (`--on-parse-error
    /// warn`); without it such an event stops capture.
    pub oversize_dead_letter: Option<std::path::PathBuf>,
    /// What table topics are created with.
    pub topics: topics::TopicSettings,
}

impl KafkaConfig {
    /// The compacted topic that holds the checkpoint.
    pub fn offsets_topic(&self) -> String {
        format!("{}.cdcctl.offsets", self.server_name)
    }

    /// The topic of a table's changes: its route, else `PREFIX.SCHEMA.TABLE`
    /// made legal ([`topic::derived_topic`]); `None` for a table LogMiner
    /// could not name, or whose name no legal topic can hold.
    pub fn topic_for(&self, schema: &str, table: &str) -> Option<String> {
        if let Some(t) = self.routes.get(&format!("{schema}.{table}")) {
            return Some(t.clone());
        }
        if topic::is_unnamed_table(schema, table) {
            return None;
        }
        topic::derived_topic(&self.server_name, schema, table)
    }

    /// Refuses a server name or route that would make a topic Kafka
    /// refuses, before anything is produced.
    pub fn check_topic_names(&self) -> Result<(), String> {
        let mut named = vec![
            ("--server-name".to_string(), self.server_name.clone()),
            ("--server-name".to_string(), self.offsets_topic()),
        ];
        for (table, topic) in &self.routes {
            named.push((format!("--route {table}"), topic.clone()));
        }
        for (option, name) in named {
            if let Some(problem) = topic::topic_name_problem(&name) {
                return Err(format!("{option} gives the topic `{name}`: {problem}"));
            }
        }
        Ok(())
    }

    /// Whether the topic `event` goes to is compacted when cdcctl creates
    /// it: a table's, as [`topics::TopicSettings::compacted`] says; the
    /// schema-change topic never (compaction would keep one DDL).
    fn compacts(&self, event: &CapturedEvent) -> bool {
        let CapturedEvent::Change(c) = event else {
            return false;
        };
        let name = TableName {
            owner: c.source.schema.clone(),
            table: c.source.table.clone(),
        };
        let has_key = self.key_columns.get(&name).is_some_and(|k| !k.is_empty());
        self.topics.compacted(has_key, self.tombstones)
    }

    /// `transaction.timeout.ms` as the producer is given it.
    pub fn transaction_timeout_ms(&self) -> u64 {
        self.properties
            .iter()
            .rev()
            .find(|(k, _)| k == "transaction.timeout.ms")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(DEFAULT_TRANSACTION_TIMEOUT_MS)
    }

    fn transactional_id(&self) -> String {
        format!("cdcctl-{}", self.server_name)
    }
}

pub(super) fn kafka_error(what: &str, e: &KafkaError) -> SinkError {
    let advice = if e.rdkafka_error_code() == Some(RDKafkaErrorCode::State) {
        "; the producer's transaction state was lost (a broker restarted, or another \
         producer with this server name fenced it): run again, and capture resumes from the \
         last committed checkpoint"
    } else {
        ""
    };
    SinkError::Kafka {
        message: format!("{what}: {e}{advice}"),
    }
}

/// How long to wait for the broker in one call before trying again.
pub(super) const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// The producer's `transaction.timeout.ms` unless a property sets it.
const DEFAULT_TRANSACTION_TIMEOUT_MS: u64 = 900_000;
/// Longest pause between attempts while the broker is away.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

pub struct KafkaSink {
    config: KafkaConfig,
    producer: ThreadedProducer<DeliveryLedger>,
    /// The checkpoint committed last (read back at start, then each commit).
    committed: Option<Checkpoint>,
    in_transaction: bool,
    last: Option<EventPosition>,
    /// Events up to the committed checkpoint's last event are already in
    /// Kafka (a transaction cut short by `--count` is re-read from its start).
    resume: super::ResumeAfter,
    /// Column kinds for --decimal-handling and --time-precision.
    kinds: Option<Arc<ColumnKinds>>,
    /// Counted before duplicates are skipped, so a chunk read again
    /// numbers its rows the same.
    chunk_rows: ChunkRows,
    /// Says what a blocked call waits for.
    watch: wait::WaitWatch,
    /// The topics created or found so far, and which are compacted.
    topics: topics::Topics,
    /// Each table's topic and key columns.
    routes: Routes,
}

impl KafkaSink {
    /// Checks the topic names, makes sure the compacted offsets topic
    /// exists, connects, fences any earlier producer of this server name
    /// (aborting its open transaction), and reads back the last committed
    /// checkpoint.
    pub fn open(config: KafkaConfig) -> Result<Self, SinkError> {
        config
            .check_topic_names()
            .map_err(|message| SinkError::Kafka { message })?;
        let watch = wait::WaitWatch::new(&config.brokers);
        let waiting = watch.on("create or check the offsets topic");
        offsets::ensure_offsets_topic(&config)?;
        drop(waiting);
        Self::connect(config, watch)
    }

    /// [`Self::open`] once the offsets topic is known to be right.
    fn connect(config: KafkaConfig, watch: wait::WaitWatch) -> Result<Self, SinkError> {
        let mut cc = ClientConfig::new();
        cc.set("bootstrap.servers", &config.brokers)
            .set("transactional.id", config.transactional_id())
            .set("enable.idempotence", "true")
            .set("acks", "all")
            .set("compression.type", &config.compression)
            // Java producers' and Connect's partitioner, so keys land in the
            // partitions a Java-produced topic would give them.
            .set("partitioner", "murmur2_random")
            // Each transaction waits for its last batch: a long linger
            // would be paid once per commit.
            .set("linger.ms", "5")
            .set("batch.num.messages", "10000")
            .set("queue.buffering.max.messages", "200000")
            // A window holding one huge transaction is one Kafka
            // transaction: allow the broker's usual ceiling
            // (transaction.max.timeout.ms, 15 min) rather than a minute,
            // and let a message wait as long for a broker that is away.
            .set(
                "transaction.timeout.ms",
                DEFAULT_TRANSACTION_TIMEOUT_MS.to_string(),
            )
            .set("message.timeout.ms", "900000");
        for (k, v) in &config.properties {
            cc.set(k, v);
        }
        let producer: ThreadedProducer<DeliveryLedger> = cc
            .create_with_context(DeliveryLedger::default())
            .map_err(|e| kafka_error(&format!("kafka {}", config.brokers), &e))?;
        let waiting = watch.on("fence earlier producers and initialise transactions");
        retrying("initialise the transactional producer", || {
            producer.init_transactions(CALL_TIMEOUT)
        })?;
        drop(waiting);
        let waiting = watch.on("read back the last checkpoint");
        let committed = offsets::read_checkpoint(&config)?;
        drop(waiting);
        let resume_after = committed.as_ref().and_then(|c| c.last_event.clone());
        Ok(Self {
            config,
            producer,
            committed,
            in_transaction: false,
            last: resume_after.clone(),
            resume: super::ResumeAfter::new(resume_after),
            kinds: None,
            chunk_rows: ChunkRows::default(),
            watch,
            topics: topics::Topics::default(),
            routes: Routes::default(),
        })
    }

    /// The primary key columns per table, known once the source is open.
    pub fn set_key_columns(&mut self, key_columns: BTreeMap<TableName, Vec<String>>) {
        self.config.key_columns = key_columns;
        self.routes = Routes::default();
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
        let mut headers = Some(m.headers());
        let mut pause = Duration::from_millis(5);
        let mut waiting = None;
        loop {
            let mut record: BaseRecord<'_, str, str> = BaseRecord::to(&m.topic);
            record.headers = headers.take();
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
                Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), record)) => {
                    // The record comes back whole: send its headers again.
                    headers = record.headers;
                    waiting.get_or_insert_with(|| {
                        self.watch.on("take more messages (its queue is full)")
                    });
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(500));
                }
                Err((KafkaError::MessageProduction(RDKafkaErrorCode::MessageSizeTooLarge), _)) => {
                    return Err(oversize::too_large(m))
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
        if self.producer.in_flight_count() == 0 {
            return Ok(());
        }
        let _waiting = self.watch.on("acknowledge this transaction's messages");
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
        if !self.in_transaction
            && self
                .committed
                .as_ref()
                .is_some_and(|c| same_position(c, cp))
        {
            // An idle poll: a record per poll would grow the topic, and
            // every start reads it to the end.
            return Ok(());
        }
        self.begin()?;
        // Every event acknowledged before the checkpoint is sent: see the
        // module docs for brokers that show aborted records.
        self.deliver_all()?;
        self.abort_if_undelivered()?;
        let m = Outgoing {
            topic: Arc::from(self.config.offsets_topic()),
            key: Some(self.config.server_name.clone()),
            value: Some(cp.to_json()),
            id: EventId {
                commit_scn: cp.commit_scn.to_string(),
                xid: String::new(),
                index: String::new(),
            },
            key_change: None,
        };
        self.produce(&m, Some(0))?;
        // The commit flushes first, with the same 100 ms steps: the
        // checkpoint acknowledged here makes that flush return at once.
        self.deliver_all()?;
        self.abort_if_undelivered()?;
        let mut pause = Duration::from_millis(200);
        let _waiting = self.watch.on("commit the transaction");
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

    /// Aborts the open transaction when a message of it was not delivered:
    /// committing it would store a checkpoint past events Kafka lacks.
    fn abort_if_undelivered(&mut self) -> Result<(), SinkError> {
        let Some(failures) = self.producer.context().take() else {
            return Ok(());
        };
        if self.in_transaction {
            self.in_transaction = false;
            if let Err(e) = self.producer.abort_transaction(CALL_TIMEOUT) {
                tracing::warn!("kafka: the transaction could not be aborted ({e}); it times out");
            }
        }
        Err(SinkError::Kafka {
            message: format!(
                "{}. Restart to write again from the last committed checkpoint (commit SCN {})",
                failures.summary(),
                self.committed.as_ref().map_or(0, |c| c.commit_scn)
            ),
        })
    }
}

/// Whether two checkpoints hold the same position (they differ only in
/// when they were made).
fn same_position(a: &Checkpoint, b: &Checkpoint) -> bool {
    let mut b = b.clone();
    b.updated_at = a.updated_at;
    b.checksum.clone_from(&a.checksum);
    *a == b
}

pub(super) fn is_retriable(e: &KafkaError) -> bool {
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

impl KafkaSink {
    /// Creates the topics of `messages` that do not exist yet. `false`
    /// when the event is not sent: a truncate, whose message has no key,
    /// to a compacted topic, which refuses such records.
    fn make_topics(
        &mut self,
        event: &CapturedEvent,
        messages: &[Outgoing],
    ) -> Result<bool, SinkError> {
        let mut sent = true;
        for m in messages {
            let compacted = self
                .topics
                .ensure(&self.config, &m.topic, || self.config.compacts(event))?;
            if let CapturedEvent::Change(c) = event {
                if compacted && c.op == crate::engine::event::Op::Truncate {
                    tracing::warn!(
                        "kafka: the truncate of {}.{} committed at SCN {} is not sent to \
                         {}: a compacted topic takes no record without a key (the DDL event \
                         on {} carries it; --topic-cleanup delete sends it)",
                        c.source.schema,
                        c.source.table,
                        c.source.commit_scn,
                        m.topic,
                        self.config.server_name
                    );
                    sent = false;
                }
            }
        }
        Ok(sent)
    }
}

impl EventSink for KafkaSink {
    fn set_column_kinds(&mut self, kinds: Arc<ColumnKinds>) {
        self.kinds = Some(kinds);
    }

    fn write(&mut self, event: &CapturedEvent) -> Result<(), SinkError> {
        let snapshot_row = self.chunk_rows.place(event);
        let key = super::event_key(event);
        if !self.resume.admits(&key) {
            return Ok(());
        }
        let mut framing = Framing {
            config: &self.config,
            routes: &mut self.routes,
            kinds: self.kinds.as_deref(),
            snapshot_row,
        };
        let messages = framing.messages(event)?;
        if !self.make_topics(event, &messages)? {
            self.last = Some(key);
            return Ok(());
        }
        self.begin()?;
        for m in messages {
            match (self.produce(&m, None), &self.config.oversize_dead_letter) {
                (Err(SinkError::TooLarge { message }), Some(path)) => {
                    oversize::set_aside(path, &m, &message)?;
                }
                (result, _) => result?,
            }
        }
        // Stop producing at the first failure rather than at the commit.
        if self.producer.context().has_failed() {
            self.abort_if_undelivered()?;
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

    /// A third of the transaction timeout: the coordinator aborts a
    /// transaction open longer, and the commit itself must fit too.
    fn commit_deadline(&self) -> Option<Duration> {
        Some(Duration::from_millis(
            self.config.transaction_timeout_ms() / 3,
        ))
    }

    fn in_flight(&self) -> u64 {
        u64::try_from(self.producer.in_flight_count()).unwrap_or(0)
    }

    fn last_position(&self) -> Option<EventPosition> {
        self.last.clone()
    }
}

#[cfg(test)]
mod tests;
