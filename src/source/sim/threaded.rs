//! The simulator as a database of its own: on the wall clock, a thread
//! advances the simulated database (its workload, log switches, archiving
//! and faults) while the capture engine reads from it, as a real database
//! runs in its own processes beside the client mining it.
//!
//! LogMiner's reads lock the simulator for as long as they take, as its
//! server-side work does; snapshot reads lock it only to pick and check
//! their rows (see `snapshot_read`); generation between reads no longer
//! runs on the reader's thread. On the virtual clock database time moves only with the
//! reader's calls, so nothing is gained there and [`Threaded::shared`]
//! shares the simulator without a thread (tests and benchmarks stay
//! deterministic). Each [`RedoSource::another_session`] is one more
//! session on the same simulated database, as snapshot readers open.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use super::snapshot_read::{ReadSession, ReaderLink};
use super::Sim;
use crate::engine::row::{LogMinerRow, Scn};
use crate::source::{
    ArchivedLog, Catalog, ContentsQuery, Dialect, Incarnation, InstanceFacts, LogInventory,
    OpenTransaction, RedoSource, RedoThread, ScnTime, SessionFacts, SessionRequest,
    SessionTransaction, SnapshotChunk, SourceError, TableFacts, TableName, TablePattern,
};

/// How often the database thread catches up with the wall clock: small
/// against the engine's polling, large enough that the lock is mostly free.
const TICK: Duration = Duration::from_millis(5);

/// A [`Sim`] advanced by its own thread; the thread stops when this drops.
pub struct Threaded {
    sim: Arc<Mutex<Sim>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    description: String,
    dialect: Dialect,
    /// Another session's link (`another_session`); the mining session's
    /// is the simulator's own.
    reader: Option<ReaderLink>,
}

impl Threaded {
    /// Starts the database thread. Without a thread (the system refuses
    /// one) the simulator still works, advancing on each read as before.
    pub fn spawn(sim: Sim) -> Threaded {
        let description = sim.describe();
        let dialect = RedoSource::dialect(&sim);
        let sim = Arc::new(Mutex::new(sim));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (sim, stop) = (Arc::clone(&sim), Arc::clone(&stop));
            std::thread::Builder::new()
                .name("sim-database".into())
                .spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        lock(&sim).advance_to_now();
                        std::thread::sleep(TICK);
                    }
                })
                .ok()
        };
        Threaded {
            sim,
            stop,
            thread,
            description,
            dialect,
            reader: None,
        }
    }

    /// The simulator shared by sessions but with no thread of its own:
    /// on the virtual clock database time moves only with the calls.
    pub fn shared(sim: Sim) -> Threaded {
        let description = sim.describe();
        let dialect = RedoSource::dialect(&sim);
        Threaded {
            sim: Arc::new(Mutex::new(sim)),
            stop: Arc::new(AtomicBool::new(false)),
            thread: None,
            description,
            dialect,
            reader: None,
        }
    }

    fn sim(&self) -> MutexGuard<'_, Sim> {
        lock(&self.sim)
    }
}

/// Which session a handle reads as.
fn session(reader: &mut Option<ReaderLink>) -> ReadSession<'_> {
    match reader {
        Some(link) => ReadSession::Reader(link),
        None => ReadSession::Mining,
    }
}

/// The simulator, even if the database thread panicked while holding it:
/// the model is then as that step left it, which a reader may still use.
fn lock(sim: &Mutex<Sim>) -> MutexGuard<'_, Sim> {
    sim.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Drop for Threaded {
    fn drop(&mut self) {
        // Another session (no thread of its own) leaves the database up.
        if let Some(t) = self.thread.take() {
            self.stop.store(true, Ordering::Relaxed);
            let _ = t.join();
        }
    }
}

impl Catalog for Threaded {
    fn instance(&mut self) -> Result<InstanceFacts, SourceError> {
        self.sim().instance()
    }
    fn session(&mut self) -> Result<SessionFacts, SourceError> {
        self.sim().session()
    }
    fn tables(&mut self, patterns: &[TablePattern]) -> Result<Vec<TableFacts>, SourceError> {
        self.sim().tables(patterns)
    }
    fn open_transactions(&mut self) -> Result<Vec<OpenTransaction>, SourceError> {
        Catalog::open_transactions(&mut *self.sim())
    }
    fn transaction_sessions(&mut self) -> Result<Vec<SessionTransaction>, SourceError> {
        self.sim().transaction_sessions()
    }
    fn log_inventory(&mut self) -> Result<LogInventory, SourceError> {
        Catalog::log_inventory(&mut *self.sim())
    }
    fn set_pdb(&mut self, name: Option<&str>) -> Result<(), SourceError> {
        self.sim().set_pdb(name)
    }
}

