//! Snapshot readers: sessions of their own, each on a thread, that read
//! chunks beside the stream's mining. The engine stage hands them a group
//! of orders (one each) and takes the answers back once all are in; it
//! waits on them only when the stream has reached the chunks' SCN and has
//! nothing left to mine before them.

use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::engine::snapshot::{ReadAnswer, ReadOrder};
use crate::source::{RedoSource, SourceError};

/// The most readers a run opens: each is a database session.
pub const MAX_READERS: usize = 8;

struct Worker {
    orders: Option<Sender<ReadOrder>>,
    thread: Option<JoinHandle<()>>,
}

/// Reader sessions and the answers they owe.
pub struct Readers {
    workers: Vec<Worker>,
    answers: Receiver<ReadAnswer>,
    /// Orders handed out and not answered yet.
    owed: usize,
    /// When the orders owed were handed out.
    since: std::time::Instant,
    got: Vec<ReadAnswer>,
}

impl Readers {
    /// Opens `n` more sessions on `source`'s database; `None` when it has
    /// no second session (reads then share the stream's).
    pub fn open(source: &dyn RedoSource, n: usize) -> Result<Option<Readers>, SourceError> {
        let (answer_tx, answers) = channel();
        let mut workers = Vec::new();
        for i in 0..n.clamp(1, MAX_READERS) {
            let Some(session) = source.another_session()? else {
                return Ok(None);
            };
            workers.push(spawn(i, session, answer_tx.clone())?);
        }
        Ok(Some(Readers {
            workers,
            answers,
            owed: 0,
            since: std::time::Instant::now(),
            got: Vec::new(),
        }))
    }

    pub fn count(&self) -> usize {
        self.workers.len()
    }

    /// How long the orders handed out last have taken so far.
    pub fn elapsed(&self) -> Duration {
        self.since.elapsed()
    }

    /// Hands order `i` to reader `i`.
    pub fn submit(&mut self, orders: Vec<ReadOrder>) -> Result<(), SourceError> {
        self.since = std::time::Instant::now();
        for (order, worker) in orders.into_iter().zip(&self.workers) {
            let sent = worker
                .orders
                .as_ref()
                .is_some_and(|tx| tx.send(order).is_ok());
            if !sent {
                return Err(gone());
            }
            self.owed += 1;
        }
        Ok(())
    }

    /// Every answer owed, once all are in; waits up to `wait` for them.
    pub fn answers(&mut self, wait: Duration) -> Result<Option<Vec<ReadAnswer>>, SourceError> {
        let deadline = std::time::Instant::now() + wait;
        while self.owed > 0 {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.answers.recv_timeout(left) {
                Ok(a) => {
                    self.owed -= 1;
                    self.got.push(a);
                }
                Err(RecvTimeoutError::Timeout) => return Ok(None),
                Err(RecvTimeoutError::Disconnected) => return Err(gone()),
            }
        }
        Ok(Some(std::mem::take(&mut self.got)))
    }
}

fn gone() -> SourceError {
    SourceError::Invalid("a snapshot reader's thread stopped unexpectedly".into())
}

fn spawn(
    i: usize,
    mut session: Box<dyn RedoSource>,
    answers: Sender<ReadAnswer>,
) -> Result<Worker, SourceError> {
    let (orders, inbox) = channel::<ReadOrder>();
    let thread = std::thread::Builder::new()
        .name(format!("cdcctl-reader-{i}"))
        .spawn(move || {
            for order in inbox {
                let answer = order.carry_out(&mut *session);
                if answer.lost_connection() {
                    // The next order finds out whether it worked.
                    let _ = session.reconnect();
                }
                if answers.send(answer).is_err() {
                    break;
                }
            }
        })
        .map_err(|e| SourceError::Invalid(format!("cannot start a snapshot reader: {e}")))?;
    Ok(Worker {
        orders: Some(orders),
        thread: Some(thread),
    })
}

impl Drop for Readers {
    /// Lets each reader finish the read under way, then ends it.
    fn drop(&mut self) {
        for w in &mut self.workers {
            w.orders = None;
        }
        for w in &mut self.workers {
            if let Some(t) = w.thread.take() {
                let _ = t.join();
            }
        }
    }
}
