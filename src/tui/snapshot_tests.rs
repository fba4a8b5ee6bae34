//! Full-screen snapshots of the `tail` screen on a `TestBackend`: what an
//! operator sees in steady flow, with rising lag, on a finding, on a source
//! error, in the help overlay and on an 80×24 terminal. Time is injected
//! through `AppEvent::Tick` and the feed is deterministic, so frames are too.

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::style::Color;
use ratatui::Terminal;

use crate::engine::metrics::{EngineMessage, MiningState};

use super::app::{App, AppEvent, ViewConfig};
use super::feed::{self, Script, SyntheticFeed};
use super::ui;

fn frame(app: &App, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut terminal = match Terminal::new(TestBackend::new(w, h)) {
        Ok(t) => t,
        Err(e) => panic!("test backend: {e}"),
    };
    if let Err(e) = terminal.draw(|f| ui::draw(app, f)) {
        panic!("draw: {e}");
    }
    terminal
}

macro_rules! snapshot {
    ($name:expr, $terminal:expr) => {
        insta::with_settings!({
            snapshot_path => "../../snapshots",
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_snapshot!($name, $terminal.backend());
        })
    };
}

/// Plays `seconds` of a script into a fresh app sized `w`×`h`.
fn play(script: Script, seconds: u64, w: u16, h: u16) -> App {
    let mut app = App::new(feed::demo_header(), ViewConfig::default());
    app.update(AppEvent::Resize(w, h));
    let mut feed = SyntheticFeed::new(script);
    for s in 0..seconds {
        for msg in feed.next_second() {
            app.update(AppEvent::Engine(msg));
        }
        app.update(AppEvent::Tick(Duration::from_secs(s + 1)));
    }
    app
}

