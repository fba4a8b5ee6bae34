//! What a running `cdcctl run` tells the outside world about itself: the
//! Prometheus families served at `--metrics ADDR` (`/metrics`, by
//! [`http`]), and the status document ([`report`]: `/status.json` there,
//! and a file next to the checkpoint) that `cdcctl status` reads.
//!
//! The capture loop feeds [`Telemetry`] after each batch, once the sink made
//! the batch durable and the checkpoint covers it; a scrape therefore never
//! counts an event the checkpoint does not.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use chrono::Utc;
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::{Registry, Unit};

pub mod http;
mod mining;
pub mod report;

use crate::engine::event::CapturedEvent;
use crate::engine::lag_cause::{self, Diagnosis, SinkFacts, SnapshotHold};
use crate::engine::metrics::{CaptureStatus, MiningState, OpenTxnSummary};
use crate::engine::snapshot::{SnapshotProgress, TableState};
use report::{DaemonReport, OpenTxn, StatusFile};

type Labels = Vec<(String, String)>;

/// The metric families; each is registered once in `registry`.
struct Families {
    scn: Family<Labels, Gauge>,
    lag_scns: Gauge,
    lag_seconds: Gauge<f64, AtomicU64>,
    events: Family<Labels, Counter>,
    rows_read: Counter,
    redo_bytes: Counter,
    open_transactions: Gauge,
    oldest_open_age: Gauge<f64, AtomicU64>,
    largest_open_bytes: Gauge,
    spilled_bytes: Counter,
    findings: Family<Labels, Counter>,
    source_errors: Family<Labels, Counter>,
    sink_commit: Histogram,
    sink_in_flight: Gauge,
    checkpoint_time: Gauge<f64, AtomicU64>,
    state: Family<Labels, Gauge>,
    snapshot_rows: Family<Labels, Gauge>,
    snapshot_expected_rows: Family<Labels, Gauge>,
    snapshot_chunks: Family<Labels, Gauge>,
    snapshot_done: Family<Labels, Gauge>,
    snapshot_retries: Family<Labels, Counter>,
    snapshot_chunk_rows: Gauge,
    snapshot_chunk_read: Histogram,
}

impl Families {
    fn new() -> Self {
        Self {
            scn: Family::default(),
            lag_scns: Gauge::default(),
            lag_seconds: Gauge::default(),
            events: Family::default(),
            rows_read: Counter::default(),
            redo_bytes: Counter::default(),
            open_transactions: Gauge::default(),
            oldest_open_age: Gauge::default(),
            largest_open_bytes: Gauge::default(),
            spilled_bytes: Counter::default(),
            findings: Family::default(),
            source_errors: Family::default(),
            sink_commit: Histogram::new(exponential_buckets(0.0005, 2.0, 16)),
            sink_in_flight: Gauge::default(),
            checkpoint_time: Gauge::default(),
            state: Family::default(),
            snapshot_rows: Family::default(),
            snapshot_expected_rows: Family::default(),
            snapshot_chunks: Family::default(),
            snapshot_done: Family::default(),
            snapshot_retries: Family::default(),
            snapshot_chunk_rows: Gauge::default(),
            snapshot_chunk_read: Histogram::new(exponential_buckets(0.001, 2.0, 16)),
        }
    }

