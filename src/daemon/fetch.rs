//! The fetch stage: a redo source served from a thread of its own. Every
//! call is carried out there, in order; a `V$LOGMNR_CONTENTS` query is read
//! ahead there in batches through a bounded queue, so the engine parses one
//! batch while the next is fetched (a database's round trips, the
//! simulator's rendering of SQL_REDO). The queue's bound holds memory to a
//! few batches when the engine is slower than the source.
//!
//! Any other call closes the query first: LogMiner answers one thing at a
//! time on a session, and the engine asks for nothing else until a query is
//! read to its end, except after an error.

use std::sync::mpsc::{sync_channel, Receiver, Sender, SyncSender};
use std::thread::JoinHandle;

use crate::engine::row::{LogMinerRow, Scn};
use crate::source::{
    ArchivedLog, ContentsQuery, Dialect, Incarnation, LogInventory, OpenTransaction, RedoSource,
    RedoThread, ScnTime, SessionRequest, SessionTransaction, SnapshotChunk, SourceError, TableName,
};

/// Rows per batch a query is read ahead in.
pub const BATCH_ROWS: usize = 2_000;
/// Batches read ahead at most.
pub const DEPTH: usize = 4;

type Job = Box<dyn FnOnce(&mut dyn RedoSource) + Send>;

/// What the worker sends of an open query.
enum Fetched {
    /// The query's execution: rows follow only after `Ok`.
    Opened(Result<(), SourceError>),
    Rows(Vec<LogMinerRow>),
    End,
    Failed(SourceError),
}

/// A query being read ahead; dropped, it ends the worker's reading at
/// its next send.
struct OpenQuery {
    rows: Receiver<Fetched>,
    /// Rows of the last batch not handed out yet.
    pending: std::vec::IntoIter<LogMinerRow>,
}

/// A redo source whose calls run on the fetch thread.
pub struct Prefetch {
    jobs: Option<Sender<Job>>,
    worker: Option<JoinHandle<()>>,
    query: Option<OpenQuery>,
    describe: String,
    dialect: Dialect,
    batch_rows: usize,
    depth: usize,
}

fn gone() -> SourceError {
    SourceError::Invalid("the source's fetch thread stopped unexpectedly".into())
}

impl Prefetch {
    /// Moves `source` to a new fetch thread; queries are read ahead by
    /// [`BATCH_ROWS`] up to [`DEPTH`] batches.
    pub fn spawn<S: RedoSource + 'static>(source: S) -> std::io::Result<Self> {
        Self::with_batches(source, BATCH_ROWS, DEPTH)
    }

    pub fn with_batches<S: RedoSource + 'static>(
        mut source: S,
        batch_rows: usize,
        depth: usize,
    ) -> std::io::Result<Self> {
        let describe = source.describe();
        let dialect = source.dialect();
        let (jobs, inbox) = std::sync::mpsc::channel::<Job>();
        let worker = std::thread::Builder::new()
            .name("cdcctl-fetch".into())
            .spawn(move || {
                for job in inbox {
                    job(&mut source);
                }
            })?;
        Ok(Self {
            jobs: Some(jobs),
            worker: Some(worker),
            query: None,
            describe,
            dialect,
            batch_rows: batch_rows.max(1),
            depth: depth.max(1),
        })
    }

    fn send(&self, job: Job) -> Result<(), SourceError> {
        self.jobs
            .as_ref()
            .ok_or_else(gone)?
            .send(job)
            .map_err(|_| gone())
    }

    /// Runs `call` on the fetch thread and waits for its answer.
    fn call<T: Send + 'static>(
        &mut self,
        call: impl FnOnce(&mut dyn RedoSource) -> Result<T, SourceError> + Send + 'static,
    ) -> Result<T, SourceError> {
        self.close_query();
        let (tx, rx) = sync_channel(1);
        self.send(Box::new(move |s| {
            let _ = tx.send(call(s));
        }))?;
        rx.recv().map_err(|_| gone())?
    }

    /// Stops reading ahead: the worker ends the query at its next send.
    fn close_query(&mut self) {
        self.query = None;
    }
}

/// The fetch thread's side of a query: executes it, then fetches batches
/// until the query ends, fails, or the reader closes it.
fn read_ahead(
    source: &mut dyn RedoSource,
    query: &ContentsQuery,
    out: &SyncSender<Fetched>,
    batch_rows: usize,
) {
    let opened = source.query_contents(query);
    let ok = opened.is_ok();
    if out.send(Fetched::Opened(opened)).is_err() || !ok {
        return;
    }
    loop {
        let mut rows = Vec::with_capacity(batch_rows);
        let sent = match source.fetch(batch_rows, &mut rows) {
            Ok(0) => {
                let _ = out.send(Fetched::End);
                return;
            }
            Ok(_) => out.send(Fetched::Rows(rows)),
            Err(e) => {
                let _ = out.send(Fetched::Failed(e));
                return;
            }
        };
        if sent.is_err() {
            return;
        }
    }
}

impl RedoSource for Prefetch {
    fn describe(&self) -> String {
        self.describe.clone()
    }

    fn dialect(&self) -> Dialect {
        self.dialect
    }

    fn current_scn(&mut self) -> Result<ScnTime, SourceError> {
        self.call(|s| s.current_scn())
    }

