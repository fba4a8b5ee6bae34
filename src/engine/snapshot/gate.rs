//! Which streamed changes a running snapshot leaves to its own reads. A
//! change of a key whose chunk is not read yet is inside that read (every
//! chunk is read at an SCN at or above every change the stream has seen),
//! so emitting it too would put a change before the key's `r` row and the
//! row again after it. Changes of keys already read come after their
//! chunk's SCN (a chunk is emitted once the stream has passed it) and go
//! through. Per key, a consumer sees one `r`, then exactly the later
//! changes. One exception: after a restart whose chunk could not be read
//! again at the SCN a crashed run may have sent part of it at, deletes of
//! unread keys committed since go through (`TableProgress::deletes_since`),
//! so a consumer holding rows of the part sent drops those deleted.
//!
//! Tables without a key are read in ROWID order and gated by the ROWID
//! LogMiner gives each change: a row moved by row movement leaves as a
//! delete at one ROWID and comes back as an insert at another, each half
//! placed on its own. A segment replaced under the read gives its rows
//! ROWIDs after every old one, so their changes wait for the read, which
//! starts over when it had passed that segment (see `segments`).

use std::cmp::Ordering;

use super::keyorder::{compare_keys, KeyKind};
use super::{Snapshotter, TableState};
use crate::engine::event::{CapturedEvent, ChangeEvent, Image, Op};
use crate::engine::port::TableName;
use crate::engine::rowid::decode_rowid;

/// The key of a snapshotted table: its columns and how each is ordered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotKey {
    pub columns: Vec<String>,
    pub kinds: Vec<KeyKind>,
}

/// Where a key stands against the snapshot's reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Its chunk is emitted: later changes go through.
    Read,
    /// Its chunk is still to be read (or held): the read holds the change.
    Unread,
    /// The key cannot be placed (a column missing or unreadable): the
    /// change goes through, so nothing is lost.
    Unknown,
}

impl Snapshotter {
    /// What the stream emits of `event` while the snapshot runs: the event,
    /// nothing (its effect is in a chunk still to come), or for a key
    /// moved across the read frontier, the half of it on the read side.
    pub fn admit(&mut self, event: CapturedEvent) -> Option<CapturedEvent> {
        let CapturedEvent::Change(change) = event else {
            return Some(event);
        };
        match self.gate(&change) {
            Gate::Pass => Some(CapturedEvent::Change(change)),
            Gate::Fold => {
                self.folded += 1;
                None
            }
            Gate::AsDelete => Some(CapturedEvent::Change(ChangeEvent {
                op: Op::Delete,
                after: None,
                ..change
            })),
            Gate::AsCreate => Some(CapturedEvent::Change(ChangeEvent {
                op: Op::Create,
                before: None,
                ..change
            })),
        }
    }

    /// Changes the snapshot's reads hold, so the stream left them out.
    pub fn folded(&self) -> u64 {
        self.folded
    }

    fn gate(&self, change: &ChangeEvent) -> Gate {
        let gate = self.gate_by_place(change);
        if !matches!(gate, Gate::Fold) || !self.deletes_pass(change) {
            return gate;
        }
        match change.op {
            Op::Delete => Gate::Pass,
            Op::Update if self.key_changed(change) => Gate::AsDelete,
            _ => gate,
        }
    }

    /// Whether a change removing an unread key goes through: its table's
    /// `deletes_since` (see [`super::TableProgress`]) is below its commit.
    fn deletes_pass(&self, change: &ChangeEvent) -> bool {
        self.progress
            .tables
            .iter()
            .find(|t| t.table.owner == change.source.schema && t.table.table == change.source.table)
            .and_then(|t| t.deletes_since)
            .is_some_and(|since| change.source.commit_scn > since)
    }

    /// Whether an update gave its row another key (a table read by ROWID
    /// has none to change).
    fn key_changed(&self, change: &ChangeEvent) -> bool {
        let table = TableName {
            owner: change.source.schema.clone(),
            table: change.source.table.clone(),
        };
        let (Some(key), Some(before)) = (self.config.keys.get(&table), change.before.as_ref())
        else {
            return false;
        };
        key.columns.iter().any(|c| {
            let after = change.after.as_ref().and_then(|a| a.get(c));
            after.is_some_and(|a| before.get(c) != Some(a))
        })
    }

    fn gate_by_place(&self, change: &ChangeEvent) -> Gate {
        if change.snapshot.is_read() {
            return Gate::Pass;
        }
        let table = TableName {
            owner: change.source.schema.clone(),
            table: change.source.table.clone(),
        };
        let Some(progress) = self.progress.tables.iter().find(|t| t.table == table) else {
            return Gate::Pass;
        };
        if progress.state != TableState::Reading {
            return Gate::Pass;
        }
        let frontier = progress.after_key.as_deref();
        let Some(key) = self.config.keys.get(&table) else {
            return fold_unread(place_by_rowid(frontier, change.source.row_id.as_deref()));
        };
        let place = |image: Option<&Image>, fallback: Option<&Image>| {
            place_of(key, frontier, image, fallback)
        };
        match change.op {
            Op::Create => fold_unread(place(change.after.as_ref(), None)),
            Op::Delete => fold_unread(place(change.before.as_ref(), None)),
            Op::Update => {
                let before = place(change.before.as_ref(), None);
                let after = place(change.after.as_ref(), change.before.as_ref());
                match (before, after) {
                    (Place::Unread, Place::Unread) => Gate::Fold,
                    (Place::Read, Place::Unread) => Gate::AsDelete,
                    (Place::Unread, Place::Read) => Gate::AsCreate,
                    _ => Gate::Pass,
                }
            }
            _ => Gate::Pass,
        }
    }
}

enum Gate {
    Pass,
    Fold,
    AsDelete,
    AsCreate,
}

fn fold_unread(place: Place) -> Gate {
    if place == Place::Unread {
        Gate::Fold
    } else {
        Gate::Pass
    }
}

/// Places a change of a table read by ROWID by the ROWID it names;
/// without one that decodes, it goes through.
fn place_by_rowid(frontier: Option<&[String]>, row_id: Option<&str>) -> Place {
    let Some(at) = row_id.and_then(decode_rowid) else {
        return Place::Unknown;
    };
    let Some(frontier) = frontier.and_then(<[String]>::first) else {
        return Place::Unread;
    };
    match decode_rowid(frontier) {
        Some(read_to) if at > read_to => Place::Unread,
        Some(_) => Place::Read,
        None => Place::Unknown,
    }
}

/// Places the key of `image` (columns it lacks taken from `fallback`, as
/// an update's after image names only what it set).
fn place_of(
    key: &SnapshotKey,
    frontier: Option<&[String]>,
    image: Option<&Image>,
    fallback: Option<&Image>,
) -> Place {
    let Some(image) = image else {
        return Place::Unknown;
    };
    let values: Option<Vec<&str>> = key
        .columns
        .iter()
        .map(|c| {
            image
                .get(c)
                .or_else(|| fallback.and_then(|f| f.get(c)))
                .and_then(|v| v.as_str())
        })
        .collect();
    let Some(values) = values else {
        return Place::Unknown;
    };
    let Some(frontier) = frontier else {
        return Place::Unread;
    };
    match compare_keys(&key.kinds, &values, frontier) {
        Some(Ordering::Greater) => Place::Unread,
        Some(_) => Place::Read,
        None => Place::Unknown,
    }
}
