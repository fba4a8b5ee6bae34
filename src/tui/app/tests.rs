//! The screen state's update function, replayed event by event.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;
use crate::engine::event::Op;
use crate::tui::alerts::partition_ddl_action;
use crate::tui::entry::contains_ci;
use crate::tui::feed;

fn key(c: KeyCode) -> AppEvent {
    AppEvent::Key(KeyEvent::new(c, KeyModifiers::NONE))
}

fn app_with(n: usize) -> App {
    let mut app = App::new(feed::demo_header(), ViewConfig::default());
    app.update(AppEvent::Engine(EngineMessage::Events(
        (0..n).map(|i| feed::sample_change(i as u64)).collect(),
    )));
    app
}

fn partition_truncate(i: u64) -> CapturedEvent {
    let mut e = feed::sample_ddl(i);
    if let CapturedEvent::Ddl(d) = &mut e {
        d.ddl = "ALTER TABLE \"APP\".\"ORDER_HIS\" TRUNCATE PARTITION \"P_202501\"".into();
    }
    e
}

#[test]
fn partition_ddl_raises_one_alert_that_counts_repeats() {
    let mut app = app_with(0);
    app.update(AppEvent::Engine(EngineMessage::Events(vec![
        feed::sample_ddl(1),
        partition_truncate(2),
    ])));
    app.update(AppEvent::Engine(EngineMessage::Events(vec![
        partition_truncate(3),
    ])));
    let alerts: Vec<&Alert> = app
        .alerts
        .iter()
        .filter(|a| a.code == "partition_ddl")
        .collect();
    assert_eq!(alerts.len(), 1, "{:?}", app.alerts);
    assert_eq!(alerts[0].count, 2);
    assert!(
        alerts[0].message.contains("TRUNCATE PARTITION"),
        "{}",
        alerts[0].message
    );
    assert!(alerts[0]
        .advice
        .as_deref()
        .is_some_and(|a| a.contains("ORA-08103")));
    assert_eq!(partition_ddl_action("ALTER TABLE T ADD (C NUMBER)"), None);
    assert_eq!(
        partition_ddl_action("alter table t exchange partition p with table x"),
        Some("EXCHANGE")
    );
}

#[test]
fn a_young_transaction_holding_the_window_back_is_flagged_issue35() {
    let mut app = app_with(0);
    let mut st = feed::steady_status(10);
    // Ten minutes old: far under the one-hour age, yet every session
    // re-reads three logs only for it.
    let xid = match &mut st.oldest_open {
        Some(o) => {
            o.start_time = st.current_time.map(|t| t - chrono::Duration::minutes(10));
            o.xid.clone()
        }
        None => panic!("the steady status has an open transaction"),
    };
    st.mining.held_logs = 3;
    app.update(AppEvent::Engine(EngineMessage::Status(Box::new(st))));
    let old: Vec<&Alert> = app
        .alerts
        .iter()
        .filter(|a| a.code == "old_transaction")
        .collect();
    assert_eq!(old.len(), 1, "{:?}", app.alerts);
    assert!(
        old[0].message.contains(&xid) && old[0].message.contains("3 logs"),
        "{}",
        old[0].message
    );
}

#[test]
fn an_old_transaction_is_flagged_once_and_its_commit_is_an_alert() {
    let mut app = app_with(0);
    let mut st = feed::steady_status(10);
    let xid = match &mut st.oldest_open {
        Some(o) => {
            o.start_time = st.current_time.map(|t| t - chrono::Duration::hours(2));
            o.xid.clone()
        }
        None => panic!("the steady status has an open transaction"),
    };
    for _ in 0..3 {
        app.update(AppEvent::Engine(EngineMessage::Status(Box::new(
            st.clone(),
        ))));
    }
    let old: Vec<&Alert> = app
        .alerts
        .iter()
        .filter(|a| a.code == "old_transaction")
        .collect();
    assert_eq!(old.len(), 1);
    assert_eq!(old[0].count, 1, "flagged once, not on every status");
    assert!(
        old[0].message.contains(&xid) && old[0].message.contains("2h"),
        "{}",
        old[0].message
    );
    assert!(old[0].raised_at.is_some(), "stamped with the database time");
    let mut commit = feed::sample_change(5);
    // Its first change was made two hours before the commit.
    let commit_ms = 1_740_820_000_000;
    if let CapturedEvent::Change(c) = &mut commit {
        c.source.xid = xid.clone();
        c.commit_ts_ms = commit_ms;
        c.source.change_ts_ms = commit_ms - 7_200_000;
    }
    app.update(AppEvent::Engine(EngineMessage::Events(vec![
        commit.clone(),
        commit,
    ])));
    let done: Vec<&Alert> = app
        .alerts
        .iter()
        .filter(|a| a.code == "flagged_txn_committed")
        .collect();
    assert_eq!(done.len(), 1);
    assert_eq!(done[0].count, 1, "one alert per commit, not per change");
    assert_eq!(
        done[0].raised_at,
        chrono::DateTime::from_timestamp_millis(commit_ms).map(|t| t.naive_utc()),
        "stamped with the commit's time, not the first change's"
    );
}

