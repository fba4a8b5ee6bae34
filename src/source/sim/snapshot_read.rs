//! `SELECT ... AS OF SCN` on the simulator, in phases: the checks before
//! a read and the rows it picks, the time the read takes, the checks of
//! what happened meanwhile, then the rows' text as the SQL returns it. A
//! shared simulator (`threaded`) holds its lock for the first and third
//! only, so sessions read side by side while the workload goes on, as a
//! database serves them.

use std::sync::Arc;
use std::time::Duration;

use super::model::Column;
use super::value::Value;
use super::{dm, Clock, Sim};
use crate::engine::row::Scn;
use crate::engine::rowid::decode_rowid;
use crate::source::{SnapshotChunk, SourceError, TableName};

/// The link of a session other than the mining one. A dropped connection
/// ends every session of the client; each finds out at its next call, and
/// a reconnect of one leaves the others as they are.
#[derive(Debug, Default, Clone, Copy)]
pub struct ReaderLink {
    drops_seen: u64,
    down: bool,
}

/// Which session reads: the mining one, whose link is the simulator's
/// own, or another.
pub enum ReadSession<'a> {
    Mining,
    Reader(&'a mut ReaderLink),
}

/// The rows one read picked, not yet turned into text.
pub struct PickedRows {
    t: usize,
    table: TableName,
    as_of: Scn,
    dm: bool,
    columns: Vec<Column>,
    rows: Vec<Arc<Vec<Value>>>,
    last_key: Option<Vec<String>>,
    /// Wall time the read still takes (the real clock's `read_rows_per_s`).
    wait_ms: u64,
}

impl PickedRows {
    /// Lets the read's wall time pass.
    pub fn wait(&self) {
        if self.wait_ms > 0 {
            std::thread::sleep(Duration::from_millis(self.wait_ms));
        }
    }

    /// The chunk as the SQL returns it: each value's text, then the
    /// backend's conversion of it.
    pub fn render(self) -> SnapshotChunk {
        let dm = self.dm;
        let columns = &self.columns;
        let rows = self
            .rows
            .iter()
            .map(|v| {
                // Undo from before an ADD COLUMN lacks the new one: NULL.
                let value = |i: usize| v.get(i).unwrap_or(&Value::Null);
                columns
                    .iter()
                    .enumerate()
                    .map(|(i, c)| {
                        let x = value(i);
                        if dm {
                            return dm::snapshot_text(x, &c.ty);
                        }
                        x.read_text()
                            .map(|t| crate::engine::snapshot::in_stream_form(x.read_form(), t))
                    })
                    .collect()
            })
            .collect();
        SnapshotChunk {
            columns: self.columns.iter().map(|c| c.name.clone()).collect(),
            rows,
            last_key: self.last_key,
        }
    }
}

impl Sim {
    /// A new session's link: up, with the drops so far behind it.
    pub fn reader_link(&self) -> ReaderLink {
        ReaderLink {
            drops_seen: self.model.connection_drops,
            down: false,
        }
    }

    /// ORA-03113 once for a drop the session has not seen, ORA-03114
    /// until it reconnects.
    pub fn check_reader_link(&mut self, link: &mut ReaderLink) -> Result<(), SourceError> {
        let dm = self.model.scenario.is_dm();
        if self.model.connection_drops > link.drops_seen {
            link.drops_seen = self.model.connection_drops;
            link.down = true;
            if dm {
                return Err(dm::connection_dropped());
            }
            return Err(SourceError::oracle(
                3113,
                "end-of-file on communication channel",
            ));
        }
        if link.down {
            if dm {
                return Err(dm::connection_dropped());
            }
            return Err(SourceError::oracle(3114, "not connected to ORACLE"));
        }
        Ok(())
    }

    /// Opens the session again, when the database lets it in.
    pub fn reconnect_reader(&mut self, link: &mut ReaderLink) -> Result<(), SourceError> {
        self.can_connect()?;
        *link = self.reader_link();
        Ok(())
    }