impl RedoSource for Threaded {
    fn describe(&self) -> String {
        self.description.clone()
    }
    fn dialect(&self) -> Dialect {
        self.dialect
    }
    fn current_scn(&mut self) -> Result<ScnTime, SourceError> {
        self.sim().current_scn()
    }
    fn log_inventory(&mut self) -> Result<LogInventory, SourceError> {
        RedoSource::log_inventory(&mut *self.sim())
    }
    fn incarnation(&mut self) -> Result<Incarnation, SourceError> {
        self.sim().incarnation()
    }
    fn open_transactions(&mut self) -> Result<Vec<OpenTransaction>, SourceError> {
        RedoSource::open_transactions(&mut *self.sim())
    }
    fn session_transactions(&mut self) -> Result<Vec<SessionTransaction>, SourceError> {
        self.sim().session_transactions()
    }
    fn redo_threads(&mut self) -> Result<Vec<RedoThread>, SourceError> {
        self.sim().redo_threads()
    }
    fn online_inventory(&mut self) -> Result<LogInventory, SourceError> {
        self.sim().online_inventory()
    }
    fn archived_logs_from(
        &mut self,
        from_scn: Scn,
        dest_id: u32,
    ) -> Result<Vec<ArchivedLog>, SourceError> {
        self.sim().archived_logs_from(from_scn, dest_id)
    }
    fn start_session(&mut self, request: &SessionRequest) -> Result<(), SourceError> {
        self.sim().start_session(request)
    }
    fn query_contents(&mut self, query: &ContentsQuery) -> Result<(), SourceError> {
        self.sim().query_contents(query)
    }
    fn fetch(&mut self, max_rows: usize, out: &mut Vec<LogMinerRow>) -> Result<usize, SourceError> {
        self.sim().fetch(max_rows, out)
    }
    fn end_session(&mut self) -> Result<(), SourceError> {
        self.sim().end_session()
    }
    fn snapshot_chunk(
        &mut self,
        table: &TableName,
        as_of_scn: Scn,
        after_key: Option<&[String]>,
        limit: usize,
    ) -> Result<SnapshotChunk, SourceError> {
        // Locked while rows are picked and checked only: the read's time
        // passes and its text is made with other sessions going on.
        let picked = lock(&self.sim).pick_rows(
            session(&mut self.reader),
            table,
            as_of_scn,
            after_key,
            limit,
        )?;
        picked.wait();
        self.sim().check_after_read(&picked)?;
        Ok(picked.render())
    }
    fn snapshot_key_after(
        &mut self,
        table: &TableName,
        as_of_scn: Scn,
        after_key: Option<&[String]>,
        n: usize,
    ) -> Result<Option<Vec<String>>, SourceError> {
        let mut sim = lock(&self.sim);
        sim.key_after(session(&mut self.reader), table, as_of_scn, after_key, n)
    }
    fn another_session(&self) -> Result<Option<Box<dyn RedoSource>>, SourceError> {
        let link = self.sim().reader_link();
        Ok(Some(Box::new(Threaded {
            sim: Arc::clone(&self.sim),
            stop: Arc::clone(&self.stop),
            thread: None,
            description: self.description.clone(),
            dialect: self.dialect,
            reader: Some(link),
        })))
    }
    fn forget_segments(&mut self, table: &TableName) {
        self.sim().forget_segments(table)
    }
    fn segment_ids(&mut self, table: &TableName) -> Result<Option<Vec<u64>>, SourceError> {
        let mut sim = lock(&self.sim);
        match &mut self.reader {
            Some(link) => sim.reader_segment_ids(link, table),
            None => sim.segment_ids(table),
        }
    }
    fn recent_log_switches(
        &mut self,
    ) -> Result<Option<Vec<crate::engine::port::RecentSwitches>>, SourceError> {
        self.sim().recent_log_switches()
    }
    fn reconnect(&mut self) -> Result<(), SourceError> {
        let mut sim = lock(&self.sim);
        match &mut self.reader {
            Some(link) => sim.reconnect_reader(link),
            None => sim.reconnect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::sim::Clock;

    #[test]
    fn the_database_thread_advances_the_simulator_between_reads_and_stops_on_drop() {
        let sim = match Sim::from_spec("oracle11g") {
            Ok(s) => s.with_clock(Clock::Real),
            Err(e) => panic!("built-in scenario: {e}"),
        };
        let mut t = Threaded::spawn(sim);
        let first = t.current_scn().map(|s| s.scn).unwrap_or_default();
        // Progress without any read: only the database thread can make it.
        // Waits up to 10 s for it, so a slow machine does not fail this.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let moved = loop {
            let scn = t.sim().model().scn;
            if scn > first {
                break true;
            }
            if std::time::Instant::now() > deadline {
                break false;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(moved, "the simulated database did not advance by itself");
        assert!(t.thread.is_some());
        drop(t);
    }
}
