//! Where a window's time goes (session start, contents query, fetch, parse,
//! sink) and how busy the engine is between windows: the figures the lag
//! cause weighs and `run` exports as histograms.

use std::time::{Duration, Instant};

use chrono::NaiveDateTime;

use crate::engine::lag_cause::WindowTimings;
use crate::engine::metrics::RedoFigures;
use crate::engine::port::LogInventory;
use crate::engine::session::SessionPlan;

/// Weight of the newest poll in the busy share: about the last ten polls.
const BUSY_WEIGHT: f64 = 0.1;

/// The stopwatch of the window being mined.
#[derive(Debug, Default)]
pub(super) struct WindowClock {
    started: Option<Instant>,
    /// When the previous poll ended: the time since is time spent waiting.
    last_end: Option<Instant>,
    pub session_start: Duration,
    pub contents_query: Duration,
    pub fetch: Duration,
    pub sink: Duration,
    /// Time inside the row loop and the window's end (fetch and sink included).
    pub rows: Duration,
    /// LOB pieces among the window's rows.
    pub lob_rows: u64,
    busy_share: Option<f64>,
}

impl WindowClock {
    /// A poll begins: the stages' times start from zero.
    pub fn begin(&mut self) {
        let now = Instant::now();
        *self = Self {
            started: Some(now),
            last_end: self.last_end,
            busy_share: self.busy_share,
            ..Self::default()
        };
    }

    /// The poll ended, with the window it mined and the rows that read
    /// (an idle poll is waiting, not work). Returns the window's timings
    /// when it mined one.
    pub fn end(&mut self, window: Option<(&SessionPlan, u64)>) -> Option<WindowTimings> {
        let now = Instant::now();
        let mined = window.is_some();
        let started = self.started.take()?;
        let busy = if mined { now - started } else { Duration::ZERO };
        let waited = self
            .last_end
            .map_or(Duration::ZERO, |e| started.saturating_duration_since(e))
            + if mined { Duration::ZERO } else { now - started };
        self.last_end = Some(now);
        let span = (busy + waited).as_secs_f64();
        if span > 0.0 {
            let share = busy.as_secs_f64() / span;
            self.busy_share = Some(match self.busy_share {
                Some(b) => b * (1.0 - BUSY_WEIGHT) + share * BUSY_WEIGHT,
                None => share,
            });
        }
        let (plan, rows) = window?;
        Some(WindowTimings {
            session_start_s: self.session_start.as_secs_f64(),
            contents_query_s: self.contents_query.as_secs_f64(),
            fetch_s: self.fetch.as_secs_f64(),
            parse_s: self
                .rows
                .saturating_sub(self.fetch + self.sink)
                .as_secs_f64(),
            sink_s: self.sink.as_secs_f64(),
            total_s: busy.as_secs_f64(),
            redo_s: None,
            scns: plan.end_scn.saturating_sub(plan.from_scn),
            logs: u32::try_from(plan.logs.len()).unwrap_or(u32::MAX),
            rows,
            lob_rows: self.lob_rows,
        })
    }

    pub fn busy_share(&self) -> Option<f64> {
        self.busy_share
    }
}

/// Weight of the newest window in the recent windows' blend.
const RECENT_WEIGHT: f64 = 0.2;

/// `recent` with the window `t` blended in: each field a moving mean.
pub(super) fn blend(recent: Option<WindowTimings>, t: &WindowTimings) -> WindowTimings {
    let Some(r) = recent else { return *t };
    let mix = |old: f64, new: f64| old * (1.0 - RECENT_WEIGHT) + new * RECENT_WEIGHT;
    let mix_count = |old: u64, new: u64| mix(old as f64, new as f64).round() as u64;
    WindowTimings {
        session_start_s: mix(r.session_start_s, t.session_start_s),
        contents_query_s: mix(r.contents_query_s, t.contents_query_s),
        fetch_s: mix(r.fetch_s, t.fetch_s),
        parse_s: mix(r.parse_s, t.parse_s),
        sink_s: mix(r.sink_s, t.sink_s),
        total_s: mix(r.total_s, t.total_s),
        redo_s: match (r.redo_s, t.redo_s) {
            (Some(a), Some(b)) => Some(mix(a, b)),
            (_, b) => b,
        },
        scns: mix_count(r.scns, t.scns),
        logs: u32::try_from(mix_count(u64::from(r.logs), u64::from(t.logs))).unwrap_or(u32::MAX),
        rows: mix_count(r.rows, t.rows),
        lob_rows: mix_count(r.lob_rows, t.lob_rows),
    }
}

