//! The engine stage: mines one window after another (the capture engine's
//! buffer, parser and envelopes), reads snapshot chunks between windows,
//! and closes each with a commit on the queue that carries the checkpoint
//! covering it. It paces itself (pauses while the database is idle, waits
//! before a retry) and says what it sees: findings, retries, the periodic
//! status line.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::engine::capture::{Capture, CaptureError, Progress};
use crate::engine::checkpoint::{Checkpoint, RewindPoint};
use crate::engine::metrics::{CaptureStatus, MiningState};
use crate::engine::row::Scn;
use crate::engine::snapshot::{SnapshotMode, Snapshotter};
use crate::engine::txn::TxnError;
use crate::output::count;
use crate::sink::stream;
use crate::sink::DeadLetterFile;
use crate::source::RedoSource;
use crate::telemetry::http::MetricsServer;
use crate::telemetry::{Telemetry, Volumes};

use super::error::DaemonError;
use super::notice::{Level, Notice, Reporter};
use super::queue::{Commit, Outbox, SinkStopped};
use super::readers::Readers;

/// How the engine stage ended.
#[derive(Debug)]
pub enum EngineEnd {
    /// As asked: `--until-scn`, `--count`, a snapshot-only run, a signal.
    Done,
    /// The sink stage stopped first; its result says why.
    SinkStopped,
    Failed(DaemonError),
}

/// Which database a checkpoint's positions belong to.
#[derive(Debug, Clone)]
pub struct Origin {
    pub db_name: String,
    /// The source spec when it alone names the database (a simulator
    /// scenario); never a connect string, which may hold secrets.
    pub source: Option<String>,
    /// The tables asked for, as typed and sorted.
    pub tables: Vec<String>,
}

impl Origin {
    pub fn stamp(&self, cp: &mut Checkpoint) {
        cp.db_name = Some(self.db_name.clone());
        cp.source.clone_from(&self.source);
        cp.tables = Some(self.tables.clone());
    }
}

/// What every stored checkpoint carries besides the capture's position.
#[derive(Debug, Clone)]
pub struct Stamp {
    pub stream_id: Option<String>,
    pub origin: Origin,
    pub rewind_points: Vec<RewindPoint>,
}

impl Stamp {
    /// The capture's position with the stream's identity and the
    /// snapshot's progress; `None` at restart SCN 0 (no window mined yet:
    /// the stored checkpoint stands).
    pub fn checkpoint<S: RedoSource>(
        &self,
        capture: &Capture<S>,
        snapshot: Option<&Snapshotter>,
    ) -> Option<Checkpoint> {
        let mut cp = capture.checkpoint();
        if cp.restart_scn == 0 {
            return None;
        }
        cp.stream_id.clone_from(&self.stream_id);
        self.origin.stamp(&mut cp);
        cp.rewind_points.clone_from(&self.rewind_points);
        cp.snapshot = snapshot.map(|s| s.progress().clone());
        Some(cp)
    }
}

/// Whether the loop goes on after a window.
pub(super) enum Flow {
    Next,
    End(EngineEnd),
}

/// Everything the engine stage owns and borrows.
pub struct EngineStage<'a, S: RedoSource> {
    pub capture: Capture<S>,
    pub snapshot: Option<Snapshotter>,
    /// Sessions reading the snapshot's chunks beside the stream; without
    /// them chunks are read on the stream's session between windows.
    pub readers: Option<Readers>,
    pub mode: SnapshotMode,
    pub outbox: Outbox,
    pub stamp: Stamp,
    pub stop: &'a AtomicBool,
    pub reporter: &'a dyn Reporter,
    pub telemetry: &'a Telemetry,
    pub dead_letter: PathBuf,
    pub status_every: Duration,
    /// Events the sink stage made durable, for the status line.
    pub durable: Arc<AtomicU64>,
    /// Watched for trouble, which is reported as it comes.
    pub metrics_server: Option<&'a MetricsServer>,
    pub(super) dead_letters: Option<DeadLetterFile>,
    pub(super) last_status: Instant,
    pub(super) snapshot_started: Instant,
    pub(super) snapshot_rows_before: u64,
    /// The reporter draws the snapshot's progress itself.
    pub(super) snapshot_drawn: bool,
    /// The snapshot's `read_at` in the last checkpoint committed.
    pub(super) stored_read_at: Option<Scn>,
}

