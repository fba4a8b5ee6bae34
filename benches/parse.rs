//! SQL_REDO parse throughput on the reference corpus, beside a plain memchr
//! pass over the same bytes (the ceiling for any line-oriented reader).
//!
//! Corpus: `$CDCCTL_CORPUS`, else `target/redo-corpus.sql`, generated on
//! first use by `shared/bench/gen-redo-corpus` when that script is found
//! next to the crate. Runs: `$CDCCTL_BENCH_RUNS` (default 7); figures are
//! medians. Run with `cargo bench --bench parse`.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use cdcctl::engine::redo::parse;

fn corpus_path() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("CDCCTL_CORPUS") {
        return Ok(PathBuf::from(p));
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = root.join("target").join("redo-corpus.sql");
    if target.exists() {
        return Ok(target);
    }
    let script = [
        "../shared/bench/gen-redo-corpus",
        "../../shared/bench/gen-redo-corpus",
    ]
    .iter()
    .map(|p| root.join(p))
    .find(|p| p.exists())
    .ok_or_else(|| {
        "no corpus: set CDCCTL_CORPUS to a file of SQL_REDO statements (one per line), \
             or put shared/bench/gen-redo-corpus next to the crate"
            .to_string()
    })?;
    std::fs::create_dir_all(root.join("target")).map_err(|e| e.to_string())?;
    eprintln!("generating {} with {}", target.display(), script.display());
    let status = Command::new("python3")
        .arg(&script)
        .arg(&target)
        .status()
        .map_err(|e| format!("cannot run python3 {}: {e}", script.display()))?;
    if !status.success() {
        return Err(format!("{} failed ({status})", script.display()));
    }
    Ok(target)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Time this thread spent on a CPU, from `/proc/thread-self/schedstat`
/// (Linux). On a shared machine it measures one core's work where wall
/// time would also count the waits for a core.
fn cpu_time() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Median wall time and median on-CPU time of `runs` calls.
fn measure(runs: usize, mut f: impl FnMut()) -> (Duration, Option<Duration>) {
    f(); // warm caches and the allocator
    let mut wall = Vec::with_capacity(runs);
    let mut cpu = Vec::with_capacity(runs);
    for _ in 0..runs {
        let c = cpu_time();
        let t = Instant::now();
        f();
        wall.push(t.elapsed());
        if let (Some(before), Some(after)) = (c, cpu_time()) {
            cpu.push(after.saturating_sub(before));
        }
    }
    let cpu = (cpu.len() == runs).then(|| median(cpu));
    (median(wall), cpu)
}

fn main() {
    let path = match corpus_path() {
        Ok(p) => p,
        Err(msg) => {
            eprintln!("parse bench skipped: {msg}");
            return;
        }
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("parse bench skipped: cannot read {}: {e}", path.display());
            return;
        }
    };
    let runs: usize = std::env::var("CDCCTL_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(7);
    let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    let bytes = text.len() as f64;
    let mb = bytes / 1e6;
    let n = lines.len() as f64;

    let mut failed = 0usize;
    let mut first_error = None;
    for l in &lines {
        if let Err(e) = parse(l) {
            failed += 1;
            first_error.get_or_insert(e);
        }
    }

    let newline = measure(runs, || {
        black_box(memchr::memchr_iter(b'\n', text.as_bytes()).count());
    });
    let parse_only = measure(runs, || {
        for l in &lines {
            let _ = black_box(parse(black_box(l)));
        }
    });
    let with_images = measure(runs, || {
        for l in &lines {
            if let Ok(s) = parse(black_box(l)) {
                black_box((s.before_image(), s.after_image()));
            }
        }
    });

    let rate = |d: Duration| (mb / d.as_secs_f64(), n / d.as_secs_f64());
    println!(
        "corpus: {} ({:.1} MB, {} statements), median of {runs} runs",
        path.display(),
        mb,
        lines.len()
    );
    println!("                       wall clock                       on-CPU time of the thread");
    for (name, (wall, cpu)) in [
        ("memchr newline pass", newline),
        ("parse", parse_only),
        ("parse + both images", with_images),
    ] {
        let (wm, ws) = rate(wall);
        let cpu = cpu.map_or_else(String::new, |c| {
            let (cm, cs) = rate(c);
            format!("{cm:>9.1} MB/s  {cs:>10.0} statements/s")
        });
        println!("{name:<21} {wm:>9.1} MB/s  {ws:>10.0} statements/s   {cpu}");
    }
    println!(
        "failed statements     {failed} of {} ({:.3}%)",
        lines.len(),
        100.0 * failed as f64 / n.max(1.0)
    );
    if let Some(e) = first_error {
        println!(
            "first failure: {e}: {}",
            e.raw.chars().take(200).collect::<String>()
        );
    }
}