/// Times `f`, adding what it took to `into`.
pub(super) fn timed<T>(into: &mut Duration, f: impl FnOnce() -> T) -> T {
    let at = Instant::now();
    let out = f();
    *into += at.elapsed();
    out
}

/// Logs the session reads only because the oldest open transaction began
/// in them: they end at or below the window's start.
pub(super) fn held_logs(plan: &SessionPlan) -> u32 {
    let held = plan
        .logs
        .iter()
        .filter(|l| l.next_change.is_some_and(|n| n <= plan.from_scn))
        .count();
    u32::try_from(held).unwrap_or(u32::MAX)
}

/// Log switches per hour over the hour before `now` (archived logs
/// completed then, each counted once however many destinations hold it;
/// over less when the database has not archived for an hour yet), the
/// online logs' size, and the online logs the archiver has not copied yet.
pub(super) fn redo_figures(inventory: &LogInventory, now: NaiveDateTime) -> RedoFigures {
    let hour_ago = now - chrono::Duration::hours(1);
    let mut switched: Vec<(u16, u64)> = inventory
        .archived
        .iter()
        .filter(|a| a.next_time.is_some_and(|t| t > hour_ago && t <= now))
        .map(|a| (a.thread, a.sequence))
        .collect();
    switched.sort_unstable();
    switched.dedup();
    let since = inventory
        .archived
        .iter()
        .filter_map(|a| a.first_time)
        .min()
        .map_or(hour_ago, |t| t.max(hour_ago));
    let span_s = (now - since).num_seconds();
    // Under a few minutes of history a rate says nothing.
    let per_hour = (span_s >= 300).then(|| switched.len() as f64 * 3600.0 / span_s as f64);
    let threads = inventory
        .online
        .iter()
        .map(|l| l.thread)
        .collect::<std::collections::BTreeSet<_>>();
    let per_thread = |thread: u16| inventory.online.iter().filter(move |l| l.thread == thread);
    let groups = threads
        .iter()
        .map(|t| per_thread(*t).count())
        .max()
        .unwrap_or(0);
    let not_archived = threads
        .iter()
        .map(|t| {
            per_thread(*t)
                .filter(|l| !l.archived && l.status != "CURRENT" && l.status != "UNUSED")
                .count()
        })
        .max()
        .unwrap_or(0);
    RedoFigures {
        switches_per_hour: per_hour,
        log_bytes: inventory.online.iter().map(|l| l.bytes).max(),
        online_not_archived: u32::try_from(not_archived).unwrap_or(u32::MAX),
        groups: u32::try_from(groups).unwrap_or(u32::MAX),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::lag_cause::{diagnose, Cause, LagFacts};

    fn window(total_s: f64, redo_s: f64, fetch_s: f64) -> WindowTimings {
        WindowTimings {
            fetch_s,
            parse_s: total_s - fetch_s,
            total_s,
            redo_s: Some(redo_s),
            rows: 1000,
            ..WindowTimings::default()
        }
    }

    /// A long window (1.4 s of work for 0.9 s of redo) then a short one
    /// (0.5 s for 0.7 s), over and over: the capture falls 0.3 s behind
    /// every two windows, which the last window alone hides half the time.
    #[test]
    fn alternating_long_and_short_windows_falling_behind_stay_behind_issue35() {
        let mut recent = None;
        let mut causes = Vec::new();
        for i in 0..20 {
            let w = if i % 2 == 0 {
                window(1.4, 0.9, 0.2)
            } else {
                window(0.5, 0.7, 0.1)
            };
            let blended = blend(recent, &w);
            recent = Some(blended);
            let f = |window| LagFacts {
                lag_s: Some(6),
                busy_share: Some(1.0),
                window: Some(window),
                redo_groups: 3,
                ..LagFacts::default()
            };
            if i >= 10 {
                causes.push(diagnose(&f(blended)).cause);
                assert_eq!(diagnose(&f(w)).cause == Cause::KeepingUp, i % 2 == 1);
            }
        }
        assert!(causes.iter().all(|c| *c == Cause::Overloaded), "{causes:?}");
    }

    #[test]
    fn the_first_window_is_its_own_blend() {
        let w = window(1.0, 2.0, 0.5);
        assert_eq!(blend(None, &w), w);
    }
}
