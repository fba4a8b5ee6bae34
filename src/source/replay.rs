//! A redo source over `V$LOGMNR_CONTENTS` rows recorded beforehand (a
//! simulator's pre-generated rows, a spool), all in one CURRENT online log:
//! what measures the capture pipeline without a database and without the
//! cost of generating the rows. The SCN clock moves a fixed step per
//! reading, so capture mines the rows in windows as it would live redo;
//! a fetch hands out copies of the rows, standing for a database's fetch.

use chrono::NaiveDateTime;

use crate::engine::row::{LogMinerRow, Scn};

use super::{
    ArchiveDestStatus, ContentsQuery, Incarnation, LogInventory, OnlineLog, OpenTransaction,
    RedoSource, RedoThread, ScnTime, SessionRequest, SnapshotChunk, SourceError, TableName,
};

/// Rows replayed as the redo of one thread.
pub struct ReplaySource {
    rows: Vec<LogMinerRow>,
    /// The current SCN as last read.
    now: Scn,
    /// SCNs the clock moves per reading.
    step: Scn,
    first: Scn,
    last: Scn,
    /// The open query's rows: the index of the next one and the end.
    cursor: Option<(usize, usize)>,
    window: (Scn, Scn),
}

impl ReplaySource {
    /// `rows` in SCN order; the clock starts just below the first row and
    /// moves `step` SCNs each time the current SCN is read, up to just past
    /// the last.
    pub fn new(rows: Vec<LogMinerRow>, step: Scn) -> Self {
        let first = rows.first().map_or(1, |r| r.scn);
        let last = rows.last().map_or(first, |r| r.scn);
        Self {
            rows,
            now: first.saturating_sub(1).max(1),
            step: step.max(1),
            first,
            last,
            cursor: None,
            window: (0, 0),
        }
    }

    /// The SCN of the last row: where a capture of everything ends.
    pub fn last_scn(&self) -> Scn {
        self.last
    }

    fn time(&self) -> NaiveDateTime {
        let at = self.rows.partition_point(|r| r.scn <= self.now);
        self.rows[..at]
            .iter()
            .rev()
            .find_map(|r| r.timestamp)
            .or_else(|| self.rows.iter().find_map(|r| r.timestamp))
            .unwrap_or_default()
    }

    fn thread(&self) -> RedoThread {
        RedoThread {
            thread: 1,
            status: "OPEN".into(),
            enabled: "PUBLIC".into(),
            current_sequence: 1,
            last_redo_scn: self.now,
            ..RedoThread::default()
        }
    }
}

impl RedoSource for ReplaySource {
    fn describe(&self) -> String {
        format!("replay of {} rows", self.rows.len())
    }

    fn current_scn(&mut self) -> Result<ScnTime, SourceError> {
        // LAST_REDO_CHANGE# one past the last row: redo below it is on disk.
        self.now = self.now.saturating_add(self.step).min(self.last + 1);
        Ok(ScnTime {
            scn: self.now,
            time: self.time(),
        })
    }

    fn log_inventory(&mut self) -> Result<LogInventory, SourceError> {
        Ok(LogInventory {
            resetlogs_change: 1,
            online: vec![OnlineLog {
                group: 1,
                thread: 1,
                sequence: 1,
                status: "CURRENT".into(),
                first_change: self.first.saturating_sub(1).max(1),
                member_files: vec!["/replay/redo01.log".into()],
                ..OnlineLog::default()
            }],
            archived: Vec::new(),
            destinations: vec![ArchiveDestStatus {
                dest_id: 1,
                dest_name: "LOG_ARCHIVE_DEST_1".into(),
                status: "VALID".into(),
                dest_type: "LOCAL".into(),
                destination: None,
            }],
            threads: vec![self.thread()],
        })
    }

    fn redo_threads(&mut self) -> Result<Vec<RedoThread>, SourceError> {
        Ok(vec![self.thread()])
    }

    fn incarnation(&mut self) -> Result<Incarnation, SourceError> {
        Ok(Incarnation {
            resetlogs_change: 1,
            resetlogs_time: NaiveDateTime::default(),
        })
    }

    fn open_transactions(&mut self) -> Result<Vec<OpenTransaction>, SourceError> {
        Ok(Vec::new())
    }

    fn start_session(&mut self, request: &SessionRequest) -> Result<(), SourceError> {
        self.window = (request.start_scn, request.end_scn);
        Ok(())
    }

    fn query_contents(&mut self, query: &ContentsQuery) -> Result<(), SourceError> {
        let from = self.rows.partition_point(|r| r.scn <= query.from_scn);
        let to = self.rows.partition_point(|r| r.scn <= query.to_scn);
        self.cursor = Some((from, to.max(from)));
        Ok(())
    }

    fn fetch(&mut self, max_rows: usize, out: &mut Vec<LogMinerRow>) -> Result<usize, SourceError> {
        let Some((next, end)) = self.cursor else {
            return Ok(0);
        };
        let until = end.min(next.saturating_add(max_rows));
        out.extend_from_slice(&self.rows[next..until]);
        self.cursor = (until < end).then_some((until, end));
        Ok(until - next)
    }

    fn end_session(&mut self) -> Result<(), SourceError> {
        self.cursor = None;
        Ok(())
    }

    fn snapshot_chunk(
        &mut self,
        table: &TableName,
        _as_of_scn: Scn,
        _after_key: Option<&[String]>,
        _limit: usize,
    ) -> Result<SnapshotChunk, SourceError> {
        Err(SourceError::Unsupported(format!(
            "a replay of recorded redo has no table to read {table} from"
        )))
    }

    fn reconnect(&mut self) -> Result<(), SourceError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::row::OperationCode;

    fn row(scn: Scn) -> LogMinerRow {
        LogMinerRow {
            scn,
            operation_code: OperationCode::Start,
            ..LogMinerRow::default()
        }
    }

    #[test]
    fn a_query_returns_the_rows_of_its_scn_range_in_fetches_of_the_asked_size() {
        let mut s = ReplaySource::new((10..20).map(row).collect(), 3);
        assert_eq!(s.current_scn().map(|t| t.scn).ok(), Some(12));
        let q = ContentsQuery {
            from_scn: 11,
            to_scn: 16,
            ..ContentsQuery::default()
        };
        s.query_contents(&q).expect("query");
        let mut out = Vec::new();
        assert_eq!(s.fetch(3, &mut out).ok(), Some(3));
        assert_eq!(s.fetch(3, &mut out).ok(), Some(2));
        assert_eq!(s.fetch(3, &mut out).ok(), Some(0));
        let scns: Vec<Scn> = out.iter().map(|r| r.scn).collect();
        assert_eq!(scns, vec![12, 13, 14, 15, 16]);
    }

    #[test]
    fn the_clock_stops_just_past_the_last_row() {
        let mut s = ReplaySource::new((10..20).map(row).collect(), 100);
        assert_eq!(s.current_scn().map(|t| t.scn).ok(), Some(20));
        assert_eq!(s.last_scn(), 19);
    }
}
