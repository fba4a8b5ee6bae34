//! Capture-engine throughput on the simulator's virtual clock: events/s
//! through the transaction buffer and parser with the rows generated
//! beforehand (the engine alone), and through the whole capture loop with
//! the simulator generating as it goes (engine plus generation).
//!
//! `cargo bench --bench engine` (optionally `-- N` changes, default 200000,
//! and scenario names to run only those, `engine-only` to skip the runs
//! with generation). Reports the median of five runs of each, and the
//! demo/oracle11g ratio of the engine-only figures (wide rows against
//! narrow ones, from the same run).

use std::time::Instant;

use cdcctl::engine::capture::{Capture, CaptureConfig, Progress, StartAt};
use cdcctl::engine::event::CapturedEvent;
use cdcctl::engine::txn::{BufferConfig, SinkError, TxnBuffer};
use cdcctl::source::sim::Sim;
use cdcctl::source::Catalog;

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

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let n: u64 = args.iter().find_map(|a| a.parse().ok()).unwrap_or(200_000);
    let engine_only = args.iter().any(|a| a == "engine-only");
    let mut scenarios: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| a.parse::<u64>().is_err() && *a != "engine-only")
        .collect();
    if scenarios.is_empty() {
        scenarios = vec!["oracle11g", "demo"];
    }
    println!("engine throughput, {n} generated changes per run, median of 5 runs");
    let mut engine_rates = std::collections::BTreeMap::new();
    for scenario in scenarios {
        // Engine alone: rows rendered up front, then buffered, parsed at
        // commit and turned into envelopes.
        let mut s = sim(scenario);
        s.set_truth_limit(Some(1));
        let db = s.db_name().to_string();
        let _ = Catalog::instance(&mut s);
        s.pregenerate(n);
        let rows = s.all_rows();
        let bytes: usize = rows
            .iter()
            .map(|r| r.sql_redo.as_ref().map_or(0, String::len))
            .sum();
        let mut rates = Vec::new();
        let mut events = 0u64;
        for _ in 0..5 {
            let mut buffer = TxnBuffer::new(BufferConfig {
                db_name: db.clone(),
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
            // The rows as a source hands them over: owned, copied before
            // the clock starts.
            let run_rows = rows.clone();
            let t = Instant::now();
            for row in run_rows {
                if let Err(e) = buffer.push(row, &mut sink) {
                    eprintln!("{scenario}: {e}");
                    std::process::exit(4);
                }
            }
            let elapsed = t.elapsed().as_secs_f64();
            std::hint::black_box(json);
            events = count;
            rates.push(count as f64 / elapsed);
        }
        let rate = median(rates);
        engine_rates.insert(scenario, rate);
        println!(
            "{scenario:>10} engine only (pre-generated rows): {rate:>9.0} events/s  ({} rows, {} events, {:.1} MB SQL_REDO)",
            rows.len(),
            events,
            bytes as f64 / 1e6
        );
        if engine_only {
            continue;
        }

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
    if let (Some(demo), Some(narrow)) = (engine_rates.get("demo"), engine_rates.get("oracle11g")) {
        println!("demo / oracle11g, engine only: {:.2}", demo / narrow);
    }
}
