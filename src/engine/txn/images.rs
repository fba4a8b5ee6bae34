//! Values a transaction's own pieces gave a row (a LOB, XML document or
//! extended string it wrote), kept until the transaction's last event so
//! its later updates and deletes of that row carry them: the redo of such
//! a change leaves those columns out, and the engine still has them.
//!
//! Only values from pieces are kept, by the row's ROWID: a column the
//! change leaves out is filled in; one it names (a new value, or the
//! marker of a value it changed without showing) replaces the kept one.

use std::collections::HashMap;

use crate::engine::event::{ChangeEvent, Field, Op};

/// Kept values per ROWID: (column, value). A value a piece gives the
/// change still pending is kept apart until that change is delivered: it
/// is that change's after image, never its before image.
#[derive(Default)]
pub(super) struct RowImages {
    rows: HashMap<String, Vec<(String, Field)>>,
    pending: HashMap<String, Vec<(String, Field)>>,
    bytes: usize,
}

/// Above this much kept text a transaction keeps no more values (its
/// later changes of those rows carry the marker, as without capture).
const MAX_BYTES: usize = 64 << 20;

/// A ROWID naming a row (not the all-`A` one of rows that have none).
fn row_id(event: &ChangeEvent) -> Option<&str> {
    event
        .source
        .row_id
        .as_deref()
        .map(str::trim)
        .filter(|id| !id.is_empty() && !id.bytes().all(|b| b == b'A'))
}

impl RowImages {
    /// Keeps a value a piece put into `event`'s row.
    pub fn remember(&mut self, event: &ChangeEvent, column: &str, field: &Field) {
        let len = match field {
            Field::Null => 0,
            other => other.as_str().map_or(usize::MAX, str::len),
        };
        let Some(id) = row_id(event) else {
            return;
        };
        if len == usize::MAX || self.bytes + len > MAX_BYTES {
            return;
        }
        self.bytes += len;
        let row = self.pending.entry(id.to_string()).or_default();
        match row.iter_mut().find(|(c, _)| c == column) {
            Some((_, kept)) => *kept = field.clone(),
            None => row.push((column.to_string(), field.clone())),
        }
    }

    /// Fills the columns `event` leaves out with the kept values of its
    /// row, and takes what it says of them.
    pub fn apply(&mut self, event: &mut ChangeEvent) {
        if self.rows.is_empty() && self.pending.is_empty() {
            return;
        }
        let Some(id) = row_id(event).map(str::to_string) else {
            return;
        };
        let written = self.pending.remove(&id).unwrap_or_default();
        if event.op == Op::Delete {
            if let Some(kept) = self.rows.remove(&id) {
                fill(event.before.as_mut(), &kept);
            }
            return;
        }
        if event.op == Op::Update {
            if let Some(kept) = self.rows.get(&id) {
                fill(event.before.as_mut(), kept);
            }
        }
        let kept = self.rows.entry(id).or_default();
        // An image naming the column holds its value from now on.
        if let Some(after) = event.after.as_ref() {
            kept.retain(|(c, _)| !after.get(c).is_some_and(|f| f.is_unavailable()));
            for (c, f) in kept.iter_mut() {
                if let Some(now) = after.get_field(c) {
                    *f = now;
                }
            }
        }
        for (column, field) in written {
            match kept.iter_mut().find(|(c, _)| *c == column) {
                Some((_, k)) => *k = field,
                None => kept.push((column, field)),
            }
        }
        fill(event.after.as_mut(), kept);
    }
}

fn fill(image: Option<&mut crate::engine::event::Image>, kept: &[(String, Field)]) {
    let Some(image) = image else {
        return;
    };
    for (column, field) in kept {
        if !image.contains(column) {
            image.push(column, field);
        }
    }
}