impl<'a, S: RedoSource> EngineStage<'a, S> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        capture: Capture<S>,
        snapshot: Option<Snapshotter>,
        mode: SnapshotMode,
        outbox: Outbox,
        stamp: Stamp,
        stop: &'a AtomicBool,
        reporter: &'a dyn Reporter,
        telemetry: &'a Telemetry,
    ) -> Self {
        let rows_before = snapshot.as_ref().map_or(0, |s| s.progress().rows());
        let stored_read_at = snapshot.as_ref().and_then(|s| s.progress().read_at);
        Self {
            capture,
            snapshot,
            readers: None,
            mode,
            outbox,
            stamp,
            stop,
            reporter,
            telemetry,
            dead_letter: PathBuf::from("cdcctl-dead-letter.jsonl"),
            status_every: Duration::from_secs(10),
            durable: Arc::new(AtomicU64::new(0)),
            metrics_server: None,
            dead_letters: None,
            last_status: Instant::now(),
            snapshot_started: Instant::now(),
            snapshot_rows_before: rows_before,
            snapshot_drawn: false,
            stored_read_at,
        }
    }

    /// Mines until the end asked for, a signal, or a failure.
    pub fn run(&mut self) -> EngineEnd {
        while !self.stopped() && !self.outbox.limit_reached() {
            if let Flow::End(end) = self.window() {
                return end;
            }
        }
        EngineEnd::Done
    }

    pub(super) fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// One window: mine it, commit it, say what it found, then step the
    /// snapshot or pause.
    fn window(&mut self) -> Flow {
        if self.say_resume_point().is_err() {
            return Flow::End(EngineEnd::SinkStopped);
        }
        let before = self.capture.checkpoint();
        let written_before = self.outbox.written();
        let outbox = &mut self.outbox;
        let snapshot = &mut self.snapshot;
        // While a snapshot runs, changes its reads hold are left to them.
        let progress =
            self.capture
                .poll(&mut |e| match snapshot.as_mut().filter(|s| !s.finished()) {
                    Some(s) => s.admit(e).map_or(Ok(()), |e| outbox.push(e)),
                    None => outbox.push(e),
                });
        if self.outbox.written() > written_before && before.restart_scn > 0 {
            if let Some(p) = before.rewind_point() {
                stream::push_rewind_point(&mut self.stamp.rewind_points, p);
            }
        }
        if self.commit().is_err() {
            return Flow::End(EngineEnd::SinkStopped);
        }
        if let Err(e) = self.report_window() {
            return Flow::End(EngineEnd::Failed(e));
        }
        self.status_line_when_due();
        self.after(progress)
    }

    /// Tells the sink stage where this window's events resume from, so
    /// that it can commit a window too large for one sink commit in parts.
    /// Not while a snapshot runs: its gate holds events back and releases
    /// them later, out of the order a restart drops duplicates by.
    fn say_resume_point(&mut self) -> Result<(), SinkStopped> {
        if self.snapshot.as_ref().is_some_and(|s| !s.finished()) {
            return Ok(());
        }
        match self.stamp.checkpoint(&self.capture, self.snapshot.as_ref()) {
            Some(cp) => self.outbox.resume_point(cp),
            None => Ok(()),
        }
    }

    /// Queues the commit that closes what was emitted so far.
    pub(super) fn commit(&mut self) -> Result<(), SinkStopped> {
        let checkpoint = self.stamp.checkpoint(&self.capture, self.snapshot.as_ref());
        self.commit_with(checkpoint)
    }

    /// Queues a commit storing `checkpoint` (none: make durable only).
    pub(super) fn commit_with(
        &mut self,
        checkpoint: Option<Checkpoint>,
    ) -> Result<(), SinkStopped> {
        if checkpoint.is_some() {
            self.stored_read_at = self.snapshot.as_ref().and_then(|s| s.progress().read_at);
        }
        let commit = Commit {
            checkpoint,
            status: self.capture.status().clone(),
            volumes: Volumes::of(&self.capture),
            snapshot: self.snapshot.as_ref().map(|s| s.progress().clone()),
        };
        self.outbox.commit(commit)
    }

    /// What the poll's outcome asks for next.
    fn after(&mut self, progress: Result<Progress, CaptureError>) -> Flow {
        let unfinished = self.snapshot.as_ref().is_some_and(|s| !s.finished());
        match progress {
            Ok(Progress::Finished) => {
                if unfinished {
                    if let Err(end) = self.finish_snapshot_at_until() {
                        return Flow::End(end);
                    }
                }
                Flow::End(EngineEnd::Done)
            }
            Ok(Progress::Idle | Progress::Advanced { .. }) if unfinished => self.snapshot_step(),
            Ok(Progress::Idle | Progress::Advanced { .. }) => {
                self.pause(self.capture.pause());
                Flow::Next
            }
            Ok(Progress::Retrying) => {
                self.report_retry();
                self.pause(self.capture.retry_pause());
                Flow::Next
            }
            Err(CaptureError::Txn(TxnError::Sink(_))) if self.outbox.stopped() => {
                Flow::End(EngineEnd::SinkStopped)
            }
            // The event limit was reached inside the window.
            Err(CaptureError::Txn(TxnError::Sink(_))) => Flow::End(EngineEnd::Done),
            Err(e) => Flow::End(EngineEnd::Failed(DaemonError::Capture(e))),
        }
    }

    /// Waits `pause` in short steps, so a signal is not kept waiting.
    pub(super) fn pause(&self, pause: Duration) {
        let until = Instant::now() + pause;
        while !self.stopped() {
            let now = Instant::now();
            if now >= until {
                break;
            }
            std::thread::sleep(Duration::from_millis(50).min(until - now));
        }
    }

    fn report_retry(&self) {
        if let MiningState::Retrying {
            error,
            advice,
            attempt,
            code,
        } = &self.capture.status().state
        {
            self.telemetry.source_error(code.as_deref());
            self.reporter.notice(Notice {
                level: Level::Warn,
                message: format!("{error}; reconnecting (attempt {attempt})"),
                advice: advice.clone(),
                fields: vec![("attempt", (*attempt).into())],
            });
        }
    }

    /// Dead letters to their file, findings and warnings to the operator.
    fn report_window(&mut self) -> Result<(), DaemonError> {
        for letter in self.capture.take_dead_letters() {
            if self.dead_letters.is_none() {
                self.dead_letters = Some(
                    DeadLetterFile::open(&self.dead_letter)
                        .map_err(|e| DaemonError::usage(e.to_string()))?,
                );
            }
            if let Some(d) = self.dead_letters.as_mut() {
                d.write(&letter)
                    .map_err(|e| DaemonError::usage(e.to_string()))?;
            }
            self.reporter.notice(Notice::info(format!(
                "SCN {} XID {}: unparseable row sent to {}",
                letter.scn,
                letter.xid,
                self.dead_letter.display()
            )));
        }
        for f in self.capture.take_findings() {
            self.telemetry.finding(f.finding.code());
            self.reporter.notice(Notice::info(format!(
                "finding at SCN {} (XID {}): {}",
                f.scn,
                f.xid,
                f.finding.message()
            )));
        }
        for w in self.capture.take_warnings() {
            self.reporter
                .notice(Notice::info(format!("warning: {}", w.message())));
        }
        Ok(())
    }

    fn status_line_when_due(&mut self) {
        if let Some(trouble) = self.metrics_server.and_then(MetricsServer::take_failure) {
            self.reporter.notice(Notice::warn(
                trouble,
                Some("scrapes may fail; capture goes on".into()),
            ));
        }
        if self.last_status.elapsed() < self.status_every {
            return;
        }
        self.last_status = Instant::now();
        let snapshot_line = self
            .snapshot
            .as_ref()
            .filter(|_| !self.snapshot_drawn)
            .and_then(|s| {
                s.progress().status_line(
                    self.snapshot_rows_before,
                    self.snapshot_started.elapsed().as_secs_f64(),
                )
            });
        if let Some(line) = snapshot_line {
            self.reporter.notice(Notice::info(line));
        }
        let written = self.durable.load(Ordering::Relaxed);
        self.reporter
            .notice(status_notice(self.capture.status(), written));
    }
}

/// The status line: where mining stands, its lag, and the events written.
pub fn status_notice(s: &CaptureStatus, written: u64) -> Notice {
    // The time lag is what an operator compares with an SLA: as of now,
    // counting the time the last window took to read.
    let lag_s = s.time_lag_s();
    let time_lag = lag_s.map_or_else(|| "?".to_string(), |t| format!("{t}s"));
    Notice {
        level: Level::Info,
        message: format!(
            "mined SCN {} (lag {time_lag}, {}), restart SCN {}, {}, {} written",
            s.mined_scn,
            count(s.scn_lag(), "SCN", "SCNs"),
            s.restart_scn,
            count(
                s.open_transactions as u64,
                "open transaction",
                "open transactions"
            ),
            count(written, "event", "events"),
        ),
        advice: None,
        fields: vec![
            ("mined_scn", s.mined_scn.into()),
            ("lag_seconds", lag_s.into()),
            ("lag_scn", s.scn_lag().into()),
            ("restart_scn", s.restart_scn.into()),
            ("open_transactions", s.open_transactions.into()),
            ("events_written", written.into()),
        ],
    }
}
