use super::*;

fn window(session: f64, query: f64, fetch: f64, parse: f64, sink: f64) -> WindowTimings {
    WindowTimings {
        session_start_s: session,
        contents_query_s: query,
        fetch_s: fetch,
        parse_s: parse,
        sink_s: sink,
        total_s: session + query + fetch + parse + sink,
        redo_s: Some(1.0),
        scns: 1000,
        logs: 2,
        rows: 5000,
        lob_rows: 0,
    }
}

fn behind(w: WindowTimings) -> LagFacts {
    LagFacts {
        lag_s: Some(120),
        busy_share: Some(1.0),
        window: Some(w),
        redo_groups: 3,
        ..LagFacts::default()
    }
}

fn pinning(held_logs: u32) -> PinningTxn {
    PinningTxn {
        xid: "0A.001.00000042".into(),
        start_scn: 1_000,
        age_s: Some(7200),
        events: 12,
        bytes: 900,
        held_logs,
        username: Some("BATCH".into()),
        program: Some("sqlplus".into()),
        machine: Some("etl01".into()),
    }
}

#[test]
fn a_healthy_capture_is_keeping_up() {
    let f = LagFacts {
        lag_s: Some(1),
        busy_share: Some(0.2),
        window: Some(window(0.0, 0.01, 0.02, 0.02, 0.0)),
        redo_groups: 3,
        ..LagFacts::default()
    };
    let d = diagnose(&f);
    assert_eq!(d.cause, Cause::KeepingUp);
    assert_eq!(d.line(), "keeping up (lag 1s)");
}

#[test]
fn parsing_that_dominates_a_window_behind_is_an_overloaded_engine() {
    let d = diagnose(&behind(window(0.0, 0.1, 0.5, 3.0, 0.2)));
    assert_eq!(d.cause, Cause::Overloaded);
    assert!(d.evidence.contains("parse 79%"), "{}", d.evidence);
    assert!(d.evidence.contains("engine busy 100%"), "{}", d.evidence);
}

#[test]
fn a_sink_taking_most_of_the_window_is_a_slow_sink() {
    let mut f = behind(window(0.0, 0.1, 0.3, 0.5, 4.0));
    f.sink = SinkFacts {
        commit_s: Some(0.8),
        in_flight: 12,
        waiting_s: None,
    };
    let d = diagnose(&f);
    assert_eq!(d.cause, Cause::SlowSink);
    assert!(d.evidence.contains("commits take 800 ms"), "{}", d.evidence);
}

#[test]
fn an_engine_waiting_on_a_full_sink_queue_names_the_sink_before_any_window_ends_issue35() {
    // The last window ended quick and light: only the wait going on says
    // where the time goes.
    let mut f = LagFacts {
        lag_s: Some(7),
        window: Some(window(0.0, 0.001, 0.0, 0.001, 0.0)),
        ..LagFacts::default()
    };
    f.sink.waiting_s = Some(4.9);
    assert_eq!(diagnose(&f).cause, Cause::KeepingUp);
    f.sink.waiting_s = Some(6.2);
    f.sink.commit_s = Some(0.4);
    let d = diagnose(&f);
    assert_eq!(d.cause, Cause::SlowSink);
    assert_eq!(
        d.evidence,
        "the engine has waited 6s on the sink's full queue, lag 7s, commits take 400 ms"
    );
}

#[test]
fn logminer_taking_most_of_the_window_is_slow_logminer() {
    let d = diagnose(&behind(window(2.0, 1.0, 3.0, 0.5, 0.1)));
    assert_eq!(d.cause, Cause::SlowLogminer);
    assert!(d.evidence.contains("session start 2.00s"), "{}", d.evidence);
}

#[test]
fn slow_logminer_over_frequent_log_switches_is_a_log_switch_storm() {
    let mut f = behind(window(2.0, 1.0, 3.0, 0.5, 0.1));
    f.log_switches_per_hour = Some(45.0);
    f.redo_log_bytes = Some(50 * 1024 * 1024);
    let d = diagnose(&f);
    assert_eq!(d.cause, Cause::LogSwitchStorm);
    assert_eq!(d.evidence, "45 log switches per hour of 50 MiB");
}

