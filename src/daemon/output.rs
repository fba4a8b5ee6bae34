//! The files a run writes, checked before it writes: one writer per
//! checkpoint and per output (locks), the files a refused start created
//! and removes again, and the output weighed against the checkpoint (its
//! stream identity, its last event; a rewind when it lost events and the
//! operator asked for one).

use std::path::{Path, PathBuf};

use crate::engine::checkpoint::{Checkpoint, EventPosition};
use crate::sink::lock::{lock_path, WriterLock};
use crate::sink::schema_changes::SchemaChanges;
use crate::sink::stream::{self, MarkCheck, Verdict};
use crate::sink::{EventSink, JsonLinesSink, SinkError};

use super::config::{DaemonConfig, SinkChoice};
use super::error::DaemonError;
use super::notice::{Notice, Reporter};

/// The files a run creates before it knows it can capture (the locks, the
/// output and its stream id), listed when absent at start: a run refused
/// before its source opened (a mistyped table, a wrong password) removes
/// them again, so a typo leaves nothing to clean up.
pub struct NewFiles(Vec<PathBuf>);

impl NewFiles {
    pub fn before(config: &DaemonConfig) -> Self {
        let cp = &config.checkpoint;
        let mut paths = vec![cp.clone(), lock_path(cp)];
        if let Some(out) = config.output_file() {
            paths.extend([
                out.to_path_buf(),
                lock_path(out),
                stream::identity_path(out),
            ]);
        }
        if let SchemaChanges::File(p) = &config.schema_changes {
            paths.push(p.clone());
        }
        Self(paths.into_iter().filter(|p| !p.exists()).collect())
    }