fn key(app: &mut App, code: KeyCode) {
    app.update(AppEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

#[test]
fn tui_steady_flow() {
    let app = play(Script::Steady, 30, 140, 40);
    assert!(app.received > 0);
    snapshot!("tui_steady_flow", frame(&app, 140, 40));
}

#[test]
fn tui_rising_lag() {
    let app = play(Script::RisingLag, 25, 140, 40);
    assert_eq!(app.status.time_lag_s(), Some(72));
    let terminal = frame(&app, 140, 40);
    // Colour is not in the text snapshot: 72 s is past the 60 s critical
    // threshold, 60,000 SCNs are below the 100,000 warning.
    let buf = terminal.backend().buffer();
    assert_eq!(buf[(71, 2)].fg, Color::Red);
    assert_eq!(buf[(1, 2)].fg, Color::Green);
    snapshot!("tui_rising_lag", terminal);
}

#[test]
fn tui_parser_finding() {
    let mut app = play(Script::Steady, 12, 140, 40);
    for _ in 0..4 {
        app.update(AppEvent::Engine(EngineMessage::Finding(
            feed::partial_image_finding(),
        )));
    }
    app.update(AppEvent::Engine(EngineMessage::Finding(
        feed::dictionary_finding(),
    )));
    snapshot!("tui_parser_finding", frame(&app, 140, 40));
}

#[test]
fn tui_source_error_retrying() {
    let mut app = play(Script::Steady, 12, 140, 40);
    app.update(AppEvent::Engine(feed::connection_dropped(true)));
    let mut st = feed::steady_status(12);
    st.state = MiningState::Retrying {
        attempt: 2,
        error: "ORA-03113: end-of-file on communication channel".into(),
        advice: None,
        code: Some("ORA-03113".into()),
    };
    app.update(AppEvent::Engine(EngineMessage::Status(Box::new(st))));
    snapshot!("tui_source_error_retrying", frame(&app, 140, 40));
}

#[test]
fn tui_source_error_stopped() {
    let mut app = play(Script::Steady, 12, 140, 40);
    app.update(AppEvent::Engine(feed::missing_log_error()));
    app.update(AppEvent::Engine(EngineMessage::Stopped));
    app.update(AppEvent::Tick(Duration::from_secs(30)));
    snapshot!("tui_source_error_stopped", frame(&app, 140, 40));
}

/// The sizes operators run at: a laptop's default, a split screen, a wall.
const SIZES: [(u16, u16); 3] = [(80, 24), (120, 40), (200, 60)];

#[test]
fn tui_steady_flow_at_every_size() {
    for (w, h) in SIZES {
        let app = play(Script::Steady, 30, w, h);
        let terminal = frame(&app, w, h);
        let text = format!("{}", terminal.backend());
        // The list keeps the room: at least a third of the rows are changes.
        let rows = text.lines().filter(|l| l.contains(" APP.ORDER")).count();
        assert!(
            rows >= usize::from(h) / 3,
            "{w}×{h}: {rows} change rows\n{text}"
        );
        snapshot!(format!("tui_steady_{w}x{h}"), terminal);
    }
}

#[test]
fn tui_stopped_at_every_size_shows_the_error_in_full() {
    for (w, h) in SIZES {
        let mut app = play(Script::Steady, 12, w, h);
        app.update(AppEvent::Engine(feed::missing_log_error()));
        app.update(AppEvent::Engine(EngineMessage::Stopped));
        app.update(AppEvent::Tick(Duration::from_secs(30)));
        let terminal = frame(&app, w, h);
        let text = format!("{}", terminal.backend());
        assert!(
            text.contains("Capture stopped") && text.contains("what to do:"),
            "{text}"
        );
        snapshot!(format!("tui_stopped_{w}x{h}"), terminal);
    }
}

#[test]
fn tui_time_column_carries_the_date_when_the_changes_span_days() {
    let mut app = play(Script::Steady, 3, 120, 40);
    let mut later = feed::sample_change(9_000);
    if let crate::engine::event::CapturedEvent::Change(c) = &mut later {
        c.commit_ts_ms += 86_400_000;
    }
    let same_day = format!("{}", frame(&app, 120, 40).backend());
    assert!(!same_day.contains("TIME           COMMIT"), "{same_day}");
    app.update(AppEvent::Engine(EngineMessage::Events(vec![later])));
    let text = format!("{}", frame(&app, 120, 40).backend());
    assert!(text.contains("TIME           COMMIT"), "{text}");
    assert!(text.contains("03-02 09:"), "{text}");
}

#[test]
fn tui_open_transactions_list_on_a_cluster_is_gv_and_names_each_instance() {
    let mut app = play(Script::Steady, 12, 200, 60);
    for (i, t) in app.header.db_transactions.iter_mut().enumerate() {
        if let Some(s) = t.session.as_mut() {
            s.inst_id = Some(u32::try_from(i % 2 + 1).unwrap_or(1));
        }
    }
    key(&mut app, KeyCode::Char('t'));
    let terminal = frame(&app, 200, 60);
    let text = format!("{}", terminal.backend());
    assert!(text.contains("in GV$TRANSACTION"), "{text}");
    assert!(text.contains(",@1") && text.contains(",@2"), "{text}");
    snapshot!("tui_showtrans_rac_200x60", terminal);
}

#[test]
fn tui_open_transactions_list_at_every_size() {
    for (w, h) in SIZES {
        let mut app = play(Script::Steady, 12, w, h);
        key(&mut app, KeyCode::Char('t'));
        let terminal = frame(&app, w, h);
        let text = format!("{}", terminal.backend());
        // The count is of the rows listed, with where they come from.
        assert!(
            text.contains("Open transactions: 4 · 3 in V$TRANSACTION"),
            "{text}"
        );
        assert!(text.contains("BATCH") && text.contains("1h"), "{text}");
        assert!(text.contains("1 gray: buffered by capture only"), "{text}");
        snapshot!(format!("tui_showtrans_{w}x{h}"), terminal);
        key(&mut app, KeyCode::Esc);
        assert!(!app.should_quit);
        let text = format!("{}", frame(&app, w, h).backend());
        assert!(!text.contains("in V$TRANSACTION"), "t list closed by Esc");
    }
}

#[test]
fn tui_too_small_says_what_it_needs() {
    let app = play(Script::Steady, 3, 50, 12);
    let text = format!("{}", frame(&app, 50, 12).backend());
    assert!(text.contains("need 60×16"), "{text}");
}

#[test]
fn tui_finished_at_until_scn() {
    let mut app = play(Script::Steady, 6, 100, 30);
    let mut st = feed::steady_status(6);
    st.state = MiningState::Finished;
    app.update(AppEvent::Engine(EngineMessage::Status(Box::new(st))));
    app.update(AppEvent::Engine(EngineMessage::Stopped));
    app.update(AppEvent::Tick(Duration::from_secs(60)));
    let terminal = frame(&app, 100, 30);
    let text = format!("{}", terminal.backend());
    assert!(text.contains("FINISHED") && !text.contains("no status for"));
    snapshot!("tui_finished", terminal);
}

#[test]
fn tui_stale_engine() {
    let mut app = play(Script::Steady, 6, 100, 30);
    app.update(AppEvent::Tick(Duration::from_secs(48)));
    snapshot!("tui_stale_engine", frame(&app, 100, 30));
}

#[test]
fn tui_help_screen() {
    let mut app = play(Script::Steady, 5, 100, 30);
    key(&mut app, KeyCode::Char('?'));
    let terminal = frame(&app, 100, 30);
    // The Operations panel's `partial` is explained (issue 35).
    let text = format!("{}", terminal.backend());
    assert!(
        text.contains("partial = rollbacks to a savepoint"),
        "{text}"
    );
    snapshot!("tui_help_screen", terminal);
}

#[test]
fn tui_narrow_terminal() {
    let app = play(Script::Faults, 14, 80, 24);
    snapshot!("tui_narrow_terminal", frame(&app, 80, 24));
}

#[test]
fn tui_detail_paused_filtered() {
    let mut app = play(Script::Steady, 8, 140, 40);
    key(&mut app, KeyCode::Char('/'));
    for c in "update".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Up);
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('p'));
    let mut feed = SyntheticFeed::new(Script::Steady);
    for _ in 0..3 {
        for msg in feed.next_second() {
            app.update(AppEvent::Engine(msg));
        }
    }
    snapshot!("tui_detail_paused_filtered", frame(&app, 140, 40));
}

