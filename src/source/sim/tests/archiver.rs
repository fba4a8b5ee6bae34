//! An archiver slower than the redo: groups waiting for their copy show
//! ARCHIVED = NO, and a switch that would reuse one waits for it.

use super::*;

/// ORDERS at 2,000 changes/s into three 64 KiB groups (a switch about
/// every 0.2 s), copied in `copy_s` each.
fn slow_archiver(copy_s: f64) -> Sim {
    let text = ORDERS.replace(
        "[connection]",
        &format!(
            "[redo]\ngroups = 3\ngroup_bytes = 65536\narchive_copy_s = {copy_s}\n[connection]"
        ),
    ) + "[workload]\nrate = 2000.0\n";
    let scenario = Scenario::parse(&text, "test").expect("scenario");
    Sim::new(scenario, Clock::default()).with_default_pdb()
}

fn not_archived(s: &mut Sim) -> usize {
    let inv = s.online_inventory().expect("V$LOG");
    inv.online
        .iter()
        .filter(|l| !l.archived && l.status != "CURRENT" && l.status != "UNUSED")
        .count()
}

#[test]
fn logs_wait_for_a_slow_archivers_copy_and_the_switch_after_them_waits_too() {
    let mut slow = slow_archiver(5.0);
    let mut quick = slow_archiver(0.0);
    slow.advance_ms(10_000);
    quick.advance_ms(10_000);
    // Both groups besides CURRENT wait for their copy: one being copied,
    // the next queued behind it, and the database waits at its next switch.
    assert_eq!(not_archived(&mut slow), 2);
    assert!(slow.model().switch_waiting);
    assert!(!slow.model().archiver_stuck, "a copy under way is no hang");
    assert_eq!(not_archived(&mut quick), 0);
    // One copy every 5 s lets through about two switches in 10 s; the
    // quick archiver lets the redo switch some fifty times.
    let (s, q) = (slow.model().switches.len(), quick.model().switches.len());
    assert!(s <= 4 && q >= 20, "switches: slow {s}, quick {q}");
    let generated = slow.model().rows_generated;
    slow.advance_ms(20_000);
    assert!(
        slow.model().rows_generated > generated,
        "redo resumes once each copy is done"
    );
    assert!(slow.model().switches.len() > s);
}

#[test]
fn archive_copy_time_must_be_a_number_of_seconds_up_to_an_hour() {
    for bad in ["-1.0", "7200.0", "nan"] {
        let text = ORDERS.replace(
            "[connection]",
            &format!("[redo]\narchive_copy_s = {bad}\n[connection]"),
        );
        let e = Scenario::parse(&text, "test").expect_err(bad).to_string();
        assert!(e.contains("redo.archive_copy_s"), "{bad}: {e}");
    }
}

#[test]
fn log_history_counts_the_closed_logs_begun_in_the_last_hour_per_thread_issue35() {
    let mut s = slow_archiver(0.0);
    s.advance_ms(10_000);
    let switches = s.model().switches.len();
    let history = s
        .recent_log_switches()
        .expect("V$LOG_HISTORY")
        .expect("modelled");
    assert_eq!(history.len(), 1, "{history:?}");
    // Every switch but the last closed a log begun within the hour; the
    // CURRENT log, begun by the last, is not history yet.
    assert_eq!(history[0].thread, 1);
    assert_eq!(history[0].switches as usize, switches - 1);
    assert!(history[0].span_s <= 10, "{history:?}");
}
