//! The capture daemon behind `cdcctl run`, as library code: it opens the
//! source, plans and drives the snapshot, mines windows, feeds the sink,
//! commits checkpoints, publishes telemetry, and answers signals and
//! rotation. It takes one [`DaemonConfig`] and returns an [`Outcome`] or a
//! typed [`DaemonError`]; it knows no command-line flags.
//!
//! ```text
//!  source ──> fetch stage ──rows──> engine stage ──events, commits──> sink stage
//!             (own thread,          (this thread:   (bounded queue)   (own thread:
//!              queries read          buffer, parse,                     JSON, write,
//!              ahead, bounded)       envelopes,                         flush/fsync or
//!                                    snapshot chunks)                   Kafka; then the
//!                                                                       checkpoint)
//! ```
//!
//! Snapshot chunks are read by `readers`, sessions of their own on
//! threads of their own, beside the fetch stage's mining; the engine stage
//! hands them orders and emits their chunks once the stream reaches them.
//!
//! [`run`] only connects the stages: the processing is in [`fetch`]
//! (the source's thread), `mine` and `snapshot` (the engine stage),
//! `readers`, `deliver` (the sink stage) and `start` (what happens before
//! the first window). The checkpoint moves only after the sink stage made the events
//! before it durable; a full queue holds the engine back.

pub mod config;
pub mod error;
pub mod fetch;
pub mod follow;
pub mod notice;

mod deliver;
mod mine;
mod output;
mod queue;
mod readers;
mod snapshot;
mod start;
mod stoppable;
#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

pub use config::{DaemonConfig, SinkChoice};
pub use error::DaemonError;
pub use notice::{Collected, Level, Notice, Reporter};

use crate::connect::OpenedSource;
use crate::engine::metrics::CaptureStatus;
use crate::engine::snapshot::SnapshotMode;
use crate::telemetry::http::{self, MetricsServer};
use crate::telemetry::{Telemetry, Volumes};
use deliver::{CommitBound, Delivered, SinkStage, Undelivered};
use mine::{EngineEnd, EngineStage};
use output::NewFiles;
use queue::{Outbox, QUEUE_DEPTH};
use start::Started;

/// The flags a run watches, raised by signal handlers (or by a caller).
#[derive(Debug, Clone, Default)]
pub struct Signals {
    /// SIGINT, SIGTERM: finish the window, store its checkpoint, end.
    pub stop: Arc<AtomicBool>,
    /// SIGHUP: reopen the output by its name at the next commit.
    pub hangup: Arc<AtomicBool>,
}

/// How a run ended without failing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The end asked for: `until_scn`, `count`, a snapshot-only run.
    Finished,
    /// Stopped by [`Signals::stop`].
    Stopped,
    /// The reader of stdout went away (`| head`): its choice.
    ReaderGone,
    /// Nothing was left to do (a finished snapshot asked for again).
    NothingToDo,
}

/// What a run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    pub ending: Ending,
    /// Events made durable in the destination by this run.
    pub written: u64,
}

/// Runs one capture as `config` says until it ends. Notices go to
/// `reporter`; `signals` are watched from the first window on.
pub fn run(
    config: &DaemonConfig,
    signals: &Signals,
    reporter: &dyn Reporter,
) -> Result<Outcome, DaemonError> {
    run_with(config, signals, reporter, |prepared| {
        start::open_source(config, prepared, reporter)
    })
}

/// As [`run`], on a source the caller opened (recorded rows for a
/// benchmark of the stages, a test double) instead of `config.source`.
pub fn run_on(
    config: &DaemonConfig,
    opened: OpenedSource,
    signals: &Signals,
    reporter: &dyn Reporter,
) -> Result<Outcome, DaemonError> {
    let mut opened = Some(opened);
    run_with(config, signals, reporter, |prepared| {
        let mode = prepared.mode();
        opened
            .take()
            .map(|o| (o, mode))
            .ok_or_else(|| DaemonError::usage("the source was opened already"))
    })
}

