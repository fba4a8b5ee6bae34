//! User sessions: the transactions the scenario's workload runs (ordinary,
//! long-running and big ones) and when each acts, their start, savepoints,
//! commit or rollback, and the timed events (maintenance, faults) the
//! scenario schedules. The row changes themselves are in `dml`.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{Duration, Timelike};

use crate::engine::event::CapturedEvent;
use crate::source::sim::scenario::{ColumnSpec, FaultSpec, MaintenanceAction, Scenario};

use super::dictionary::Table;
use super::redo::{Body, TxnTag};
use super::txn::{Change, Txn, TxnKind};
use super::undo::UndoEntry;
use super::{ms, secs_ms, Model};

#[derive(Debug, Clone)]
pub(super) struct Scheduled {
    pub(super) at_ms: i64,
    pub(super) what: Event,
}

#[derive(Debug, Clone)]
pub(super) enum Event {
    Long {
        duration_s: u64,
        changes: u32,
        table: Option<usize>,
    },
    Big {
        changes: u32,
        table: Option<usize>,
    },
    Maintenance {
        table: usize,
        action: MaintenanceAction,
        partition: Option<String>,
        every_s: Option<u64>,
        column: Option<ColumnSpec>,
    },
    Fault(FaultSpec),
}

/// The scenario's timed events (long and big transactions, maintenance),
/// in the order they fire when due at the same moment.
pub(super) fn schedule(scenario: &Scenario, tables: &[Table]) -> Vec<Scheduled> {
    let mut scheduled = Vec::new();
    let table_index = |name: &Option<String>| -> Option<usize> {
        let n = name.as_ref()?;
        tables
            .iter()
            .position(|t: &Table| &format!("{}.{}", t.name.owner, t.name.table) == n)
    };
    for l in &scenario.workload.long_transactions {
        scheduled.push(Scheduled {
            at_ms: secs_ms(l.at_s),
            what: Event::Long {
                duration_s: l.duration_s,
                changes: l.changes,
                table: table_index(&l.table),
            },
        });
    }
    for b in &scenario.workload.big_transactions {
        scheduled.push(Scheduled {
            at_ms: secs_ms(b.at_s),
            what: Event::Big {
                changes: b.changes,
                table: table_index(&b.table),
            },
        });
    }
    for m in &scenario.workload.maintenance {
        if let Some(table) = table_index(&Some(m.table.clone())) {
            scheduled.push(Scheduled {
                at_ms: secs_ms(m.at_s),
                what: Event::Maintenance {
                    table,
                    action: m.action,
                    partition: m.partition.clone(),
                    every_s: m.every_s,
                    column: m.column.clone(),
                },
            });
        }
    }
    scheduled
}

impl Model {
    /// Database time of the next workload action. It is drawn once and kept,
    /// so the redo is the same however often the clock is polled.
    pub(super) fn next_action_at(&mut self) -> i64 {
        if let Some(at) = self.next_at {
            return at;
        }
        let rate = self.scenario.workload.rate.max(0.001);
        let has_big = self.open.iter().any(|t| t.kind == TxnKind::Big);
        let mean_ms = 1000.0 / rate;
        let factor = if has_big { 0.1 } else { 1.0 };
        let raw = mean_ms * factor * (0.5 + self.rng.unit());
        // Time moves in whole milliseconds; above 1,000 actions a second
        // several share a millisecond, so the gap is 0 or 1 with the right mean.
        let dt = if mean_ms * factor < 1.0 {
            i64::from(self.rng.unit() < raw)
        } else {
            raw.max(1.0) as i64
        };
        let at = self.now_ms + dt;
        self.next_at = Some(at);
        at
    }

    pub(super) fn run_next(&mut self) {
        let at = self.next_action_at();
        self.now_ms = self.now_ms.max(at);
        self.next_at = None;
        self.log_writers_at(self.now_ms);
        self.step();
    }

    fn step(&mut self) {
        self.fire_due();
        self.archive_due();
        if self.archiver_stuck || self.switch_waiting {
            return;
        }
        let has_big = self.open.iter().any(|t| t.kind == TxnKind::Big);
        let now_ms = self.now_ms;
        // A long transaction due for its next change goes first.
        if let Some(i) = self.open.iter().position(
            |t| matches!(t.kind, TxnKind::Long { next_at_ms, .. } if next_at_ms <= now_ms),
        ) {
            if let TxnKind::Long {
                next_at_ms,
                step_ms,
            } = self.open[i].kind
            {
                self.open[i].kind = TxnKind::Long {
                    next_at_ms: next_at_ms.saturating_add(step_ms),
                    step_ms,
                };
            }
            self.act(i);
            return;
        }
        if has_big && self.rng.chance(0.7) {
            if let Some(i) = self.open.iter().position(|t| t.kind == TxnKind::Big) {
                self.act(i);
                return;
            }
        }
        if self.goldengate_replication() && self.rng.chance(0.02) {
            self.replication_marker();
            return;
        }
        let normal: Vec<usize> = (0..self.open.len())
            .filter(|&i| self.open[i].kind == TxnKind::Normal)
            .collect();
        let conc = self.scenario.workload.concurrency.max(1) as usize;
        if self.tables.iter().all(|t| t.dropped) {
            return;
        }
        if normal.is_empty() || (normal.len() < conc && self.rng.chance(0.35)) {
            let i = self.begin(TxnKind::Normal, None, None);
            self.act(i);
        } else if let Some(&i) = self.rng.pick(&normal) {
            self.act(i);
        }
    }