#[test]
fn a_large_transaction_alert_carries_its_spill_figure() {
    let mut app = app_with(0);
    let mut st = feed::steady_status(10);
    if let Some(l) = &mut st.largest_open {
        l.events = 60_000;
        l.bytes = 96 << 20;
        l.spilled = true;
    }
    app.update(AppEvent::Engine(EngineMessage::Status(Box::new(st))));
    let big = app.alerts.iter().find(|a| a.code == "large_transaction");
    assert!(
        big.is_some_and(|a| a
            .message
            .contains("60,000 changes, 96.0 MiB spilled to disk")),
        "{:?}",
        app.alerts
    );
}

#[test]
fn archives_deleted_ahead_raise_one_alert_and_again_only_for_another() {
    use crate::engine::metrics::MissingArchive;
    let mut app = app_with(0);
    let gone = |seqs: &[u64]| {
        let mut st = feed::steady_status(10);
        st.archives_missing_ahead = seqs
            .iter()
            .map(|&sequence| MissingArchive {
                thread: 1,
                sequence,
                state: "DELETED",
            })
            .collect();
        AppEvent::Engine(EngineMessage::Status(Box::new(st)))
    };
    for _ in 0..3 {
        app.update(gone(&[1845]));
    }
    let count = |app: &App| {
        app.alerts
            .iter()
            .filter(|a| a.code == "archive_deleted_ahead")
            .count()
    };
    assert_eq!(count(&app), 1);
    let a = app
        .alerts
        .iter()
        .find(|a| a.code == "archive_deleted_ahead");
    assert!(
        a.is_some_and(|a| a.message.contains("thread 1 sequence 1845 (deleted)")
            && a.message.contains("reading sequence 1843")
            && a.advice.as_deref().is_some_and(
                |v| v.contains("RESTORE ARCHIVELOG SEQUENCE BETWEEN 1845 AND 1845 THREAD 1")
            )),
        "{:?}",
        app.alerts
    );
    app.update(gone(&[1845, 1846]));
    assert_eq!(count(&app), 2, "another log gone is news");
}

#[test]
fn redo_detail_reaches_the_change_it_belongs_to() {
    let mut app = app_with(4);
    app.update(AppEvent::Engine(EngineMessage::RedoDetail(vec![
        feed::sample_redo(2),
        feed::sample_redo(99),
    ])));
    let with: Vec<u64> = app
        .visible()
        .iter()
        .filter(|e| e.redo.is_some())
        .map(|e| e.seq)
        .collect();
    assert_eq!(with, [2]);
    let redo = app.visible()[2].redo.clone();
    assert!(redo.is_some_and(|r| r.username.as_deref() == Some("APP")
        && r.sql_redo
            .is_some_and(|s| s.starts_with("delete from \"APP\".\"ORDER_LINES\""))));
}

#[test]
fn a_new_reading_of_the_database_replaces_the_open_transactions() {
    let mut app = app_with(0);
    app.update(AppEvent::Engine(EngineMessage::Status(Box::new(
        feed::steady_status(3),
    ))));
    let mut reading = crate::engine::metrics::DbTransactions {
        read_at: None,
        transactions: app.header.db_transactions[..1].to_vec(),
        error: None,
    };
    app.update(AppEvent::Engine(EngineMessage::DbTransactions(
        reading.clone(),
    )));
    assert_eq!(app.header.db_transactions.len(), 1);
    assert_eq!(
        app.open_rows().len(),
        4,
        "the three the buffer holds stay listed beside the database's one"
    );
    reading.error = Some("ORA-03113".into());
    app.update(AppEvent::Engine(EngineMessage::DbTransactions(reading)));
    assert_eq!(
        app.header.db_transactions_error.as_deref(),
        Some("ORA-03113")
    );
    assert_eq!(
        app.header.db_transactions.len(),
        1,
        "a failed reading keeps the last list"
    );
}