    /// The data object ids of `table`'s segments, asked on another session.
    pub fn reader_segment_ids(
        &mut self,
        link: &mut ReaderLink,
        table: &TableName,
    ) -> Result<Option<Vec<u64>>, SourceError> {
        self.check_reader_link(link)?;
        let found = self.visible_table(table);
        Ok(Some(
            found.map_or_else(Vec::new, |t| self.model.segment_ids(t)),
        ))
    }

    /// Picks the rows of one read and says how long it takes; on the
    /// virtual clock that time passes here.
    pub fn pick_rows(
        &mut self,
        session: ReadSession<'_>,
        table: &TableName,
        as_of_scn: Scn,
        after_key: Option<&[String]>,
        limit: usize,
    ) -> Result<PickedRows, SourceError> {
        let t = self.check_read(session, table, as_of_scn)?;
        let (rows, last_key) = self.read_rows(t, as_of_scn, after_key, limit)?;
        let rate = self.model.scenario.instance.read_rows_per_s;
        let wait_ms = match self.clock {
            Clock::Real if rate > 0 => (rows.len() as u64).saturating_mul(1000) / rate,
            _ => {
                self.spend_read_time(rows.len(), rate);
                0
            }
        };
        Ok(PickedRows {
            t,
            table: table.clone(),
            as_of: as_of_scn,
            dm: self.model.scenario.is_dm(),
            columns: self.model.tables[t].columns.clone(),
            rows,
            last_key,
            wait_ms,
        })
    }

    /// The key of the `n`-th row past `after_key`: the same read, from the
    /// key alone, taking no read time.
    pub fn key_after(
        &mut self,
        session: ReadSession<'_>,
        table: &TableName,
        as_of_scn: Scn,
        after_key: Option<&[String]>,
        n: usize,
    ) -> Result<Option<Vec<String>>, SourceError> {
        let t = self.check_read(session, table, as_of_scn)?;
        Ok(self.read_rows(t, as_of_scn, after_key, n)?.1)
    }

    /// What happened while the rows were read: a segment replaced or
    /// dropped under the reader, or undo it still needed overwritten.
    pub fn check_after_read(&mut self, picked: &PickedRows) -> Result<(), SourceError> {
        let (t, table, as_of_scn) = (picked.t, &picked.table, picked.as_of);
        if self.model.tables[t].dropped || self.model.objd_changed_scn(t) > as_of_scn {
            return Err(SourceError::oracle(
                8103,
                format!("object no longer exists: a segment of {table} changed while it was read AS OF SCN {as_of_scn}"),
            ));
        }
        if as_of_scn < self.model.undo_floor(t) {
            return Err(self.too_old(table, as_of_scn, " while it was read"));
        }
        Ok(())
    }

    /// ORA-01555 (DM8: its flashback version expired), counted.
    fn too_old(&mut self, table: &TableName, as_of_scn: Scn, when: &str) -> SourceError {
        self.model.snapshot_too_old_errors += 1;
        if self.model.scenario.is_dm() {
            return self.dm_expired(table, as_of_scn);
        }
        SourceError::oracle(
            1555,
            format!(
                "snapshot too old: rollback segment too small (undo for {table} AS OF SCN {as_of_scn} was overwritten{when}; undo_retention = {}, undo_tablespace_mb = {})",
                self.model.scenario.instance.undo_retention_s,
                self.model.scenario.instance.undo_tablespace_mb
            ),
        )
    }

