//! The mining side's families (where each window's time goes, SCNs and logs
//! per window, transactions by outcome, the redo logs) and the lag cause as
//! a labelled 0/1 gauge, set again at every scrape.

use std::sync::atomic::AtomicU64;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::{Registry, Unit};

use super::{labels, set_counter, to_i64, Labels};
use crate::engine::lag_cause::{Cause, Diagnosis};
use crate::engine::metrics::CaptureStatus;

pub(super) struct MiningFamilies {
    session_start: Histogram,
    contents_query: Histogram,
    fetch: Histogram,
    parse: Histogram,
    sink_wait: Histogram,
    window: Histogram,
    window_scns: Histogram,
    window_logs: Histogram,
    busy: Gauge<f64, AtomicU64>,
    transactions: Family<Labels, Counter>,
    partial_rollbacks: Counter,
    held_logs: Gauge,
    mined_logs: Gauge,
    switches_per_hour: Gauge<f64, AtomicU64>,
    redo_log_bytes: Gauge,
    not_archived: Gauge,
    missing_ahead: Gauge,
    session_pga: Family<Labels, Gauge>,
    session_uga: Family<Labels, Gauge>,
    cause: Family<Labels, Gauge>,
    /// Windows already observed in the histograms.
    observed: AtomicU64,
}

fn seconds() -> Histogram {
    Histogram::new(exponential_buckets(0.001, 2.0, 18))
}

impl MiningFamilies {
    pub fn register(registry: &mut Registry) -> Self {
        let f = Self {
            session_start: seconds(),
            contents_query: seconds(),
            fetch: seconds(),
            parse: seconds(),
            sink_wait: seconds(),
            window: seconds(),
            window_scns: Histogram::new(exponential_buckets(10.0, 4.0, 12)),
            window_logs: Histogram::new(exponential_buckets(1.0, 2.0, 8)),
            busy: Gauge::default(),
            transactions: Family::default(),
            partial_rollbacks: Counter::default(),
            held_logs: Gauge::default(),
            mined_logs: Gauge::default(),
            switches_per_hour: Gauge::default(),
            redo_log_bytes: Gauge::default(),
            not_archived: Gauge::default(),
            missing_ahead: Gauge::default(),
            session_pga: Family::default(),
            session_uga: Family::default(),
            cause: Family::default(),
            observed: AtomicU64::new(0),
        };
        for (name, help, h) in [
            (
                "logminer_session_start",
                "Time per window in ADD_LOGFILE and START_LOGMNR (0 when the session is reused)",
                &f.session_start,
            ),
            (
                "contents_query",
                "Time per window to open the V$LOGMNR_CONTENTS query",
                &f.contents_query,
            ),
            (
                "contents_fetch",
                "Time per window fetching V$LOGMNR_CONTENTS rows",
                &f.fetch,
            ),
            (
                "window_parse",
                "Time per window parsing SQL_REDO and buffering transactions",
                &f.parse,
            ),
            (
                "window_sink_wait",
                "Time per window handing events to the sink (a full queue waits here)",
                &f.sink_wait,
            ),
            (
                "window",
                "Time per mined window, from the poll to its last row",
                &f.window,
            ),
        ] {
            registry.register_with_unit(name, help, Unit::Seconds, h.clone());
        }
        registry.register(
            "window_scns",
            "SCNs per mined window",
            f.window_scns.clone(),
        );
        registry.register(
            "window_logs",
            "Log files per LogMiner session of a window",
            f.window_logs.clone(),
        );
        registry.register(
            "engine_busy_ratio",
            "Share of recent wall time the engine spent mining rather than waiting for redo (0 to 1)",
            f.busy.clone(),
        );
        registry.register(
            "transactions",
            "Transactions ended, by outcome (commit, rollback, abandoned)",
            f.transactions.clone(),
        );
        registry.register(
            "partial_rollbacks",
            "Rollbacks to a savepoint",
            f.partial_rollbacks.clone(),
        );
        registry.register(
            "oldest_transaction_held_logs",
            "Log files the session reads only because the oldest open transaction began in them",
            f.held_logs.clone(),
        );
        registry.register(
            "mined_logs",
            "Log files in the current LogMiner session",
            f.mined_logs.clone(),
        );
        registry.register(
            "log_switches_per_hour",
            "Log switches per hour over the last hour (archived logs completed)",
            f.switches_per_hour.clone(),
        );
        registry.register_with_unit(
            "redo_log",
            "Size of the online redo logs",
            Unit::Bytes,
            f.redo_log_bytes.clone(),
        );
        registry.register(
            "online_logs_not_archived",
            "Online logs written and not yet archived (CURRENT excluded)",
            f.not_archived.clone(),
        );
        registry.register(
            "archives_missing_ahead",
            "Archived logs past the read position the database no longer has",
            f.missing_ahead.clone(),
        );
        registry.register_with_unit(
            "logminer_session_pga",
            "PGA of the mining session's server process (kind: used, allocated, max), where V$PROCESS is granted",
            Unit::Bytes,
            f.session_pga.clone(),
        );
        registry.register_with_unit(
            "logminer_session_uga",
            "UGA of the mining session (kind: used, V$SESSTAT's 'session uga memory'), where V$SESSTAT is granted",
            Unit::Bytes,
            f.session_uga.clone(),
        );
        registry.register(
            "lag_cause",
            "1 for the cause cdcctl names for the lag (keeping_up when none)",
            f.cause.clone(),
        );
        f
    }

