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
//!   checkpoint per window or group; lz4 and a tombstone after each
//!   delete, as `run` sends them), when a broker is at hand.
//!
//! The three alternate in each of `$CDCCTL_BENCH_RUNS` rounds (default 5);
//! each figure is the median over rounds, and each pipeline's ratio to the
//! engine is the median of the rounds' own ratios, which a shared host's
//! phases disturb less than bare rates. Beside the rates, the CPU-seconds
//! a run takes (all of cdcctl's threads, and the broker's when it runs
//! here): on a host of few cores they bound the wall time from below.
//!
//! `cargo bench --bench sinks [-- N]` (default 300000 changes).
//! `CDCCTL_BENCH_ONLY=file` or `=kafka` runs the engine and that pipeline
//! alone, to profile it; `CDCCTL_BENCH_COMPRESSION` sets another codec.
//! Kafka: the broker at CDCCTL_KAFKA_BROKERS, else tansu from
//! `.ci/install-tansu` started on a free port of 127.0.0.1; skipped with a
//! message when neither exists.

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

/// CPU-seconds this process has used, all threads (those ended too).
fn own_cpu() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return 0.0;
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// CPU-seconds a child (the broker) has used, from /proc; 0 where unknown.
fn child_cpu(child: Option<&Child>) -> f64 {
    let Some(stat) =
        child.and_then(|c| std::fs::read_to_string(format!("/proc/{}/stat", c.id())).ok())
    else {
        return 0.0;
    };
    // The fields after the command's closing parenthesis; utime and
    // stime are the 12th and 13th of them.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let ticks: f64 = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|f| f.parse::<f64>().ok())
        .sum();
    // SAFETY: sysconf reads a constant.
    ticks / unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64
}

/// What one pipeline run took.
struct Run {
    events: u64,
    secs: f64,
    /// This process's CPU-seconds over the run.
    cpu: f64,
}

/// The daemon over a replay of `rows` into `sink`, from the start of the
/// run to the last durable commit.
fn pipeline(rows: &[LogMinerRow], sink: SinkChoice, dir: &Path) -> Run {
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
    let (t, cpu) = (Instant::now(), own_cpu());
    let outcome = run_on(&config, opened, &Signals::default(), &Collected::default())
        .unwrap_or_else(|e| fail("run", e));
    Run {
        events: outcome.written,
        secs: t.elapsed().as_secs_f64(),
        cpu: own_cpu() - cpu,
    }
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

/// The codec `run` uses unless told otherwise, or CDCCTL_BENCH_COMPRESSION.
fn compression() -> String {
    std::env::var("CDCCTL_BENCH_COMPRESSION").unwrap_or_else(|_| "lz4".into())
}

fn kafka_sink(brokers: &str, round: usize) -> SinkChoice {
    SinkChoice::Kafka(KafkaConfig {
        brokers: brokers.to_string(),
        server_name: format!("bench{}r{round}", std::process::id()),
        compression: compression(),
        // As `run` sends them unless told --no-tombstones.
        tombstones: true,
        ..KafkaConfig::default()
    })
}

/// Rates and same-round ratios of one pipeline.
#[derive(Default)]
struct Figures {
    rates: Vec<f64>,
    ratios: Vec<f64>,
    /// CPU-seconds per run: cdcctl's, and the broker's when it runs here.
    cpu: Vec<f64>,
    broker_cpu: Vec<f64>,
}

impl Figures {
    fn add(&mut self, run: Run, engine_rate: f64, expected: u64) {
        let Run { events, secs, cpu } = run;
        self.cpu.push(cpu);
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
        let broker = if self.broker_cpu.iter().any(|&c| c > 0.0) {
            format!(", the broker on this host {:.2}", median(self.broker_cpu))
        } else {
            String::new()
        };
        println!(
            "  {:<22} CPU-seconds a run: cdcctl {:.2}{broker}",
            "",
            median(self.cpu)
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
    // One pipeline alone (`file` or `kafka`), to profile it.
    let only = std::env::var("CDCCTL_BENCH_ONLY").ok();
    if only.as_deref().is_some_and(|o| o != "file" && o != "kafka") {
        fail("CDCCTL_BENCH_ONLY", "is `file` or `kafka`");
    }
    let wanted = |pipeline: &str| only.as_deref().is_none_or(|o| o == pipeline);
    let kafka = if wanted("kafka") { broker() } else { None };
    println!(
        "run's pipeline against the engine alone, {} pre-generated rows of `demo`, {rounds} rounds",
        rows.len()
    );
    let (mut engine, mut events_a_run) = (Vec::new(), 0);
    let (mut file, mut produce) = (Figures::default(), Figures::default());
    for round in 0..rounds {
        let (events, secs) = engine_only(&rows, &db);
        let engine_rate = events as f64 / secs;
        engine.push(engine_rate);
        events_a_run = events;
        let dir = tempfile::tempdir().unwrap_or_else(|e| fail("tempdir", e));
        let output = dir.path().join("out.jsonl").display().to_string();
        if wanted("file") {
            file.add(
                pipeline(&rows, SinkChoice::File { output }, dir.path()),
                engine_rate,
                events,
            );
        }
        if let Some((brokers, child)) = &kafka {
            let dir = tempfile::tempdir().unwrap_or_else(|e| fail("tempdir", e));
            let child = child.as_ref();
            let broker_cpu = child_cpu(child);
            produce.add(
                pipeline(&rows, kafka_sink(brokers, round), dir.path()),
                engine_rate,
                events,
            );
            produce.broker_cpu.push(child_cpu(child) - broker_cpu);
        }
    }
    let engine_rate = median(engine);
    println!(
        "  {:<22} {:>9.0} events/s, {:.2} s a run on one thread",
        "engine only",
        engine_rate,
        events_a_run as f64 / engine_rate
    );
    if !file.rates.is_empty() {
        file.print("pipeline -> file sink");
    }
    if let Some((brokers, child)) = kafka {
        produce.print("pipeline -> Kafka sink");
        println!(
            "  (Kafka at {brokers}, {}, a transaction per window or group of windows)",
            compression()
        );
        if let Some(mut c) = child {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}
