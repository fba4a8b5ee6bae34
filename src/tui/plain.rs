//! `tail` without a terminal: one JSON line per event on stdout, in the same
//! envelope as `run`, and a lag line on stderr every few seconds. Findings
//! and source errors go to stderr as they come. Stops at `--count`,
//! `--until-scn`, when the engine stops, or quietly when stdout is closed.

use std::collections::HashSet;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::engine::event::CapturedEvent;
use crate::engine::lag_cause::{self, Cause};
use crate::engine::metrics::{CaptureStatus, EngineMessage, MiningState};
use crate::engine::row::Scn;

use super::format::duration_s;

/// When plain mode stops and how often it reports lag.
#[derive(Debug, Clone, Default)]
pub struct PlainOptions {
    /// Stop after this many events.
    pub count: Option<u64>,
    /// Stop once everything committed at or below this SCN is out.
    pub until_scn: Option<Scn>,
    /// How often the lag line is written; zero turns it off.
    pub lag_every: Duration,
    /// Raised by SIGINT or SIGTERM: finish the batch, say where it stopped.
    pub stop: Option<Arc<AtomicBool>>,
}

/// How often a stop request is looked at while no message comes.
const STOP_POLL: Duration = Duration::from_millis(100);

/// Why plain mode stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlainEnd {
    Count,
    UntilScn,
    /// The engine finished or stopped (see `fatal`).
    EngineStopped,
    /// The reader of stdout went away (`| head`).
    BrokenPipe,
    /// SIGINT or SIGTERM asked for a stop.
    Signal,
}

/// A source error that stopped capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FatalError {
    pub error: String,
    pub ora_code: Option<u32>,
    pub advice: Option<String>,
}

/// What plain mode did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlainOutcome {
    pub end: PlainEnd,
    pub emitted: u64,
    pub fatal: Option<FatalError>,
}

fn is_broken_pipe(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe
}

/// The lag line written to stderr.
pub fn lag_line(st: &CaptureStatus, emitted: u64) -> String {
    let state = match &st.state {
        MiningState::Connecting => "connecting".to_string(),
        MiningState::Mining => "mining".to_string(),
        MiningState::Idle => "idle".to_string(),
        MiningState::Retrying { attempt, error, .. } => {
            format!("retrying (attempt {attempt}: {error})")
        }
        MiningState::Stopped { error, .. } => format!("stopped ({error})"),
        MiningState::Finished => "finished".to_string(),
    };
    let time = super::lag::time_lag_s(st)
        .map(duration_s)
        .unwrap_or_else(|| "?".into());
    format!(
        "cdcctl tail: {state}; lag {time}, {} SCN (mined {} of {}); {} open transaction(s) buffered; {emitted} event(s) written",
        st.scn_lag(),
        st.mined_scn,
        st.current_scn,
        st.open_transactions
    )
}

/// Writes events from `rx` to `out` until a stop condition; diagnostics go
/// to `err`. A closed `out` ends it quietly; other write errors are returned.
pub fn run_plain(
    rx: &Receiver<EngineMessage>,
    out: &mut dyn Write,
    err: &mut dyn Write,
    opts: &PlainOptions,
) -> io::Result<PlainOutcome> {
    let mut plain = Plain {
        out,
        err,
        opts,
        emitted: 0,
        status: None,
        fatal: None,
        last_lag: Instant::now(),
        last_snapshot: None,
        advised: HashSet::new(),
        cause: None,
    };
    if opts.count == Some(0) {
        return Ok(plain.end(PlainEnd::Count));
    }
    loop {
        if plain.stopping() {
            return plain.stopped_by_signal();
        }
        let msg = match plain.wait() {
            Some(w) => rx.recv_timeout(w),
            None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        let ended = match msg {
            Ok(EngineMessage::Events(events)) => plain.write_events(&events)?,
            Ok(EngineMessage::Status(st)) => plain.on_status(*st),
            Ok(EngineMessage::Stopped) | Err(RecvTimeoutError::Disconnected) => {
                plain.out.flush().or_else(ignore_pipe)?;
                Some(PlainEnd::EngineStopped)
            }
            Ok(other) => {
                plain.report(other);
                None
            }
            Err(RecvTimeoutError::Timeout) => None,
        };
        if let Some(end) = ended {
            return Ok(plain.end(end));
        }
        plain.lag_line_when_due();
    }
}

/// The state of one plain tail.
struct Plain<'a> {
    out: &'a mut dyn Write,
    err: &'a mut dyn Write,
    opts: &'a PlainOptions,
    emitted: u64,
    status: Option<CaptureStatus>,
    fatal: Option<FatalError>,
    last_lag: Instant,
    last_snapshot: Option<String>,
    /// Each piece of advice once: a connection that drops again and again
    /// needs the same advice only the first time.
    advised: HashSet<String>,
    /// The lag cause said last.
    cause: Option<Cause>,
}

