//! `run`'s pipeline end to end against the engine alone, on the same
//! pre-generated `demo` rows, in one run:
//!
//! - engine only: the transaction buffer, the parser and each event's JSON
//!   line, on one thread, nothing written;
//! - pipeline into the file sink: `daemon::run_on` over a replay of the
//!   rows (fetch, engine and sink stages on their threads; a sink commit
//!   with fsync and a checkpoint per window, or per group of the windows
//!   that come while a commit is young, as `run` commits);
//! - pipeline into the Kafka sink (one producer transaction with its
//!   checkpoint per window or group), when a broker is at hand.
//!
//! The three alternate in each of `$CDCCTL_BENCH_RUNS` rounds (default 5);
//! each figure is the median over rounds, and each pipeline's ratio to the
//! engine is the median of the rounds' own ratios, which a shared host's
//! phases disturb less than bare rates.
//!
//! `cargo bench --bench sinks [-- N]` (default 300000 changes). Kafka: the
//! broker at CDCCTL_KAFKA_BROKERS, else tansu from `.ci/install-tansu`
//! started on a free port of 127.0.0.1; skipped with a message when
//! neither exists.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cdcctl::connect::CaptureSource;
use cdcctl::daemon::config::{DaemonConfig, SinkChoice};
use cdcctl::daemon::notice::Collected;
use cdcctl::daemon::{run_on, Signals};
use cdcctl::engine::emit::SinkError;
use cdcctl::engine::event::CapturedEvent;
use cdcctl::engine::row::LogMinerRow;
use cdcctl::engine::snapshot::SnapshotMode;
use cdcctl::engine::txn::{BufferConfig, TxnBuffer};
use cdcctl::sink::kafka::KafkaConfig;
use cdcctl::source::replay::ReplaySource;
use cdcctl::source::sim::Sim;
use cdcctl::source::Catalog;

/// The allocator the `cdcctl` binary ships with, so the figures are the
/// binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// SCNs the replay's clock moves per reading: windows of a few thousand
/// rows, as a busy database gives them.
const SCN_STEP: u64 = 2_000;

