//! The `tail` screen's cause line on each lag-cause drill. Drills the
//! virtual clock makes exact run the simulator through the engine; those
//! that hinge on wall time (a stage slower than the redo) get the status
//! their engine reports, since their timings differ from run to run.

use ratatui::backend::TestBackend;
use ratatui::Terminal;

use crate::engine::capture::{Capture, CaptureConfig};
use crate::engine::emit::SinkError;
use crate::engine::event::CapturedEvent;
use crate::engine::lag_cause::{Cause, WindowTimings};
use crate::engine::metrics::{CaptureStatus, EngineMessage, MiningState};
use crate::engine::txn::BufferConfig;
use crate::source::sim::scenario::Scenario;
use crate::source::sim::{Clock, Sim};

use super::app::{App, AppEvent, ViewConfig};
use super::{feed, ui};

const DEMO: &str = include_str!("../source/sim/scenarios/demo.toml");
const WIDTH: u16 = 140;

fn app() -> App {
    let mut app = App::new(feed::demo_header(), ViewConfig::default());
    app.update(AppEvent::Resize(WIDTH, 40));
    app
}

/// The screen's second row, under the header: the cause line.
fn cause_line(app: &App) -> String {
    let mut terminal = match Terminal::new(TestBackend::new(WIDTH, 40)) {
        Ok(t) => t,
        Err(e) => panic!("test backend: {e}"),
    };
    if let Err(e) = terminal.draw(|f| ui::draw(app, f)) {
        panic!("draw: {e}");
    }
    let buf = terminal.backend().buffer();
    let line: String = (0..WIDTH).map(|x| buf[(x, 1)].symbol()).collect();
    line.trim_end().to_string()
}

/// `demo` with its long transactions gone (unless `long`), 128 KiB online
/// logs, and each archive taking `copy_s` to copy.
fn small_logs_demo(copy_s: f64, long: bool) -> String {
    let mut text = DEMO.replacen(
        "group_bytes = 4194304",
        &format!("group_bytes = 131072\narchive_copy_s = {copy_s}"),
        1,
    );
    if !long {
        let start = text.find("long_transactions = [").unwrap_or(text.len());
        let end = text[start..].find("\n]\n").map_or(start, |e| start + e + 3);
        text.replace_range(start..end, "long_transactions = []\n");
    }
    text
}

/// The screen of `tail` once the engine, mining `text` on the virtual
/// clock, reports what the screen names as `want`.
fn drill(text: &str, want: Cause) -> String {
    let scenario = match Scenario::parse(text, "drill") {
        Ok(s) => s,
        Err(e) => panic!("scenario: {e}"),
    };
    let sim = Sim::new(scenario, Clock::Virtual { step_ms: 1000 }).with_default_pdb();
    let config = CaptureConfig {
        buffer: BufferConfig {
            db_name: sim.db_name().to_string(),
            ..BufferConfig::default()
        },
        ..CaptureConfig::default()
    };
    let mut capture = match Capture::new(sim, config) {
        Ok(c) => c,
        Err(e) => panic!("capture: {e}"),
    };
    let mut app = app();
    let mut seen = Vec::new();
    for _ in 0..300 {
        if let Err(e) = capture.poll(&mut |_: CapturedEvent| -> Result<(), SinkError> { Ok(()) }) {
            panic!("poll: {e}");
        }
        let mut status = Box::new(capture.status().clone());
        // The lag as of the poll, not the wall time since: frames repeat.
        status.polled_at = None;
        app.update(AppEvent::Engine(EngineMessage::Status(status)));
        let cause = app.diagnosis().cause;
        if cause == want {
            return cause_line(&app);
        }
        seen.push(cause);
    }
    panic!("{want:?} never named; named {seen:?}")
}

/// A status behind by `lag_s` whose recent windows are `w`.
fn behind(lag_s: u64, w: WindowTimings) -> CaptureStatus {
    let mut st = feed::status_with_lag(10, 400, lag_s, 240);
    st.mining.recent_windows = Some(w);
    st.mining.busy_share = Some(1.0);
    st
}

fn window(fetch_s: f64, parse_s: f64, lob_rows: u64) -> WindowTimings {
    WindowTimings {
        session_start_s: 0.02,
        contents_query_s: 0.05,
        fetch_s,
        parse_s,
        total_s: 0.07 + fetch_s + parse_s,
        redo_s: Some(1.0),
        scns: 52_000,
        logs: 2,
        rows: 48_000,
        lob_rows,
        ..WindowTimings::default()
    }
}

fn given(st: CaptureStatus) -> String {
    let mut app = app();
    app.update(AppEvent::Engine(EngineMessage::Status(Box::new(st))));
    cause_line(&app)
}

#[test]
fn tui_cause_line_on_each_drill_issue35() {
    let mut spilling = behind(45, window(0.2, 1.6, 0));
    if let Some(t) = spilling.largest_open.as_mut() {
        t.spilled = true;
        t.bytes = 900 << 20;
    }
    let mut retrying = feed::steady_status(10);
    retrying.state = MiningState::Retrying {
        attempt: 3,
        error: "ORA-12541: TNS:no listener".into(),
        advice: Some("check host, port and that the listener runs".into()),
        code: Some("ORA-12541".into()),
    };
    let screens = [
        (
            "healthy",
            drill(
                &small_logs_demo(0.0, false)
                    .replace("group_bytes = 131072", "group_bytes = 4194304"),
                Cause::KeepingUp,
            ),
        ),
        (
            "long-transaction",
            drill(&small_logs_demo(0.0, true), Cause::LongTransaction),
        ),
        (
            "archiver behind",
            drill(&small_logs_demo(15.0, false), Cause::ArchiverBehind),
        ),
        (
            "log-switch storm",
            drill(&small_logs_demo(0.0, false), Cause::LogSwitchStorm),
        ),
        ("listener outage", given(retrying)),
        ("overload", given(behind(45, window(0.2, 1.6, 0)))),
        ("slow LogMiner", given(behind(45, window(1.6, 0.2, 0)))),
        ("spilling", given(spilling)),
        ("LOB-heavy", given(behind(45, window(0.2, 1.6, 30_000)))),
        (
            "no window yet",
            given(feed::status_with_lag(10, 400, 45, 240)),
        ),
    ];
    let text: String = screens
        .iter()
        .map(|(drill, line)| format!("{drill}:\n{line}\n"))
        .collect();
    insta::with_settings!({
        snapshot_path => "../../snapshots",
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!("tui_cause_line_per_drill", text);
    });
}
