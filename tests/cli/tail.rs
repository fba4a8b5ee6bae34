//! `cdcctl tail` driven as a user runs it: plain mode through pipes, the
//! full screen inside a tmux pseudo-terminal (tmux must be installed; CI
//! installs it).

use std::io::{BufRead, BufReader};

use crate::common::without_unavailable;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_cdcctl");

fn cdcctl(args: &[&str]) -> Output {
    match Command::new(BIN).args(args).stdin(Stdio::null()).output() {
        Ok(o) => o,
        Err(e) => panic!("cannot run {BIN}: {e}"),
    }
}

fn json_lines(stdout: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| match serde_json::from_str(l) {
            Ok(v) => v,
            Err(e) => panic!("not a JSON line ({e}): {l}"),
        })
        .collect()
}

#[test]
fn plain_count_writes_n_envelopes_and_exits_0() {
    let out = cdcctl(&[
        "tail",
        "APP.ORDERS",
        "--synthetic-feed",
        "--count",
        "7",
        "--lag-every",
        "0",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.len(), 7);
    for v in &lines {
        assert_eq!(v["source"]["connector"], "oracle");
        assert!(["c", "u", "d"].contains(&v["op"].as_str().unwrap_or("")));
    }
}

#[test]
fn issue11_plain_tail_with_debug_logging_captures_and_ends() {
    // The engine thread logs each mining session at -vv; stderr must not
    // be held by the main thread meanwhile.
    let mut child = Command::new(BIN)
        .args([
            "-vv",
            "--source",
            "sim:demo?clock=virtual",
            "tail",
            "APP.ORDERS",
            "--plain",
            "--count",
            "3",
        ])
        .env_remove("CDCCTL_SOURCE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().expect("try_wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("tail -vv --plain --count 3 did not end in 120 s");
        }
        sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(json_lines(&out.stdout).len(), 3);
    assert!(stderr.contains("DEBUG mining session"), "{stderr}");
}

#[test]
fn plain_until_scn_stops_at_the_scn_and_exits_0() {
    // The synthetic feed's changes commit at 10041202, 10041205, ...
    let out = cdcctl(&[
        "tail",
        "APP.%",
        "--synthetic-feed",
        "--until-scn",
        "10041211",
        "--plain",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let lines = json_lines(&out.stdout);
    let scns: Vec<&str> = lines
        .iter()
        .filter_map(|v| v["source"]["commit_scn"].as_str())
        .collect();
    assert_eq!(scns, ["10041202", "10041205", "10041208", "10041211"]);
}

#[test]
fn plain_reports_lag_on_stderr() {
    let out = cdcctl(&[
        "tail",
        "APP.ORDERS",
        "--synthetic-feed",
        "--count",
        "120",
        "--lag-every",
        "500ms",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.lines()
            .any(|l| l.starts_with("cdcctl tail: mining; lag ") && l.contains(" SCN (mined ")),
        "no lag line in: {err}"
    );
}

/// Plain mode on the synthetic feed, started, with its first line read:
/// the child and a reader of the rest of its stdout.
fn plain_synthetic_after_one_line() -> (std::process::Child, BufReader<std::process::ChildStdout>) {
    let mut child = match Command::new(BIN)
        .args(["tail", "APP.ORDERS", "--synthetic-feed", "--lag-every", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => panic!("cannot run {BIN}: {e}"),
    };
    let Some(stdout) = child.stdout.take() else {
        panic!("no stdout pipe");
    };
    let mut reader = BufReader::new(stdout);
    let mut first = String::new();
    let _ = reader.read_line(&mut first);
    assert!(first.starts_with("{\"before\""), "{first}");
    (child, reader)
}

#[test]
fn closed_stdout_exits_0_quietly() {
    let (child, reader) = plain_synthetic_after_one_line();
    // The reader is dropped here, as `head -1` does.
    drop(reader);
    let out = match child.wait_with_output() {
        Ok(o) => o,
        Err(e) => panic!("wait: {e}"),
    };
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn plain_mode_ends_on_sigterm_or_sigint_with_a_stop_line_and_exit_0() {
    for sig in ["TERM", "INT"] {
        let (child, mut reader) = plain_synthetic_after_one_line();
        crate::run::signal(&child, sig);
        // Every line written before the stop is whole JSON.
        let mut rest = String::new();
        let _ = std::io::Read::read_to_string(&mut reader, &mut rest);
        for line in rest.lines() {
            assert!(
                serde_json::from_str::<serde_json::Value>(line).is_ok(),
                "{line}"
            );
        }
        let out = match child.wait_with_output() {
            Ok(o) => o,
            Err(e) => panic!("wait: {e}"),
        };
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "SIG{sig}: {err}");
        assert!(
            err.contains("cdcctl tail: stopped by a signal after ") && err.contains("event(s)"),
            "SIG{sig}: {err}"
        );
    }
}

#[test]
fn invalid_arguments_are_usage_errors() {
    for (args, says) in [
        (
            vec!["tail", "APP.ORD ERS", "--plain"],
            "not a valid [SCHEMA.]TABLE",
        ),
        (
            vec!["tail", "APP.ORDERS", "--since", "ten minutes"],
            "not a duration",
        ),
        (
            vec![
                "tail",
                "APP.ORDERS",
                "--lag-warn",
                "90s",
                "--lag-crit",
                "60s",
            ],
            "--lag-warn (90s) must be below --lag-crit (60s)",
        ),
        (
            vec![
                "tail",
                "APP.ORDERS",
                "--from-scn",
                "900",
                "--until-scn",
                "800",
            ],
            "nothing would be captured",
        ),
        (
            vec!["tail", "APP.ORDERS", "--from-scn", "900", "--since", "10m"],
            "cannot be used with",
        ),
    ] {
        let out = cdcctl(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn plain_on_the_simulator_writes_captured_changes() {
    let out = cdcctl(&[
        "--source",
        "sim",
        "tail",
        "%.%",
        "--plain",
        "--count",
        "10",
        "--lag-every",
        "0",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.len(), 10);
    assert!(lines.iter().all(|v| v["source"]["scn"].is_string()));
}

/// A tmux server of its own, killed on drop.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn start(command: &str, width: u16, height: u16) -> Tmux {
        assert!(
            Path::new("/usr/bin/tmux").exists() || Command::new("tmux").arg("-V").output().is_ok(),
            "tmux is required for the terminal tests (apt-get install -y tmux)"
        );
        // Tests run in parallel: each needs a tmux server of its own.
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let socket = format!("cdcctl-tail-{}-{n}", std::process::id());
        let t = Tmux { socket };
        let status = Command::new("tmux")
            .args([
                "-L",
                &t.socket,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                "t",
            ])
            .args(["-x", &width.to_string(), "-y", &height.to_string()])
            .arg(command)
            .status();
        assert!(status.is_ok_and(|s| s.success()), "tmux new-session failed");
        t
    }

    fn tmux(&self, args: &[&str]) -> String {
        match Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
        {
            Ok(o) => String::from_utf8_lossy(&o.stdout).into_owned(),
            Err(e) => panic!("tmux {args:?}: {e}"),
        }
    }

    fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "t"])
    }

    fn keys(&self, keys: &str) {
        self.tmux(&["send-keys", "-t", "t", keys]);
    }

    /// Waits until the screen satisfies `ok`; returns the last screen. The
    /// bound only keeps a broken build from hanging the suite: a loaded CI
    /// host needs well over the ~15 s a real-clock scenario takes here.
    fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            let s = self.screen();
            if ok(&s) {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; screen:\n{s}"
            );
            sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

/// Runs `tail_args` in tmux, then reports the exit code and the terminal
/// mode on the restored screen.
fn shell_command(tail_args: &str) -> String {
    format!("sh -c '{BIN} {tail_args}; echo EXIT=$?; stty -a | tr \" \" \"\\n\" | grep -x -- \"-*icanon\"; sleep 60'")
}

/// A list row starts with the commit time: `│09:01:51 `.
fn has_change_row(screen: &str) -> bool {
    screen.lines().any(|l| {
        let b: Vec<char> = l.chars().take(10).collect();
        b.len() == 10
            && b[0] == '│'
            && b[3] == ':'
            && b[6] == ':'
            && b[9] == ' '
            && [1, 2, 4, 5, 7, 8].iter().all(|&i| b[i].is_ascii_digit())
    })
}

fn assert_screen_flow_and_clean_quit(t: &Tmux) {
    let screen = t.wait_for("changes and gauges", |s| {
        s.contains("SCN lag") && s.contains("Time lag") && has_change_row(s) && s.contains("MINING")
    });
    assert!(screen.contains("Open transactions"), "{screen}");
    t.keys("p");
    t.wait_for("the PAUSED marker", |s| s.contains("PAUSED"));
    t.keys("?");
    t.wait_for("the help", |s| {
        s.contains("Keys") && s.contains("pause the list")
    });
    t.keys("Escape");
    t.wait_for("help closed", |s| !s.contains("pause the list"));
    t.keys("q");
    let after = t.wait_for("exit and terminal mode", |s| {
        s.contains("EXIT=") && s.contains("icanon")
    });
    assert!(after.contains("EXIT=0"), "{after}");
    // Cooked mode is back (icanon, not -icanon) and the main screen shows.
    assert!(
        after.lines().any(|l| l.trim() == "icanon"),
        "terminal left in raw mode:\n{after}"
    );
    assert_eq!(
        t.tmux(&["display", "-p", "-t", "t", "#{alternate_on}"])
            .trim(),
        "0"
    );
    assert!(
        !after.contains("SCN lag"),
        "alternate screen not left:\n{after}"
    );
}

#[test]
fn screen_in_a_terminal_shows_changes_and_quits_cleanly() {
    let t = Tmux::start(&shell_command("tail APP.ORDERS --synthetic-feed"), 120, 40);
    assert_screen_flow_and_clean_quit(&t);
}

#[test]
fn screen_header_names_the_resolved_table_and_the_simulator() {
    let t = Tmux::start(&shell_command("--source sim tail orders"), 120, 40);
    let screen = t.wait_for("the header", |s| {
        s.lines()
            .next()
            .is_some_and(|l| l.contains("APP.ORDERS") && l.contains("SIMULATOR"))
    });
    let header = screen.lines().next().unwrap_or("");
    assert!(!header.contains(" orders"), "{screen}");
    // The release, cut from the banner, has room at 120 columns (issue 35).
    assert!(header.contains("Oracle 19."), "{screen}");
    t.keys("q");
    t.wait_for("exit", |s| s.contains("EXIT=0"));
}

#[test]
fn key_t_lists_the_database_s_open_transactions_on_the_whole_screen() {
    let t = Tmux::start(&shell_command("--source sim tail orders"), 120, 40);
    t.wait_for("the header", |s| {
        s.contains("APP.ORDERS") && s.contains("MINING")
    });
    t.keys("t");
    let list = t.wait_for("the open-transactions list", |s| {
        s.contains("in V$TRANSACTION")
    });
    assert!(
        list.contains("AGE") && list.contains("USER") && list.contains("PROGRAM"),
        "{list}"
    );
    t.keys("Escape");
    t.wait_for("the list closed", |s| {
        !s.contains("in V$TRANSACTION") && !s.contains("EXIT=")
    });
    t.keys("q");
    t.wait_for("exit", |s| s.contains("EXIT=0"));
}

#[test]
fn screen_in_a_narrow_terminal_resizes_and_quits_cleanly() {
    let t = Tmux::start(
        &shell_command("tail APP.ORDERS --synthetic-feed faults"),
        80,
        24,
    );
    let first = t.wait_for("first changes", |s| {
        has_change_row(s) && s.contains("MINING")
    });
    // 80×24 keeps the changes in view: gauges and stats take a line each.
    assert!(
        first.contains(" SCN lag ") && !first.contains("┌ SCN lag"),
        "{first}"
    );
    // Esc never quits: only q does.
    t.keys("Escape");
    t.keys("p");
    t.wait_for("still running after Esc", |s| {
        s.contains("PAUSED") && !s.contains("EXIT=")
    });
    t.keys("p");
    t.tmux(&["resize-window", "-t", "t", "-x", "50", "-y", "12"]);
    t.wait_for("the too-small notice", |s| s.contains("need 60×16"));
    t.tmux(&["resize-window", "-t", "t", "-x", "130", "-y", "40"]);
    t.wait_for("the wide layout with XIDs", |s| s.contains("XID"));
    t.keys("q");
    let after = t.wait_for("exit", |s| s.contains("EXIT="));
    assert!(after.contains("EXIT=0"), "{after}");
}

#[test]
fn sigterm_restores_the_terminal() {
    let t = Tmux::start(&shell_command("tail APP.ORDERS --synthetic-feed"), 100, 30);
    t.wait_for("first changes", has_change_row);
    let shell = t.tmux(&["display", "-p", "-t", "t", "#{pane_pid}"]);
    let children = match Command::new("ps")
        .args(["-o", "pid=", "--ppid", shell.trim()])
        .output()
    {
        Ok(o) => String::from_utf8_lossy(&o.stdout).into_owned(),
        Err(e) => panic!("ps: {e}"),
    };
    let pid = children
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string();
    assert!(!pid.is_empty(), "no cdcctl under the shell {shell}");
    let killed = Command::new("kill").args(["-TERM", &pid]).status();
    assert!(killed.is_ok_and(|s| s.success()), "kill -TERM {pid} failed");
    let after = t.wait_for("exit and terminal mode", |s| {
        s.contains("EXIT=") && s.contains("icanon")
    });
    assert!(
        after.lines().any(|l| l.trim() == "icanon"),
        "terminal left in raw mode:\n{after}"
    );
    assert_eq!(
        t.tmux(&["display", "-p", "-t", "t", "#{alternate_on}"])
            .trim(),
        "0"
    );
}

#[test]
fn screen_on_the_simulator_shows_changes_and_quits_cleanly() {
    let t = Tmux::start(&shell_command("--source sim tail %.%"), 120, 40);
    assert_screen_flow_and_clean_quit(&t);
}

/// Run by `panic_restores_the_terminal` inside tmux: takes the terminal,
/// forgets the guard so only the panic hook can restore it, and panics.
#[test]
#[ignore = "helper: run in a pseudo-terminal by panic_restores_the_terminal"]
fn panic_child() {
    if std::env::var_os("CDCCTL_TAIL_PANIC_CHILD").is_none() {
        return;
    }
    match cdcctl::tui::term::TerminalGuard::enter() {
        Ok(guard) => std::mem::forget(guard),
        Err(e) => panic!("no terminal: {e}"),
    }
    panic!("deliberate panic with the terminal in raw mode");
}

#[test]
fn panic_restores_the_terminal() {
    let exe = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => panic!("current_exe: {e}"),
    };
    let command = format!(
        "sh -c 'CDCCTL_TAIL_PANIC_CHILD=1 {} --ignored --exact tail::panic_child --nocapture --test-threads 1 >/dev/null; \
         echo EXIT=$?; stty -a | tr \" \" \"\\n\" | grep -x -- \"-*icanon\"; sleep 60'",
        exe.display()
    );
    let t = Tmux::start(&command, 100, 30);
    let after = t.wait_for("exit and terminal mode", |s| {
        s.contains("EXIT=") && s.contains("icanon")
    });
    assert!(
        after.contains("deliberate panic"),
        "panic message lost:\n{after}"
    );
    assert!(
        !after.contains("EXIT=0"),
        "the child did not panic:\n{after}"
    );
    assert!(
        after.lines().any(|l| l.trim() == "icanon"),
        "terminal left in raw mode:\n{after}"
    );
    assert_eq!(
        t.tmux(&["display", "-p", "-t", "t", "#{alternate_on}"])
            .trim(),
        "0"
    );
}

#[test]
fn plain_count_100_matches_the_simulator_ground_truth() {
    let out = cdcctl(&[
        "--source",
        "sim:demo?clock=virtual",
        "tail",
        "APP.ORDERS",
        "--plain",
        "--count",
        "100",
        "--lag-every",
        "0",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Vec<serde_json::Value> = json_lines(&out.stdout)
        .into_iter()
        .map(without_unavailable)
        .collect();
    assert_eq!(got.len(), 100);
    let scn = |v: &serde_json::Value| -> u64 {
        v["source"]["commit_scn"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .expect("commit_scn")
    };
    let (first, last) = (scn(&got[0]), scn(&got[99]));
    let truth = cdcctl(&[
        "sim",
        "truth",
        "--scenario",
        "demo",
        "--until-scn",
        &last.to_string(),
    ]);
    assert_eq!(truth.status.code(), Some(0));
    // Every change to APP.ORDERS committed in the range tail covered, in order.
    let want: Vec<serde_json::Value> = json_lines(&truth.stdout)
        .into_iter()
        .filter(|v| v["source"]["schema"] == "APP" && v["source"]["table"] == "ORDERS")
        .filter(|v| scn(v) >= first && scn(v) <= last)
        .map(without_unavailable)
        .collect();
    // The last transaction may have more changes than --count let through.
    assert!(want.len() >= 100, "truth has {} changes", want.len());
    let brief = |v: &serde_json::Value| {
        format!(
            "{} {} {} {}",
            v["source"]["commit_scn"], v["source"]["txId"], v["op"], v["source"]["scn"]
        )
    };
    let first_diff = got.iter().zip(&want).position(|(a, b)| a != b);
    assert_eq!(
        first_diff,
        None,
        "first difference at {first_diff:?}: got {:?} want {:?}",
        first_diff.map(|i| brief(&got[i])),
        first_diff.map(|i| brief(&want[i]))
    );
}

#[test]
fn a_table_that_does_not_exist_is_a_usage_error_naming_what_exists() {
    let out = cdcctl(&[
        "--source",
        "sim",
        "tail",
        "APP.ORDERZ",
        "--plain",
        "--count",
        "1",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("no table matches `APP.ORDERZ`"), "{err}");
    assert!(err.contains("APP.ORDERS"), "{err}");
}

#[test]
fn issue8_tail_takes_pdb_and_reads_the_pdb_table_from_the_root() {
    let (from, until) = crate::common::demo_window();
    let out = cdcctl(&[
        "--source",
        "sim:demo?clock=virtual",
        "tail",
        "APP.ORDERS",
        "--pdb",
        "orclpdb1",
        "--from-scn",
        &from,
        "--until-scn",
        &until,
        "--plain",
        "--lag-every",
        "0",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = json_lines(&out.stdout);
    assert!(!lines.is_empty());
    assert!(lines.iter().all(|v| v["source"]["table"] == "ORDERS"));
    let unknown = cdcctl(&[
        "--source",
        "sim:demo?clock=virtual",
        "tail",
        "APP.ORDERS",
        "--pdb",
        "nosuch",
        "--plain",
    ]);
    assert_eq!(unknown.status.code(), Some(2));
}

#[test]
fn issue11_showtrans_names_each_transaction_s_program_and_machine() {
    let t = Tmux::start(&shell_command("--source sim tail orders"), 120, 40);
    t.wait_for("the header", |s| {
        s.contains("APP.ORDERS") && s.contains("MINING")
    });
    t.keys("t");
    // The simulator's sessions: the application's JDBC pool on app01/app02.
    let list = t.wait_for("a transaction with its session", |s| {
        s.contains("in V$TRANSACTION") && s.contains("JDBC Thin Client") && s.contains("app0")
    });
    assert!(
        list.contains("MACHINE") && list.contains("BUFFERED BY CAPTURE"),
        "{list}"
    );
    t.keys("q");
    t.wait_for("exit", |s| s.contains("EXIT=0"));
}

#[test]
fn issue11_detail_pane_shows_the_change_s_sql_redo_and_username() {
    let t = Tmux::start(&shell_command("--source sim tail orders"), 120, 40);
    t.wait_for("changes", has_change_row);
    t.keys("k");
    t.keys("Enter");
    let detail = t.wait_for("the detail pane with the redo", |s| {
        s.contains("SQL_REDO") && s.contains("USERNAME")
    });
    assert!(
        [
            "insert into \"APP\".\"ORDERS\"",
            "update \"APP\".\"ORDERS\"",
            "delete from \"APP\".\"ORDERS\""
        ]
        .iter()
        .any(|sql| detail.contains(sql)),
        "{detail}"
    );
    t.keys("q");
    t.wait_for("exit", |s| s.contains("EXIT=0"));
}

#[test]
fn issue11_wide_screen_shows_transactions_counts_and_values_beside_the_list() {
    let t = Tmux::start(&shell_command("--source sim tail orders"), 200, 60);
    let screen = t.wait_for("the side panel and values", |s| {
        has_change_row(s) && s.contains("Changes per table") && s.contains("APP.ORDERS")
    });
    assert!(screen.contains("CHANGED VALUES"), "{screen}");
    assert!(
        screen.contains("Open transactions:") && screen.contains("(t: full list)"),
        "{screen}"
    );
    assert!(screen.lines().any(|l| l.contains("ORDER_ID=")), "{screen}");
    t.keys("q");
    t.wait_for("exit", |s| s.contains("EXIT=0"));
}

/// The screen when capture really stops, on the archive-gap scenario: the
/// error in full with the RMAN command to run, both gauges red, one alert
/// for the gap (not one per message that reported it), and the same
/// sentence repeated on the terminal after `q`.
#[test]
fn issue11_a_real_stop_on_an_archive_gap_takes_the_screen_once_at_every_size() {
    for (w, h) in [(80u16, 24u16), (120, 40), (200, 60)] {
        let t = Tmux::start(
            &shell_command("--source sim:archive-gap tail ORDERS --since 9m"),
            w,
            h,
        );
        let screen = t.wait_for("the stopped screen", |s| {
            s.contains("Capture stopped") && s.contains("Alerts:")
        });
        // The frame once the alerts settled (the engine has stopped).
        sleep(Duration::from_millis(500));
        let screen = {
            let again = t.screen();
            if again.contains("Capture stopped") {
                again
            } else {
                screen
            }
        };
        assert!(screen.contains("Alerts: 1 "), "{screen}");
        assert!(!screen.contains("error error"), "{screen}");
        assert!(!screen.contains(".."), "{screen}");
        assert_eq!(
            screen.matches(" CRIT").count(),
            2,
            "both gauges red:\n{screen}"
        );
        // The current SCN rises with each read the engine made before it
        // stopped, and how many it made depends on timing.
        insta::with_settings!({
            snapshot_path => "../../snapshots",
            prepend_module_to_snapshot => false,
            filters => vec![
                (r"\d{2},\d{3} CRIT", "[lag] CRIT"),
                (r"mined (\d+) of \d+", "mined $1 of [current SCN]"),
                // Which transactions were open at the stop, how many,
                // and for how long, depends on timing too.
                (r"oldest +\d+[smh] +[0-9A-F]{16}", "oldest [age] [xid]"),
                (r"Open transactions: \d", "Open transactions: n"),
            ],
        }, {
            insta::assert_snapshot!(format!("tui_real_stop_archive_gap_{w}x{h}"), screen);
        });
        t.keys("q");
        let after = t.wait_for("exit", |s| s.contains("EXIT="));
        assert!(after.contains("EXIT=4"), "{after}");
        // The terminal wraps long lines; the sentence is what counts.
        let after = after.replace('\n', "");
        assert!(
            after.contains(
                "cdcctl tail: capture stopped: archive gap on thread 1: sequences 101–102"
            ),
            "{after}"
        );
        assert!(
            after.contains("RESTORE ARCHIVELOG SEQUENCE BETWEEN 101 AND 102 THREAD 1;"),
            "{after}"
        );
    }
}

/// Three dropped connections on the demo: each error the engine retried is
/// one alert counting its drops, not one per message that reported it.
#[test]
fn issue11_retried_connection_drops_are_one_alert_per_error_with_a_count() {
    let dir = tempfile::tempdir().expect("tempdir");
    let demo = include_str!("../../src/source/sim/scenarios/demo.toml");
    let faults: String = [605, 610, 615]
        .iter()
        .map(|s| format!("\n[[faults]]\nkind = \"connection_drop\"\nat_s = {s}\n"))
        .collect();
    let path = dir.path().join("drops.toml");
    std::fs::write(&path, format!("{demo}{faults}")).expect("write scenario");
    let t = Tmux::start(
        &shell_command(&format!("--source sim:{} tail ORDERS", path.display())),
        120,
        40,
    );
    // Which error each drop raises depends on where the session was
    // (ORA-03113 mid-call, ORA-03114 when not connected): what is pinned is
    // one alert line per distinct error, whose counts add up to the drops.
    let alert_lines = |s: &str| -> Vec<String> {
        s.lines()
            .skip_while(|l| !l.contains("Alerts:"))
            .filter(|l| l.starts_with('│') && l.contains("ORA-0311"))
            .map(str::to_string)
            .collect()
    };
    let drops = |lines: &[String]| -> u32 {
        lines
            .iter()
            .map(|l| {
                l.split('×')
                    .nth(1)
                    .and_then(|n| n.split_whitespace().next())
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(1)
            })
            .sum()
    };
    let screen = t.wait_for("the three drops in the alerts", |s| {
        drops(&alert_lines(s)) >= 3
    });
    let alerts = alert_lines(&screen);
    assert_eq!(drops(&alerts), 3, "{screen}");
    let codes: Vec<&str> = alerts
        .iter()
        .filter_map(|l| l.split_whitespace().find(|w| w.starts_with("ORA-0311")))
        .collect();
    let mut distinct = codes.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), codes.len(), "one alert per error: {screen}");
    assert!(!screen.contains("(retry"), "{screen}");
    // Each carries the database time it was raised at: the demo's clock
    // starts at 09:10:00 after its warm-up and the drops come seconds later.
    for line in &alerts {
        let at = line
            .split_whitespace()
            .find(|w| w.len() == 8 && w.as_bytes()[2] == b':' && w.as_bytes()[5] == b':');
        assert!(at.is_some_and(|t| t.starts_with("09:1")), "no time: {line}");
    }
    t.keys("q");
    t.wait_for("exit", |s| s.contains("EXIT=0"));
}

#[test]
fn issue15_dm8_tail_names_dm_as_the_connector_and_its_literals_decode() {
    let out = cdcctl(&[
        "--source",
        "sim:dm8?clock=virtual",
        "tail",
        "APP.ORDERS",
        "--plain",
        "--count",
        "20",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.len(), 20);
    let mut timestamps = 0;
    for v in &lines {
        assert_eq!(v["source"]["connector"], "dm", "{v}");
        assert_eq!(v["source"]["db"], "DAMENG", "{v}");
        let image = if v["op"] == "d" {
            &v["before"]
        } else {
            &v["after"]
        };
        if let Some(created) = image["CREATED_AT"].as_str() {
            assert!(
                created.len() >= 19 && created.as_bytes()[10] == b'T',
                "a DM8 TIMESTAMP literal is ISO text: {v}"
            );
            timestamps += 1;
        }
    }
    assert!(timestamps > 0, "no CREATED_AT value in 20 events");
}

/// The causes `tail --plain` names over its first 300 events.
fn first_cause(source: &str) -> Vec<String> {
    let out = cdcctl(&[
        "--source",
        source,
        "tail",
        "--plain",
        "--count",
        "300",
        "APP.ORDERS",
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter_map(|l| l.strip_prefix("cdcctl tail: cause: "))
        .map(str::to_string)
        .collect()
}

#[test]
fn issue35_plain_says_keeping_up_only_after_a_cause_on_the_demo() {
    let causes = first_cause("sim:demo?clock=virtual");
    assert!(
        !causes.first().is_some_and(|c| c.starts_with("keeping up")),
        "{causes:?}"
    );
}

#[test]
fn issue35_plain_names_the_transaction_pinning_the_restart_scn() {
    let causes = first_cause("sim:long-transaction?clock=virtual");
    assert!(
        causes
            .iter()
            .any(|c| c.starts_with("a long transaction pins the restart SCN")
                && c.contains("advice: ask the owner of")),
        "{causes:?}"
    );
}