#[test]
fn a_transaction_only_the_database_reading_lists_is_aged_as_of_that_reading() {
    let mut app = app_with(0);
    let mut status = feed::steady_status(3);
    status.buffered.clear();
    status.oldest_open = None;
    status.largest_open = None;
    let now = status.current_time.expect("status time");
    app.update(AppEvent::Engine(EngineMessage::Status(Box::new(status))));
    let mut listed = app.header.db_transactions[..1].to_vec();
    let read_at = now - chrono::Duration::seconds(13);
    listed[0].transaction.start_time = Some(read_at - chrono::Duration::seconds(2));
    app.update(AppEvent::Engine(EngineMessage::DbTransactions(
        crate::engine::metrics::DbTransactions {
            read_at: Some(read_at),
            transactions: listed,
            error: None,
        },
    )));
    let rows = app.open_rows();
    assert_eq!(rows.len(), 1);
    // Two seconds old when the database listed it, 13 s ago.
    assert_eq!(app.txn_age_s(&rows[0]), Some(2));
    assert_eq!(app.open_summary().oldest_age_s, Some(2));
    // Once capture buffers it, it is open as of the newest status.
    let mut buffered = rows[0].clone();
    buffered.buffered = Some(crate::engine::metrics::OpenTxnSummary {
        xid: buffered.xid.clone(),
        start_scn: buffered.start_scn,
        start_time: buffered.start_time,
        events: 1,
        bytes: 100,
        spilled: false,
    });
    assert_eq!(app.txn_age_s(&buffered), Some(15));
}

#[test]
fn ring_keeps_the_newest_and_counts_all() {
    let mut app = App::new(
        feed::demo_header(),
        ViewConfig {
            ring_capacity: 5,
            ..ViewConfig::default()
        },
    );
    app.update(AppEvent::Engine(EngineMessage::Events(
        (0..12).map(feed::sample_change).collect(),
    )));
    assert_eq!(app.ring_len(), 5);
    assert_eq!(app.received, 12);
    assert_eq!(app.visible().first().map(|e| e.seq), Some(7));
}

#[test]
fn pause_freezes_the_list_and_resume_appends_what_arrived() {
    let mut app = app_with(3);
    app.update(key(KeyCode::Char('p')));
    assert!(app.paused);
    app.update(AppEvent::Engine(EngineMessage::Events(vec![
        feed::sample_change(3),
    ])));
    assert_eq!(app.ring_len(), 3);
    assert_eq!(app.pending_count(), 1);
    assert_eq!(app.received, 4);
    app.update(key(KeyCode::Char('p')));
    assert_eq!(app.ring_len(), 4);
    assert_eq!(app.pending_count(), 0);
}

#[test]
fn selection_follows_newest_until_moved() {
    let mut app = app_with(5);
    assert_eq!(app.selected_entry().map(|e| e.seq), Some(4));
    app.update(key(KeyCode::Char('k')));
    assert_eq!(app.selected_entry().map(|e| e.seq), Some(3));
    app.update(AppEvent::Engine(EngineMessage::Events(vec![
        feed::sample_change(5),
    ])));
    assert_eq!(app.selected_entry().map(|e| e.seq), Some(3));
    app.update(key(KeyCode::Char('G')));
    assert_eq!(app.selected_entry().map(|e| e.seq), Some(5));
    app.update(key(KeyCode::Char('g')));
    assert_eq!(app.selected_entry().map(|e| e.seq), Some(0));
}

#[test]
fn filter_applies_on_enter_and_esc_cancels() {
    let mut app = app_with(9);
    app.update(key(KeyCode::Char('/')));
    for c in "op:d".chars() {
        app.update(key(KeyCode::Char(c)));
    }
    app.update(key(KeyCode::Esc));
    assert!(app.filter.is_none());
    assert!(!app.should_quit);
    app.update(key(KeyCode::Char('/')));
    for c in "op:d".chars() {
        app.update(key(KeyCode::Char(c)));
    }
    app.update(key(KeyCode::Enter));
    let visible = app.visible();
    assert!(!visible.is_empty());
    assert!(visible.iter().all(|e| e.op_label() == "d"));
}