fn run_with(
    config: &DaemonConfig,
    signals: &Signals,
    reporter: &dyn Reporter,
    open: impl FnOnce(&start::Prepared) -> Result<(OpenedSource, SnapshotMode), DaemonError>,
) -> Result<Outcome, DaemonError> {
    let files = NewFiles::before(config);
    let mut prepared = match start::prepare(config, reporter, &signals.stop) {
        Ok(start::Preparation::Ready(p)) => *p,
        Ok(start::Preparation::NothingToDo) => {
            return Ok(Outcome {
                ending: Ending::NothingToDo,
                written: 0,
            })
        }
        Ok(start::Preparation::Stopped) => {
            files.remove();
            reporter.notice(Notice::info(
                "stopped by a signal while the sink was opened; nothing was written",
            ));
            return Ok(Outcome {
                ending: Ending::Stopped,
                written: 0,
            });
        }
        Err(e) => {
            files.remove();
            return Err(e);
        }
    };
    let opened = open(&prepared).and_then(|o| prepared.open_output(config, reporter).map(|()| o));
    let (opened, mode) = match opened {
        Ok(o) => o,
        Err(e) => {
            // The locks go before the files they guard.
            drop(prepared);
            files.remove();
            return Err(e);
        }
    };
    let _locks = std::mem::take(&mut prepared.locks);
    let checkpoint_name = prepared.checkpoint_name.clone();
    let started = start::begin(config, prepared, opened, mode, reporter)?;
    let telemetry = Telemetry::new(
        started.store.as_ref().map(|s| s.path()),
        config.sink_label(),
    );
    let metrics_server = match &config.metrics {
        Some(addr) => {
            let server = http::serve(addr, Arc::clone(&telemetry))
                .map_err(|e| DaemonError::Usage(e.to_string()))?;
            let bound = server.local_addr();
            reporter.notice(Notice::info(format!("metrics at http://{bound}/metrics")));
            Some(server)
        }
        None => None,
    };
    let ran = stages(
        config,
        started,
        signals,
        reporter,
        &telemetry,
        metrics_server.as_ref(),
    );
    finish(config, ran, signals, &checkpoint_name, reporter, &telemetry)
}

/// What the stages left when they ended.
struct Ran {
    engine: EngineEnd,
    delivered: Result<Delivered, Undelivered>,
    status: CaptureStatus,
    volumes: Volumes,
    written: u64,
    skipped: u64,
}

/// Connects the stages and waits for them: the sink stage on a thread of
/// its own, the engine stage on this one (the fetch stage runs inside the
/// capture's source).
fn stages(
    config: &DaemonConfig,
    started: Started,
    signals: &Signals,
    reporter: &dyn Reporter,
    telemetry: &Arc<Telemetry>,
    metrics_server: Option<&MetricsServer>,
) -> Ran {
    let (tx, rx) = sync_channel(QUEUE_DEPTH);
    let durable = Arc::new(AtomicU64::new(0));
    let bound = CommitBound {
        events: config.max_commit_events,
        open_for: started.sink.commit_deadline(),
    };
    let sink_stage = SinkStage {
        sink: started.sink,
        store: started.store,
        telemetry: Arc::clone(telemetry),
        hangup: Arc::clone(&signals.hangup),
        stop: Arc::clone(&signals.stop),
        output: match &config.sink {
            SinkChoice::File { output } => output.clone(),
            SinkChoice::Kafka(_) => String::new(),
        },
        rotated_after: started.rotated_after,
        durable: Arc::clone(&durable),
        bound,
        reporter,
    };
    let limit = config.count.unwrap_or(u64::MAX);
    let mut outbox = Outbox::new(tx, started.destination_last, limit);
    outbox.report_waits(Arc::clone(telemetry));
    if let Some(lobs) = started.lob_memory {
        outbox.remember_lobs(lobs);
    }
    // Dropped when the stages end: the refresher stops at once.
    let (stages_running, stages_done) = channel::<()>();
    std::thread::scope(|scope| {
        let refreshing = std::thread::Builder::new()
            .name("cdcctl-status".into())
            .spawn_scoped(scope, move || refresh_status_file(telemetry, &stages_done));
        let delivering = std::thread::Builder::new()
            .name("cdcctl-sink".into())
            .spawn_scoped(scope, move || sink_stage.run(&rx));
        let mut engine = EngineStage::new(
            started.capture,
            started.snapshot,
            started.mode,
            outbox,
            started.stamp,
            &signals.stop,
            reporter,
            telemetry,
        );
        engine.readers = started.readers;
        engine.dead_letter.clone_from(&config.dead_letter);
        engine.status_every = config.status_every;
        engine.durable = Arc::clone(&durable);
        engine.metrics_server = metrics_server;
        let end = match &delivering {
            Ok(_) => engine.run(),
            Err(e) => EngineEnd::Failed(DaemonError::usage(format!(
                "cannot start the sink thread: {e}"
            ))),
        };
        let status = engine.capture.status().clone();
        let volumes = Volumes::of(&engine.capture);
        let skipped = engine.outbox.skipped();
        // Dropping the engine stage hangs up the queue: the sink stage
        // delivers what is left and ends.
        drop(engine);
        let delivered = match delivering {
            Ok(handle) => handle.join().unwrap_or_else(|_| {
                Err(Undelivered::Failed(DaemonError::usage(
                    "the sink thread stopped unexpectedly",
                )))
            }),
            Err(_) => Ok(Delivered::default()),
        };
        drop(stages_running);
        // A status file left unrefreshed is advice only.
        let _ = refreshing.map(std::thread::ScopedJoinHandle::join);
        Ran {
            engine: end,
            delivered,
            status,
            volumes,
            written: durable.load(Ordering::Relaxed),
            skipped,
        }
    })
}