impl Plain<'_> {
    fn end(self, end: PlainEnd) -> PlainOutcome {
        // Only the engine's stop carries the error that stopped it.
        let fatal = (end == PlainEnd::EngineStopped)
            .then_some(self.fatal)
            .flatten();
        PlainOutcome {
            end,
            emitted: self.emitted,
            fatal,
        }
    }

    fn stopping(&self) -> bool {
        self.opts
            .stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }

    fn stopped_by_signal(self) -> io::Result<PlainOutcome> {
        self.out.flush().or_else(ignore_pipe)?;
        let at = self
            .status
            .as_ref()
            .map(|st| {
                format!(
                    "; mined to SCN {}, committed to SCN {}",
                    st.mined_scn, st.commit_scn
                )
            })
            .unwrap_or_default();
        let _ = writeln!(
            self.err,
            "cdcctl tail: stopped by a signal after {} event(s){at}",
            self.emitted
        );
        Ok(self.end(PlainEnd::Signal))
    }

    /// How long to wait for a message: until the next lag line, and often
    /// enough to see a stop request.
    fn wait(&self) -> Option<Duration> {
        let opts = self.opts;
        let lag_due = (!opts.lag_every.is_zero())
            .then(|| opts.lag_every.saturating_sub(self.last_lag.elapsed()));
        match (lag_due, opts.stop.is_some()) {
            (due, true) => Some(due.map_or(STOP_POLL, |d| d.min(STOP_POLL))),
            (due, false) => due,
        }
    }

    fn write_events(&mut self, events: &[CapturedEvent]) -> io::Result<Option<PlainEnd>> {
        for ev in events {
            if self
                .opts
                .until_scn
                .is_some_and(|u| ev.source().commit_scn > u)
            {
                self.out.flush().or_else(ignore_pipe)?;
                return Ok(Some(PlainEnd::UntilScn));
            }
            match write_event(self.out, ev) {
                Ok(()) => {}
                Err(e) if is_broken_pipe(&e) => return Ok(Some(PlainEnd::BrokenPipe)),
                Err(e) => return Err(e),
            }
            self.emitted += 1;
            if self.opts.count.is_some_and(|n| self.emitted >= n) {
                self.out.flush().or_else(ignore_pipe)?;
                return Ok(Some(PlainEnd::Count));
            }
        }
        // Consumers of a live tail want each batch as it comes.
        match self.out.flush() {
            Ok(()) => Ok(None),
            Err(e) if is_broken_pipe(&e) => Ok(Some(PlainEnd::BrokenPipe)),
            Err(e) => Err(e),
        }
    }

    fn on_status(&mut self, st: CaptureStatus) -> Option<PlainEnd> {
        let reached = self.opts.until_scn.is_some_and(|u| st.mined_scn >= u);
        if let MiningState::Stopped { error, advice } = &st.state {
            if self.fatal.is_none() {
                self.fatal = Some(FatalError {
                    error: error.clone(),
                    ora_code: None,
                    advice: advice.clone(),
                });
            }
        }
        self.say_cause(&st);
        self.status = Some(st);
        reached.then_some(PlainEnd::UntilScn)
    }

    /// The lag's cause, on `err` when it is not the one said last. A
    /// capture that keeps up from the start says nothing: `tail --plain |
    /// head` keeps a quiet stderr; "keeping up" is said only once a cause
    /// before it was.
    fn say_cause(&mut self, st: &CaptureStatus) {
        // A stop is said by its own line, with its error: "keeping up"
        // before it would be wrong.
        if matches!(
            st.state,
            MiningState::Connecting | MiningState::Finished | MiningState::Stopped { .. }
        ) {
            return;
        }
        let d = lag_cause::diagnose(&lag_cause::from_status(st, Instant::now()));
        let first_and_healthy = self.cause.is_none() && d.cause == Cause::KeepingUp;
        if self.cause != Some(d.cause) && !first_and_healthy {
            self.cause = Some(d.cause);
            let _ = writeln!(
                self.err,
                "cdcctl tail: cause: {}; advice: {}",
                d.line(),
                d.advice
            );
        }
    }

    /// Findings, warnings, source errors and the snapshot's progress, as
    /// lines on `err`.
    fn report(&mut self, msg: EngineMessage) {
        match msg {
            EngineMessage::Finding(f) => {
                let _ = writeln!(
                    self.err,
                    "cdcctl tail: finding {}: {}",
                    f.code(),
                    f.message()
                );
                if let Some(advice) = super::alerts::finding_advice(&f) {
                    self.advise(advice);
                }
            }
            EngineMessage::Warning { code, message } => {
                let _ = writeln!(self.err, "cdcctl tail: warning {code}: {message}");
            }
            EngineMessage::SourceError {
                error,
                ora_code,
                advice,
                retrying,
                ..
            } => {
                let what = if retrying {
                    "retrying after"
                } else {
                    "stopped on"
                };
                let _ = writeln!(self.err, "cdcctl tail: {what} a source error: {error}");
                if let Some(a) = &advice {
                    self.advise(a);
                }
                if !retrying {
                    self.fatal = Some(FatalError {
                        error,
                        ora_code,
                        advice,
                    });
                }
            }
            EngineMessage::Snapshot(progress) => {
                let line = progress.map(|p| p.summary());
                if line != self.last_snapshot {
                    if let Some(l) = &line {
                        let _ = writeln!(self.err, "cdcctl tail: snapshot: {l}");
                    }
                    self.last_snapshot = line;
                }
            }
            // The screen's extras: plain mode writes the envelope only.
            _ => {}
        }
    }

    fn advise(&mut self, advice: &str) {
        if self.advised.insert(advice.to_string()) {
            let _ = writeln!(self.err, "  advice: {advice}");
        }
    }

    fn lag_line_when_due(&mut self) {
        if self.opts.lag_every.is_zero() || self.last_lag.elapsed() < self.opts.lag_every {
            return;
        }
        self.last_lag = Instant::now();
        if let Some(st) = &self.status {
            let _ = writeln!(self.err, "{}", lag_line(st, self.emitted));
        }
    }
}

