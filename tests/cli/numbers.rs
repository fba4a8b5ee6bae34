//! Every numeric flag of every command fed extreme and random values
//! through the real binary: a clear answer (an exit code of the contract),
//! never a panic, never a hang.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use proptest::prelude::*;

const BIN: &str = env!("CARGO_BIN_EXE_cdcctl");

/// A command that finishes on its own, and the numeric flags it takes. A
/// flag under test replaces the base's own use of it.
struct Case {
    base: &'static [&'static str],
    flags: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        base: &[
            "run",
            "APP.ORDERS",
            "--output",
            "o.jsonl",
            "--checkpoint",
            "cp.json",
            "--count",
            "3",
            "--until-scn",
            "13060000",
        ],
        flags: &[
            "--from-scn",
            "--until-scn",
            "--count",
            "--spill-mb",
            "--abandon-after",
            "--status-every",
        ],
    },
    Case {
        base: &[
            "tail",
            "APP.ORDERS",
            "--count",
            "3",
            "--until-scn",
            "13060000",
        ],
        flags: &[
            "--from-scn",
            "--since",
            "--count",
            "--until-scn",
            "--lag-every",
            "--ring",
            "--lag-warn",
            "--lag-crit",
            "--scn-lag-warn",
            "--scn-lag-crit",
        ],
    },
    Case {
        base: &["partitions", "APP.ORDER_HIS"],
        flags: &["--snapshot-rate-mbps", "--recent-days"],
    },
    Case {
        base: &["preflight"],
        flags: &["--snapshot-rate-mbps"],
    },
    Case {
        base: &["sim", "truth", "--count", "3"],
        flags: &["--from-scn", "--until-scn", "--count"],
    },
    Case {
        base: &[
            "sim",
            "contents",
            "--from-scn",
            "13040000",
            "--until-scn",
            "13040100",
        ],
        flags: &["--from-scn", "--until-scn"],
    },
    Case {
        base: &["redo", "replay", "--csv", "REPLAY_CSV"],
        flags: &["--spill-txn-mib", "--abandon-after"],
    },
];

const EXTREMES: &[&str] = &[
    "0",
    "1",
    "-1",
    "18446744073709551615",
    "18446744073709551616",
    "9223372036854775807",
    "-9223372036854775808",
    "1e-300",
    "1e308",
    "NaN",
    "inf",
    "-0",
    "99999999999h",
    "99999999999d",
    "18446744073709551615ms",
    "1h99999999999999999999m",
    "",
];

/// The arguments for `flag` = `value` in `case`.
fn args(case: &Case, flag: &str, value: &str, csv: &str) -> Vec<String> {
    let mut out = vec!["--source".to_string(), "sim:demo?clock=virtual".into()];
    let mut skip = false;
    for a in case.base {
        if skip {
            skip = false;
            continue;
        }
        if *a == flag {
            skip = true;
            continue;
        }
        out.push(if *a == "REPLAY_CSV" {
            csv.to_string()
        } else {
            (*a).to_string()
        });
    }
    out.push(format!("{flag}={value}"));
    out
}

/// Runs `cdcctl` in `dir`; a run that outlives `limit` is a hang. Stderr
/// is drained on its own thread: a chatty run must not block on a full pipe
/// and pass for a hang.
fn run_bounded(dir: &Path, args: &[String], limit: Duration) -> Result<(i32, String), String> {
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("CDCCTL_SOURCE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut pipe = child.stderr.take().ok_or("no stderr pipe")?;
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = std::io::Read::read_to_end(&mut pipe, &mut text);
        String::from_utf8_lossy(&text).into_owned()
    });
    let step = Duration::from_millis(20);
    let mut waited = Duration::ZERO;
    let code = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status.code().unwrap_or(-1);
        }
        if waited >= limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("no answer within {limit:?}: {args:?}"));
        }
        std::thread::sleep(step);
        waited += step;
    };
    let stderr = reader.join().map_err(|_| "stderr reader panicked")?;
    Ok((code, stderr))
}

fn check(case: &Case, flag: &str, value: &str) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let csv = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/replay/orders.csv");
    let argv = args(case, flag, value, &csv.to_string_lossy());
    let (code, stderr) = run_bounded(dir.path(), &argv, Duration::from_secs(120))?;
    if stderr.contains("panicked") || !(0..=4).contains(&code) {
        return Err(format!("{argv:?}: exit {code}: {stderr}"));
    }
    Ok(())
}

/// Runs every flag of every case with `values`; returns the failures.
fn sweep(values: &[&str], skip: &[(&str, &str, &str)]) -> Vec<String> {
    let mut failures = Vec::new();
    for case in CASES {
        for flag in case.flags {
            for value in values {
                if skip.contains(&(case.base[0], *flag, *value)) {
                    continue;
                }
                if let Err(e) = check(case, flag, value) {
                    failures.push(e);
                }
            }
        }
    }
    failures
}

#[test]
fn issue10_every_numeric_flag_answers_extreme_values_without_panic_or_hang() {
    // `sim truth --count` that large generates 2,000,000 SCNs of workload
    // before it stops (minutes in a debug build): the full sweep covers it.
    let failures = sweep(
        &["18446744073709551615", "-1", "1e-300", "99999999999h"],
        &[("sim", "--count", "18446744073709551615")],
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every value of [`EXTREMES`] on every flag (several minutes):
/// `cargo test --test cli numbers::issue10_full -- --ignored`.
#[test]
#[ignore = "several minutes: every extreme value on every numeric flag; run with --ignored"]
fn issue10_full_sweep_of_extreme_values_over_every_numeric_flag() {
    let failures = sweep(EXTREMES, &[]);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn issue10_numeric_flags_take_any_number(
        case in 0..CASES.len(),
        pick in any::<prop::sample::Index>(),
        value in prop_oneof![
            any::<u64>().prop_map(|n| n.to_string()),
            any::<i64>().prop_map(|n| n.to_string()),
            any::<f64>().prop_map(|x| x.to_string()),
            (any::<u32>(), prop::sample::select(vec!["ms", "s", "m", "h", "d"]))
                .prop_map(|(n, u)| format!("{n}{u}")),
        ],
    ) {
        let case = &CASES[case];
        let flag = case.flags[pick.index(case.flags.len())];
        prop_assert!(check(case, flag, &value).is_ok(), "{:?}", check(case, flag, &value));
    }
}
