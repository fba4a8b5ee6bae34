//! How fast the simulator produces redo and V$LOGMNR_CONTENTS rows, without
//! any capture engine: generation (records/s), rendering (rows/s) and a full
//! LogMiner session (start, query, fetch) over the generated range.
//!
//! `cargo bench --bench sim_rows` (optionally `-- N` records, default 200000).

use std::time::Instant;

use cdcctl::source::sim::Sim;
use cdcctl::source::{ContentsQuery, MiningOptions, RedoSource, SessionRequest};

/// The allocator the `cdcctl` binary ships with, so the figures are the
/// binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let n: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(200_000);
    for scenario in ["demo", "oracle11g"] {
        let mut sim = match Sim::from_spec(scenario) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{scenario}: {e}");
                std::process::exit(2);
            }
        };
        sim.set_truth_limit(Some(10_000));
        let start_scn = sim.model().scn;
        let t = Instant::now();
        let made = sim.pregenerate(n);
        let gen_s = t.elapsed().as_secs_f64();

        let t = Instant::now();
        let rendered = sim.all_rows().len();
        let render_s = t.elapsed().as_secs_f64();

        let end_scn = sim.model().scn;
        let files = sim.plan_logs(start_scn);
        let t = Instant::now();
        let mut fetched = 0usize;
        let ok = sim
            .start_session(&SessionRequest {
                log_files: files,
                start_scn,
                end_scn,
                options: MiningOptions {
                    dict_from_online_catalog: true,
                    ..MiningOptions::default()
                },
            })
            .and_then(|()| {
                sim.query_contents(&ContentsQuery {
                    from_scn: start_scn,
                    to_scn: end_scn,
                    ..ContentsQuery::default()
                })
            })
            .and_then(|()| {
                let mut rows = Vec::with_capacity(10_000);
                loop {
                    rows.clear();
                    let k = sim.fetch(10_000, &mut rows)?;
                    if k == 0 {
                        return Ok(());
                    }
                    fetched += k;
                }
            });
        let mine_s = t.elapsed().as_secs_f64();
        if let Err(e) = ok {
            eprintln!("{scenario}: session failed: {e}");
        }
        println!(
            "{scenario:10} generate {made} records in {gen_s:.2}s ({:.0} records/s); render {rendered} rows in {render_s:.2}s ({:.0} rows/s); session over {} SCNs: {fetched} rows in {mine_s:.2}s ({:.0} rows/s)",
            made as f64 / gen_s.max(1e-9),
            rendered as f64 / render_s.max(1e-9),
            end_scn - start_scn,
            fetched as f64 / mine_s.max(1e-9),
        );
    }
}
