//! The pipeline `tail` drives: the same fetch and engine stages as `run`
//! (the source on its fetch thread, the capture engine on a thread of its
//! own), with a screen or a JSON-lines writer as the consuming stage at the
//! end of a bounded channel instead of a sink. The engine thread sends
//! events in batches, the engine's status, findings, and what a screen
//! shows besides (redo text, the database's open transactions).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::engine::capture::{Capture, CaptureError, Progress};
use crate::engine::emit::SinkError;
use crate::engine::event::CapturedEvent;
use crate::engine::metrics::{EngineMessage, MiningState};
use crate::engine::txn::TxnError;
use crate::source::RedoSource;

/// How the engine thread paces itself.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Send a status at least this often.
    pub status_every: Duration,
    /// Events per `EngineMessage::Events` batch.
    pub batch: usize,
    /// Stop after this many events (the status then says `Finished`).
    pub max_events: Option<u64>,
    /// Keep each change's SQL_REDO and USERNAME (sent as `RedoDetail`) and
    /// every open transaction in the status: what a screen shows.
    pub detail: bool,
    /// Read V$TRANSACTION joined to V$SESSION this often (sent as
    /// `DbTransactions`), and look again for archived logs deleted ahead of
    /// the read position.
    pub db_transactions_every: Option<Duration>,
}

/// Redo text held for open transactions' rows when `detail` is on.
const DETAIL_MAX_BYTES: usize = 32 << 20;

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            status_every: Duration::from_millis(250),
            batch: 512,
            max_events: None,
            detail: false,
            db_transactions_every: None,
        }
    }
}

/// Runs the capture loop on its own thread, sending events, status,
/// findings and errors over `tx`. The thread ends when `stop` is set, when
/// the receiver hangs up, at `until_scn`, or on an error it cannot retry.
pub fn spawn<S: RedoSource + 'static>(
    mut capture: Capture<S>,
    tx: SyncSender<EngineMessage>,
    stop: Arc<AtomicBool>,
    options: RunOptions,
) -> std::io::Result<JoinHandle<Option<CaptureError>>> {
    std::thread::Builder::new()
        .name("cdcctl-engine".into())
        .spawn(move || run_loop(&mut capture, &tx, &stop, &options))
}

fn run_loop<S: RedoSource>(
    capture: &mut Capture<S>,
    tx: &SyncSender<EngineMessage>,
    stop: &AtomicBool,
    options: &RunOptions,
) -> Option<CaptureError> {
    let mut failure = None;
    let mut last_status = Instant::now() - options.status_every;
    let mut batch: Vec<CapturedEvent> = Vec::with_capacity(options.batch);
    let mut hung_up = false;
    let mut emitted: u64 = 0;
    let limit = options.max_events.unwrap_or(u64::MAX);
    if options.detail {
        capture.keep_detail(DETAIL_MAX_BYTES);
    }
    let mut last_db_read: Option<Instant> = None;
    while !stop.load(Ordering::Relaxed) && !hung_up {
        if let Some(every) = options.db_transactions_every {
            if last_db_read.is_none_or(|t| t.elapsed() >= every) {
                last_db_read = Some(Instant::now());
                hung_up |= tx.send(read_db_transactions(capture)).is_err();
            }
        }
        let result = {
            let mut sink = |e: CapturedEvent| -> Result<(), SinkError> {
                if emitted >= limit {
                    return Err("event limit reached".into());
                }
                batch.push(e);
                emitted += 1;
                if batch.len() >= options.batch {
                    let full = std::mem::replace(&mut batch, Vec::with_capacity(options.batch));
                    tx.send(EngineMessage::Events(full))
                        .map_err(|_| -> SinkError { "the consumer stopped".into() })?;
                }
                Ok(())
            };
            capture.poll(&mut sink)
        };
        if !batch.is_empty() {
            let full = std::mem::take(&mut batch);
            hung_up |= tx.send(EngineMessage::Events(full)).is_err();
        }
        let detail = capture.take_redo_detail();
        if !detail.is_empty() {
            hung_up |= tx.send(EngineMessage::RedoDetail(detail)).is_err();
        }
        for f in capture.take_findings() {
            hung_up |= tx.send(EngineMessage::Finding(f.finding)).is_err();
        }
        for w in capture.take_warnings() {
            hung_up |= tx
                .send(EngineMessage::Warning {
                    code: w.code(),
                    message: w.message(),
                })
                .is_err();
        }
        let limit_reached = emitted >= limit;
        let status_due = last_status.elapsed() >= options.status_every;
        match result {
            Ok(progress) => {
                if limit_reached {
                    capture.mark_finished();
                }
                if status_due || progress != Progress::Idle || limit_reached {
                    hung_up |= tx
                        .send(EngineMessage::Status(Box::new(capture.status().clone())))
                        .is_err();
                    last_status = Instant::now();
                }
                if limit_reached {
                    break;
                }
                match progress {
                    Progress::Finished => break,
                    Progress::Retrying => {
                        if let MiningState::Retrying {
                            error,
                            advice,
                            attempt,
                            ..
                        } = &capture.status().state
                        {
                            hung_up |= tx
                                .send(EngineMessage::SourceError {
                                    error: format!("{error} (retry {attempt})"),
                                    ora_code: None,
                                    advice: advice.clone(),
                                    retrying: true,
                                    gap: None,
                                })
                                .is_err();
                        }
                        sleep_unless_stopped(stop, capture.retry_pause());
                    }
                    Progress::Idle | Progress::Advanced { .. } => {
                        sleep_unless_stopped(stop, capture.pause())
                    }
                }
            }
            Err(CaptureError::Txn(TxnError::Sink(_))) => {
                if limit_reached {
                    capture.mark_finished();
                    let _ = tx.send(EngineMessage::Status(Box::new(capture.status().clone())));
                }
                break;
            }
            Err(e) => {
                let _ = tx.send(EngineMessage::Status(Box::new(capture.status().clone())));
                let _ = tx.send(EngineMessage::SourceError {
                    error: e.to_string(),
                    ora_code: e.ora_code(),
                    advice: e.advice(),
                    retrying: false,
                    gap: e.archive_gap(),
                });
                failure = Some(e);
                break;
            }
        }
    }
    let _ = tx.send(EngineMessage::Stopped);
    failure
}

/// The slow-timer reading: the database's open transactions with their
/// sessions, and a fresh look at the archives ahead of the read position.
/// A failure is reported in the message; capture goes on.
fn read_db_transactions<S: RedoSource>(capture: &mut Capture<S>) -> EngineMessage {
    let read_at = capture.status().current_time;
    let reading = crate::engine::inflight::session_transactions(capture.source_mut());
    if let Err(e) = capture.check_archives_ahead() {
        tracing::debug!("archives ahead not checked: {e}");
    }
    let (transactions, error) = match reading {
        Ok(t) => (t, None),
        Err(e) => (Vec::new(), Some(e.to_string())),
    };
    EngineMessage::DbTransactions(crate::engine::metrics::DbTransactions {
        read_at,
        transactions,
        error,
    })
}

fn sleep_unless_stopped(stop: &AtomicBool, total: Duration) {
    let deadline = Instant::now() + total;
    while !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        std::thread::sleep((deadline - now).min(Duration::from_millis(50)));
    }
}