    fn log_inventory(&mut self) -> Result<LogInventory, SourceError> {
        self.call(|s| s.log_inventory())
    }

    fn incarnation(&mut self) -> Result<Incarnation, SourceError> {
        self.call(|s| s.incarnation())
    }

    fn open_transactions(&mut self) -> Result<Vec<OpenTransaction>, SourceError> {
        self.call(|s| s.open_transactions())
    }

    fn session_transactions(&mut self) -> Result<Vec<SessionTransaction>, SourceError> {
        self.call(|s| s.session_transactions())
    }

    fn redo_threads(&mut self) -> Result<Vec<RedoThread>, SourceError> {
        self.call(|s| s.redo_threads())
    }

    fn online_inventory(&mut self) -> Result<LogInventory, SourceError> {
        self.call(|s| s.online_inventory())
    }

    fn archived_logs_from(
        &mut self,
        from_scn: Scn,
        dest_id: u32,
    ) -> Result<Vec<ArchivedLog>, SourceError> {
        self.call(move |s| s.archived_logs_from(from_scn, dest_id))
    }

    fn start_session(&mut self, request: &SessionRequest) -> Result<(), SourceError> {
        let request = request.clone();
        self.call(move |s| s.start_session(&request))
    }

    fn query_contents(&mut self, query: &ContentsQuery) -> Result<(), SourceError> {
        self.close_query();
        let (tx, rows) = sync_channel(self.depth);
        let (query, batch_rows) = (query.clone(), self.batch_rows);
        self.send(Box::new(move |s| read_ahead(s, &query, &tx, batch_rows)))?;
        match rows.recv() {
            Ok(Fetched::Opened(Ok(()))) => {
                self.query = Some(OpenQuery {
                    rows,
                    pending: Vec::new().into_iter(),
                });
                Ok(())
            }
            Ok(Fetched::Opened(Err(e)) | Fetched::Failed(e)) => Err(e),
            Ok(Fetched::Rows(_) | Fetched::End) | Err(_) => Err(gone()),
        }
    }

    fn fetch(&mut self, max_rows: usize, out: &mut Vec<LogMinerRow>) -> Result<usize, SourceError> {
        let Some(q) = self.query.as_mut() else {
            return Ok(0);
        };
        if q.pending.len() == 0 {
            match q.rows.recv() {
                Ok(Fetched::Rows(rows)) => q.pending = rows.into_iter(),
                Ok(Fetched::End) => {
                    self.query = None;
                    return Ok(0);
                }
                Ok(Fetched::Failed(e)) => {
                    self.query = None;
                    return Err(e);
                }
                Ok(Fetched::Opened(_)) | Err(_) => {
                    self.query = None;
                    return Err(gone());
                }
            }
        }
        let before = out.len();
        out.extend(q.pending.by_ref().take(max_rows));
        Ok(out.len() - before)
    }

    fn end_session(&mut self) -> Result<(), SourceError> {
        self.call(|s| s.end_session())
    }

    fn snapshot_chunk(
        &mut self,
        table: &TableName,
        as_of_scn: Scn,
        after_key: Option<&[String]>,
        limit: usize,
    ) -> Result<SnapshotChunk, SourceError> {
        let (table, after_key) = (table.clone(), after_key.map(<[String]>::to_vec));
        self.call(move |s| s.snapshot_chunk(&table, as_of_scn, after_key.as_deref(), limit))
    }

    fn snapshot_key_after(
        &mut self,
        table: &TableName,
        as_of_scn: Scn,
        after_key: Option<&[String]>,
        n: usize,
    ) -> Result<Option<Vec<String>>, SourceError> {
        let (table, after_key) = (table.clone(), after_key.map(<[String]>::to_vec));
        self.call(move |s| s.snapshot_key_after(&table, as_of_scn, after_key.as_deref(), n))
    }

    fn forget_segments(&mut self, table: &TableName) {
        let table = table.clone();
        // Nothing to answer; a thread that is gone has nothing to forget.
        let _ = self.call(move |s| {
            s.forget_segments(&table);
            Ok(())
        });
    }

    fn segment_ids(&mut self, table: &TableName) -> Result<Option<Vec<u64>>, SourceError> {
        let table = table.clone();
        self.call(move |s| s.segment_ids(&table))
    }

    fn session_memory(
        &mut self,
    ) -> Result<Option<crate::engine::port::SessionMemory>, SourceError> {
        self.call(|s| s.session_memory())
    }

    fn recent_log_switches(
        &mut self,
    ) -> Result<Option<Vec<crate::engine::port::RecentSwitches>>, SourceError> {
        self.call(|s| s.recent_log_switches())
    }

    fn reconnect(&mut self) -> Result<(), SourceError> {
        self.call(|s| s.reconnect())
    }

    /// Opened on the fetch thread, after any query read ahead there.
    fn another_session(&self) -> Result<Option<Box<dyn RedoSource>>, SourceError> {
        let (tx, rx) = sync_channel(1);
        self.send(Box::new(move |s| {
            let _ = tx.send(s.another_session());
        }))?;
        rx.recv().map_err(|_| gone())?
    }
}

impl Drop for Prefetch {
    fn drop(&mut self) {
        self.query = None;
        // Ends the worker's loop once its current job is done.
        self.jobs = None;
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}