    fn fire_due(&mut self) {
        let now = self.now_ms;
        let mut due = Vec::new();
        let mut keep = Vec::new();
        for s in std::mem::take(&mut self.scheduled) {
            if s.at_ms <= now {
                due.push(s);
            } else {
                keep.push(s);
            }
        }
        self.scheduled = keep;
        for s in due {
            match s.what {
                Event::Long {
                    duration_s,
                    changes,
                    table,
                } => {
                    let changes = changes.max(1);
                    let step_ms = (secs_ms(duration_s) / i64::from(changes)).max(1);
                    let i = self.begin(
                        TxnKind::Long {
                            next_at_ms: now,
                            step_ms,
                        },
                        Some(changes),
                        table,
                    );
                    self.open[i].will_rollback = false;
                    self.open[i].savepoint = None;
                }
                Event::Big { changes, table } => {
                    let i = self.begin(TxnKind::Big, Some(changes.max(1)), table);
                    self.open[i].will_rollback = false;
                }
                Event::Maintenance {
                    table,
                    action,
                    ref partition,
                    every_s,
                    ref column,
                } => {
                    let done = self.maintenance(table, action, partition.clone(), column.as_ref());
                    if !done {
                        // Blocked by open transactions on the segment: retry shortly.
                        self.scheduled.push(Scheduled {
                            at_ms: now + 1000,
                            what: s.what.clone(),
                        });
                    } else if let Some(e) = every_s {
                        self.scheduled.push(Scheduled {
                            at_ms: s.at_ms.saturating_add(secs_ms(e.max(1))),
                            what: s.what.clone(),
                        });
                    }
                }
                Event::Fault(f) => self.fault(&f),
            }
        }
        let scn = self.scn;
        let fired: Vec<_> = self
            .scn_faults
            .iter()
            .filter(|f| f.0 <= scn)
            .cloned()
            .collect();
        self.scn_faults.retain(|f| f.0 > scn);
        for (_, f) in fired {
            self.fault(&f);
        }
    }

    fn goldengate_replication(&self) -> bool {
        self.scenario
            .instance
            .parameters
            .get("enable_goldengate_replication")
            .is_some_and(|v| v.eq_ignore_ascii_case("TRUE"))
    }

    /// A GoldenGate marker transaction: START and a replication marker,
    /// with no COMMIT that LogMiner would show, and not a user transaction
    /// (V$TRANSACTION does not keep it).
    fn replication_marker(&mut self) {
        let xid = self.new_xid();
        let pdb = self.con_name(Some(0));
        let tag = TxnTag::new(xid, Arc::from("SYS"), pdb);
        self.emit(1, &tag, Body::Start, 40, false);
        self.emit(1, &tag, Body::ReplicationMarker, 60, false);
    }

    pub(super) fn pick_table(&mut self) -> Option<usize> {
        let live: Vec<usize> = (0..self.tables.len())
            .filter(|&i| !self.tables[i].dropped && self.tables[i].weight > 0.0)
            .collect();
        let total: f64 = live.iter().map(|&i| self.tables[i].weight).sum();
        if total <= 0.0 {
            return live.first().copied();
        }
        let mut x = self.rng.unit() * total;
        for &i in &live {
            x -= self.tables[i].weight;
            if x < 0.0 {
                return Some(i);
            }
        }
        live.last().copied()
    }

    fn begin(&mut self, kind: TxnKind, size: Option<u32>, table: Option<usize>) -> usize {
        let xid = self.new_xid();
        let w = &self.scenario.workload;
        let size = size.unwrap_or_else(|| {
            self.rng
                .range(u64::from(w.txn_size[0]), u64::from(w.txn_size[1])) as u32
        });
        let will_rollback = self.rng.chance(w.rollback_pct / 100.0);
        let savepoint = (size >= 2 && self.rng.chance(w.savepoint_pct / 100.0))
            .then(|| self.rng.range(1, u64::from(size - 1)) as usize);
        // Sessions spread over the instances in turn, skipping an instance
        // that is quiet or not open yet.
        let threads = self.threads.len().max(1);
        let first = self.next_usn_slot as usize % threads;
        let now_ms = self.now_ms;
        let index = (0..threads)
            .map(|k| (first + k) % threads)
            .find(|&i| {
                self.threads
                    .get(i)
                    .is_some_and(|t| t.is_enabled() && !t.is_quiet(now_ms))
            })
            .unwrap_or(first);
        let thread = index as u16 + 1;
        let username: Arc<str> = Arc::from(self.scenario.workload.username.as_str());
        let t = table.or_else(|| {
            if kind == TxnKind::Normal {
                None
            } else {
                self.pick_table()
            }
        });
        let pdb = self.con_name(t.or(Some(0)));
        self.open.push(Txn {
            tag: TxnTag::new(xid, username, pdb),
            start_scn: 0,
            start_time: self.now_sec(),
            thread,
            started: false,
            remaining: size,
            changes: Vec::new(),
            savepoint,
            will_rollback,
            kind,
            table: t,
        });
        self.open.len() - 1
    }