    /// The capture's families: positions, lag, counts, the sink.
    fn register_capture(&self, registry: &mut Registry) {
        registry.register(
        "scn",
        "SCN positions: current (database), mined (read from LogMiner), commit (highest commit emitted), restart (where a restart begins)",
        self.scn.clone(),
    );
        registry.register(
            "lag_scns",
            "Current SCN minus mined SCN",
            self.lag_scns.clone(),
        );
        registry.register_with_unit(
            "lag",
            "Database time minus the redo time of the last mined row",
            Unit::Seconds,
            self.lag_seconds.clone(),
        );
        registry.register(
            "events",
            "Events written to the sink, by operation and table",
            self.events.clone(),
        );
        registry.register(
            "logminer_rows",
            "Rows read from V$LOGMNR_CONTENTS",
            self.rows_read.clone(),
        );
        registry.register_with_unit(
            "sql_redo",
            "SQL_REDO text read",
            Unit::Bytes,
            self.redo_bytes.clone(),
        );
        registry.register(
            "open_transactions",
            "Transactions buffered, not yet committed or rolled back",
            self.open_transactions.clone(),
        );
        registry.register_with_unit(
            "oldest_open_transaction_age",
            "Redo time elapsed since the oldest open transaction began",
            Unit::Seconds,
            self.oldest_open_age.clone(),
        );
        registry.register_with_unit(
            "largest_open_transaction",
            "Buffered size of the largest open transaction",
            Unit::Bytes,
            self.largest_open_bytes.clone(),
        );
        registry.register_with_unit(
            "spilled",
            "Transaction data written to spill files",
            Unit::Bytes,
            self.spilled_bytes.clone(),
        );
        registry.register(
            "findings",
            "Findings about captured data, by kind",
            self.findings.clone(),
        );
        registry.register(
            "source_errors",
            "Source errors the capture retried, by ORA code",
            self.source_errors.clone(),
        );
        registry.register_with_unit(
            "sink_commit",
            "Time the sink took to make a batch durable",
            Unit::Seconds,
            self.sink_commit.clone(),
        );
        registry.register(
            "sink_in_flight_messages",
            "Messages handed to the sink and not yet acknowledged",
            self.sink_in_flight.clone(),
        );
        registry.register_with_unit(
            "last_checkpoint_timestamp",
            "Unix time of the last checkpoint stored",
            Unit::Seconds,
            self.checkpoint_time.clone(),
        );
        registry.register(
            "state",
            "1 for the capture's current state",
            self.state.clone(),
        );
    }

    /// The initial snapshot's families, each by schema and table.
    fn register_snapshot(&self, registry: &mut Registry) {
        registry.register(
            "snapshot_rows",
            "Rows the initial snapshot has read, by table",
            self.snapshot_rows.clone(),
        );
        registry.register(
            "snapshot_expected_rows",
            "Rows the dictionary statistics expect (NUM_ROWS), by table",
            self.snapshot_expected_rows.clone(),
        );
        registry.register(
            "snapshot_chunks",
            "Key-range chunks the initial snapshot has read, by table",
            self.snapshot_chunks.clone(),
        );
        registry.register(
            "snapshot_table_done",
            "1 once a table's snapshot is complete (or stopped for good), 0 while it is read",
            self.snapshot_done.clone(),
        );
        registry.register(
        "snapshot_retries",
        "Snapshot chunk reads that failed and were tried again (or a table given up), by table and code (ORA-01555, ORA-08103, ORA-01466, ORA-00942, connection; DM8's in Oracle's terms)",
        self.snapshot_retries.clone(),
    );
        registry.register(
            "snapshot_chunk_rows",
            "Rows the next snapshot chunk asks for: --snapshot-chunk-rows, halved by repeated ORA-01555 and grown back after whole reads",
            self.snapshot_chunk_rows.clone(),
        );
        registry.register_with_unit(
            "snapshot_chunk_read",
            "Time a group of snapshot chunks took to read, from its orders to its last answer",
            Unit::Seconds,
            self.snapshot_chunk_read.clone(),
        );
    }
}

/// Events written since the last [`Telemetry::update`], by (op, schema, table).
#[derive(Debug, Default)]
pub struct Tally {
    by_table: BTreeMap<(&'static str, String, String), u64>,
    total: u64,
}

impl Tally {
    pub fn count(&mut self, event: &CapturedEvent) {
        let (op, source) = match event {
            CapturedEvent::Change(c) => (c.op.code(), &c.source),
            CapturedEvent::Ddl(d) => ("ddl", &d.source),
        };
        *self
            .by_table
            .entry((op, source.schema.clone(), source.table.clone()))
            .or_default() += 1;
        self.total += 1;
    }

    /// Adds what `other` counted.
    pub fn absorb(&mut self, other: Tally) {
        for (key, n) in other.by_table {
            *self.by_table.entry(key).or_default() += n;
        }
        self.total += other.total;
    }
}

/// Engine totals kept outside [`CaptureStatus`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Volumes {
    pub redo_bytes: u64,
    pub spilled_bytes: u64,
}

impl Volumes {
    pub fn of<S: crate::source::RedoSource>(capture: &crate::engine::capture::Capture<S>) -> Self {
        Self {
            redo_bytes: capture.redo_bytes(),
            spilled_bytes: capture.spilled_bytes(),
        }
    }
}

