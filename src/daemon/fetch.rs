//! The fetch stage: a redo source whose `V$LOGMNR_CONTENTS` queries are
//! read ahead on a thread of its own, in batches through a bounded queue,
//! so the engine parses one batch while the next is fetched (a database's
//! round trips, the simulator's rendering of SQL_REDO). The queue's bound
//! holds memory to a few batches when the engine is slower than the source.
//!
//! Every other call, and a query's execution and first batch, run on the
//! caller's thread under the source's lock: the engine waits for their
//! answers anyway, and handing each to another thread cost two thread
//! wake-ups a call (a few hundred microseconds a window on a small
//! machine). Any other call closes the query first: LogMiner answers one
//! thing at a time on a session, and the engine asks for nothing else
//! until a query is read to its end, except after an error.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use crate::engine::row::{LogMinerRow, Scn};
use crate::source::{
    ArchivedLog, ContentsQuery, Dialect, Incarnation, LogInventory, OpenTransaction, RedoSource,
    RedoThread, ScnTime, SessionRequest, SessionTransaction, SnapshotChunk, SourceError, TableName,
};

/// Rows per batch a query is read ahead in, at most: the batches after
/// the first start at twice its size and double, so the engine waits
/// little for the second while a long query still costs few round trips.
pub const BATCH_ROWS: usize = 2_000;
/// Rows of a query's first batch, fetched by the caller itself: few, so the
/// engine starts parsing while the fetch thread reads the rest.
pub const FIRST_BATCH_ROWS: usize = 200;
/// Batches read ahead at most.
pub const DEPTH: usize = 4;

type Shared = Arc<Mutex<Box<dyn RedoSource>>>;

/// What the fetch thread sends of a query it reads ahead.
enum Fetched {
    Rows(Vec<LogMinerRow>),
    End,
    Failed(SourceError),
}

/// A query the fetch thread is asked to read ahead from where the caller
/// left it.
struct ReadAhead {
    out: SyncSender<Fetched>,
    /// Cleared when the query is closed, so the thread fetches no more of
    /// it, even between a batch it sent and the next.
    open: Arc<AtomicBool>,
}

/// An open query.
struct OpenQuery {
    /// The read-ahead batches; `None` until the first batch is fetched.
    rows: Option<Receiver<Fetched>>,
    /// Rows of the last batch not handed out yet.
    pending: std::vec::IntoIter<LogMinerRow>,
    open: Arc<AtomicBool>,
}

impl Drop for OpenQuery {
    fn drop(&mut self) {
        self.open.store(false, Ordering::Release);
    }
}

/// A redo source whose queries are read ahead on the fetch thread.
pub struct Prefetch {
    source: Shared,
    jobs: Option<Sender<ReadAhead>>,
    worker: Option<JoinHandle<()>>,
    query: Option<OpenQuery>,
    describe: String,
    dialect: Dialect,
    first_rows: usize,
    depth: usize,
}

fn gone() -> SourceError {
    SourceError::Invalid("the source's fetch thread stopped unexpectedly".into())
}

