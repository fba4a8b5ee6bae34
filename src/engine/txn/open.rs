//! One open transaction's buffered rows: in memory or spilled to its file,
//! a ROW_ID key per row so partial rollbacks remove the right change, and
//! the live rows read back in push order at commit.

use std::sync::Arc;

use chrono::NaiveDateTime;

use super::rowkey;
use super::spill::{SpillFile, SpillReader};
use crate::engine::metrics::OpenTxnSummary;
use crate::engine::row::{LogMinerRow, Scn};

/// Bytes the buffer accounts for one row (strings plus a fixed overhead).
fn row_bytes(r: &LogMinerRow) -> u64 {
    let s = |o: &Option<String>| o.as_ref().map_or(0, |s| s.len());
    (std::mem::size_of::<LogMinerRow>()
        + r.xid.len()
        + s(&r.seg_owner)
        + s(&r.table_name)
        + s(&r.row_id)
        + s(&r.username)
        + s(&r.rs_id)
        + s(&r.sql_redo)
        + s(&r.info)
        + s(&r.src_con_name)) as u64
}

pub(super) struct Txn {
    pub(super) xid: String,
    pub(super) start_scn: Scn,
    pub(super) start_time: Option<NaiveDateTime>,
    /// One key per buffered row, in push order: ROW_ID key, `NONE`, or `DEAD`.
    pub(super) keys: Vec<u128>,
    /// Every key in `live_end..` is `DEAD`.
    pub(super) live_end: usize,
    /// Rows `spill.rows()..keys.len()` (all rows while not spilled).
    pub(super) mem: Vec<LogMinerRow>,
    pub(super) spill: Option<SpillFile>,
    pub(super) bytes: u64,
    pub(super) mem_bytes: u64,
    /// Live DML changes.
    pub(super) changes: u64,
    pub(super) ddl: u64,
    /// Its START row was read: no change of it came before capture.
    pub(super) whole: bool,
    /// Who ran it: USERNAME of its START row, or of the first row that
    /// names someone when the START row was not read.
    pub(super) username: Option<Arc<str>>,
}

impl Txn {
    pub(super) fn new(xid: &str, scn: Scn, time: Option<NaiveDateTime>) -> Self {
        Self {
            xid: xid.to_string(),
            start_scn: scn,
            start_time: time,
            keys: Vec::new(),
            live_end: 0,
            mem: Vec::new(),
            spill: None,
            bytes: 0,
            mem_bytes: 0,
            changes: 0,
            ddl: 0,
            whole: false,
            username: None,
        }
    }

    /// Takes the row's USERNAME as the transaction's if none is known yet.
    /// LogMiner shows the name on the rows mined with the transaction's
    /// START row, and `UNKNOWN` on rows mined without it.
    pub(super) fn learn_username(&mut self, row: &LogMinerRow) {
        if self.username.is_some() {
            return;
        }
        if let Some(name) = row
            .username
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty() && *n != "UNKNOWN")
        {
            self.username = Some(Arc::from(name));
        }
    }

    pub(super) fn spilled_rows(&self) -> usize {
        self.spill.as_ref().map_or(0, SpillFile::rows)
    }

    pub(super) fn summary(&self) -> OpenTxnSummary {
        OpenTxnSummary {
            xid: self.xid.clone(),
            start_scn: self.start_scn,
            start_time: self.start_time,
            events: self.changes,
            bytes: self.bytes,
            spilled: self.spill.is_some(),
        }
    }

    /// Moves every in-memory row to the spill file.
    pub(super) fn spill_out(&mut self, dir: Option<&std::path::Path>) -> std::io::Result<u64> {
        let file = match self.spill.as_mut() {
            Some(f) => f,
            None => self.spill.insert(SpillFile::create(dir)?),
        };
        let before = file.bytes();
        for row in self.mem.drain(..) {
            file.append(&row)?;
        }
        self.mem = Vec::new();
        self.mem_bytes = 0;
        Ok(file.bytes() - before)
    }

    pub(super) fn push(&mut self, row: LogMinerRow, key: u128) -> std::io::Result<u64> {
        let bytes = row_bytes(&row);
        self.bytes += bytes;
        self.keys.push(key);
        self.live_end = self.keys.len();
        match self.spill.as_mut() {
            Some(file) => {
                let before = file.bytes();
                file.append(&row)?;
                Ok(file.bytes() - before)
            }
            None => {
                self.mem_bytes += bytes;
                self.mem.push(row);
                Ok(0)
            }
        }
    }

    /// Removes the most recent live change with this ROW_ID key.
    pub(super) fn undo_latest(&mut self, key: u128, row_id: Option<&str>) -> bool {
        if key == rowkey::NONE {
            return false;
        }
        let spilled = self.spilled_rows();
        let mut i = self.live_end;
        while i > 0 {
            i -= 1;
            if self.keys[i] != key {
                continue;
            }
            if rowkey::is_hashed(key)
                && i >= spilled
                && self.mem[i - spilled].row_id.as_deref().map(str::trim) != row_id.map(str::trim)
            {
                continue;
            }
            // The statement's LOB, XML and 32K rows go with it.
            let mut end = i + 1;
            while self.keys.get(end) == Some(&rowkey::PIECE) {
                end += 1;
            }
            for j in i..end {
                self.keys[j] = rowkey::DEAD;
                if j >= spilled {
                    let freed = row_bytes(&self.mem[j - spilled]);
                    self.mem_bytes = self.mem_bytes.saturating_sub(freed);
                    self.mem[j - spilled] = LogMinerRow::default();
                }
            }
            self.changes = self.changes.saturating_sub(1);
            while self.live_end > 0 && self.keys[self.live_end - 1] == rowkey::DEAD {
                self.live_end -= 1;
            }
            return true;
        }
        false
    }

    /// The live rows back, in push order, from disk then memory.
    pub(super) fn into_rows(self) -> std::io::Result<TxnRows> {
        let reader = self.spill.map(SpillFile::into_reader).transpose()?;
        Ok(TxnRows {
            keys: self.keys,
            pos: 0,
            reader,
            mem: self.mem.into_iter(),
        })
    }
}

pub(super) struct TxnRows {
    keys: Vec<u128>,
    pos: usize,
    reader: Option<SpillReader>,
    mem: std::vec::IntoIter<LogMinerRow>,
}

impl TxnRows {
    pub(super) fn next_live(&mut self) -> std::io::Result<Option<LogMinerRow>> {
        while self.pos < self.keys.len() {
            let dead = self.keys[self.pos] == rowkey::DEAD;
            self.pos += 1;
            let row = match self
                .reader
                .as_mut()
                .map(SpillReader::next_row)
                .transpose()?
            {
                Some(Some(row)) => row,
                _ => match self.mem.next() {
                    Some(row) => row,
                    None => return Ok(None),
                },
            };
            if !dead {
                return Ok(Some(row));
            }
        }
        Ok(None)
    }
}