#[test]
fn online_logs_under_a_mebibyte_are_sized_in_kibibytes_not_zero_mebibytes() {
    let f = LagFacts {
        lag_s: Some(0),
        log_switches_per_hour: Some(326.0),
        redo_log_bytes: Some(128 * 1024),
        ..LagFacts::default()
    };
    let d = diagnose(&f);
    assert_eq!(d.cause, Cause::LogSwitchStorm);
    assert_eq!(d.evidence, "326 log switches per hour of 128 KiB");
}

#[test]
fn slow_logminer_over_a_pinned_restart_scn_is_the_long_transaction() {
    let mut f = behind(window(2.0, 1.0, 3.0, 0.5, 0.1));
    f.log_switches_per_hour = Some(45.0);
    f.pinning = Some(pinning(6));
    let d = diagnose(&f);
    assert_eq!(d.cause, Cause::LongTransaction);
    assert!(
        d.evidence
            .starts_with("0A.001.00000042 by BATCH sqlplus etl01, open 7200s"),
        "{}",
        d.evidence
    );
    assert!(d.advice.contains("SCN 1000"), "{}", d.advice);
}

#[test]
fn a_transaction_holding_the_window_back_is_named_while_capture_keeps_up() {
    let f = LagFacts {
        lag_s: Some(0),
        pinning: Some(pinning(PINNED_LOGS)),
        ..LagFacts::default()
    };
    assert_eq!(diagnose(&f).cause, Cause::LongTransaction);
    // Open as long, but inside the window's own logs: nothing held back.
    let young = LagFacts {
        pinning: Some(pinning(PINNED_LOGS - 1)),
        ..f
    };
    assert_eq!(diagnose(&young).cause, Cause::KeepingUp);
}

#[test]
fn retried_source_errors_rank_first() {
    let mut f = behind(window(0.0, 0.1, 0.3, 0.5, 4.0));
    f.pinning = Some(pinning(9));
    f.retrying = Some(RetriedError {
        code: Some("ORA-03113".into()),
        attempts: 3,
        message: "ORA-03113: end-of-file on communication channel".into(),
        advice: Some("check the listener".into()),
    });
    let d = diagnose(&f);
    assert_eq!(d.cause, Cause::SourceErrors);
    assert_eq!(d.advice, "check the listener");
    assert_eq!(
        d.evidence,
        "ORA-03113 retried 3 times: end-of-file on communication channel"
    );
}

#[test]
fn a_snapshot_chunk_outranks_the_stages_while_behind() {
    let mut f = behind(window(0.0, 0.1, 0.3, 3.0, 0.1));
    f.snapshot = Some(SnapshotHold {
        table: "APP.ORDERS".into(),
        rows_read: 10_000,
    });
    let d = diagnose(&f);
    assert_eq!(d.cause, Cause::SnapshotChunk);
    assert!(d.evidence.contains("APP.ORDERS"));
    // A snapshot that does not hold the stream back is no cause.
    f.lag_s = Some(0);
    f.window = None;
    assert_eq!(diagnose(&f).cause, Cause::KeepingUp);
}

/// The stream waits while a chunk is read: five seconds of lag, far below
/// the thirty that make capture "behind", already break the snapshot's
/// promise of a stream lag under 5 s.
#[test]
fn a_chunk_holding_the_stream_five_seconds_is_named_before_the_lag_threshold_issue35() {
    let mut f = LagFacts {
        lag_s: Some(SNAPSHOT_HOLD_LAG_S),
        busy_share: Some(0.2),
        window: Some(window(0.0, 0.1, 0.1, 0.1, 0.0)),
        redo_groups: 3,
        snapshot: Some(SnapshotHold {
            table: "APP.ORDERS".into(),
            rows_read: 1_500,
        }),
        ..LagFacts::default()
    };
    assert!(!is_behind(&f));
    assert_eq!(diagnose(&f).cause, Cause::SnapshotChunk);
    f.lag_s = Some(SNAPSHOT_HOLD_LAG_S - 1);
    assert_eq!(diagnose(&f).cause, Cause::KeepingUp);
}