fn fail(what: &str, e: impl std::fmt::Display) -> ! {
    eprintln!("{what}: {e}");
    std::process::exit(4);
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The engine alone over `rows`: (events, seconds).
fn engine_only(rows: &[LogMinerRow], db: &str) -> (u64, f64) {
    let mut buffer = TxnBuffer::new(BufferConfig {
        db_name: db.to_string(),
        ..BufferConfig::default()
    });
    let mut count = 0u64;
    let mut json = 0usize;
    let run_rows = rows.to_vec();
    let t = Instant::now();
    for row in run_rows {
        let mut sink = |e: CapturedEvent| -> Result<(), SinkError> {
            count += 1;
            // Serialising is part of what every consumer pays.
            json += e.to_json_line().len();
            Ok(())
        };
        if let Err(e) = buffer.push(row, &mut sink) {
            fail("engine", e);
        }
    }
    std::hint::black_box(json);
    (count, t.elapsed().as_secs_f64())
}

fn demo_source() -> CaptureSource {
    CaptureSource {
        spec: "sim:demo?clock=virtual".into(),
        client_lib: None,
        tables: Vec::new(),
        pdb: None,
        every_table: true,
        prompt: |_| None,
    }
}

/// The daemon over a replay of `rows` into `sink`: (events, seconds), from
/// the start of the run to the last durable commit.
fn pipeline(rows: &[LogMinerRow], sink: SinkChoice, dir: &Path) -> (u64, f64) {
    let source = demo_source();
    let mut opened = source
        .open(None)
        .unwrap_or_else(|e| fail("demo's dictionary", e));
    let replay = ReplaySource::new(rows.to_vec(), SCN_STEP);
    let first = rows.first().map_or(1, |r| r.scn);
    let until = replay.last_scn();
    opened.source = Box::new(replay);
    let mut config = DaemonConfig::new(source, sink, dir.join("cp.json"));
    config.snapshot = Some(SnapshotMode::Never);
    config.from_scn = Some(first.saturating_sub(1));
    config.until_scn = Some(until);
    config.status_every = Duration::from_secs(3600);
    let t = Instant::now();
    let outcome = run_on(&config, opened, &Signals::default(), &Collected::default())
        .unwrap_or_else(|e| fail("run", e));
    (outcome.written, t.elapsed().as_secs_f64())
}

/// A broker to produce to: CDCCTL_KAFKA_BROKERS, or tansu started here
/// (returned so it is stopped at the end).
fn broker() -> Option<(String, Option<Child>)> {
    if let Ok(b) = std::env::var("CDCCTL_KAFKA_BROKERS") {
        return Some((b, None));
    }
    let bin = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tansu/bin/tansu");
    if !bin.exists() {
        println!(
            "  Kafka: SKIPPED (no CDCCTL_KAFKA_BROKERS, no {})",
            bin.display()
        );
        return None;
    }
    // A port no one listens on: a broker left by an interrupted run would
    // otherwise answer instead, with its earlier rounds' topics.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| fail("a free port for tansu", e));
    let url = format!("tcp://127.0.0.1:{port}");
    let mut child = Command::new(bin)
        .args(["broker", "--listener-url", &url])
        .args(["--advertised-listener-url", &url])
        .args(["--storage-engine", "memory://tansu/"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| fail("tansu", e));
    std::thread::sleep(Duration::from_millis(500));
    if let Ok(Some(status)) = child.try_wait() {
        fail("tansu", format!("ended at start ({status})"));
    }
    Some((format!("127.0.0.1:{port}"), Some(child)))
}

fn kafka_sink(brokers: &str, round: usize) -> SinkChoice {
    SinkChoice::Kafka(KafkaConfig {
        brokers: brokers.to_string(),
        server_name: format!("bench{}r{round}", std::process::id()),
        compression: "lz4".into(),
        ..KafkaConfig::default()
    })
}

/// Rates and same-round ratios of one pipeline.
#[derive(Default)]
struct Figures {
    rates: Vec<f64>,
    ratios: Vec<f64>,
}

impl Figures {
    fn add(&mut self, (events, secs): (u64, f64), engine_rate: f64, expected: u64) {
        if events != expected {
            fail(
                "pipeline",
                format!("wrote {events} events where the engine made {expected}"),
            );
        }
        let rate = events as f64 / secs;
        self.rates.push(rate);
        self.ratios.push(rate / engine_rate);
    }

    fn print(self, name: &str) {
        println!(
            "  {name:<22} {:>9.0} events/s, {:.2}× the engine (median of same-round ratios: {})",
            median(self.rates),
            median(self.ratios.clone()),
            self.ratios
                .iter()
                .map(|r| format!("{r:.2}"))
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
}

fn main() {
    let n: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(300_000);
    let rounds: usize = std::env::var("CDCCTL_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .filter(|&r| r > 0)
        .unwrap_or(5);
    let mut s = Sim::from_spec("demo").unwrap_or_else(|e| fail("demo", e));
    s.set_truth_limit(Some(1));
    let db = s.db_name().to_string();
    let _ = Catalog::instance(&mut s);
    s.pregenerate(n);
    let rows = s.all_rows();
    drop(s);
    let kafka = broker();
    println!(
        "run's pipeline against the engine alone, {} pre-generated rows of `demo`, {rounds} rounds",
        rows.len()
    );
    let mut engine = Vec::new();
    let (mut file, mut produce) = (Figures::default(), Figures::default());
    for round in 0..rounds {
        let (events, secs) = engine_only(&rows, &db);
        let engine_rate = events as f64 / secs;
        engine.push(engine_rate);
        let dir = tempfile::tempdir().unwrap_or_else(|e| fail("tempdir", e));
        let output = dir.path().join("out.jsonl").display().to_string();
        file.add(
            pipeline(&rows, SinkChoice::File { output }, dir.path()),
            engine_rate,
            events,
        );
        if let Some((brokers, _)) = &kafka {
            let dir = tempfile::tempdir().unwrap_or_else(|e| fail("tempdir", e));
            produce.add(
                pipeline(&rows, kafka_sink(brokers, round), dir.path()),
                engine_rate,
                events,
            );
        }
    }
    println!("  {:<22} {:>9.0} events/s", "engine only", median(engine));
    file.print("pipeline -> file sink");
    if let Some((brokers, child)) = kafka {
        produce.print("pipeline -> Kafka sink");
        println!("  (Kafka at {brokers}, lz4, a transaction per window or group of windows)");
        if let Some(mut c) = child {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}