#[test]
fn filtered_view_follows_new_events_eviction_and_resume() {
    let mut app = App::new(
        feed::demo_header(),
        ViewConfig {
            ring_capacity: 6,
            ..ViewConfig::default()
        },
    );
    app.update(AppEvent::Engine(EngineMessage::Events(
        (0..6).map(feed::sample_change).collect(),
    )));
    app.update(key(KeyCode::Char('/')));
    for c in "delete".chars() {
        app.update(key(KeyCode::Char(c)));
    }
    app.update(key(KeyCode::Enter));
    let seqs = |app: &App| app.visible().iter().map(|e| e.seq).collect::<Vec<_>>();
    assert_eq!(seqs(&app), [2, 5]);
    app.update(AppEvent::Engine(EngineMessage::Events(
        (6..9).map(feed::sample_change).collect(),
    )));
    assert_eq!(seqs(&app), [5, 8]);
    app.update(key(KeyCode::Char('p')));
    app.update(AppEvent::Engine(EngineMessage::Events(
        (9..12).map(feed::sample_change).collect(),
    )));
    assert_eq!(seqs(&app), [5, 8]);
    app.update(key(KeyCode::Char('p')));
    assert_eq!(seqs(&app), [8, 11]);
}

#[test]
fn filter_text_matches_column_values_ignoring_case() {
    let app = app_with(9);
    let f = Filter::parse("shipped");
    let hits: Vec<_> = app.visible().into_iter().filter(|e| f.matches(e)).collect();
    assert!(!hits.is_empty());
    let f = Filter::parse("no-such-value");
    assert!(app.visible().into_iter().all(|e| !f.matches(e)));
}

#[test]
fn filter_matches_qualified_names_and_non_ascii_values() {
    let app = app_with(3);
    assert_eq!(
        app.visible()
            .into_iter()
            .filter(|e| Filter::parse("app.order_lines").matches(e))
            .count(),
        1
    );
    assert!(contains_ci("Straße 5", "straße"));
    assert!(contains_ci("订单已发货", "发货"));
    assert!(!contains_ci("SHIPPED", "shipper"));
}

#[test]
fn ddl_is_listed_with_its_statement_and_selectable_by_filter() {
    let mut app = app_with(2);
    app.update(AppEvent::Engine(EngineMessage::Events(vec![
        feed::sample_ddl(2),
    ])));
    let ddl = app
        .visible()
        .into_iter()
        .filter(|e| Filter::parse("ddl").matches(e))
        .collect::<Vec<_>>();
    assert_eq!(ddl.len(), 1);
    assert_eq!(ddl[0].op_label(), "ddl");
    assert_eq!(
        ddl[0].changed(),
        "ALTER TABLE \"APP\".\"ORDERS\" ADD (\"CHANNEL\" VARCHAR2(16))"
    );
}

#[test]
fn multi_line_errors_become_one_line_alerts() {
    let mut app = App::new(feed::demo_header(), ViewConfig::default());
    app.update(AppEvent::Engine(EngineMessage::SourceError {
        error: "ORA-00604: error at recursive SQL level 1\nORA-01555: snapshot too old".into(),
        ora_code: Some(604),
        advice: None,
        retrying: false,
        gap: None,
    }));
    assert_eq!(
        app.alerts[0].message,
        "ORA-00604: error at recursive SQL level 1 ORA-01555: snapshot too old"
    );
}

#[test]
fn lost_keyboard_ends_the_screen() {
    let mut app = app_with(1);
    app.update(AppEvent::InputClosed);
    assert!(app.should_quit);
}

#[test]
fn esc_closes_detail_before_quitting() {
    let mut app = app_with(1);
    app.update(key(KeyCode::Enter));
    assert!(app.show_detail);
    app.update(key(KeyCode::Esc));
    assert!(!app.show_detail && !app.should_quit);
    app.update(key(KeyCode::Esc));
    assert!(!app.should_quit, "only q quits");
    app.update(key(KeyCode::Char('q')));
    assert!(app.should_quit);
}

#[test]
fn repeated_findings_are_one_alert_with_a_count() {
    let mut app = App::new(feed::demo_header(), ViewConfig::default());
    for _ in 0..3 {
        app.update(AppEvent::Engine(EngineMessage::Finding(
            feed::partial_image_finding(),
        )));
    }
    assert_eq!(app.alerts.len(), 1);
    assert_eq!(app.alerts[0].count, 3);
}