impl Prefetch {
    /// Starts the fetch thread for `source`; queries are read ahead by
    /// [`BATCH_ROWS`] up to [`DEPTH`] batches.
    pub fn spawn<S: RedoSource + 'static>(source: S) -> std::io::Result<Self> {
        Self::with_batches(source, BATCH_ROWS, DEPTH)
    }

    pub fn with_batches<S: RedoSource + 'static>(
        source: S,
        batch_rows: usize,
        depth: usize,
    ) -> std::io::Result<Self> {
        let describe = source.describe();
        let dialect = source.dialect();
        let batch_rows = batch_rows.max(1);
        let source: Shared = Arc::new(Mutex::new(Box::new(source)));
        let (jobs, inbox) = std::sync::mpsc::channel::<ReadAhead>();
        let shared = Arc::clone(&source);
        let worker = std::thread::Builder::new()
            .name("cdcctl-fetch".into())
            .spawn(move || {
                for job in inbox {
                    read_ahead(&shared, &job, FIRST_BATCH_ROWS.min(batch_rows), batch_rows);
                }
            })?;
        Ok(Self {
            source,
            jobs: Some(jobs),
            worker: Some(worker),
            query: None,
            describe,
            dialect,
            first_rows: FIRST_BATCH_ROWS.min(batch_rows),
            depth: depth.max(1),
        })
    }

    fn lock(&self) -> Result<MutexGuard<'_, Box<dyn RedoSource>>, SourceError> {
        // Poisoned only by a source that panicked on the fetch thread.
        self.source.lock().map_err(|_| gone())
    }

    /// Runs `call` on the source once any query is closed.
    fn call<T>(
        &mut self,
        call: impl FnOnce(&mut dyn RedoSource) -> Result<T, SourceError>,
    ) -> Result<T, SourceError> {
        self.close_query();
        let mut source = self.lock()?;
        call(&mut **source)
    }

    /// Stops reading ahead: the fetch thread fetches no more of the query.
    fn close_query(&mut self) {
        self.query = None;
    }

    /// The query's first batch, fetched here, after which the fetch thread
    /// reads the rest ahead.
    fn first_batch(&mut self, max_rows: usize) -> Result<Vec<LogMinerRow>, SourceError> {
        let mut rows = Vec::with_capacity(self.first_rows.min(max_rows));
        let n = {
            let mut source = self.lock()?;
            source.fetch(self.first_rows.min(max_rows), &mut rows)?
        };
        let Some(q) = self.query.as_mut() else {
            return Ok(rows);
        };
        if n == 0 {
            self.query = None;
            return Ok(rows);
        }
        let (out, batches) = sync_channel(self.depth);
        let job = ReadAhead {
            out,
            open: Arc::clone(&q.open),
        };
        self.jobs
            .as_ref()
            .ok_or_else(gone)?
            .send(job)
            .map_err(|_| gone())?;
        q.rows = Some(batches);
        Ok(rows)
    }

    /// The next batch the fetch thread read ahead; empty at the query's end.
    fn next_batch(&mut self) -> Result<Vec<LogMinerRow>, SourceError> {
        let Some(rows) = self.query.as_ref().and_then(|q| q.rows.as_ref()) else {
            return Ok(Vec::new());
        };
        let fetched = rows.recv();
        match fetched {
            Ok(Fetched::Rows(rows)) => Ok(rows),
            Ok(Fetched::End) => {
                self.query = None;
                Ok(Vec::new())
            }
            Ok(Fetched::Failed(e)) => {
                self.query = None;
                Err(e)
            }
            Err(_) => {
                self.query = None;
                Err(gone())
            }
        }
    }
}