    pub fn remove(self) {
        for p in self.0 {
            // Best effort: only what this run created is listed.
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Takes the one-writer locks of the checkpoint and the file output, held
/// until they are dropped: a second writer on either file would duplicate
/// or interleave events. Kafka fences a second producer itself.
pub fn take_writer_locks(config: &DaemonConfig) -> Result<Vec<WriterLock>, DaemonError> {
    if config.kafka().is_some() {
        return Ok(Vec::new());
    }
    let mut locks = vec![WriterLock::acquire(&config.checkpoint, "checkpoint")];
    if let Some(out) = config.output_file() {
        locks.push(WriterLock::acquire(out, "output"));
    }
    locks
        .into_iter()
        .map(|l| l.map_err(|e| DaemonError::usage(e.to_string())))
        .collect()
}

/// The output, checked against the checkpoint, with the stream identity
/// to store and, for a rewind, the position to restart from.
pub struct OpenedOutput {
    pub sink: Box<dyn EventSink>,
    pub stream_id: Option<String>,
    pub rewind: Option<Checkpoint>,
    /// The output is empty and continues a copy logrotate made of it, which
    /// ends with this event.
    pub rotated: Option<EventPosition>,
}

/// Opens `--output`: stdout, a stream (device or pipe), or a file checked
/// against `existing`.
pub fn open_output(
    config: &DaemonConfig,
    existing: Option<&Checkpoint>,
    reporter: &dyn Reporter,
) -> Result<OpenedOutput, DaemonError> {
    let output = match &config.sink {
        SinkChoice::File { output } => output.as_str(),
        SinkChoice::Kafka(_) => {
            return Err(DaemonError::usage(
                "the Kafka sink has no output file to open",
            ))
        }
    };
    let Some(path) = config.output_file() else {
        let sink = if output == "-" {
            JsonLinesSink::stdout()
        } else {
            JsonLinesSink::stream(Path::new(output))
                .map_err(|e| DaemonError::usage(e.to_string()))?
        };
        return Ok(OpenedOutput {
            sink: Box::new(sink.with_forms(config.forms)),
            stream_id: existing.and_then(|c| c.stream_id.clone()),
            rewind: None,
            rotated: None,
        });
    };
    open_file(config, path, existing, reporter)
}

fn open_file(
    config: &DaemonConfig,
    path: &Path,
    existing: Option<&Checkpoint>,
    reporter: &dyn Reporter,
) -> Result<OpenedOutput, DaemonError> {
    let shown = path.display();
    let file = JsonLinesSink::file(path)
        .map_err(|e| match e {
            SinkError::Unreadable { .. } => DaemonError::Untrusted(format!(
                "{e}; restore the output, or move it away and start a new one"
            )),
            e => DaemonError::usage(e.to_string()),
        })?
        .with_forms(config.forms);
    if file.torn_bytes_cut() > 0 {
        reporter.notice(Notice::info(format!(
            "cut {} bytes of a torn last line from {shown} (an interrupted write)",
            file.torn_bytes_cut(),
        )));
    }
    let file_id = stream::read_identity(path)
        .map_err(|e| DaemonError::usage(format!("output {shown}: {e}")))?;
    let file_last = file.last_position();
    let verdict = stream::verdict(existing, file_id.as_deref(), file_last.as_ref());
    check_against_mark(config, path, existing, &verdict)?;
    let (id, rewind, rotated) = match verdict {
        Verdict::Foreign(why) => {
            return Err(DaemonError::usage(format!(
                "output {shown} is not the output of checkpoint {}: {why}; write to another \
                 file, or use the checkpoint that goes with it",
                config.checkpoint.display()
            )))
        }
        Verdict::Proceed { id } => (id, None, None),
        Verdict::Behind {
            id,
            file_last,
            checkpoint_last,
        } => match rotated_away(path, existing, file_last.as_ref(), reporter) {
            Some(last) => (id, None, Some(last)),
            None => {
                let behind = Behind {
                    path,
                    existing,
                    file_last,
                    checkpoint_last: &checkpoint_last,
                };
                (
                    id,
                    Some(rewind_to_output_end(config, &behind, reporter)?),
                    None,
                )
            }
        },
    };
    if file_id.as_deref() != Some(id.as_str()) {
        stream::write_identity(path, &id)
            .map_err(|e| DaemonError::usage(format!("output {shown}: {e}")))?;
    }
    Ok(OpenedOutput {
        sink: Box::new(file),
        rewind: rewind.map(|mut cp| {
            cp.stream_id = Some(id.clone());
            cp
        }),
        stream_id: Some(id),
        rotated,
    })
}

/// Proves the output begins with what the checkpoint recorded of it: a
/// file that does not (replaced, edited, cut and appended to) is refused,
/// whatever its last line says.
fn check_against_mark(
    config: &DaemonConfig,
    path: &Path,
    existing: Option<&Checkpoint>,
    verdict: &Verdict,
) -> Result<(), DaemonError> {
    let Some(mark) = existing.and_then(|c| c.output.as_ref()) else {
        return Ok(());
    };
    let not_ours = |what: String| {
        Err(DaemonError::Untrusted(format!(
            "output {} is not the file checkpoint {} was stored with: {what}; restore the \
             output, or start a new one with a new checkpoint",
            path.display(),
            config.checkpoint.display()
        )))
    };
    match stream::check_mark(path, mark).map_err(|e| DaemonError::usage(e.to_string()))? {
        MarkCheck::Extends => Ok(()),
        MarkCheck::Differs => not_ours(format!(
            "its first {} bytes differ from what was written there",
            mark.bytes
        )),
        // Shorter and behind: it lost its end, which a rewind can write
        // again.
        MarkCheck::Shorter { .. } if matches!(verdict, Verdict::Behind { .. }) => Ok(()),
        MarkCheck::Shorter { bytes } => not_ours(format!(
            "it holds {bytes} bytes where {} were written, yet ends at or after the \
             checkpoint's last event",
            mark.bytes
        )),
    }
}

/// An empty output whose earlier self logrotate moved away before the run
/// that wrote it reopened it (a stop or a crash before the SIGHUP was
/// handled): the copy beside it holds every event the checkpoint counts,
/// so the empty file continues the stream after the copy's last event.
fn rotated_away(
    path: &Path,
    existing: Option<&Checkpoint>,
    file_last: Option<&EventPosition>,
    reporter: &dyn Reporter,
) -> Option<EventPosition> {
    let mark = existing?.output.as_ref()?;
    if file_last.is_some() || mark.bytes == 0 {
        return None;
    }
    let copy = stream::rotated_copy(path, mark)?;
    let last = crate::sink::file::last_event_of(&copy).ok()??;
    reporter.notice(Notice::info(format!(
        "{} holds every event the checkpoint counts as written: the output was rotated away \
         before cdcctl reopened it, and the new, empty {} continues the stream",
        copy.display(),
        path.display()
    )));
    Some(last)
}

fn describe(p: Option<&EventPosition>) -> String {
    match p {
        Some(p) => format!(
            "at commit SCN {} (XID {}, event {})",
            p.commit_scn, p.xid, p.order
        ),
        None => "empty".into(),
    }
}

/// An output that lost events its checkpoint counts as written.
struct Behind<'a> {
    path: &'a Path,
    existing: Option<&'a Checkpoint>,
    file_last: Option<EventPosition>,
    checkpoint_last: &'a EventPosition,
}

/// Refuses an output behind its checkpoint (exit 4), or with a rewind
/// builds the checkpoint that re-emits everything after the output's end.
fn rewind_to_output_end(
    config: &DaemonConfig,
    behind: &Behind<'_>,
    reporter: &dyn Reporter,
) -> Result<Checkpoint, DaemonError> {
    let (file_last, checkpoint_last) = (&behind.file_last, behind.checkpoint_last);
    let gap = format!(
        "output {} is behind checkpoint {}: the output is {}, the checkpoint counts events up \
         to commit SCN {} (XID {}, event {}) as written, so the changes in between are missing \
         from the output",
        behind.path.display(),
        config.checkpoint.display(),
        describe(file_last.as_ref()),
        checkpoint_last.commit_scn,
        checkpoint_last.xid,
        checkpoint_last.order
    );
    if !config.rewind {
        let rotated = if file_last.is_none() {
            "; if logrotate moved it away, move that file back and run again"
        } else {
            ""
        };
        return Err(DaemonError::Untrusted(format!(
            "{gap}; restore the output{rotated}, or run with --rewind to write them again from \
             the output's end (the redo logs must still cover it)"
        )));
    }
    let points = behind
        .existing
        .map(|c| c.rewind_points.as_slice())
        .unwrap_or(&[]);
    let Some(point) = stream::rewind_point_for(points, file_last.as_ref()) else {
        return Err(DaemonError::Untrusted(format!(
            "{gap}; --rewind: the checkpoint keeps no position before the output's end, \
             so start a new output with --from-scn"
        )));
    };
    reporter.notice(Notice::info(format!(
        "{gap}; rewinding to restart SCN {} (commit SCN {}) to write them again",
        point.restart_scn, point.commit_scn
    )));
    let mut cp = Checkpoint::new(
        point.restart_scn,
        point.commit_scn,
        point.committed_xids_at_commit_scn.clone(),
        None,
    );
    cp.last_event.clone_from(file_last);
    cp.rewind_points = points
        .iter()
        .filter(|p| p.commit_scn <= point.commit_scn)
        .cloned()
        .collect();
    Ok(cp)
}