/// Rate sampling: totals at the previous sample.
struct RateSample {
    at: Instant,
    written: u64,
    rows: u64,
}

/// Shared between the capture loop (writer) and the HTTP thread (reader).
pub struct Telemetry {
    registry: Registry,
    families: Families,
    /// Held for writing while a batch is recorded, so a scrape sees every
    /// family at the same checkpoint.
    consistent: RwLock<()>,
    report: Mutex<DaemonReport>,
    rate: Mutex<RateSample>,
    status_file: Option<StatusFile>,
    last_file_write: Mutex<Option<Instant>>,
    mining: mining::MiningFamilies,
    /// What the lag cause is computed from at each scrape.
    lag: Mutex<LagInputs>,
}

/// The last status and the sink's and the snapshot's side, kept so the lag
/// and its cause are computed when asked, not frozen while a window is
/// mined or a call hangs.
#[derive(Default)]
struct LagInputs {
    status: CaptureStatus,
    sink: SinkFacts,
    /// Since when the engine waits on a full queue to the sink.
    sink_waiting_since: Option<Instant>,
    snapshot: Option<SnapshotHold>,
}

/// Weight of the newest sink commit in the mean commit time.
const COMMIT_WEIGHT: f64 = 0.2;

/// How often the status file is rewritten (the HTTP endpoint is live).
const STATUS_FILE_EVERY: Duration = Duration::from_secs(2);

fn labels(pairs: &[(&str, &str)]) -> Labels {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
        .collect()
}

fn set_counter(c: &Counter, total: u64) {
    c.inc_by(total.saturating_sub(c.get()));
}

fn to_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

fn state_name(state: &MiningState) -> &'static str {
    match state {
        MiningState::Connecting => "connecting",
        MiningState::Mining => "mining",
        MiningState::Idle => "idle",
        MiningState::Retrying { .. } => "retrying",
        MiningState::Stopped { .. } => "stopped",
        MiningState::Finished => "finished",
    }
}

const STATES: [&str; 6] = [
    "connecting",
    "mining",
    "idle",
    "retrying",
    "stopped",
    "finished",
];

fn open_txn(t: &OpenTxnSummary, now: Option<chrono::NaiveDateTime>) -> OpenTxn {
    OpenTxn {
        xid: t.xid.clone(),
        start_scn: t.start_scn,
        start_time: t.start_time,
        age_seconds: match (now, t.start_time) {
            (Some(n), Some(s)) => Some((n - s).num_seconds().max(0)),
            _ => None,
        },
        events: t.events,
        bytes: t.bytes,
        spilled: t.spilled,
    }
}

impl Telemetry {
    /// `checkpoint`: the status file is written next to it; `sink` names the
    /// destination in the status document.
    pub fn new(checkpoint: Option<&Path>, sink: String) -> Arc<Self> {
        let mut registry = Registry::with_prefix("cdcctl");
        let f = Families::new();
        f.register_capture(&mut registry);
        f.register_snapshot(&mut registry);
        let mining = mining::MiningFamilies::register(&mut registry);
        let now = Utc::now();
        let report = DaemonReport::starting(sink, now);
        Arc::new(Self {
            registry,
            families: f,
            consistent: RwLock::new(()),
            report: Mutex::new(report),
            rate: Mutex::new(RateSample {
                at: Instant::now(),
                written: 0,
                rows: 0,
            }),
            status_file: checkpoint.map(StatusFile::for_checkpoint),
            last_file_write: Mutex::new(None),
            mining,
            lag: Mutex::new(LagInputs::default()),
        })
    }

    /// Records a finding by its kind.
    pub fn finding(&self, kind: &str) {
        self.families
            .findings
            .get_or_create(&labels(&[("kind", kind)]))
            .inc();
    }

    /// Records a source error the capture is retrying, under its database
    /// code (`ORA-03113`, `DM-6852`; `none` for an error without one).
    pub fn source_error(&self, code: Option<&str>) {
        let code = code.unwrap_or("none");
        self.families
            .source_errors
            .get_or_create(&labels(&[("code", code)]))
            .inc();
    }

