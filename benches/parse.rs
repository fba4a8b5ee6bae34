//! SQL_REDO parse throughput on the reference corpus, beside a plain memchr
//! pass over the same bytes (the ceiling for any line-oriented reader).
//!
//! Corpus: `$CDCCTL_CORPUS`, else `target/redo-corpus.sql`, generated on
//! first use by `shared/bench/gen-redo-corpus` when that script is found
//! next to the crate. Rounds: `$CDCCTL_BENCH_RUNS` (default 25), each
//! running every pass once; figures are medians. A round takes about a
//! second; on a shared 2-core host the medians of 9 rounds' ratios still
//! moved by ±0.15 from run to run, those of 25 by ±0.01. Run with
//! `cargo bench --bench parse`.
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

/// The allocator the `cdcctl` binary ships with, so the in-process passes
/// allocate as `redo parse` does.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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

/// Wall time and on-CPU time of one call.
type Timing = (Duration, Option<Duration>);

fn time_once(f: &mut dyn FnMut()) -> Timing {
    let c = cpu_time();
    let t = Instant::now();
    f();
    let wall = t.elapsed();
    (wall, c.zip(cpu_time()).map(|(b, a)| a.saturating_sub(b)))
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

/// One run of `redo parse --file`: its wall time and the child's on-CPU
/// time; `None` when it cannot run or fails.
fn redo_parse_once(path: &Path) -> Option<Timing> {
    let before = children_cpu();
    let t = Instant::now();
    let status = Command::new(env!("CARGO_BIN_EXE_cdcctl"))
        .args(["redo", "parse", "--file"])
        .arg(path)
        .stdout(std::process::Stdio::null())
        .status()
        .ok()?;
    let wall = t.elapsed();
    let cpu = before.zip(children_cpu()).map(|(b, a)| a.saturating_sub(b));
    status.success().then_some((wall, cpu))
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
        .unwrap_or(25);
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

    let mut newline_pass = || {
        black_box(memchr::memchr_iter(b'\n', text.as_bytes()).count());
    };
    let mut parse_pass = || {
        for l in &lines {
            let _ = black_box(parse(black_box(l)));
        }
    };
    let mut images_pass = || {
        for l in &lines {
            if let Ok(s) = parse(black_box(l)) {
                black_box(s.images());
            }
        }
    };
    // Rounds alternate the passes, so that a neighbour's burst on a shared
    // machine lands on all of them alike; ratios are taken per round.
    let passes: [&mut dyn FnMut(); 3] = [&mut newline_pass, &mut parse_pass, &mut images_pass];
    for f in passes {
        f(); // warm caches and the allocator
    }
    let mut end_to_end_runs = redo_parse_once(&path).is_some();
    let mut timings: [Vec<Timing>; 4] = Default::default();
    for _ in 0..runs {
        timings[0].push(time_once(&mut newline_pass));
        timings[1].push(time_once(&mut parse_pass));
        timings[2].push(time_once(&mut images_pass));
        if end_to_end_runs {
            match redo_parse_once(&path) {
                Some(t) => timings[3].push(t),
                None => end_to_end_runs = false,
            }
        }
    }
    let summary = |v: &[Timing]| -> Timing {
        let cpu: Vec<Duration> = v.iter().filter_map(|t| t.1).collect();
        let cpu = (cpu.len() == v.len()).then(|| median(cpu));
        (median(v.iter().map(|t| t.0).collect()), cpu)
    };
    let newline = summary(&timings[0]);
    let parse_only = summary(&timings[1]);
    let with_images = summary(&timings[2]);
    let end_to_end = (end_to_end_runs && timings[3].len() == runs).then(|| summary(&timings[3]));

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
    // Ratios of times (lower is faster), on-CPU where every figure has
    // it, each the median of the rounds' own ratios.
    let pick = |t: &Timing| t.1.unwrap_or(t.0).as_secs_f64();
    let ratio = |num: usize, den: usize| {
        let mut r: Vec<f64> = timings[num]
            .iter()
            .zip(&timings[den])
            .map(|(a, b)| pick(a) / pick(b))
            .collect();
        r.sort_by(f64::total_cmp);
        r[r.len() / 2]
    };
    println!("ratios of on-CPU time, median of the {runs} rounds' ratios:");
    println!(
        "  parse / memchr pass                     {:>6.1}",
        ratio(1, 0)
    );
    println!(
        "  parse + both images / parse             {:>6.2}",
        ratio(2, 1)
    );
    if end_to_end.is_some() {
        println!(
            "  redo parse --file / parse + both images {:>6.2}",
            ratio(3, 2)
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