#[test]
fn online_logs_waiting_for_the_archiver_are_archiver_behind() {
    let f = LagFacts {
        lag_s: Some(3),
        online_not_archived: 2,
        redo_groups: 3,
        ..LagFacts::default()
    };
    let d = diagnose(&f);
    assert_eq!(d.cause, Cause::ArchiverBehind);
    assert_eq!(d.evidence, "2 of 3 online logs not archived");
    let one = LagFacts {
        online_not_archived: 1,
        ..f
    };
    assert_eq!(diagnose(&one).cause, Cause::KeepingUp);
}

#[test]
fn a_window_slower_than_its_redo_is_behind_before_the_lag_threshold() {
    let mut f = behind(window(0.0, 0.1, 0.2, 2.0, 0.1));
    f.lag_s = Some(FALLING_LAG_S);
    assert!(is_behind(&f));
    assert_eq!(diagnose(&f).cause, Cause::Overloaded);
    // The same window with the engine waiting for redo in between is not.
    f.busy_share = Some(0.3);
    assert!(!is_behind(&f));
}

#[test]
fn every_cause_has_a_distinct_label() {
    let labels: std::collections::BTreeSet<_> = Cause::ALL.iter().map(|c| c.label()).collect();
    assert_eq!(labels.len(), Cause::ALL.len());
}

#[test]
fn behind_with_no_window_timed_is_unexplained_not_keeping_up() {
    let f = LagFacts {
        lag_s: Some(72),
        ..LagFacts::default()
    };
    let d = diagnose(&f);
    assert_eq!(d.cause, Cause::Unexplained);
    assert_eq!(d.evidence, "lag 72s");
}

/// A transaction too large for memory spills its rows to disk: while
/// capture is behind and parsing takes the window, that is the cause, not
/// an engine too slow for the redo rate.
#[test]
fn a_spilling_transaction_behind_a_parse_bound_window_is_named_issue35() {
    let mut f = behind(window(0.0, 0.1, 0.5, 3.0, 0.2));
    f.spilling = Some(SpillingTxn {
        xid: "0A.001.00000042".into(),
        events: 60_000,
        bytes: 300 * 1024 * 1024,
    });
    let d = diagnose(&f);
    assert_eq!(d.cause, Cause::Spilling);
    assert!(d.advice.contains("--spill-mb"), "{}", d.advice);
    assert_eq!(
        d.evidence,
        "0A.001.00000042, 60000 changes, 300 MiB buffered; parse 79% of a 3.8s window"
    );
}

#[test]
fn a_pinning_transactions_evidence_says_one_change_and_one_log_in_the_singular_issue35() {
    let mut p = pinning(1);
    p.events = 1;
    let d = long_transaction(&p);
    assert!(
        d.evidence
            .ends_with(", 1 change, holds 1 log in the window"),
        "{}",
        d.evidence
    );
}

#[test]
fn lob_pieces_making_most_of_a_window_behind_are_named_issue35() {
    let mut w = window(0.0, 0.1, 0.5, 3.0, 0.2);
    w.lob_rows = 4000;
    let d = diagnose(&behind(w));
    assert_eq!(d.cause, Cause::LobHeavy);
    assert!(
        d.evidence
            .starts_with("4000 of the window's 5000 rows are LOB pieces"),
        "{}",
        d.evidence
    );
    assert!(d.advice.contains("--lob placeholder"), "{}", d.advice);
    // A third of the rows: parsing in general, not the LOBs.
    w.lob_rows = 1500;
    assert_eq!(diagnose(&behind(w)).cause, Cause::Overloaded);
}

#[test]
fn windows_about_as_long_as_their_redo_are_keeping_up_not_falling_behind_issue35() {
    // A busy capture that just keeps up: 2 s of lag, windows 5% longer
    // than their redo one time, shorter the next.
    let mut f = LagFacts {
        lag_s: Some(2),
        busy_share: Some(1.0),
        window: Some(window(0.0, 0.2, 0.5, 0.35, 0.0)),
        ..LagFacts::default()
    };
    assert_eq!(diagnose(&f).cause, Cause::KeepingUp);
    // A fifth longer than the redo is falling behind, once the lag is
    // more than a short window's rounding.
    f.window = Some(window(0.0, 0.2, 0.6, 0.4, 0.0));
    assert_eq!(diagnose(&f).cause, Cause::KeepingUp);
    f.lag_s = Some(FALLING_LAG_S);
    assert_eq!(diagnose(&f).cause, Cause::SlowLogminer);
}
