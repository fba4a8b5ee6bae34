//! Whose output is this? An output file carries the identity of the capture
//! stream writing it (a `<output>.stream` side file holding the id also
//! stored in the checkpoint), and on every start its last event is compared
//! with the checkpoint: a foreign file, or one that lost events the
//! checkpoint counts as written, is never appended to blindly.

use std::fs::{self, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::engine::checkpoint::{content_hash, Checkpoint, EventPosition, OutputMark, RewindPoint};

/// Rewind points kept in a checkpoint; when full every other one is dropped
/// (the oldest always stays), so they span the whole stream ever more sparsely.
pub const MAX_REWIND_POINTS: usize = 32;

/// The side file holding an output's stream identity.
pub fn identity_path(output: &Path) -> PathBuf {
    let mut name = output.as_os_str().to_owned();
    name.push(".stream");
    PathBuf::from(name)
}

/// The stream identity recorded next to `output`, if any.
pub fn read_identity(output: &Path) -> io::Result<Option<String>> {
    let path = identity_path(output);
    let file = match fs::File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut text = String::new();
    // An identity is a short token; anything longer is not ours.
    file.take(256).read_to_string(&mut text)?;
    let id = text.trim();
    Ok((!id.is_empty()).then(|| id.to_string()))
}

/// Records `id` as the stream identity of `output`, durably.
pub fn write_identity(output: &Path, id: &str) -> io::Result<()> {
    let mut f = OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(true)
        .open(identity_path(output))?;
    writeln!(f, "{id}")?;
    f.sync_all()
}

/// A new, practically unique stream identity.
pub fn new_identity() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{nanos:x}-{:x}", std::process::id())
}

/// What a start may do with an output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The output and the checkpoint agree (or the output is ahead of the
    /// checkpoint by a crash between writing and checkpointing: events up
    /// to its end are skipped). `id` is the stream identity to use.
    Proceed { id: String },
    /// The output lost events the checkpoint counts as written.
    Behind {
        id: String,
        file_last: Option<EventPosition>,
        checkpoint_last: EventPosition,
    },
    /// The output belongs to another stream, or holds events no checkpoint
    /// accounts for.
    Foreign(String),
}

/// Compares an output (its identity and last event) with the checkpoint.
pub fn verdict(
    checkpoint: Option<&Checkpoint>,
    file_id: Option<&str>,
    file_last: Option<&EventPosition>,
) -> Verdict {
    let Some(cp) = checkpoint else {
        return match (file_id, file_last) {
            (_, None) => Verdict::Proceed { id: new_identity() },
            (Some(id), Some(_)) => Verdict::Foreign(format!(
                "it holds events of capture stream {id}, and there is no checkpoint for it"
            )),
            (None, Some(_)) => Verdict::Foreign(
                "it holds events no checkpoint accounts for (not written by this capture)".into(),
            ),
        };
    };
    let id = match (cp.stream_id.as_deref(), file_id) {
        (Some(a), Some(b)) if a != b => {
            return Verdict::Foreign(format!(
                "it belongs to capture stream {b}, the checkpoint to stream {a}"
            ))
        }
        (Some(a), _) if file_id.is_some() || file_last.is_none() => a.to_string(),
        (Some(_), _) => {
            return Verdict::Foreign(
                "it holds events but no stream identity, so it was not written with this \
                 checkpoint"
                    .into(),
            )
        }
        // A checkpoint from before streams had identities: adopt the file.
        (None, None) => new_identity(),
        (None, Some(b)) => {
            return Verdict::Foreign(format!(
                "it belongs to capture stream {b}, the checkpoint to none"
            ))
        }
    };
    // Rotated (SIGHUP) after the checkpoint's last event: a new, empty
    // file continues the stream.
    let rotated = file_last.is_none()
        && matches!((&cp.rotated_after, &cp.last_event), (Some(r), Some(l)) if l <= r);
    match &cp.last_event {
        Some(l) if !rotated && is_behind(file_last, l) => Verdict::Behind {
            id,
            file_last: file_last.cloned(),
            checkpoint_last: l.clone(),
        },
        _ => Verdict::Proceed { id },
    }
}

/// Whether the file ends before `checkpoint_last`. Transactions committed
/// at one SCN are emitted in no particular XID order, so at an equal commit
/// SCN only the same transaction's order tells.
fn is_behind(file_last: Option<&EventPosition>, checkpoint_last: &EventPosition) -> bool {
    match file_last {
        None => true,
        Some(f) if f.commit_scn != checkpoint_last.commit_scn => {
            f.commit_scn < checkpoint_last.commit_scn
        }
        Some(f) => f.xid == checkpoint_last.xid && f.order < checkpoint_last.order,
    }
}

/// The newest rewind point from which re-mining re-emits everything after
/// the file's last event (an empty file needs a point before any commit).
pub fn rewind_point_for<'a>(
    points: &'a [RewindPoint],
    file_last: Option<&EventPosition>,
) -> Option<&'a RewindPoint> {
    points.iter().rev().find(|p| match file_last {
        Some(f) => p.commit_scn < f.commit_scn,
        None => p.commit_scn == 0,
    })
}

/// How an output file stands against the [`OutputMark`] its checkpoint
/// recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkCheck {
    /// It begins with exactly what was written (and may go on: events of a
    /// crash between writing and checkpointing).
    Extends,
    /// It is shorter than what was written.
    Shorter { bytes: u64 },
    /// It is as long, but what it holds there differs.
    Differs,
}