    /// The checks a read passes before its rows: the table visible, the
    /// grants, the SCN, the segments and undo at it.
    fn check_read(
        &mut self,
        session: ReadSession<'_>,
        table: &TableName,
        as_of_scn: Scn,
    ) -> Result<usize, SourceError> {
        self.tick(false);
        match session {
            ReadSession::Mining => self.check_link()?,
            ReadSession::Reader(link) => self.check_reader_link(link)?,
        }
        let is_dm = self.model.scenario.is_dm();
        if is_dm {
            if let Some(e) = dm::flashback_refusal(&self.model, table, as_of_scn) {
                return Err(e);
            }
        }
        let found = self.visible_table(table);
        let no_table = || {
            if is_dm {
                dm::no_table(table)
            } else {
                SourceError::oracle(942, format!("table or view does not exist ({table})"))
            }
        };
        let Some(t) = found else {
            return Err(no_table());
        };
        let tb = &self.model.tables[t];
        let dba = self.has_role("DBA");
        let grant = |g: &str| tb.grants.iter().any(|x| x.eq_ignore_ascii_case(g));
        if !(dba || self.has_priv("SELECT ANY TABLE") || grant("SELECT")) {
            return Err(no_table());
        }
        // DM8's flashback query asks for SELECT alone.
        let flashback = dba || self.has_priv("FLASHBACK ANY TABLE") || grant("FLASHBACK");
        if !is_dm && !flashback {
            return Err(SourceError::oracle(
                1031,
                format!("insufficient privileges (FLASHBACK on {table})"),
            ));
        }
        if as_of_scn > self.model.scn {
            return Err(SourceError::oracle(
                8181,
                format!("specified number is not a valid system change number ({as_of_scn})"),
            ));
        }
        // A query parsed after DDL that replaced a segment (TRUNCATE, MOVE,
        // EXCHANGE) cannot read as of an SCN before it; a segment replaced
        // while the read runs is ORA-08103 instead (below).
        if self.model.objd_changed_scn(t) > as_of_scn {
            return Err(SourceError::oracle(
                1466,
                format!("unable to read data - table definition has changed ({table}: a segment got a new data object id after SCN {as_of_scn})"),
            ));
        }
        if as_of_scn < self.model.undo_floor(t) {
            return Err(self.too_old(table, as_of_scn, ""));
        }
        Ok(t)
    }

    /// The rows of one snapshot read of table `t` and the key the next
    /// read continues after (none past the last row): in key order, or in
    /// ROWID order for an Oracle table without a key, whose key is then
    /// the last row's ROWID as `ROWIDTOCHAR` prints it.
    #[allow(clippy::type_complexity)]
    pub(super) fn read_rows(
        &self,
        t: usize,
        as_of_scn: Scn,
        after_key: Option<&[String]>,
        limit: usize,
    ) -> Result<(Vec<Arc<Vec<Value>>>, Option<Vec<String>>), SourceError> {
        let tb = &self.model.tables[t];
        let full = |n: usize| n >= limit && limit > 0;
        if tb.pk.is_empty() && !self.model.scenario.is_dm() {
            let after = match after_key.and_then(<[String]>::first) {
                Some(k) => Some(
                    decode_rowid(k)
                        .ok_or_else(|| SourceError::oracle(1410, format!("invalid ROWID ({k})")))?,
                ),
                None => None,
            };
            let rows = self
                .model
                .snapshot_rows_by_rowid(t, as_of_scn, after, limit);
            let last_key = full(rows.len())
                .then(|| rows.last().map(|(rid, _)| vec![rid.to_string()]))
                .flatten();
            return Ok((rows.into_iter().map(|(_, v)| v).collect(), last_key));
        }
        if !tb.pk.is_empty() && tb.key_value(0).is_none() {
            // The key is not the row number: Oracle's order of its values.
            let rows = self
                .model
                .snapshot_rows_by_key(t, as_of_scn, after_key, limit);
            let last_key = full(rows.len())
                .then(|| rows.last().map(|(k, _)| k.clone()))
                .flatten();
            return Ok((rows.into_iter().map(|(_, v)| v).collect(), last_key));
        }
        let after = match after_key {
            Some(k) => Some(self.model.key_from_texts(t, k).ok_or_else(|| {
                SourceError::Invalid(format!("after_key {k:?} is not a key of {}", tb.name))
            })?),
            None => None,
        };
        let rows = self.model.snapshot_rows(t, as_of_scn, after, limit);
        let last_key = full(rows.len())
            .then(|| rows.last().map(|(k, v)| self.model.key_texts(t, *k, v)))
            .flatten();
        Ok((rows.into_iter().map(|(_, v)| v).collect(), last_key))
    }
}
