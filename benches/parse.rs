//! SQL_REDO parse throughput on the reference corpus, beside a plain memchr
//! pass over the same bytes (the ceiling for any line-oriented reader).
//!
//! Corpus: `$CDCCTL_CORPUS`, else `target/redo-corpus.sql`, generated on
//! first use by `shared/bench/gen-redo-corpus` when that script is found
//! next to the crate. Runs: `$CDCCTL_BENCH_RUNS` (default 7); figures are
//! medians. Run with `cargo bench --bench parse`.
//!
//! Also runs `cdcctl redo parse --file CORPUS` (output to /dev/null) as a
//! child process, end to end: reading, parsing and writing JSON lines; its
//! on-CPU time is the child's user + system time. The ratios at the end
//! compare figures of this run only, which is what holds across hosts.

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

/// User + system time of finished children so far (Linux, macOS).
fn children_cpu() -> Option<Duration> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a whole rusage into the pointer it is given.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()) };
    if rc != 0 {
        return None;
    }
    // SAFETY: zero-initialised, then filled by a successful getrusage.
    let u = unsafe { usage.assume_init() };
    let t = |tv: libc::timeval| {
        Duration::from_secs(tv.tv_sec as u64) + Duration::from_micros(tv.tv_usec as u64)
    };
    Some(t(u.ru_utime) + t(u.ru_stime))
}

/// Median wall and on-CPU time of `runs` runs of `redo parse --file`.
fn redo_parse(path: &Path, runs: usize) -> Option<(Duration, Option<Duration>)> {
    let exe = env!("CARGO_BIN_EXE_cdcctl");
    let run = || -> Option<(Duration, Option<Duration>)> {
        let before = children_cpu();
        let t = Instant::now();
        let status = Command::new(exe)
            .args(["redo", "parse", "--file"])
            .arg(path)
            .stdout(std::process::Stdio::null())
            .status()
            .ok()?;
        let wall = t.elapsed();
        let cpu = before.zip(children_cpu()).map(|(b, a)| a.saturating_sub(b));
        status.success().then_some((wall, cpu))
    };
    run()?;
    let mut wall = Vec::new();
    let mut cpu = Vec::new();
    for _ in 0..runs {
        let (w, c) = run()?;
        wall.push(w);
        cpu.extend(c);
    }
    let cpu = (cpu.len() == runs).then(|| median(cpu));
    Some((median(wall), cpu))
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
                black_box(s.images());
            }
        }
    });
    let end_to_end = redo_parse(&path, runs);

    let rate = |d: Duration| (mb / d.as_secs_f64(), n / d.as_secs_f64());
    println!(
        "corpus: {} ({:.1} MB, {} statements), median of {runs} runs",
        path.display(),
        mb,
        lines.len()
    );
    println!("                       wall clock                       on-CPU time of the thread");
    let mut rows = vec![
        ("memchr newline pass", newline),
        ("parse", parse_only),
        ("parse + both images", with_images),
    ];
    rows.extend(end_to_end.map(|r| ("redo parse --file", r)));
    for (name, (wall, cpu)) in rows {
        let (wm, ws) = rate(wall);
        let cpu = cpu.map_or_else(String::new, |c| {
            let (cm, cs) = rate(c);
            format!("{cm:>9.1} MB/s  {cs:>10.0} statements/s")
        });
        println!("{name:<21} {wm:>9.1} MB/s  {ws:>10.0} statements/s   {cpu}");
    }
    // Ratios of times (lower is faster), on-CPU where every figure has it.
    let pick = |(wall, cpu): (Duration, Option<Duration>)| cpu.unwrap_or(wall).as_secs_f64();
    let (base, p, pi) = (pick(newline), pick(parse_only), pick(with_images));
    println!("ratios of on-CPU time in this run:");
    println!(
        "  parse / memchr pass                     {:>6.1}",
        p / base
    );
    println!("  parse + both images / parse             {:>6.2}", pi / p);
    if let Some(e) = end_to_end {
        println!(
            "  redo parse --file / parse + both images {:>6.2}",
            pick(e) / pi
        );
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