fn ignore_pipe(e: io::Error) -> io::Result<()> {
    if is_broken_pipe(&e) {
        Ok(())
    } else {
        Err(e)
    }
}

fn write_event(out: &mut dyn Write, ev: &CapturedEvent) -> io::Result<()> {
    out.write_all(ev.to_json_line().as_bytes())?;
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::feed::{self, Script, SyntheticFeed};
    use std::sync::mpsc::sync_channel;

    fn opts() -> PlainOptions {
        PlainOptions::default()
    }

    fn channel_of(msgs: Vec<EngineMessage>) -> Receiver<EngineMessage> {
        let (tx, rx) = sync_channel(msgs.len() + 1);
        for m in msgs {
            let _ = tx.send(m);
        }
        rx
    }

    #[test]
    fn count_stops_after_n_events_in_the_run_envelope() {
        let rx = SyntheticFeed::new(Script::Steady).spawn(Duration::ZERO, None);
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let o = run_plain(
            &rx,
            &mut out,
            &mut err,
            &PlainOptions {
                count: Some(25),
                ..opts()
            },
        )
        .unwrap();
        assert_eq!(o.end, PlainEnd::Count);
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 25);
        assert_eq!(lines[0], feed::sample_change(0).to_json_line());
        let v: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
        assert_eq!(v["op"], "u");
    }

    #[test]
    fn until_scn_emits_only_what_committed_at_or_below_it() {
        let until = feed::sample_change(4).source().commit_scn;
        let rx = channel_of(vec![EngineMessage::Events(
            (0..10).map(feed::sample_change).collect(),
        )]);
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let o = run_plain(
            &rx,
            &mut out,
            &mut err,
            &PlainOptions {
                until_scn: Some(until),
                ..opts()
            },
        )
        .unwrap();
        assert_eq!(o.end, PlainEnd::UntilScn);
        assert_eq!(o.emitted, 5);
    }

    #[test]
    fn until_scn_also_stops_when_mining_passes_it_without_events() {
        let rx = channel_of(vec![EngineMessage::Status(Box::new(feed::steady_status(
            5,
        )))]);
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let o = run_plain(
            &rx,
            &mut out,
            &mut err,
            &PlainOptions {
                until_scn: Some(feed::BASE_SCN),
                ..opts()
            },
        )
        .unwrap();
        assert_eq!(o.end, PlainEnd::UntilScn);
        assert_eq!(o.emitted, 0);
    }

    struct ClosedPipe;
    impl Write for ClosedPipe {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from(io::ErrorKind::BrokenPipe))
        }
        fn flush(&mut self) -> io::Result<()> {
            Err(io::Error::from(io::ErrorKind::BrokenPipe))
        }
    }

    #[test]
    fn broken_pipe_ends_quietly() {
        let rx = channel_of(vec![EngineMessage::Events(vec![feed::sample_change(0)])]);
        let mut err = Vec::new();
        let o = run_plain(&rx, &mut ClosedPipe, &mut err, &opts()).unwrap();
        assert_eq!(o.end, PlainEnd::BrokenPipe);
        assert!(err.is_empty());
    }

    #[test]
    fn source_errors_and_findings_go_to_stderr_with_advice() {
        let rx = channel_of(vec![
            EngineMessage::Finding(feed::dictionary_finding()),
            feed::connection_dropped(true),
            feed::missing_log_error(),
            EngineMessage::Stopped,
        ]);
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let o = run_plain(&rx, &mut out, &mut err, &opts()).unwrap();
        let err = String::from_utf8(err).unwrap();
        assert!(err.contains("finding dictionary_mismatch"));
        assert!(err.contains("retrying after a source error: ORA-03113"));
        assert!(err.contains("stopped on a source error: ORA-01291"));
        assert!(err.contains("advice: restore the archived log"));
        assert_eq!(o.end, PlainEnd::EngineStopped);
        assert_eq!(o.fatal.and_then(|f| f.ora_code), Some(1291));
        assert!(out.is_empty());
    }

    #[test]
    fn issue11_advice_for_a_repeated_source_error_is_printed_once() {
        let rx = channel_of(vec![
            feed::connection_dropped(true),
            feed::connection_dropped(true),
            feed::connection_dropped(true),
            EngineMessage::Stopped,
        ]);
        let (mut out, mut err) = (Vec::new(), Vec::new());
        run_plain(&rx, &mut out, &mut err, &opts()).unwrap();
        let err = String::from_utf8(err).unwrap();
        assert_eq!(
            err.matches("retrying after a source error").count(),
            3,
            "{err}"
        );
        assert_eq!(err.matches("advice:").count(), 1, "{err}");
    }

    #[test]
    fn a_stopped_capture_is_not_said_to_keep_up_issue35() {
        let status = |st| EngineMessage::Status(Box::new(st));
        let mut stopped = feed::steady_status(1);
        stopped.state = MiningState::Stopped {
            error: "ORA-12541: TNS:no listener".into(),
            advice: None,
        };
        let rx = channel_of(vec![
            status(feed::status_with_lag(3, 100, 75, 5_000)),
            status(stopped),
            EngineMessage::Stopped,
        ]);
        let (mut out, mut err) = (Vec::new(), Vec::new());
        run_plain(&rx, &mut out, &mut err, &opts()).unwrap();
        let err = String::from_utf8(err).unwrap();
        assert_eq!(err.matches("cdcctl tail: cause: ").count(), 1, "{err}");
        assert!(!err.contains("keeping up"), "{err}");
    }

    #[test]
    fn keeping_up_is_said_only_after_a_cause_was() {
        let status = |st| EngineMessage::Status(Box::new(st));
        let rx = channel_of(vec![
            status(feed::steady_status(1)),
            status(feed::status_with_lag(3, 100, 75, 5_000)),
            status(feed::steady_status(1)),
            EngineMessage::Stopped,
        ]);
        let (mut out, mut err) = (Vec::new(), Vec::new());
        run_plain(&rx, &mut out, &mut err, &opts()).unwrap();
        let err = String::from_utf8(err).unwrap();
        let causes: Vec<&str> = err
            .lines()
            .filter_map(|l| l.strip_prefix("cdcctl tail: cause: "))
            .collect();
        assert_eq!(causes.len(), 2, "{err}");
        assert!(!causes[0].starts_with("keeping up"), "{err}");
        assert!(causes[1].starts_with("keeping up"), "{err}");
    }

    #[test]
    fn lag_line_reports_time_and_scn_lag() {
        let line = lag_line(&feed::status_with_lag(3, 100, 75, 5_000), 42);
        assert_eq!(
            line,
            "cdcctl tail: mining; lag 1m15s, 5000 SCN (mined 10042400 of 10047400); 3 open transaction(s) buffered; 42 event(s) written"
        );
    }

    #[test]
    fn lag_line_is_written_periodically() {
        let (tx, rx) = sync_channel(4);
        let _ = tx.send(EngineMessage::Status(Box::new(feed::steady_status(1))));
        let handle = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(120));
            let _ = tx.send(EngineMessage::Stopped);
        });
        let (mut out, mut err) = (Vec::new(), Vec::new());
        run_plain(
            &rx,
            &mut out,
            &mut err,
            &PlainOptions {
                lag_every: Duration::from_millis(30),
                ..opts()
            },
        )
        .unwrap();
        let _ = handle.join();
        let err = String::from_utf8(err).unwrap();
        assert!(
            err.lines()
                .filter(|l| l.contains("; lag 2s, 240 SCN"))
                .count()
                >= 2,
            "{err}"
        );
    }
}
