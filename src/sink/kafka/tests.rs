//! The Kafka sink's keys, ids and topic names, and its transactions
//! against librdkafka's mock cluster (a broker in the test process).

use super::*;
use crate::engine::event::{ChangeEvent, Field, Image, Op, SnapshotMark, SourcePosition};
use rdkafka::message::{Header, OwnedHeaders};
use std::collections::BTreeSet;

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
        snapshot: SnapshotMark::Stream,
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
fn connect_json_keys_are_under_debeziums_key_schema_issue32() {
    use crate::engine::event::EnvelopeForm;
    let mut c = change(Op::Create);
    c.source.name = "erp".into();
    let cols = vec!["ID".to_string()];
    let forms = ValueForms {
        envelope: EnvelopeForm::ConnectJson,
        ..ValueForms::default()
    };
    let key = message_key(&c, &cols, forms).expect("a key");
    let key: serde_json::Value = serde_json::from_str(&key).expect("JSON");
    assert_eq!(key["payload"], serde_json::json!({"ID": "7"}));
    assert_eq!(key["schema"]["name"], "erp.APP.ORDERS.Key");
    assert_eq!(
        key["schema"]["fields"],
        serde_json::json!([{"field": "ID", "type": "string", "optional": false}])
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
    assert_eq!(
        c.topic_for("APP", "ORDERS").as_deref(),
        Some("erp.APP.ORDERS")
    );
    assert_eq!(c.topic_for("UNKNOWN", "OBJ# 74000"), None);
    c.routes.insert("APP.ORDERS".into(), "orders".into());
    c.routes
        .insert("UNKNOWN.OBJ# 74000".into(), "erp.dropped".into());
    assert_eq!(c.topic_for("APP", "ORDERS").as_deref(), Some("orders"));
    assert_eq!(
        c.topic_for("UNKNOWN", "OBJ# 74000").as_deref(),
        Some("erp.dropped")
    );
    assert_eq!(c.offsets_topic(), "erp.cdcctl.offsets");
}

fn framed(config: &KafkaConfig, events: &[CapturedEvent]) -> Vec<messages::Outgoing> {
    let mut rows = messages::ChunkRows::default();
    let mut routes = messages::Routes::default();
    let mut out = Vec::new();
    for e in events {
        let row = rows.place(e);
        let mut framing = messages::Framing {
            config,
            routes: &mut routes,
            kinds: None,
            snapshot_row: row,
        };
        out.extend(framing.messages(e).expect("a topic"));
    }
    out
}

fn keyed_config(tombstones: bool) -> KafkaConfig {
    let mut key_columns = BTreeMap::new();
    key_columns.insert(
        TableName {
            owner: "APP".into(),
            table: "ORDERS".into(),
        },
        vec!["ID".to_string()],
    );
    KafkaConfig {
        server_name: "erp".into(),
        key_columns,
        tombstones,
        ..KafkaConfig::default()
    }
}

#[test]
fn a_truncate_is_one_message_on_the_tables_topic_with_no_key_and_no_tombstone_issue33() {
    let mut t = change(Op::Truncate);
    t.before = None;
    t.after = None;
    let messages = framed(&keyed_config(true), &[CapturedEvent::Change(t)]);
    assert_eq!(messages.len(), 1);
    assert_eq!(&*messages[0].topic, "erp.APP.ORDERS");
    assert_eq!(messages[0].key, None);
    let v: serde_json::Value =
        serde_json::from_str(messages[0].value.as_deref().expect("a value")).expect("JSON");
    assert_eq!(v["op"], "t");
    assert!(v["before"].is_null() && v["after"].is_null());
}

#[test]
fn every_message_has_its_own_id_snapshot_rows_and_tombstones_too_issue32() {
    let mut events = Vec::new();
    for id in 1..=3 {
        let mut r = change(Op::Read);
        r.after = Some(vec![("ID".to_string(), Field::text(id.to_string()))].into());
        r.source.scn = 500;
        r.index = 4;
        events.push(CapturedEvent::Change(r));
    }
    events.push(CapturedEvent::Change(change(Op::Delete)));
    let messages = framed(&keyed_config(true), &events);
    assert_eq!(messages.len(), 5, "three rows, a delete and its tombstone");
    let ids: BTreeSet<&EventId> = messages.iter().map(|m| &m.id).collect();
    assert_eq!(ids.len(), messages.len(), "ids shared: {:?}", ids);
    assert_eq!(messages[1].id.index, "4.1");
    assert_eq!(messages[4].id.index, "0.tombstone");
}

#[test]
fn an_update_of_the_key_is_a_delete_a_tombstone_and_a_create_as_debezium_sends_issue32() {
    let mut u = change(Op::Update);
    u.after = Some(
        vec![
            ("ID".to_string(), Field::text("8")),
            ("NAME".to_string(), Field::text("x")),
        ]
        .into(),
    );
    let messages = framed(&keyed_config(true), &[CapturedEvent::Change(u.clone())]);
    let shape: Vec<_> = messages
        .iter()
        .map(|m| {
            let op = m.value.as_deref().map(|v| {
                serde_json::from_str::<serde_json::Value>(v).expect("json")["op"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string()
            });
            (m.key.clone().unwrap_or_default(), op, m.key_change.clone())
        })
        .collect();
    let (old, new) = (r#"{"ID":"7"}"#.to_string(), r#"{"ID":"8"}"#.to_string());
    assert_eq!(
        shape,
        vec![
            (
                old.clone(),
                Some("d".into()),
                Some(("__debezium.newkey", new.clone()))
            ),
            (old.clone(), None, Some(("__debezium.newkey", new.clone()))),
            (
                new.clone(),
                Some("c".into()),
                Some(("__debezium.oldkey", old.clone()))
            ),
        ]
    );
    let ids: BTreeSet<&EventId> = messages.iter().map(|m| &m.id).collect();
    assert_eq!(ids.len(), 3);
    // Without tombstones, the delete and the create; an update that keeps
    // its key stays one message.
    assert_eq!(
        framed(&keyed_config(false), &[CapturedEvent::Change(u)]).len(),
        2
    );
    let same = framed(
        &keyed_config(true),
        &[CapturedEvent::Change(change(Op::Update))],
    );
    assert_eq!(same.len(), 1);
    assert!(same[0].key_change.is_none());
}

#[test]
fn a_ddl_message_is_keyed_by_its_database_as_debezium_keys_it_issue32() {
    use crate::engine::event::DdlEvent;
    let ddl = CapturedEvent::Ddl(DdlEvent {
        source: SourcePosition {
            db: "ORCLPDB1".into(),
            ..SourcePosition::default()
        },
        ddl: "ALTER TABLE APP.ORDERS ADD (NOTE VARCHAR2(10))".into(),
        commit_ts_ms: 0,
    });
    let m = framed(&keyed_config(true), &[ddl]);
    assert_eq!(m.len(), 1);
    assert_eq!(&*m[0].topic, "erp");
    assert_eq!(m[0].key.as_deref(), Some(r#"{"databaseName":"ORCLPDB1"}"#));
}

mod mock {
    //! Transactions against librdkafka's mock cluster: produce errors are
    //! injected per request, so a delivery fails after `send` accepted it.

    use super::*;
    use rdkafka::consumer::{BaseConsumer, Consumer};
    use rdkafka::error::KafkaError;
    use rdkafka::mocking::MockCluster;
    use rdkafka::types::{RDKafkaApiKey, RDKafkaRespErr};
    use rdkafka::{Message, Offset, TopicPartitionList};

    fn cluster() -> MockCluster<'static, rdkafka::producer::DefaultProducerContext> {
        let mock = MockCluster::new(1).expect("mock cluster");
        for topic in ["erp.cdcctl.offsets", "erp.APP.ORDERS"] {
            mock.create_topic(topic, 1, 1).expect("topic");
        }
        mock
    }

    /// The sink on the mock, past the offsets topic's creation and check:
    /// the mock answers no admin request (each waits out its timeout).
    fn sink(mock: &MockCluster<'static, rdkafka::producer::DefaultProducerContext>) -> KafkaSink {
        let brokers = mock.bootstrap_servers();
        let watch = super::super::wait::WaitWatch::new(&brokers);
        KafkaSink::connect(
            KafkaConfig {
                brokers,
                server_name: "erp".into(),
                compression: "none".into(),
                ..KafkaConfig::default()
            },
            watch,
        )
        .expect("open the sink")
    }

    fn event_at(scn: u64) -> CapturedEvent {
        let mut c = change(Op::Create);
        c.source.commit_scn = scn;
        c.source.xid = format!("XID{scn}");
        CapturedEvent::Change(c)
    }

    fn checkpoint_at(scn: u64) -> Checkpoint {
        Checkpoint::new(scn, scn, vec![format!("XID{scn}")], None)
    }

    /// Every record of the offsets topic, aborted ones included
    /// (`read_uncommitted`), as a broker that shows them would.
    fn offsets_records(
        mock: &MockCluster<'static, rdkafka::producer::DefaultProducerContext>,
    ) -> usize {
        let c: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", mock.bootstrap_servers())
            .set("group.id", "t")
            .set("isolation.level", "read_uncommitted")
            .set("enable.partition.eof", "true")
            .create()
            .expect("consumer");
        let mut tpl = TopicPartitionList::new();
        tpl.add_partition_offset("erp.cdcctl.offsets", 0, Offset::Beginning)
            .expect("partition");
        c.assign(&tpl).expect("assign");
        let mut n = 0;
        loop {
            match c.poll(Duration::from_secs(10)) {
                Some(Ok(m)) => n += usize::from(m.payload().is_some()),
                Some(Err(KafkaError::PartitionEOF(_))) => return n,
                other => panic!("consume: {other:?}"),
            }
        }
    }

    #[test]
    fn a_failed_delivery_aborts_the_transaction_before_any_checkpoint_is_produced_issue32() {
        let mock = cluster();
        let mut s = sink(&mock);
        s.write(&event_at(10)).expect("write");
        s.commit_with(Some(&checkpoint_at(10)))
            .expect("first commit");
        assert_eq!(offsets_records(&mock), 1);
        // Every produce request refused for good: the events' delivery
        // fails after `send` accepted them.
        mock.request_errors(
            RDKafkaApiKey::Produce,
            &[RDKafkaRespErr::RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE; 20],
        );
        let outcome = s
            .write(&event_at(20))
            .and_then(|()| s.commit_with(Some(&checkpoint_at(20))));
        let e = outcome
            .expect_err("a transaction with a failed delivery commits")
            .to_string();
        assert!(
            e.contains("erp.APP.ORDERS") && e.contains("commit SCN 20"),
            "{e}"
        );
        assert!(
            e.contains("commit SCN 10)"),
            "names the checkpoint it restarts from: {e}"
        );
        mock.clear_request_errors(RDKafkaApiKey::Produce);
        assert_eq!(
            offsets_records(&mock),
            1,
            "a checkpoint was produced after the failed delivery"
        );
        drop(s);
        let reopened = sink(&mock);
        assert_eq!(reopened.stored_checkpoint().map(|c| c.commit_scn), Some(10));
    }

    /// A broker slow to answer (a leader election, a large first fetch)
    /// is waited for: its silence is never read as "no checkpoint".
    #[test]
    fn a_checkpoint_behind_a_slow_broker_is_read_not_taken_for_none_issue32() {
        let mock = cluster();
        let mut s = sink(&mock);
        s.write(&event_at(10)).expect("write");
        s.commit_with(Some(&checkpoint_at(10))).expect("commit");
        let config = s.config.clone();
        drop(s);
        mock.broker_round_trip_time(1, Duration::from_secs(3))
            .expect("slow broker");
        let read = offsets::read_checkpoint(&config).expect("read");
        assert_eq!(read.map(|c| c.commit_scn), Some(10));
    }

    /// An idle poll stores no checkpoint: the offsets topic grows by a
    /// record per commit that moved, not per poll.
    #[test]
    fn a_checkpoint_that_did_not_move_is_not_written_again_issue32() {
        let mock = cluster();
        let mut s = sink(&mock);
        s.write(&event_at(10)).expect("write");
        s.commit_with(Some(&checkpoint_at(10))).expect("commit");
        for _ in 0..3 {
            std::thread::sleep(Duration::from_millis(5));
            s.commit_with(Some(&checkpoint_at(10)))
                .expect("idle commit");
        }
        assert_eq!(offsets_records(&mock), 1);
        s.write(&event_at(20)).expect("write");
        s.commit_with(Some(&checkpoint_at(20))).expect("commit");
        assert_eq!(offsets_records(&mock), 2);
    }

    /// Java's `Utils.murmur2` (seed 0x9747b28c) and `toPositive(h) % n`:
    /// the partition a Java producer or Connect gives a key.
    fn java_partition(key: &[u8], partitions: u32) -> i32 {
        const M: u32 = 0x5bd1_e995;
        let mut h: u32 = 0x9747_b28c ^ u32::try_from(key.len()).expect("short key");
        let mut chunks = key.chunks_exact(4);
        for c in &mut chunks {
            let mut k = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            k = k.wrapping_mul(M);
            k ^= k >> 24;
            k = k.wrapping_mul(M);
            h = h.wrapping_mul(M) ^ k;
        }
        let rest = chunks.remainder();
        if rest.len() >= 3 {
            h ^= u32::from(rest[2]) << 16;
        }
        if rest.len() >= 2 {
            h ^= u32::from(rest[1]) << 8;
        }
        if !rest.is_empty() {
            h ^= u32::from(rest[0]);
            h = h.wrapping_mul(M);
        }
        h ^= h >> 13;
        h = h.wrapping_mul(M);
        h ^= h >> 15;
        i32::try_from((h & 0x7fff_ffff) % partitions).expect("a partition")
    }

    /// Keys land where a Java producer would put them, so a table's topic
    /// co-partitions with Java-produced topics of the same keys.
    #[test]
    fn keys_are_partitioned_as_java_producers_partition_them_issue32() {
        let mock = MockCluster::new(1).expect("mock cluster");
        mock.create_topic("erp.cdcctl.offsets", 1, 1)
            .expect("topic");
        mock.create_topic("erp.APP.ORDERS", 6, 1).expect("topic");
        let mut config = keyed_config(false);
        config.brokers = mock.bootstrap_servers();
        config.compression = "none".into();
        let watch = super::super::wait::WaitWatch::new(&config.brokers);
        let mut s = KafkaSink::connect(config, watch).expect("sink");
        for id in 0..40 {
            let mut c = change(Op::Create);
            c.after = Some(vec![("ID".to_string(), Field::text(id.to_string()))].into());
            c.source.commit_scn = 100 + id;
            c.source.xid = format!("X{id}");
            s.write(&CapturedEvent::Change(c)).expect("write");
        }
        s.commit_with(Some(&checkpoint_at(200))).expect("commit");
        let c: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", mock.bootstrap_servers())
            .set("group.id", "t")
            .set("enable.partition.eof", "true")
            .create()
            .expect("consumer");
        let mut tpl = TopicPartitionList::new();
        for p in 0..6 {
            tpl.add_partition_offset("erp.APP.ORDERS", p, Offset::Beginning)
                .expect("partition");
        }
        c.assign(&tpl).expect("assign");
        let (mut seen, mut ended) = (0, 0);
        while ended < 6 {
            match c.poll(Duration::from_secs(10)) {
                Some(Ok(m)) => {
                    let key = m.key().expect("a keyed message");
                    assert_eq!(
                        m.partition(),
                        java_partition(key, 6),
                        "{:?}",
                        std::str::from_utf8(key)
                    );
                    seen += 1;
                }
                Some(Err(KafkaError::PartitionEOF(_))) => ended += 1,
                other => panic!("consume: {other:?}"),
            }
        }
        assert_eq!(seen, 40);
    }
}

#[test]
fn keyed_tables_topics_are_compacted_and_the_schema_change_topic_never_issue32() {
    let config = keyed_config(true);
    assert!(config.compacts(&CapturedEvent::Change(change(Op::Create))));
    let mut other = change(Op::Create);
    other.source.table = "NOTES".into();
    assert!(
        !config.compacts(&CapturedEvent::Change(other)),
        "a table without a key"
    );
    assert!(!keyed_config(false).compacts(&CapturedEvent::Change(change(Op::Create))));
}
