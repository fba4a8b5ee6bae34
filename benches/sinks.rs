//! End-to-end sink throughput: the simulator's rows generated beforehand,
//! then the engine (buffer, parser, envelopes) writing into the file sink
//! and into the Kafka sink (a transaction per batch of 10,000 events with
//! its checkpoint), events/s from the first row to the last commit.
//!
//! Then the same events, made beforehand, into the Kafka sink alone: its
//! own capacity, without the engine's cost.
//!
//! `cargo bench --bench sinks [-- N]` (default 100000 changes). Kafka: the
//! broker at CDCCTL_KAFKA_BROKERS, else tansu from `.ci/install-tansu`
//! started on 127.0.0.1:19392; skipped with a message when neither exists.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cdcctl::engine::checkpoint::Checkpoint;
use cdcctl::engine::emit::SinkError as TxnSinkError;
use cdcctl::engine::event::CapturedEvent;
use cdcctl::engine::txn::{BufferConfig, TxnBuffer};
use cdcctl::sink::kafka::{KafkaConfig, KafkaSink};
use cdcctl::sink::{EventSink, JsonLinesSink};
use cdcctl::source::sim::Sim;
use cdcctl::source::Catalog;

/// The allocator the `cdcctl` binary ships with, so the figures are the
/// binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const BATCH: u64 = 10_000;

fn fail(what: &str, e: impl std::fmt::Display) -> ! {
    eprintln!("{what}: {e}");
    std::process::exit(4);
}

/// Rows through the engine into `sink`, committing every BATCH events:
/// (events, seconds).
fn through(
    rows: &[cdcctl::engine::row::LogMinerRow],
    db: &str,
    sink: &mut dyn EventSink,
) -> (u64, f64) {
    let mut buffer = TxnBuffer::new(BufferConfig {
        db_name: db.to_string(),
        ..BufferConfig::default()
    });
    let mut count = 0u64;
    let mut committed = 0u64;
    let t = Instant::now();
    for row in rows.iter().cloned() {
        let scn = row.scn;
        let mut write = |e: CapturedEvent| -> Result<(), TxnSinkError> {
            count += 1;
            sink.write(&e)
                .map_err(|e| TxnSinkError::from(e.to_string()))
        };
        if let Err(e) = buffer.push(row, &mut write) {
            fail("engine", e);
        }
        if count - committed >= BATCH {
            committed = count;
            let cp = Checkpoint::new(scn.max(1), scn, Vec::new(), None);
            if let Err(e) = sink.commit_with(Some(&cp)) {
                fail("commit", e);
            }
        }
    }
    let cp = Checkpoint::new(1, 1, Vec::new(), None);
    if let Err(e) = sink.commit_with(Some(&cp)) {
        fail("commit", e);
    }
    (count, t.elapsed().as_secs_f64())
}

/// The events the engine makes of `rows`, each with the SCN its batch
/// would be checkpointed at.
fn events_of(rows: &[cdcctl::engine::row::LogMinerRow], db: &str) -> Vec<(CapturedEvent, u64)> {
    let mut buffer = TxnBuffer::new(BufferConfig {
        db_name: db.to_string(),
        ..BufferConfig::default()
    });
    let mut out = Vec::new();
    for row in rows.iter().cloned() {
        let scn = row.scn;
        let mut keep = |e: CapturedEvent| -> Result<(), TxnSinkError> {
            out.push((e, scn));
            Ok(())
        };
        if let Err(e) = buffer.push(row, &mut keep) {
            fail("engine", e);
        }
    }
    out
}