/// The fetch thread's side of a query: fetches batches until the query
/// ends, fails, or the reader closes it. The lock is held for a fetch
/// only, never while a batch waits for room in the queue.
fn read_ahead(source: &Mutex<Box<dyn RedoSource>>, job: &ReadAhead, first: usize, most: usize) {
    let mut batch_rows = first;
    loop {
        batch_rows = (batch_rows * 2).min(most);
        let mut rows = Vec::with_capacity(batch_rows);
        let fetched = {
            let Ok(mut source) = source.lock() else {
                return;
            };
            // Checked under the lock: a call made since the query closed
            // may have changed the session.
            if !job.open.load(Ordering::Acquire) {
                return;
            }
            source.fetch(batch_rows, &mut rows)
        };
        let sent = match fetched {
            Ok(0) => {
                let _ = job.out.send(Fetched::End);
                return;
            }
            Ok(_) => job.out.send(Fetched::Rows(rows)),
            Err(e) => {
                let _ = job.out.send(Fetched::Failed(e));
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
        self.call(|s| s.archived_logs_from(from_scn, dest_id))
    }

    fn start_session(&mut self, request: &SessionRequest) -> Result<(), SourceError> {
        self.call(|s| s.start_session(request))
    }

    fn query_contents(&mut self, query: &ContentsQuery) -> Result<(), SourceError> {
        self.close_query();
        self.lock()?.query_contents(query)?;
        self.query = Some(OpenQuery {
            rows: None,
            pending: Vec::new().into_iter(),
            open: Arc::new(AtomicBool::new(true)),
        });
        Ok(())
    }

    fn fetch(&mut self, max_rows: usize, out: &mut Vec<LogMinerRow>) -> Result<usize, SourceError> {
        let Some(q) = self.query.as_ref() else {
            return Ok(0);
        };
        if q.pending.len() == 0 {
            let batch = if q.rows.is_none() {
                self.first_batch(max_rows)
            } else {
                self.next_batch()
            };
            let batch = batch.inspect_err(|_| self.query = None)?;
            // Gone when the batch was the query's end.
            let Some(q) = self.query.as_mut() else {
                return Ok(0);
            };
            q.pending = batch.into_iter();
        }
        let Some(q) = self.query.as_mut() else {
            return Ok(0);
        };
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
        self.call(|s| s.snapshot_chunk(table, as_of_scn, after_key, limit))
    }

    fn snapshot_key_after(
        &mut self,
        table: &TableName,
        as_of_scn: Scn,
        after_key: Option<&[String]>,
        n: usize,
    ) -> Result<Option<Vec<String>>, SourceError> {
        self.call(|s| s.snapshot_key_after(table, as_of_scn, after_key, n))
    }

    fn forget_segments(&mut self, table: &TableName) {
        // Nothing to answer; a source that is gone has nothing to forget.
        let _ = self.call(|s| {
            s.forget_segments(table);
            Ok(())
        });
    }

    fn segment_ids(&mut self, table: &TableName) -> Result<Option<Vec<u64>>, SourceError> {
        self.call(|s| s.segment_ids(table))
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

    /// Opened between two batches of a query read ahead, if one is.
    fn another_session(&self) -> Result<Option<Box<dyn RedoSource>>, SourceError> {
        self.lock()?.another_session()
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

#[cfg(test)]
mod tests {
    //! The fetch stage against a source that logs its calls: rows in
    //! order across the batches, calls answered on the caller's thread,
    //! nothing fetched after a call that closed the query.

    use std::sync::{Arc, Mutex};
    use std::thread::ThreadId;
    use std::time::Duration;

    use super::*;

    /// A query of `rows` numbered rows, each fetch taking `fetch_takes`;
    /// `fail_at` makes the fetch that reaches that row fail.
    #[derive(Default)]
    struct Logged {
        rows: u64,
        next: Option<u64>,
        fetch_takes: Duration,
        fail_at: Option<u64>,
        log: Arc<Mutex<Vec<(String, ThreadId)>>>,
    }

    impl Logged {
        fn note(&self, call: &str) {
            let mut log = self.log.lock().expect("the log");
            log.push((call.to_string(), std::thread::current().id()));
        }
    }

    impl RedoSource for Logged {
        fn describe(&self) -> String {
            "logged".into()
        }
        fn current_scn(&mut self) -> Result<ScnTime, SourceError> {
            self.note("current_scn");
            Ok(ScnTime {
                scn: 1,
                time: chrono::NaiveDateTime::default(),
            })
        }
        fn log_inventory(&mut self) -> Result<LogInventory, SourceError> {
            Ok(LogInventory::default())
        }
        fn incarnation(&mut self) -> Result<Incarnation, SourceError> {
            Err(SourceError::Unsupported("incarnation".into()))
        }
        fn open_transactions(&mut self) -> Result<Vec<OpenTransaction>, SourceError> {
            Ok(Vec::new())
        }
        fn start_session(&mut self, _: &SessionRequest) -> Result<(), SourceError> {
            Ok(())
        }
        fn query_contents(&mut self, _: &ContentsQuery) -> Result<(), SourceError> {
            self.note("query");
            self.next = Some(1);
            Ok(())
        }
        fn fetch(&mut self, max: usize, out: &mut Vec<LogMinerRow>) -> Result<usize, SourceError> {
            self.note("fetch");
            std::thread::sleep(self.fetch_takes);
            let Some(next) = self.next else {
                return Ok(0);
            };
            let until = (next + max as u64).min(self.rows + 1);
            if self.fail_at.is_some_and(|f| (next..until).contains(&f)) {
                return Err(SourceError::Invalid("ORA-03113".into()));
            }
            out.extend((next..until).map(|scn| LogMinerRow {
                scn,
                ..LogMinerRow::default()
            }));
            self.next = Some(until);
            Ok((until - next) as usize)
        }
        fn end_session(&mut self) -> Result<(), SourceError> {
            self.note("end_session");
            self.next = None;
            Ok(())
        }
        fn snapshot_chunk(
            &mut self,
            table: &TableName,
            _: Scn,
            _: Option<&[String]>,
            _: usize,
        ) -> Result<SnapshotChunk, SourceError> {
            Err(SourceError::Unsupported(table.to_string()))
        }
        fn reconnect(&mut self) -> Result<(), SourceError> {
            Ok(())
        }
    }

    fn query() -> ContentsQuery {
        ContentsQuery {
            from_scn: 1,
            to_scn: 100_000,
            owners: Vec::new(),
            pdb: None,
        }
    }

    /// Every row `fetch` hands out, `max` at a time, until it returns 0.
    fn read_all(p: &mut Prefetch, max: usize) -> Result<Vec<Scn>, SourceError> {
        let mut scns = Vec::new();
        loop {
            let mut rows = Vec::new();
            if p.fetch(max, &mut rows)? == 0 {
                return Ok(scns);
            }
            assert!(
                rows.len() <= max,
                "{} rows where {max} were asked",
                rows.len()
            );
            scns.extend(rows.iter().map(|r| r.scn));
        }
    }

    #[test]
    fn rows_come_in_order_across_the_first_batch_and_the_batches_read_ahead() {
        let source = Logged {
            rows: 9_999,
            ..Logged::default()
        };
        let mut p = Prefetch::with_batches(source, 1_000, 2).expect("the fetch thread");
        p.query_contents(&query()).expect("the query");
        let scns = read_all(&mut p, 333).expect("the rows");
        assert_eq!(scns, (1..=9_999).collect::<Vec<_>>());
        // A query read to its end is closed: nothing more comes.
        assert_eq!(read_all(&mut p, 333).expect("no rows"), Vec::<Scn>::new());
    }

    #[test]
    fn calls_and_a_querys_first_batch_are_answered_on_the_callers_thread() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let source = Logged {
            rows: 5_000,
            log: Arc::clone(&log),
            ..Logged::default()
        };
        let mut p = Prefetch::spawn(source).expect("the fetch thread");
        p.current_scn().expect("the SCN");
        p.query_contents(&query()).expect("the query");
        assert_eq!(read_all(&mut p, 10_000).expect("the rows").len(), 5_000);
        let here = std::thread::current().id();
        let log = log.lock().expect("the log").clone();
        let calls: Vec<&str> = log.iter().map(|(c, _)| c.as_str()).collect();
        assert_eq!(&calls[..3], ["current_scn", "query", "fetch"]);
        assert!(log[..3].iter().all(|(_, t)| *t == here), "{log:?}");
        // The rest of the query is read ahead on the fetch thread.
        assert!(log[3..].iter().all(|(_, t)| *t != here), "{log:?}");
    }

    #[test]
    fn a_call_closes_the_query_read_ahead_and_no_fetch_follows_it() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let source = Logged {
            rows: 100_000,
            fetch_takes: Duration::from_millis(2),
            log: Arc::clone(&log),
            ..Logged::default()
        };
        let mut p = Prefetch::with_batches(source, 100, 2).expect("the fetch thread");
        p.query_contents(&query()).expect("the query");
        let mut rows = Vec::new();
        p.fetch(10, &mut rows).expect("the first rows");
        // Let the fetch thread read ahead until the queue is full.
        std::thread::sleep(Duration::from_millis(30));
        p.end_session().expect("the session ended");
        std::thread::sleep(Duration::from_millis(30));
        let calls: Vec<String> = log
            .lock()
            .expect("the log")
            .iter()
            .map(|(c, _)| c.clone())
            .collect();
        let ended = calls
            .iter()
            .position(|c| c == "end_session")
            .expect("end_session");
        assert!(
            calls[1..ended].iter().filter(|c| *c == "fetch").count() > 1,
            "{calls:?}"
        );
        assert_eq!(calls.len(), ended + 1, "a fetch after the call: {calls:?}");
        assert_eq!(p.fetch(10, &mut rows).expect("nothing open"), 0);
    }

    #[test]
    fn a_failed_fetch_read_ahead_ends_the_query_with_its_error() {
        let source = Logged {
            rows: 10_000,
            fail_at: Some(3_000),
            ..Logged::default()
        };
        let mut p = Prefetch::with_batches(source, 500, 2).expect("the fetch thread");
        p.query_contents(&query()).expect("the query");
        let e = read_all(&mut p, 100).expect_err("the fetch failed");
        assert!(e.to_string().contains("ORA-03113"), "{e}");
        assert_eq!(read_all(&mut p, 100).expect("closed"), Vec::<Scn>::new());
    }
}