    /// Records a read of snapshot chunks: how long it took and the rows
    /// the next chunk asks for.
    pub fn snapshot_chunk_read(&self, took: Duration, next_rows: usize) {
        self.families
            .snapshot_chunk_read
            .observe(took.as_secs_f64());
        self.families
            .snapshot_chunk_rows
            .set(i64::try_from(next_rows).unwrap_or(i64::MAX));
    }

    /// Records a failed snapshot read of `table` under `code`.
    pub fn snapshot_retry(&self, schema: &str, table: &str, code: &str) {
        self.families
            .snapshot_retries
            .get_or_create(&labels(&[
                ("schema", schema),
                ("table", table),
                ("code", code),
            ]))
            .inc();
    }

    /// Records the initial snapshot's progress as of the batch about to be
    /// reported by [`Self::update`].
    pub fn snapshot(&self, progress: &SnapshotProgress) {
        let f = &self.families;
        {
            let _guard = self.consistent.write().unwrap_or_else(|p| p.into_inner());
            for t in &progress.tables {
                let l = labels(&[("schema", &t.table.owner), ("table", &t.table.table)]);
                f.snapshot_rows.get_or_create(&l).set(to_i64(t.rows));
                f.snapshot_chunks.get_or_create(&l).set(to_i64(t.chunks));
                if let Some(e) = t.expected_rows {
                    f.snapshot_expected_rows.get_or_create(&l).set(to_i64(e));
                }
                f.snapshot_done
                    .get_or_create(&l)
                    .set(i64::from(t.state != TableState::Reading));
            }
        }
        self.lag_inputs().snapshot = lag_cause::snapshot_hold(progress);
        let mut r = self.report.lock().unwrap_or_else(|p| p.into_inner());
        r.snapshot = Some(progress.clone());
    }

    /// The engine starts (`true`) or stops waiting on a full queue to the
    /// sink.
    pub fn sink_waiting(&self, waiting: bool) {
        let mut inputs = self.lag_inputs();
        inputs.sink_waiting_since = waiting.then(Instant::now);
    }

    /// Records one sink commit: its duration and what is still in flight.
    pub fn sink_committed(&self, took: Duration, in_flight: u64) {
        let took = took.as_secs_f64();
        self.families.sink_commit.observe(took);
        self.families.sink_in_flight.set(to_i64(in_flight));
        let sink = &mut self.lag_inputs().sink;
        sink.in_flight = in_flight;
        sink.commit_s = Some(match sink.commit_s {
            Some(mean) => mean * (1.0 - COMMIT_WEIGHT) + took * COMMIT_WEIGHT,
            None => took,
        });
    }

    fn lag_inputs(&self) -> std::sync::MutexGuard<'_, LagInputs> {
        self.lag.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The lag's cause as of now, from the last status.
    pub fn diagnosis(&self) -> Diagnosis {
        let inputs = self.lag_inputs();
        let now = Instant::now();
        let mut facts = lag_cause::from_status(&inputs.status, now);
        facts.sink = inputs.sink;
        facts.sink.waiting_s = inputs
            .sink_waiting_since
            .map(|since| now.saturating_duration_since(since).as_secs_f64());
        facts.snapshot.clone_from(&inputs.snapshot);
        lag_cause::diagnose(&facts)
    }

    /// The lag and its cause as of now, set in the families and the report.
    fn refresh_lag(&self, r: &mut DaemonReport) {
        let lag = self.lag_inputs().status.time_lag_s();
        self.families.lag_seconds.set(lag.map_or(0.0, |s| s as f64));
        let d = self.diagnosis();
        self.mining.cause(&d);
        r.lag_seconds = lag;
        r.cause = Some(d);
    }

    /// The lag and its cause as of now in the status file, between batches:
    /// a sink or a call that holds the engine shows in `cdcctl status`
    /// while it does, not once it lets go.
    pub fn refresh_status_file(&self) {
        let report = {
            let _consistent = self.consistent.read().unwrap_or_else(|p| p.into_inner());
            let mut r = self.report.lock().unwrap_or_else(|p| p.into_inner());
            self.refresh_lag(&mut r);
            r.clone()
        };
        self.maybe_write_file(&report, false);
    }