/// Ready-made events into `sink`, committing every BATCH: (seconds in
/// all, seconds inside the commits).
fn sink_alone(events: &[(CapturedEvent, u64)], sink: &mut dyn EventSink) -> (f64, f64) {
    let t = Instant::now();
    let mut in_commit = Duration::ZERO;
    for (i, (e, scn)) in events.iter().enumerate() {
        if let Err(e) = sink.write(e) {
            fail("write", e);
        }
        if (i as u64 + 1).is_multiple_of(BATCH) || i + 1 == events.len() {
            let cp = Checkpoint::new((*scn).max(1), *scn, Vec::new(), None);
            let c = Instant::now();
            if let Err(e) = sink.commit_with(Some(&cp)) {
                fail("commit", e);
            }
            in_commit += c.elapsed();
        }
    }
    (t.elapsed().as_secs_f64(), in_commit.as_secs_f64())
}

fn main() {
    let n: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(100_000);
    let mut s = match Sim::from_spec("demo") {
        Ok(s) => s,
        Err(e) => fail("demo", e),
    };
    s.set_truth_limit(Some(1));
    let db = s.db_name().to_string();
    let _ = Catalog::instance(&mut s);
    s.pregenerate(n);
    let rows = s.all_rows();
    println!(
        "sink throughput, {} pre-generated rows of the demo scenario",
        rows.len()
    );

    let dir = tempfile::tempdir().unwrap_or_else(|e| fail("tempdir", e));
    let mut file =
        JsonLinesSink::file(&dir.path().join("out.jsonl")).unwrap_or_else(|e| fail("file", e));
    let (events, secs) = through(&rows, &db, &mut file);
    println!(
        "  engine -> file sink:  {:>9.0} events/s ({events} events in {secs:.2} s, fsync per {BATCH})",
        events as f64 / secs
    );

    let mut broker = None;
    let brokers = match std::env::var("CDCCTL_KAFKA_BROKERS") {
        Ok(b) => b,
        Err(_) => {
            let bin = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tansu/bin/tansu");
            if !bin.exists() {
                println!(
                    "  engine -> kafka sink: SKIPPED (no CDCCTL_KAFKA_BROKERS, no {})",
                    bin.display()
                );
                return;
            }
            let url = "tcp://127.0.0.1:19392";
            let child = Command::new(bin)
                .args([
                    "broker",
                    "--listener-url",
                    url,
                    "--advertised-listener-url",
                    url,
                ])
                .args(["--storage-engine", "memory://tansu/"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| fail("tansu", e));
            broker = Some(child);
            std::thread::sleep(Duration::from_millis(500));
            "127.0.0.1:19392".to_string()
        }
    };
    let config = KafkaConfig {
        brokers: brokers.clone(),
        server_name: format!("bench{}", std::process::id()),
        compression: "lz4".into(),
        ..KafkaConfig::default()
    };
    let mut kafka = KafkaSink::open(config).unwrap_or_else(|e| fail("kafka", e));
    let (events, secs) = through(&rows, &db, &mut kafka);
    println!(
        "  engine -> kafka sink: {:>9.0} events/s ({events} events in {secs:.2} s, {brokers}, lz4, transaction per {BATCH})",
        events as f64 / secs
    );
    drop(kafka);
    // The sink's own capacity: the same events made beforehand, so the
    // engine's speed (the parser's and the buffer's) is left out.
    let ready = events_of(&rows, &db);
    // CDCCTL_BENCH_KAFKA=key=value,... sets producer properties to try.
    let properties = std::env::var("CDCCTL_BENCH_KAFKA")
        .unwrap_or_default()
        .split(',')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut kafka = KafkaSink::open(KafkaConfig {
        brokers: brokers.clone(),
        server_name: format!("bench{}b", std::process::id()),
        compression: "lz4".into(),
        properties,
        ..KafkaConfig::default()
    })
    .unwrap_or_else(|e| fail("kafka", e));
    let (secs, committing) = sink_alone(&ready, &mut kafka);
    println!(
        "  events -> kafka sink: {:>9.0} events/s ({} ready-made events in {secs:.2} s, {committing:.2} s of it in commits)",
        ready.len() as f64 / secs,
        ready.len()
    );
    drop(kafka);
    if let Some(mut b) = broker {
        let _ = b.kill();
        let _ = b.wait();
    }
}