/// The engine reports a retried error twice, in the status's state and
/// as a message numbered `(retry N)`: one alert, counting the drops.
#[test]
fn a_retried_drop_is_one_alert_counting_each_drop() {
    let mut app = App::new(feed::demo_header(), ViewConfig::default());
    let error = "ORA-03113: end-of-file on communication channel";
    for drop in 0..3 {
        let mut st = feed::steady_status(drop);
        st.state = MiningState::Retrying {
            attempt: 1,
            error: error.into(),
            advice: Some("cdcctl reconnects".into()),
            code: None,
        };
        app.update(AppEvent::Engine(EngineMessage::Status(Box::new(st))));
        app.update(AppEvent::Engine(EngineMessage::SourceError {
            error: format!("{error} (retry 1)"),
            ora_code: None,
            advice: Some("cdcctl reconnects".into()),
            retrying: true,
            gap: None,
        }));
        app.update(AppEvent::Engine(EngineMessage::Status(Box::new(
            feed::steady_status(drop),
        ))));
    }
    assert_eq!(app.alerts.len(), 1, "{:?}", app.alerts);
    assert_eq!(app.alerts[0].code, "ORA-03113");
    assert_eq!(app.alerts[0].message, error);
    assert_eq!(app.alerts[0].count, 3);
}

#[test]
fn issue11_a_buffer_warning_is_a_finding_that_a_reconnect_does_not_resolve() {
    let mut app = App::new(feed::demo_header(), ViewConfig::default());
    app.update(AppEvent::Engine(EngineMessage::Warning {
        code: "ambiguous_undo_xid",
        message: "undo row at SCN 5 matches several open transactions; it was not applied".into(),
    }));
    app.update(AppEvent::Engine(EngineMessage::Status(Box::new(
        feed::steady_status(1),
    ))));
    assert_eq!(app.alerts.len(), 1);
    let a = &app.alerts[0];
    assert_eq!((a.kind, a.resolved), (AlertKind::Finding, false));
    assert_eq!(a.code, "ambiguous_undo_xid");
}

/// A stop on an archive gap is reported by the status and by a message,
/// after an alert that the same logs were deleted ahead: one alert.
#[test]
fn a_stop_on_an_archive_gap_is_one_alert_without_a_code_prefix() {
    let mut app = App::new(feed::demo_header(), ViewConfig::default());
    app.reported_missing.extend([(1, 101), (1, 102)]);
    app.raise(
        AlertKind::Finding,
        "archive_deleted_ahead".into(),
        "archived logs deleted ahead".into(),
        None,
        false,
    );
    let error =
        "archive gap on thread 1: sequences 101–102 are neither archived (available) nor online";
    let mut st = feed::steady_status(1);
    st.state = MiningState::Stopped {
        error: error.into(),
        advice: None,
    };
    app.update(AppEvent::Engine(EngineMessage::Status(Box::new(st))));
    app.update(AppEvent::Engine(EngineMessage::SourceError {
        error: error.into(),
        ora_code: None,
        advice: Some("RMAN> RESTORE ARCHIVELOG SEQUENCE BETWEEN 101 AND 102 THREAD 1;".into()),
        retrying: false,
        gap: Some((1, 101, 102)),
    }));
    assert_eq!(app.alerts.len(), 1, "{:?}", app.alerts);
    let a = &app.alerts[0];
    assert!(a.is_fatal() && a.count == 1);
    assert_eq!(a.text(), error);
    assert!(a
        .advice
        .as_deref()
        .is_some_and(|x| x.contains("BETWEEN 101 AND 102")));
}

#[test]
fn an_alert_raised_before_the_first_status_gets_a_time() {
    let mut app = App::new(feed::demo_header(), ViewConfig::default());
    app.update(AppEvent::Engine(EngineMessage::Finding(
        feed::partial_image_finding(),
    )));
    assert_eq!(app.alerts[0].raised_at, None);
    let st = feed::steady_status(1);
    let t = st.current_time;
    assert!(t.is_some());
    app.update(AppEvent::Engine(EngineMessage::Status(Box::new(st))));
    assert_eq!(app.alerts[0].raised_at, t);
    // An alert a change calls for carries the change's time.
    app.update(AppEvent::Engine(EngineMessage::Events(vec![
        partition_truncate(1),
    ])));
    let ddl = app.alerts.iter().find(|a| a.code == "partition_ddl");
    assert!(
        ddl.is_some_and(|a| a.raised_at.is_some()),
        "{:?}",
        app.alerts
    );
}

#[test]
fn retrying_error_is_resolved_when_mining_resumes() {
    let mut app = App::new(feed::demo_header(), ViewConfig::default());
    app.update(AppEvent::Engine(feed::connection_dropped(true)));
    assert!(app.alerts[0].retrying && !app.alerts[0].resolved);
    assert!(app.fatal_error().is_none());
    app.update(AppEvent::Engine(EngineMessage::Status(Box::new(
        feed::steady_status(0),
    ))));
    assert!(app.alerts[0].resolved);
}