    /// Records a batch once its checkpoint is stored: the engine's state,
    /// the events written, the checkpoint time. Rewrites the status file
    /// every few seconds, or at once with `force`.
    pub fn update(
        &self,
        status: &CaptureStatus,
        volumes: Volumes,
        tally: &mut Tally,
        checkpointed: bool,
        force: bool,
    ) {
        let f = &self.families;
        let now = Utc::now();
        let report = {
            let _guard = self.consistent.write().unwrap_or_else(|p| p.into_inner());
            for (name, v) in [
                ("current", status.current_scn),
                ("mined", status.mined_scn),
                ("commit", status.commit_scn),
                ("restart", status.restart_scn),
            ] {
                f.scn
                    .get_or_create(&labels(&[("position", name)]))
                    .set(to_i64(v));
            }
            f.lag_scns.set(to_i64(status.scn_lag()));
            self.mining.observe(status);
            self.lag_inputs().status = status.clone();
            for ((op, schema, table), n) in std::mem::take(&mut tally.by_table) {
                f.events
                    .get_or_create(&labels(&[
                        ("op", op),
                        ("schema", &schema),
                        ("table", &table),
                    ]))
                    .inc_by(n);
            }
            set_counter(&f.rows_read, status.rows_read);
            set_counter(&f.redo_bytes, volumes.redo_bytes);
            set_counter(&f.spilled_bytes, volumes.spilled_bytes);
            f.open_transactions
                .set(i64::try_from(status.open_transactions).unwrap_or(i64::MAX));
            let oldest = status
                .oldest_open
                .as_ref()
                .map(|t| open_txn(t, status.mined_time));
            f.oldest_open_age.set(
                oldest
                    .as_ref()
                    .and_then(|t| t.age_seconds)
                    .map_or(0.0, |s| s as f64),
            );
            f.largest_open_bytes
                .set(status.largest_open.as_ref().map_or(0, |t| to_i64(t.bytes)));
            if checkpointed {
                f.checkpoint_time
                    .set(now.timestamp_millis() as f64 / 1000.0);
            }
            let current = state_name(&status.state);
            for s in STATES {
                f.state
                    .get_or_create(&labels(&[("state", s)]))
                    .set(i64::from(s == current));
            }
            let mut r = self.report.lock().unwrap_or_else(|p| p.into_inner());
            r.events_written += std::mem::take(&mut tally.total);
            r.observe(status, now, checkpointed);
            r.oldest_open = oldest;
            r.largest_open = status
                .largest_open
                .as_ref()
                .map(|t| open_txn(t, status.mined_time));
            self.sample_rates(&mut r, status.rows_read);
            r.mining = Some(status.mining.clone());
            self.refresh_lag(&mut r);
            r.clone()
        };
        self.maybe_write_file(&report, force);
    }

    fn sample_rates(&self, r: &mut DaemonReport, rows: u64) {
        let mut s = self.rate.lock().unwrap_or_else(|p| p.into_inner());
        let secs = s.at.elapsed().as_secs_f64();
        // Shorter samples would make the rate jump with every batch.
        if secs >= 1.0 {
            r.events_per_second = (r.events_written - s.written) as f64 / secs;
            r.rows_per_second = rows.saturating_sub(s.rows) as f64 / secs;
            *s = RateSample {
                at: Instant::now(),
                written: r.events_written,
                rows,
            };
        }
    }

    fn maybe_write_file(&self, report: &DaemonReport, force: bool) {
        let Some(file) = &self.status_file else {
            return;
        };
        let mut last = self
            .last_file_write
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if !force && last.is_some_and(|t| t.elapsed() < STATUS_FILE_EVERY) {
            return;
        }
        // The status file is advice for `cdcctl status`: failing to write it
        // must not stop capture.
        if let Err(e) = file.write(report) {
            tracing::warn!(
                "cannot write the status file {}: {e}",
                file.path().display()
            );
        }
        *last = Some(Instant::now());
    }

    /// The run ended: the final state goes to the status file.
    pub fn finish(&self, status: &CaptureStatus, volumes: Volumes, error: Option<String>) {
        // Without an error the run ended as asked (--count, --until-scn, a
        // signal, a closed reader): the engine's stop at a limit is no failure.
        let failed = error.is_some();
        {
            let mut r = self.report.lock().unwrap_or_else(|p| p.into_inner());
            r.error = error;
        }
        let mut final_status = status.clone();
        if !failed || !matches!(final_status.state, MiningState::Stopped { .. }) {
            final_status.state = MiningState::Finished;
        }
        self.update(&final_status, volumes, &mut Tally::default(), false, true);
    }