    /// One step of a transaction: a change, a rollback to savepoint, or its end.
    fn act(&mut self, i: usize) {
        if self.open[i].remaining > 0 {
            let before = self.open[i].changes.len();
            self.dml(i);
            self.open[i].remaining -= 1;
            let pct = self.scenario.workload.statement_rollback_pct;
            let undoable = self.open[i].changes.last().is_some_and(|c| !c.lob_only);
            if pct > 0.0
                && self.open[i].changes.len() > before
                && undoable
                && self.rng.chance(pct / 100.0)
            {
                // The statement failed (a constraint, a deadlock victim):
                // Oracle undoes its change with a ROLLBACK=1 row and the
                // transaction goes on.
                self.rollback_changes(i, before);
            }
            if let Some(sp) = self.open[i].savepoint {
                if self.open[i].remaining == 0 && self.open[i].changes.len() > sp {
                    self.open[i].savepoint = None;
                    self.rollback_changes(i, sp);
                }
            }
            return;
        }
        if self.open[i].will_rollback || self.open[i].changes.is_empty() && self.open[i].started {
            self.rollback_changes(i, 0);
            self.finish(i, false);
        } else {
            self.finish(i, true);
        }
    }

    pub(super) fn ensure_started(&mut self, i: usize) {
        if self.open[i].started {
            return;
        }
        let (tag, thread) = (self.open[i].tag.clone(), self.open[i].thread);
        let scn = self.emit(thread, &tag, Body::Start, 40, false).scn;
        let t = &mut self.open[i];
        t.started = true;
        t.start_scn = scn;
        t.start_time = self.start + Duration::milliseconds(self.now_ms);
        t.start_time = t.start_time.with_nanosecond(0).unwrap_or(t.start_time);
    }

    fn finish(&mut self, i: usize, commit: bool) {
        let txn = self.open.remove(i);
        for c in &txn.changes {
            self.locks.remove(&(c.table, c.key));
        }
        self.locks.retain(|_, x| x != txn.xid());
        if !txn.started {
            return;
        }
        let body = if commit {
            Body::Commit {
                start_scn: txn.start_scn,
            }
        } else {
            Body::Rollback {
                start_scn: txn.start_scn,
            }
        };
        let commit_scn = self.emit(txn.thread, &txn.tag, body, 40, false).scn;
        if !commit {
            return;
        }
        let commit_time = self.now_sec();
        let commit_ts_ms = ms(commit_time);
        let mut per_table: HashMap<usize, u32> = HashMap::new();
        let mut index = 0usize;
        // Without LOB reassembly a LOB written alone is no event: its rows
        // carry nothing else.
        let lob_capture = self.lob_capture;
        let shown = |c: &Change| !c.lob_only || lob_capture;
        // Events the truth limit would drop as soon as this transaction's
        // later ones are recorded are counted as dropped without being built.
        let unkept = match self.truth_limit {
            Some(limit) => txn
                .changes
                .iter()
                .filter(|c| shown(c))
                .count()
                .saturating_sub(limit),
            None => 0,
        };
        for c in txn.changes.iter() {
            if shown(c) && self.truth_limit != Some(0) {
                let order = per_table.entry(c.table).or_insert(0);
                *order += 1;
                let table_order = *order;
                if index < unkept {
                    self.truth_dropped += 1;
                } else {
                    let ev = self.change_event(
                        &txn,
                        c,
                        commit_scn,
                        commit_ts_ms,
                        index as u32,
                        table_order,
                    );
                    self.record_truth(txn.start_scn, CapturedEvent::Change(ev));
                }
                index += 1;
            }
            let bytes = UndoEntry::size_of(c.before.as_deref().map(Vec::as_slice));
            self.undo_bytes += u64::from(bytes);
            let tb = &mut self.tables[c.table];
            tb.undo.push_back(UndoEntry {
                commit_scn,
                commit_time,
                key: c.key,
                before: c.before.clone(),
                rowid: c.rowid.clone(),
                bytes,
            });
        }
        self.prune_undo();
    }
}
