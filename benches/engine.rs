//! Capture-engine throughput on the simulator's virtual clock: events/s
//! through the transaction buffer and parser with the rows generated
//! beforehand (the engine alone), and through the whole capture loop with
//! the simulator generating as it goes (engine plus generation).
//!
//! `cargo bench --bench engine` (optionally `-- N` changes, default 200000,
//! and scenario names to run only those, `engine-only` to skip the runs
//! with generation). The engine-only runs alternate between the scenarios
//! in each of `$CDCCTL_BENCH_RUNS` rounds (default 7): each scenario's
//! figure is the median over rounds, in wall time and in on-CPU time of
//! the thread (which a shared machine disturbs less), and the
//! demo/oracle11g ratio (wide rows against narrow ones) is the median of
//! the rounds' own ratios.
//!
//! Each round also times a memchr pass over the same rows' SQL_REDO (every
//! byte read once, looking for quotes): a floor for any reader of these
//! statements, measured beside the engine so that a scenario's engine time
//! over it carries from one host to another better than events/s, which
//! for the same binary move by a third between a shared host's phases. The
//! engine's nanoseconds per byte of SQL_REDO, and the demo/oracle11g ratio
//! per byte, set the wide rows' cost against the text they carry.

use std::time::{Duration, Instant};

use cdcctl::engine::capture::{Capture, CaptureConfig, Progress, StartAt};
use cdcctl::engine::emit::SinkError;
use cdcctl::engine::event::CapturedEvent;
use cdcctl::engine::row::LogMinerRow;
use cdcctl::engine::txn::{BufferConfig, TxnBuffer};
use cdcctl::source::sim::Sim;
use cdcctl::source::Catalog;

/// The allocator the `cdcctl` binary ships with, so the figures are the
/// binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn sim(scenario: &str) -> Sim {
    match Sim::from_spec(scenario) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{scenario}: {e}");
            std::process::exit(2);
        }
    }
}

/// Time this thread spent on a CPU, from `/proc/thread-self/schedstat`
/// (Linux).
fn cpu_time() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// One scenario's pre-generated rows.
struct Workload {
    scenario: String,
    db: String,
    rows: Vec<LogMinerRow>,
}

/// Wall seconds of `work`, and on-CPU seconds of this thread where the
/// system tells them.
fn timed(work: impl FnOnce()) -> (f64, Option<f64>) {
    let c = cpu_time();
    let t = Instant::now();
    work();
    let wall = t.elapsed().as_secs_f64();
    let cpu = c
        .zip(cpu_time())
        .map(|(b, a)| a.saturating_sub(b).as_secs_f64());
    (wall, cpu)
}

/// Wall and on-CPU seconds of one memchr pass over the rows' SQL_REDO.
#[inline(never)]
fn memchr_pass(w: &Workload) -> (f64, Option<f64>) {
    let mut quotes = 0usize;
    let times = timed(|| {
        for sql in w.rows.iter().filter_map(|r| r.sql_redo.as_ref()) {
            quotes += memchr::memchr_iter(b'\'', std::hint::black_box(sql.as_bytes())).count();
        }
    });
    std::hint::black_box(quotes);
    times
}