/// Rewrites the status file with the lag as of now until the stages end,
/// so `cdcctl status` sees a stage that holds the engine.
fn refresh_status_file(telemetry: &Telemetry, done: &Receiver<()>) {
    while let Err(RecvTimeoutError::Timeout) = done.recv_timeout(Duration::from_secs(1)) {
        telemetry.refresh_status_file();
    }
}

/// The outcome of the stages, what the operator is told of it, and the
/// final state published.
fn finish(
    config: &DaemonConfig,
    ran: Ran,
    signals: &Signals,
    checkpoint_name: &str,
    reporter: &dyn Reporter,
    telemetry: &Telemetry,
) -> Result<Outcome, DaemonError> {
    let say = |m: String| reporter.notice(Notice::info(m));
    let written = ran.written;
    // Where the run stopped, whatever stopped it.
    reporter.notice(mine::status_notice(&ran.status, written));
    let (side_skipped, left_out) = match &ran.delivered {
        Ok(d) => (d.skipped, d.schema_changes_left_out),
        Err(_) => (0, 0),
    };
    let result = match (ran.engine, ran.delivered) {
        (EngineEnd::Failed(e), Err(Undelivered::Failed(s))) => {
            say(format!("the sink failed too: {s}"));
            Err(e)
        }
        (EngineEnd::Failed(e), _) | (_, Err(Undelivered::Failed(e))) => Err(e),
        (_, Err(Undelivered::ReaderGone)) => Ok(Ending::ReaderGone),
        (EngineEnd::SinkStopped | EngineEnd::Done, Ok(_))
            if signals.stop.load(Ordering::Relaxed) =>
        {
            Ok(Ending::Stopped)
        }
        (EngineEnd::SinkStopped | EngineEnd::Done, Ok(_)) => Ok(Ending::Finished),
    };
    match result {
        Ok(Ending::ReaderGone) => say(format!(
            "the reader of stdout went away after {written} events; checkpoint saved in {} at \
             the last batch it received",
            config.checkpoint.display()
        )),
        Ok(Ending::Stopped) => say(format!(
            "stopped by a signal after {written} events; checkpoint saved in {checkpoint_name}"
        )),
        _ => {}
    }
    if ran.skipped + side_skipped > 0 {
        say(format!(
            "{} events were already in the output and were not written again",
            ran.skipped + side_skipped
        ));
    }
    if left_out > 0 {
        say(format!(
            "{left_out} schema-change (DDL) events left out (--schema-changes skip)"
        ));
    }
    let error = result.as_ref().err().map(ToString::to_string);
    telemetry.finish(&ran.status, ran.volumes, error);
    result.map(|ending| Outcome { ending, written })
}
