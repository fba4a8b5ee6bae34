//! Table topics are created by `run` before their first message, with the
//! partitions asked for, rather than left to the broker's auto-creation.

use std::time::Duration;

use rdkafka::consumer::Consumer;

use super::{
    assert_equals_truth, assert_succeeded, cdcctl, consume, consumer, deduplicated, kafka_run,
    topics_of, truth, Broker,
};

#[test]
#[cfg_attr(
    not(cdcctl_kafka),
    ignore = "needs a tansu broker: .ci/install-tansu, then CDCCTL_REQUIRE_KAFKA=1 cargo test"
)]
fn issue32_table_topics_are_created_with_the_partitions_asked_for() {
    let broker = Broker::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let mut args = kafka_run(&broker.addr, "made", true);
    args.extend(["--topic-partitions", "3"]);
    assert_succeeded(&cdcctl(dir.path(), &args));
    let md = consumer(&broker.addr)
        .fetch_metadata(None, Duration::from_secs(30))
        .expect("metadata");
    let partitions: Vec<(String, usize)> = md
        .topics()
        .iter()
        .filter(|t| t.name().starts_with("made.APP."))
        .map(|t| (t.name().to_string(), t.partitions().len()))
        .collect();
    assert!(!partitions.is_empty(), "no table topic");
    assert!(
        partitions.iter().all(|(_, n)| *n == 3),
        "partitions per topic: {partitions:?}"
    );
    let messages = consume(&broker.addr, &topics_of(&broker.addr, "made"));
    let (got, _) = deduplicated(&messages);
    assert_equals_truth(got, truth(dir.path()));
}

/// `run` of `snapshot-under-fire` with APP.ORDER_HIS truncated while its
/// snapshot reads it, into Kafka with `extra`: the messages of the
/// ORDER_HIS topic and what `run` said.
fn truncated_into_kafka(
    broker: &Broker,
    prefix: &str,
    extra: &[&str],
) -> (Vec<super::Consumed>, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    // `snapshot-under-fire` with one DDL, the TRUNCATE: its partition DDL
    // and DROP TABLE leave changes LogMiner cannot name, which no topic takes.
    let base = include_str!("../../../src/source/sim/scenarios/snapshot-under-fire.toml");
    let from = base
        .find("maintenance = [")
        .expect("the scenario lists maintenance");
    let to = from + base[from..].find("]\n").expect("the list ends");
    let text = format!(
        "{}maintenance = [{{ at_s = 140, table = \"APP.ORDER_HIS\", action = \"truncate_table\" }}{}",
        &base[..from],
        &base[to..]
    );
    let scenario = "truncating.toml";
    std::fs::write(dir.path().join(scenario), text).expect("scenario");
    let source = format!("sim:{scenario}?clock=virtual");
    let mut args =
        super::kafka_run_of(&source, &broker.addr, prefix, crate::snapshot::UNTIL, false);
    args.extend_from_slice(extra);
    let out = cdcctl(dir.path(), &args);
    assert_succeeded(&out);
    let topic = format!("{prefix}.APP.ORDER_HIS");
    (
        consume(&broker.addr, &[topic]),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn truncates(messages: &[super::Consumed]) -> usize {
    messages
        .iter()
        .filter(|m| m.value.as_ref().is_some_and(|v| v["op"] == "t"))
        .count()
}

#[test]
#[cfg_attr(
    not(cdcctl_kafka),
    ignore = "needs a tansu broker: .ci/install-tansu, then CDCCTL_REQUIRE_KAFKA=1 cargo test"
)]
fn issue32_a_truncate_is_not_sent_to_a_compacted_topic_and_is_sent_to_a_deleting_one() {
    let broker = Broker::start();
    let (compacted, said) = truncated_into_kafka(&broker, "kept", &[]);
    assert!(
        compacted.iter().any(|m| m.value.is_some()),
        "no ORDER_HIS message"
    );
    assert_eq!(
        truncates(&compacted),
        0,
        "a keyless record in a compacted topic"
    );
    assert!(said.contains("is not sent to kept.APP.ORDER_HIS"), "{said}");
    let (deleting, _) = truncated_into_kafka(&broker, "plain", &["--topic-cleanup", "delete"]);
    assert_eq!(truncates(&deleting), 1);
    let t = deleting
        .iter()
        .find(|m| m.value.as_ref().is_some_and(|v| v["op"] == "t"));
    assert!(
        t.is_some_and(|m| m.key.is_none()),
        "a truncate has no key: {t:?}"
    );
}