#[test]
fn time_lag_counts_the_time_since_the_engine_polled_while_it_reads_a_window() {
    // At the end of a window the mined position is the SCN its poll
    // read; the 6 s the window took to read are redo waiting now.
    let mut st = feed::status_with_lag(5, 100, 0, 0);
    st.state = MiningState::Mining;
    assert_eq!(time_lag_s(&st), Some(0));
    st.polled_at = std::time::Instant::now().checked_sub(std::time::Duration::from_secs(6));
    assert!(st.polled_at.is_some());
    assert!(time_lag_s(&st).is_some_and(|s| s >= 6));
}

#[test]
fn idle_engine_has_no_time_lag_however_old_the_last_row() {
    let mut st = feed::status_with_lag(5, 100, 300, 10);
    assert_eq!(time_lag_s(&st), Some(300));
    st.state = MiningState::Idle;
    assert_eq!(time_lag_s(&st), Some(0));
}

#[test]
fn headline_alert_prefers_a_stopped_capture_over_newer_findings() {
    let mut app = App::new(feed::demo_header(), ViewConfig::default());
    app.update(AppEvent::Engine(feed::missing_log_error()));
    app.update(AppEvent::Engine(EngineMessage::Finding(
        feed::dictionary_finding(),
    )));
    assert_eq!(
        app.headline_alert().map(|a| a.code.as_str()),
        Some("ORA-01291")
    );
}

#[test]
fn retrying_state_without_an_error_message_still_raises_one_alert() {
    let mut app = App::new(feed::demo_header(), ViewConfig::default());
    let mut st = feed::steady_status(3);
    st.state = MiningState::Retrying {
        attempt: 1,
        error: "ORA-03135: connection lost contact".into(),
        advice: Some("check firewalls' idle timeouts".into()),
        code: Some("ORA-03135".into()),
    };
    for _ in 0..3 {
        app.update(AppEvent::Engine(EngineMessage::Status(Box::new(
            st.clone(),
        ))));
    }
    assert_eq!(app.alerts.len(), 1);
    assert_eq!(app.alerts[0].code, "ORA-03135");
    assert!(app.alerts[0].retrying);
}

#[test]
fn error_without_retry_is_fatal() {
    let mut app = App::new(feed::demo_header(), ViewConfig::default());
    app.update(AppEvent::Engine(feed::missing_log_error()));
    assert_eq!(
        app.fatal_error().map(|a| a.code.as_str()),
        Some("ORA-01291")
    );
}

#[test]
fn throughput_counts_per_second_and_fills_idle_seconds_with_zero() {
    let mut app = App::new(feed::demo_header(), ViewConfig::default());
    app.update(AppEvent::Engine(EngineMessage::Events(
        (0..7).map(feed::sample_change).collect(),
    )));
    app.update(AppEvent::Tick(Duration::from_millis(1_100)));
    app.update(AppEvent::Tick(Duration::from_millis(4_000)));
    let h: Vec<u64> = app.throughput.history().iter().copied().collect();
    assert_eq!(h, [7, 0, 0, 0]);
    assert_eq!(app.throughput.peak(), 7);
}

#[test]
fn status_older_than_the_limit_is_stale() {
    let mut app = App::new(feed::demo_header(), ViewConfig::default());
    app.update(AppEvent::Engine(EngineMessage::Status(Box::new(
        feed::steady_status(0),
    ))));
    app.update(AppEvent::Tick(Duration::from_secs(2)));
    assert_eq!(app.stale_for(), None);
    app.update(AppEvent::Tick(Duration::from_secs(9)));
    assert_eq!(app.stale_for(), Some(Duration::from_secs(9)));
}

#[test]
fn no_status_at_all_is_stale_too() {
    let mut app = App::new(feed::demo_header(), ViewConfig::default());
    app.update(AppEvent::Tick(Duration::from_secs(2)));
    assert_eq!(app.stale_for(), None);
    app.update(AppEvent::Tick(Duration::from_secs(12)));
    assert_eq!(app.stale_for(), Some(Duration::from_secs(12)));
}

#[test]
fn update_changed_columns_are_those_whose_value_differs() {
    let CapturedEvent::Change(c) = feed::sample_change(1) else {
        panic!("sample 1 is a change");
    };
    assert_eq!(c.op, Op::Update);
    assert_eq!(changed_columns(&c), ["STATUS", "UPDATED_AT"]);
}
