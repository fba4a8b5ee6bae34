//! DM8 renders SQL_REDO with a table's columns as they are when the row is
//! mined, not when it was written: a change made before an ADD or DROP
//! COLUMN and mined after it (a capture behind, or re-mining after a
//! restart) takes the new column set. The watch remembers, per window, the
//! changes of each table it mined and when the window's query ran; a DDL
//! row of a table then names the changes before it that were mined after it.

use std::collections::{BTreeMap, VecDeque};

use crate::engine::row::Scn;

/// The windows whose rows a DDL not yet mined may still precede.
#[derive(Debug, Default)]
pub(super) struct DriftWatch {
    windows: VecDeque<Window>,
}

#[derive(Debug)]
struct Window {
    /// The database's SCN (DM8's LSN) when its query ran: DDL at or below
    /// it shaped how its rows were rendered.
    queried_at: Scn,
    /// Changes mined per (owner, table).
    changes: BTreeMap<(String, String), u64>,
}

impl DriftWatch {
    /// A window whose rows are rendered as of `queried_at`.
    pub(super) fn begin(&mut self, queried_at: Scn) {
        self.windows.push_back(Window {
            queried_at,
            changes: BTreeMap::new(),
        });
    }

    /// A change of `owner.table` mined in the current window.
    pub(super) fn change(&mut self, owner: &str, table: &str) {
        if let Some(w) = self.windows.back_mut() {
            *w.changes
                .entry((owner.to_string(), table.to_string()))
                .or_default() += 1;
        }
    }

    /// A DDL row of `owner.table` at `scn`: how many changes of the table
    /// before it were mined after it was made, if any. They are counted
    /// once.
    pub(super) fn ddl(&mut self, owner: &str, table: &str, scn: Scn) -> Option<u64> {
        let key = (owner.to_string(), table.to_string());
        let drifted: u64 = self
            .windows
            .iter_mut()
            .filter(|w| w.queried_at >= scn)
            .filter_map(|w| w.changes.remove(&key))
            .sum();
        (drifted > 0).then_some(drifted)
    }

    /// The redo is mined up to `scn`: every DDL a window's query could
    /// have seen has been mined, so the windows queried at or below it
    /// can no longer drift.
    pub(super) fn mined_to(&mut self, scn: Scn) {
        self.windows.retain(|w| w.queried_at > scn);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_mined_after_a_ddl_they_precede_are_counted_once() {
        let mut w = DriftWatch::default();
        // Queried at 100: the DDL at 90 existed; the rows below it drift.
        w.begin(100);
        w.change("APP", "T");
        w.change("APP", "T");
        w.change("APP", "U");
        assert_eq!(w.ddl("APP", "T", 90), Some(2));
        assert_eq!(w.ddl("APP", "T", 90), None, "counted once");
        // A DDL made after the query ran shaped nothing it returned.
        w.change("APP", "U");
        assert_eq!(w.ddl("APP", "U", 150), None);
        w.mined_to(100);
        w.begin(200);
        w.change("APP", "U");
        assert_eq!(
            w.ddl("APP", "U", 180),
            Some(1),
            "the earlier window is gone"
        );
    }
}