/// Events and the wall and on-CPU seconds of one pass of the engine alone.
#[inline(never)]
fn engine_pass(w: &Workload) -> (u64, f64, Option<f64>) {
    let mut buffer = TxnBuffer::new(BufferConfig {
        db_name: w.db.clone(),
        ..BufferConfig::default()
    });
    let mut count = 0u64;
    let mut json = 0usize;
    let mut sink = |e: CapturedEvent| -> Result<(), SinkError> {
        count += 1;
        // Serialising is part of what every consumer pays.
        json += e.to_json_line().len();
        Ok(())
    };
    // The rows as a source hands them over: owned, copied before the
    // clock starts.
    let run_rows = w.rows.clone();
    let (wall, cpu) = timed(|| {
        for row in run_rows {
            if let Err(e) = buffer.push(row, &mut sink) {
                eprintln!("{}: {e}", w.scenario);
                std::process::exit(4);
            }
        }
    });
    std::hint::black_box(json);
    (count, wall, cpu)
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let n: u64 = args.iter().find_map(|a| a.parse().ok()).unwrap_or(200_000);
    let engine_only = args.iter().any(|a| a == "engine-only");
    let rounds: usize = std::env::var("CDCCTL_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .filter(|&r| r > 0)
        .unwrap_or(7);
    let mut scenarios: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| a.parse::<u64>().is_err() && *a != "engine-only")
        .collect();
    if scenarios.is_empty() {
        scenarios = vec!["oracle11g", "demo"];
    }
    println!("engine throughput, {n} generated changes per run, median of {rounds} rounds");
    let workloads: Vec<Workload> = scenarios
        .iter()
        .map(|&scenario| {
            let mut s = sim(scenario);
            s.set_truth_limit(Some(1));
            let db = s.db_name().to_string();
            let _ = Catalog::instance(&mut s);
            s.pregenerate(n);
            Workload {
                scenario: scenario.to_string(),
                db,
                rows: s.all_rows(),
            }
        })
        .collect();
    // Per scenario, per round: events/s in wall time and on the CPU.
    let mut wall_rates = vec![Vec::new(); workloads.len()];
    let mut cpu_rates = vec![Vec::new(); workloads.len()];
    // Per scenario, per round: the engine's time over the memchr pass's,
    // and the engine's nanoseconds per byte of SQL_REDO, each on the CPU
    // when both passes have that figure.
    let mut over_memchr = vec![Vec::new(); workloads.len()];
    let mut ns_per_byte = vec![Vec::new(); workloads.len()];
    let mut events = vec![0u64; workloads.len()];
    let bytes: Vec<usize> = workloads
        .iter()
        .map(|w| {
            w.rows
                .iter()
                .map(|r| r.sql_redo.as_ref().map_or(0, String::len))
                .sum()
        })
        .collect();
    for _ in 0..rounds {
        for (i, w) in workloads.iter().enumerate() {
            let (floor_wall, floor_cpu) = memchr_pass(w);
            let (count, wall, cpu) = engine_pass(w);
            events[i] = count;
            wall_rates[i].push(count as f64 / wall);
            if let Some(cpu) = cpu {
                cpu_rates[i].push(count as f64 / cpu);
            }
            // The thread's CPU time is read in scheduler ticks: a pass over
            // a few rows can show none.
            let (engine, floor) = match (cpu, floor_cpu) {
                (Some(e), Some(f)) if f > 0.0 => (e, f),
                _ => (wall, floor_wall),
            };
            if floor > 0.0 {
                over_memchr[i].push(engine / floor);
            }
            ns_per_byte[i].push(engine * 1e9 / bytes[i].max(1) as f64);
        }
    }
    for (i, w) in workloads.iter().enumerate() {
        let cpu = if cpu_rates[i].is_empty() {
            "n/a".to_string()
        } else {
            format!("{:.0}", median(cpu_rates[i].clone()))
        };
        println!(
            "{:>10} engine only (pre-generated rows): {:>9.0} events/s, {cpu} on CPU  ({} rows, {} events, {:.1} MB SQL_REDO)",
            w.scenario,
            median(wall_rates[i].clone()),
            w.rows.len(),
            events[i],
            bytes[i] as f64 / 1e6
        );
        println!(
            "{:>10} engine / memchr pass over its SQL_REDO: {}; {:.2} ns per byte of SQL_REDO, {:.0} bytes per event",
            w.scenario,
            if over_memchr[i].is_empty() {
                "n/a".to_string()
            } else {
                format!("{:.1}x", median(over_memchr[i].clone()))
            },
            median(ns_per_byte[i].clone()),
            bytes[i] as f64 / events[i].max(1) as f64
        );
    }
    let at = |name: &str| workloads.iter().position(|w| w.scenario == name);
    if let (Some(d), Some(o)) = (at("demo"), at("oracle11g")) {
        let ratio = |rates: &[Vec<f64>]| {
            let per_round: Vec<f64> = rates[d].iter().zip(&rates[o]).map(|(a, b)| a / b).collect();
            (!per_round.is_empty()).then(|| median(per_round))
        };
        let fmt = |r: Option<f64>| r.map_or("n/a".to_string(), |r| format!("{r:.2}"));
        println!(
            "demo / oracle11g, engine only: {} in wall time, {} on CPU (medians of the rounds' ratios)",
            fmt(ratio(&wall_rates)),
            fmt(ratio(&cpu_rates))
        );
        // The same ratio in bytes of SQL_REDO read per second instead of
        // events: `demo` carries several times the text per event.
        println!(
            "demo / oracle11g, engine only, in bytes of SQL_REDO per second: {}",
            fmt(ratio(&ns_per_byte).map(|r| 1.0 / r))
        );
    }
    if engine_only {
        return;
    }
    for scenario in scenarios {
        // Engine plus generation: the capture loop over a fresh simulator.
        let mut rates = Vec::new();
        for _ in 0..5 {
            let mut s = sim(scenario);
            s.set_truth_limit(Some(1));
            let from = s.model().scn;
            let pdb = s.default_pdb();
            let db = s.db_name().to_string();
            let mut capture = match Capture::new(
                s,
                CaptureConfig {
                    buffer: BufferConfig {
                        db_name: db,
                        ..BufferConfig::default()
                    },
                    pdb,
                    start: StartAt::Scn(from),
                    ..CaptureConfig::default()
                },
            ) {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("{scenario}: {e}");
                    std::process::exit(4);
                }
            };
            let mut count = 0u64;
            let t = Instant::now();
            while count < n / 2 {
                let mut sink = |e: CapturedEvent| -> Result<(), SinkError> {
                    count += 1;
                    std::hint::black_box(e.to_json_line());
                    Ok(())
                };
                match capture.poll(&mut sink) {
                    Ok(Progress::Finished) => break,
                    Ok(_) => {}
                    Err(e) => {
                        eprintln!("{scenario}: {e}");
                        std::process::exit(4);
                    }
                }
            }
            rates.push(count as f64 / t.elapsed().as_secs_f64());
        }
        println!(
            "{scenario:>10} engine + simulator generating:   {:>9.0} events/s",
            median(rates)
        );
    }
}