    /// Takes a status: gauges and counters follow it, and a window not
    /// observed yet goes into the histograms.
    pub fn observe(&self, s: &CaptureStatus) {
        let m = &s.mining;
        let seen = self
            .observed
            .swap(m.windows, std::sync::atomic::Ordering::Relaxed);
        if let Some(w) = m.last_window.filter(|_| m.windows > seen) {
            self.session_start.observe(w.session_start_s);
            self.contents_query.observe(w.contents_query_s);
            self.fetch.observe(w.fetch_s);
            self.parse.observe(w.parse_s);
            self.sink_wait.observe(w.sink_s);
            self.window.observe(w.total_s);
            self.window_scns.observe(w.scns as f64);
            self.window_logs.observe(f64::from(w.logs));
        }
        self.busy.set(m.busy_share.unwrap_or(0.0));
        for (outcome, n) in [
            ("commit", s.counts.commits),
            ("rollback", s.counts.rollbacks),
            ("abandoned", m.abandoned_transactions),
        ] {
            set_counter(
                &self
                    .transactions
                    .get_or_create(&labels(&[("outcome", outcome)])),
                n,
            );
        }
        set_counter(&self.partial_rollbacks, s.counts.partial_rollbacks);
        if let Some(pga) = m.session_memory {
            for (kind, bytes) in [
                ("used", pga.used),
                ("allocated", pga.allocated),
                ("max", pga.max),
            ] {
                self.session_pga
                    .get_or_create(&labels(&[("kind", kind)]))
                    .set(to_i64(bytes));
            }
            if let Some(uga) = pga.uga {
                self.session_uga
                    .get_or_create(&labels(&[("kind", "used")]))
                    .set(to_i64(uga));
            }
        }
        self.held_logs.set(i64::from(m.held_logs));
        self.mined_logs.set(to_i64(s.logs.len() as u64));
        self.switches_per_hour
            .set(m.redo.switches_per_hour.unwrap_or(0.0));
        self.redo_log_bytes
            .set(to_i64(m.redo.log_bytes.unwrap_or(0)));
        self.not_archived.set(i64::from(m.redo.online_not_archived));
        self.missing_ahead
            .set(to_i64(s.archives_missing_ahead.len() as u64));
    }

    /// 1 for the diagnosed cause, 0 for every other.
    pub fn cause(&self, d: &Diagnosis) {
        for c in Cause::ALL {
            self.cause
                .get_or_create(&labels(&[("cause", c.label())]))
                .set(i64::from(c == d.cause));
        }
    }
}