/// Compares the file at `path` with `mark`.
pub fn check_mark(path: &Path, mark: &OutputMark) -> io::Result<MarkCheck> {
    let file = fs::File::open(path)?;
    let bytes = file.metadata()?.len();
    if bytes < mark.bytes {
        return Ok(MarkCheck::Shorter { bytes });
    }
    let from = mark.bytes.saturating_sub(mark.tail_bytes);
    let tail = super::file::read_range(&file, from, mark.bytes - from)?;
    Ok(if content_hash(&tail) == mark.tail_hash {
        MarkCheck::Extends
    } else {
        MarkCheck::Differs
    })
}

/// A file beside `output` that logrotate could have made of it (named
/// `<output>.1`, `<output>-20261203`, ...) and that begins with what `mark`
/// recorded: the output, moved away before the run that wrote it reopened
/// it. Compressed copies cannot be told and are not looked at.
pub fn rotated_copy(output: &Path, mark: &OutputMark) -> Option<PathBuf> {
    let name = output.file_name()?.to_string_lossy().into_owned();
    let dir = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut candidates: Vec<PathBuf> = fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .filter(|p| {
            let n = p.file_name().map(|n| n.to_string_lossy().into_owned());
            n.is_some_and(|n| {
                n.len() > name.len() + 1
                    && n.starts_with(&name)
                    && n[name.len()..].starts_with(['.', '-'])
                    && !n.ends_with(".gz")
                    && !n.ends_with(".lock")
                    && !n.ends_with(".stream")
            })
        })
        .collect();
    candidates.sort();
    candidates
        .into_iter()
        .find(|p| check_mark(p, mark).is_ok_and(|c| c == MarkCheck::Extends))
}

/// Adds `p` to `points` (oldest first), thinning when full.
pub fn push_rewind_point(points: &mut Vec<RewindPoint>, p: RewindPoint) {
    if points.last() == Some(&p) {
        return;
    }
    points.push(p);
    if points.len() > MAX_REWIND_POINTS {
        let last = points.len() - 1;
        *points = std::mem::take(points)
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % 2 == 0 || *i == last)
            .map(|(_, p)| p)
            .collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(commit_scn: u64, xid: &str, order: u64) -> EventPosition {
        EventPosition {
            commit_scn,
            xid: xid.into(),
            order,
        }
    }

    fn cp(id: Option<&str>, last: Option<EventPosition>) -> Checkpoint {
        let mut c = Checkpoint::new(10, 20, vec![], None);
        c.stream_id = id.map(str::to_string);
        c.last_event = last;
        c
    }

    #[test]
    fn an_empty_output_continues_the_stream_only_when_rotated_after_its_last_event() {
        let mut c = cp(Some("a"), Some(pos(30, "X", 2)));
        c.rotated_after = Some(pos(30, "X", 2));
        assert!(matches!(
            verdict(Some(&c), Some("a"), None),
            Verdict::Proceed { .. }
        ));
        // Events written after the rotation and then lost are still a gap.
        c.rotated_after = Some(pos(25, "Y", 1));
        assert!(matches!(
            verdict(Some(&c), Some("a"), None),
            Verdict::Behind { .. }
        ));
    }

    #[test]
    fn output_of_another_stream_is_foreign() {
        let c = cp(Some("a"), None);
        assert!(matches!(
            verdict(Some(&c), Some("b"), None),
            Verdict::Foreign(_)
        ));
        assert!(matches!(
            verdict(None, Some("b"), Some(&pos(5, "X", 1))),
            Verdict::Foreign(_)
        ));
        assert!(matches!(
            verdict(Some(&c), None, Some(&pos(5, "X", 1))),
            Verdict::Foreign(_)
        ));
    }

    #[test]
    fn output_behind_the_checkpoint_is_reported_and_ahead_proceeds() {
        let c = cp(Some("a"), Some(pos(50, "X", 3)));
        let behind = |last: Option<EventPosition>| {
            matches!(
                verdict(Some(&c), Some("a"), last.as_ref()),
                Verdict::Behind { .. }
            )
        };
        assert!(behind(None));
        assert!(behind(Some(pos(49, "Z", 9))));
        assert!(behind(Some(pos(50, "X", 2))));
        assert!(!behind(Some(pos(50, "X", 3))));
        assert!(!behind(Some(pos(50, "Y", 1))));
        assert!(!behind(Some(pos(51, "A", 1))));
    }

    #[test]
    fn rewind_picks_the_newest_point_before_the_file_end() {
        let p = |commit_scn| RewindPoint {
            restart_scn: commit_scn,
            commit_scn,
            committed_xids_at_commit_scn: vec![],
        };
        let points = [p(0), p(10), p(20), p(30)];
        assert_eq!(
            rewind_point_for(&points, Some(&pos(25, "X", 1))),
            Some(&p(20))
        );
        assert_eq!(
            rewind_point_for(&points, Some(&pos(20, "X", 1))),
            Some(&p(10))
        );
        assert_eq!(rewind_point_for(&points, None), Some(&p(0)));
        assert_eq!(rewind_point_for(&points[1..], None), None);
    }

    #[test]
    fn thinning_keeps_the_oldest_point_and_a_bounded_count() {
        let mut points = Vec::new();
        for i in 0..1000 {
            push_rewind_point(
                &mut points,
                RewindPoint {
                    restart_scn: i,
                    commit_scn: i,
                    committed_xids_at_commit_scn: vec![],
                },
            );
        }
        assert!(points.len() <= MAX_REWIND_POINTS);
        assert_eq!(points[0].commit_scn, 0);
        assert_eq!(points.last().map(|p| p.commit_scn), Some(999));
        assert!(points.windows(2).all(|w| w[0].commit_scn < w[1].commit_scn));
    }
}