#[test]
fn tui_narrow_terminal_detail() {
    let mut app = play(Script::Steady, 8, 80, 24);
    key(&mut app, KeyCode::Char('k'));
    key(&mut app, KeyCode::Enter);
    snapshot!("tui_narrow_terminal_detail", frame(&app, 80, 24));
}

#[test]
fn tui_connecting_before_any_status() {
    let app = App::new(feed::demo_header(), ViewConfig::default());
    snapshot!("tui_connecting", frame(&app, 100, 24));
}

#[test]
fn a_wide_short_screen_with_a_source_error_banner_draws_its_side_panel() {
    // Found by the property below: 160×16 after a dropped connection left
    // the side panel 5 rows high, and its split panicked.
    let mut app = play(Script::Steady, 3, 160, 16);
    app.update(AppEvent::Engine(feed::connection_dropped(true)));
    let text = format!("{}", frame(&app, 160, 16).backend());
    assert!(text.contains("Open transactions"), "{text}");
}

mod robustness {
    use super::*;
    use proptest::prelude::*;

    fn step(app: &mut App, kind: u8, n: u16, next: &mut u64) {
        let code = match kind {
            0 => KeyCode::Char('j'),
            1 => KeyCode::Char('k'),
            2 => KeyCode::PageUp,
            3 => KeyCode::PageDown,
            4 => KeyCode::Char('g'),
            5 => KeyCode::Char('G'),
            6 => KeyCode::Char('p'),
            7 => KeyCode::Enter,
            8 => KeyCode::Char('/'),
            9 => KeyCode::Char(['d', 'u', 'x', '1', ' '][usize::from(n % 5)]),
            10 => KeyCode::Esc,
            11 => KeyCode::Char('?'),
            12 => {
                let batch = (0..u64::from(n))
                    .map(|i| feed::sample_change(*next + i))
                    .collect();
                *next += u64::from(n);
                app.update(AppEvent::Engine(EngineMessage::Events(batch)));
                return;
            }
            13 => {
                app.update(AppEvent::Engine(EngineMessage::Status(Box::new(
                    feed::steady_status(u64::from(n)),
                ))));
                return;
            }
            14 => {
                app.update(AppEvent::Engine(feed::connection_dropped(
                    n.is_multiple_of(2),
                )));
                return;
            }
            _ => {
                app.update(AppEvent::Tick(Duration::from_millis(u64::from(n) * 700)));
                return;
            }
        };
        app.update(AppEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn any_input_keeps_memory_bounded_and_every_size_draws(
            steps in proptest::collection::vec((0u8..16, 0u16..40), 0..120),
            w in 1u16..200,
            h in 1u16..60,
        ) {
            let mut app = App::new(feed::demo_header(), ViewConfig { ring_capacity: 25, ..ViewConfig::default() });
            let mut next = 0;
            for (kind, n) in steps {
                step(&mut app, kind, n, &mut next);
                prop_assert!(app.ring_len() <= 25);
                prop_assert!(app.pending_count() <= 25);
                let visible = app.visible();
                if let Some(i) = app.selected_index(&visible) {
                    prop_assert!(i < visible.len());
                }
            }
            prop_assert_eq!(app.received, next);
            // Drawing must not panic at any size, including tiny ones.
            let mut terminal = Terminal::new(TestBackend::new(w, h)).map_err(|e| TestCaseError::fail(e.to_string()))?;
            terminal.draw(|f| ui::draw(&app, f)).map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
    }
}

#[test]
fn tui_followed_checkpoint_shows_the_running_snapshot_on_its_own_line_at_every_size() {
    let p = crate::engine::snapshot::sample_progress();
    for (w, h) in SIZES {
        let mut app = play(Script::Steady, 5, w, h);
        app.update(AppEvent::Engine(EngineMessage::Snapshot(Some(Box::new(
            p.clone(),
        )))));
        let terminal = frame(&app, w, h);
        let text = format!("{}", terminal.backend());
        assert!(
            text.contains(
                " SNAPSHOT  table 2 of 3 (1 done), APP.ORDERS: 12000 rows of ~50000 (24%)"
            ),
            "{text}"
        );
        snapshot!(format!("tui_snapshot_progress_{w}x{h}"), terminal);
        // Finished: the line goes, the list gets the row back.
        app.update(AppEvent::Engine(EngineMessage::Snapshot(None)));
        let text = format!("{}", frame(&app, w, h).backend());
        assert!(!text.contains("SNAPSHOT"), "{text}");
    }
}

#[test]
fn tui_detail_of_a_row_longer_than_the_pane_pages_with_pgup_pgdn_at_80x24() {
    let mut app = play(Script::Steady, 3, 80, 24);
    let mut wide = feed::sample_change(9_001);
    if let crate::engine::event::CapturedEvent::Change(c) = &mut wide {
        let note = (0..400)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect::<String>();
        if let Some(after) = c.after.as_mut() {
            after.push("NOTE_LONG", &crate::engine::event::Field::text(&note));
        }
    }
    app.update(AppEvent::Engine(EngineMessage::Events(vec![wide])));
    key(&mut app, KeyCode::Char('G'));
    key(&mut app, KeyCode::Char('k'));
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Enter);
    let top = format!("{}", frame(&app, 80, 24).backend());
    assert!(top.contains(" below · PgDn"), "{top}");
    key(&mut app, KeyCode::PageDown);
    key(&mut app, KeyCode::PageDown);
    key(&mut app, KeyCode::PageDown);
    let end = frame(&app, 80, 24);
    let text = format!("{}", end.backend());
    // The last piece of the 400-character value is on screen, and paging
    // past the end stops there.
    assert!(text.contains("ghijklmnopqrstuvwxyzabcdefghij"), "{text}");
    assert!(text.contains("· PgUp") && !text.contains("below"), "{text}");
    assert!(app.detail_scroll <= app.detail_overflow.get());
    snapshot!("tui_detail_scrolled_80x24", end);
    // Another change starts at the top again.
    key(&mut app, KeyCode::Char('k'));
    assert_eq!(app.detail_scroll, 0);
}

#[test]
fn issue11_detail_pages_through_a_long_sql_redo_to_its_end_at_80x24() {
    let mut app = play(Script::Steady, 3, 80, 24);
    let event = feed::sample_change(9_002);
    let crate::engine::event::CapturedEvent::Change(c) = &event else {
        panic!("a change");
    };
    let filler = "x".repeat(1_500);
    let detail = crate::engine::metrics::RedoDetail {
        commit_scn: c.source.commit_scn,
        xid: c.source.xid.clone(),
        index: c.index,
        sql_redo: Some(format!(
            "update \"APP\".\"ORDERS\" set \"NOTE\" = '{filler}' where ROWID = 'STATEMENT_END';"
        )),
        username: Some("APP".into()),
    };
    app.update(AppEvent::Engine(EngineMessage::Events(vec![event])));
    app.update(AppEvent::Engine(EngineMessage::RedoDetail(vec![detail])));
    key(&mut app, KeyCode::Char('G'));
    key(&mut app, KeyCode::Enter);
    // Wrapped lines joined again: the pane's borders, indent and the
    // frame's quotes removed.
    let squeeze = |t: String| {
        t.chars()
            .filter(|c| !c.is_whitespace() && !matches!(c, '│' | '"'))
            .collect::<String>()
    };
    let first = format!("{}", frame(&app, 80, 24).backend());
    assert!(first.contains("below · PgDn"), "{first}");
    let mut seen = squeeze(first);
    for _ in 0..40 {
        key(&mut app, KeyCode::PageDown);
        seen.push_str(&squeeze(format!("{}", frame(&app, 80, 24).backend())));
    }
    assert!(
        seen.contains("ROWID='STATEMENT_END';"),
        "the statement's end never shown"
    );
}

#[test]
fn tui_detail_shows_full_values_sql_redo_and_username_at_every_size() {
    for (w, h) in SIZES {
        let mut app = play(Script::Steady, 8, w, h);
        key(&mut app, KeyCode::Char('k'));
        key(&mut app, KeyCode::Enter);
        let terminal = frame(&app, w, h);
        let text = format!("{}", terminal.backend());
        assert!(
            text.contains("USERNAME APP") && text.contains("SQL_REDO"),
            "{text}"
        );
        snapshot!(format!("tui_detail_redo_{w}x{h}"), terminal);
        // Paging shows the whole statement, its end included.
        let sql = app
            .selected_entry()
            .and_then(|e| e.redo.as_ref())
            .and_then(|r| r.sql_redo.clone())
            .expect("the sample change carries SQL_REDO");
        let squeeze = |t: &str| {
            t.chars()
                .filter(|c| !c.is_whitespace() && !matches!(c, '│' | '"'))
                .collect::<String>()
        };
        let mut seen = squeeze(&text);
        for _ in 0..20 {
            key(&mut app, KeyCode::PageDown);
            seen.push_str(&squeeze(&format!("{}", frame(&app, w, h).backend())));
        }
        let tail: String = squeeze(&sql)
            .chars()
            .rev()
            .take(24)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        assert!(
            seen.contains(&tail),
            "{w}x{h}: the end of SQL_REDO ({tail}) never shown"
        );
    }
}

#[test]
fn tui_wide_screen_shows_transactions_counts_and_values_beside_the_list() {
    let app = play(Script::Steady, 12, 200, 60);
    let text = format!("{}", frame(&app, 200, 60).backend());
    // The database's BATCH transaction and the three capture buffers: one
    // count in the side table, the panel and the stats line.
    assert_eq!(text.matches("Open transactions: 4").count(), 2, "{text}");
    assert!(!text.contains("Open transactions: 3"), "{text}");
    assert!(
        text.contains("Changes per table") && text.contains("APP.ORDER_LINES"),
        "{text}"
    );
    assert!(
        text.contains("STATUS=SHIPPED"),
        "values in the list: {text}"
    );
    assert!(
        text.contains("JDBC Thin") && text.contains("sqlplus@"),
        "{text}"
    );
    let narrow = format!("{}", frame(&app, 120, 40).backend());
    assert!(!narrow.contains("Changes per table"), "{narrow}");
}

#[test]
fn tui_archive_deleted_ahead_alert() {
    let mut app = play(Script::Steady, 6, 120, 40);
    let mut st = feed::steady_status(6);
    st.archives_missing_ahead = vec![
        crate::engine::metrics::MissingArchive {
            thread: 1,
            sequence: 1844,
            state: "DELETED",
        },
        crate::engine::metrics::MissingArchive {
            thread: 1,
            sequence: 1845,
            state: "NOT LISTED",
        },
    ];
    app.update(AppEvent::Engine(EngineMessage::Status(Box::new(st))));
    let terminal = frame(&app, 120, 40);
    let text = format!("{}", terminal.backend());
    assert!(
        text.contains("archived logs deleted ahead of the read position"),
        "{text}"
    );
    snapshot!("tui_archive_deleted_ahead", terminal);
}