    /// The Prometheus text exposition of every family.
    pub fn render(&self) -> String {
        let _guard = self.consistent.read().unwrap_or_else(|p| p.into_inner());
        self.refresh_lag(&mut self.report.lock().unwrap_or_else(|p| p.into_inner()));
        let mut out = String::new();
        // Encoding into a String only fails if a metric's own encoder does.
        if encode(&mut out, &self.registry).is_err() {
            out.clear();
        }
        out
    }

    /// The status document as JSON.
    pub fn report_json(&self) -> String {
        let mut r = self.report.lock().unwrap_or_else(|p| p.into_inner());
        self.refresh_lag(&mut r);
        serde_json::to_string_pretty(&*r).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_follow_prometheus_naming() {
        let t = Telemetry::new(None, "file".into());
        let status = CaptureStatus {
            current_scn: 120,
            mined_scn: 100,
            rows_read: 7,
            ..CaptureStatus::default()
        };
        let volumes = Volumes {
            redo_bytes: 300,
            spilled_bytes: 0,
        };
        t.update(&status, volumes, &mut Tally::default(), true, false);
        t.finding("partial_before_image");
        t.source_error(Some("ORA-01291"));
        t.source_error(Some("DM-6852"));
        t.snapshot_retry("APP", "ORDERS", "ORA-01555");
        t.snapshot_chunk_read(Duration::from_millis(20), 5_000);
        t.sink_committed(Duration::from_millis(3), 0);
        let text = t.render();
        for line in [
            "cdcctl_scn{position=\"current\"} 120",
            "cdcctl_lag_scns 20",
            "cdcctl_logminer_rows_total 7",
            "cdcctl_sql_redo_bytes_total 300",
            "cdcctl_findings_total{kind=\"partial_before_image\"} 1",
            "cdcctl_source_errors_total{code=\"ORA-01291\"} 1",
            "cdcctl_source_errors_total{code=\"DM-6852\"} 1",
            "cdcctl_snapshot_retries_total{schema=\"APP\",table=\"ORDERS\",code=\"ORA-01555\"} 1",
            "cdcctl_snapshot_chunk_rows 5000",
            "cdcctl_snapshot_chunk_read_seconds_count 1",
            "cdcctl_sink_commit_seconds_count 1",
            "# TYPE cdcctl_lag_seconds gauge",
            "# TYPE cdcctl_spilled_bytes counter",
        ] {
            assert!(text.contains(line), "{line} missing from:\n{text}");
        }
    }

    #[test]
    fn counters_follow_the_engine_totals_without_counting_twice() {
        let t = Telemetry::new(None, "file".into());
        for rows in [5, 9, 9] {
            let status = CaptureStatus {
                rows_read: rows,
                ..CaptureStatus::default()
            };
            t.update(
                &status,
                Volumes::default(),
                &mut Tally::default(),
                false,
                false,
            );
        }
        assert!(t.render().contains("cdcctl_logminer_rows_total 9\n"));
    }

    #[test]
    fn the_mining_sessions_pga_is_a_gauge_by_kind_once_known_issue35() {
        let t = Telemetry::new(None, "file".into());
        let mut status = CaptureStatus::default();
        let update = |t: &Telemetry, s: &CaptureStatus| {
            t.update(s, Volumes::default(), &mut Tally::default(), false, false);
        };
        update(&t, &status);
        assert!(
            !t.render().contains("cdcctl_logminer_session_pga_bytes{"),
            "none before it is read"
        );
        status.mining.session_memory = Some(crate::engine::port::SessionMemory {
            used: 50,
            allocated: 64,
            max: 90,
            uga: Some(7),
        });
        update(&t, &status);
        let text = t.render();
        for line in [
            "cdcctl_logminer_session_pga_bytes{kind=\"used\"} 50",
            "cdcctl_logminer_session_pga_bytes{kind=\"allocated\"} 64",
            "cdcctl_logminer_session_pga_bytes{kind=\"max\"} 90",
            "cdcctl_logminer_session_uga_bytes{kind=\"used\"} 7",
        ] {
            assert!(text.contains(line), "{line} missing:\n{text}");
        }
    }
}
