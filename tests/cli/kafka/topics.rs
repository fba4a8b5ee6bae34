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
