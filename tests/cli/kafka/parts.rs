//! A database transaction larger than one Kafka transaction may be: it is
//! committed in parts, each with a checkpoint a restart resumes inside the
//! transaction from, and kills between the parts lose and repeat nothing.

use std::path::Path;

use super::{
    assert_equals_truth, assert_succeeded, cdcctl, consume, deduplicated, kafka_run_of,
    kill_at_random_moments, topics_of, Broker,
};

/// `big-transaction` scaled down: a 3,000-change transaction commits at
/// SCN 13010220 among normal traffic.
const SCENARIO: &str = "parts.toml";
const UNTIL: &str = "13012000";
const BIG_CHANGES: u64 = 3_000;

fn write_scenario(dir: &Path) {
    let builtin = include_str!("../../../src/source/sim/scenarios/big-transaction.toml");
    let scaled = builtin
        .replace("changes = 60000", &format!("changes = {BIG_CHANGES}"))
        .replace("rows = 5000", "rows = 500")
        .replace("at_s = 120", "at_s = 20")
        .replace("warmup_s = 60", "warmup_s = 10");
    assert_ne!(scaled, builtin, "the built-in scenario changed its shape");
    std::fs::write(dir.join(SCENARIO), scaled).expect("write the scenario");
}

/// `run` into Kafka with commits of at most 500 events.
fn parts_run(brokers: &str, fresh: bool) -> Vec<String> {
    let source = format!("sim:{SCENARIO}?clock=virtual");
    let mut a: Vec<String> = kafka_run_of(&source, brokers, "parts", UNTIL, fresh)
        .into_iter()
        .map(str::to_string)
        .collect();
    a.extend(["--max-commit-events".to_string(), "500".to_string()]);
    a
}

fn truth(dir: &Path) -> Vec<serde_json::Value> {
    let out = cdcctl(
        dir,
        &["sim", "truth", "--scenario", SCENARIO, "--until-scn", UNTIL],
    );
    assert_succeeded(&out);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("truth line"))
        .collect()
}

/// The XID of the truth's transaction with `changes` events.
fn xid_with(truth: &[serde_json::Value], changes: u64) -> String {
    let mut counts = std::collections::BTreeMap::<String, u64>::new();
    for v in truth {
        let xid = v["source"]["txId"].as_str().unwrap_or_default();
        *counts.entry(xid.to_ascii_lowercase()).or_default() += 1;
    }
    let found = counts.into_iter().find(|(_, n)| *n == changes);
    found.expect("the big transaction in the truth").0
}

/// Where the stored checkpoints' last events are, as (XID, order).
fn checkpointed_events(brokers: &str) -> Vec<(String, u64)> {
    consume(brokers, &["parts.cdcctl.offsets".to_string()])
        .into_iter()
        .filter_map(|m| m.value)
        .filter_map(|cp| {
            let last = &cp["last_event"];
            Some((
                last["xid"].as_str()?.to_ascii_lowercase(),
                last["order"].as_u64()?,
            ))
        })
        .collect()
}

#[test]
#[cfg_attr(
    not(cdcctl_kafka),
    ignore = "needs a tansu broker: .ci/install-tansu, then CDCCTL_REQUIRE_KAFKA=1 cargo test"
)]
fn issue32_a_transaction_larger_than_a_kafka_commit_is_written_in_parts_that_survive_kills() {
    let broker = Broker::start();
    let dir = tempfile::tempdir().expect("tempdir");
    write_scenario(dir.path());
    let offsets = ["parts.cdcctl.offsets".to_string()];
    let mut started = false;
    let mut runs = 0;
    let sigkills =
        kill_at_random_moments(dir.path(), 6, (0x5DEE_CE66_D1CE_4E5B, 300, 2500), || {
            started = started || (runs > 0 && !consume(&broker.addr, &offsets).is_empty());
            runs += 1;
            parts_run(&broker.addr, !started)
        });
    started = started || !consume(&broker.addr, &offsets).is_empty();
    let args = parts_run(&broker.addr, !started);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_succeeded(&cdcctl(dir.path(), &args));
    let want = truth(dir.path());
    let big = xid_with(&want, BIG_CHANGES);
    let inside: Vec<u64> = checkpointed_events(&broker.addr)
        .into_iter()
        .filter(|(xid, order)| *xid == big && *order < BIG_CHANGES)
        .map(|(_, order)| order)
        .collect();
    assert!(
        !inside.is_empty(),
        "no checkpoint inside the {BIG_CHANGES}-change transaction {big}"
    );
    let messages = consume(&broker.addr, &topics_of(&broker.addr, "parts"));
    let (got, copies) = deduplicated(&messages);
    assert_equals_truth(got, want);
    eprintln!(
        "{sigkills} SIGKILLs; checkpoints inside the big transaction after its events {inside:?}; \
         {copies} copies of aborted batches dropped"
    );
}
