//! A transaction's COMMIT: its live rows read back, parsed, joined with
//! their LOB, XML and extended-string pieces, and handed to the sink one
//! event at a time, skipping what a checkpoint says was emitted; and the
//! DDL transactions a window's end auto-commits.

use std::sync::Arc;

use chrono::NaiveDateTime;

use crate::engine::emit::Sink;
use crate::engine::event::{
    CapturedEvent, ChangeEvent, DdlEvent, Field, FieldRef, Op, SnapshotMark, SourcePosition,
};
use crate::engine::finding::Finding;
use crate::engine::redo::{lob, DmlKind};
use crate::engine::row::{LogMinerRow, OperationCode, Scn};

use super::config::OnParseError;
use super::decode;
use super::images::RowImages;
use super::open::Txn;
use super::pieces::{self, Assembly, LobMode, Pending, Placement};
use super::report::{DeadLetter, TxnError, TxnFinding, TxnWarning};
use super::reported::ReportedOnce;
use super::truncate;
use super::{Emitting, TxnBuffer};

/// Changes emitted so far per table within one transaction. A transaction
/// touches few tables, so a short list looked up by `&str` beats a map
/// keyed by owned names, which cost two allocations per event to look up.
#[derive(Default)]
struct TableOrders(Vec<(String, String, u32)>);

impl TableOrders {
    /// The 1-based position of the next change to `schema.table`.
    fn next(&mut self, schema: &str, table: &str) -> u32 {
        if let Some((_, _, n)) = self
            .0
            .iter_mut()
            .find(|(s, t, _)| s == schema && t == table)
        {
            *n += 1;
            return *n;
        }
        self.0.push((schema.to_string(), table.to_string(), 1));
        1
    }
}

/// What every event of one transaction carries in its `source` block
/// besides the commit: who ran it and where it began.
#[derive(Debug, Clone, Default)]
struct Origin {
    user_name: Option<Arc<str>>,
    /// Only for a transaction whose START row was read: a partial one's
    /// first row read is not where it began.
    start_scn: Option<Scn>,
    start_ts_ms: Option<i64>,
}

impl Origin {
    fn of(txn: &Txn) -> Self {
        Self {
            user_name: txn.username.clone(),
            start_scn: txn.whole.then_some(txn.start_scn),
            start_ts_ms: txn
                .start_time
                .filter(|_| txn.whole)
                .map(|t| t.and_utc().timestamp_millis()),
        }
    }
}

/// One transaction's emission under way.
struct EmitCtx {
    xid: String,
    origin: Origin,
    commit_scn: Scn,
    commit_ts_ms: i64,
    partial: bool,
    /// The next event's index.
    index: u32,
    table_orders: TableOrders,
    /// The last change, until the rows after it show whether pieces follow.
    pending: Option<Pending>,
    assembly: Assembly,
    /// Values the transaction's pieces gave its rows.
    images: RowImages,
}

pub(super) fn ts_ms(ts: Option<NaiveDateTime>) -> i64 {
    ts.map_or(0, |t| t.and_utc().timestamp_millis())
}

impl TxnBuffer {
    pub(super) fn commit(&mut self, row: LogMinerRow, sink: &mut Sink<'_>) -> Result<(), TxnError> {
        if self.abandoned.remove(&row.xid) {
            self.warnings.push(TxnWarning::LateCommitIgnored {
                xid: row.xid,
                scn: row.scn,
            });
            return Ok(());
        }
        if self.auto_committed.remove(&row.xid) {
            return Ok(());
        }
        if row.scn < self.last_commit_seen {
            return Err(TxnError::CommitOutOfOrder {
                xid: row.xid,
                scn: row.scn,
                last: self.last_commit_seen,
            });
        }
        self.last_commit_seen = row.scn;
        let txn = self.open.remove(&row.xid);
        if txn.is_none() {
            // Committed after being dropped as rolled back: all it wrote is lost.
            self.reappeared(&row.xid, row.scn);
        }
        if let Some(t) = &txn {
            self.mem_bytes = self.mem_bytes.saturating_sub(t.mem_bytes);
        }
        let done = self
            .filter
            .as_ref()
            .is_some_and(|f| f.transaction_done(row.scn, &row.xid));
        if done {
            if let Some(t) = &txn {
                self.stats.skipped_as_emitted += t.changes + t.ddl;
            }
            return Ok(());
        }
        if let Some(txn) = txn {
            self.emit(txn, row.scn, ts_ms(row.timestamp), sink)?;
        }
        self.counts.commits += 1;
        self.record_commit(row.scn, row.xid);
        Ok(())
    }

    pub(super) fn record_commit(&mut self, scn: Scn, xid: String) {
        if scn > self.commit_scn {
            self.commit_scn = scn;
            self.committed_at_commit_scn.clear();
        }
        if scn == self.commit_scn && !self.committed_at_commit_scn.contains(&xid) {
            self.committed_at_commit_scn.push(xid);
        }
    }

    /// Streams one committed transaction's events to the sink. A change is
    /// held back until the next row that is not one of its pieces, so LOB,
    /// XML and extended-string values reach its after image first.
    fn emit(
        &mut self,
        txn: Txn,
        commit_scn: Scn,
        commit_ts_ms: i64,
        sink: &mut Sink<'_>,
    ) -> Result<(), TxnError> {
        let xid = txn.xid.clone();
        self.emitting = Some(Emitting {
            xid: xid.clone(),
            start_scn: txn.start_scn,
            last_index: None,
        });
        let spill_err = |source| TxnError::Spill {
            xid: xid.clone(),
            source,
        };
        let mut ctx = EmitCtx {
            xid: xid.clone(),
            origin: Origin::of(&txn),
            commit_scn,
            commit_ts_ms,
            partial: !txn.whole,
            index: 0,
            table_orders: TableOrders::default(),
            pending: None,
            assembly: Assembly::default(),
            images: RowImages::default(),
        };
        let mut rows = txn.into_rows().map_err(spill_err)?;
        let mut findings = Vec::new();
        while let Some(row) = rows.next_live().map_err(spill_err)? {
            findings.clear();
            match row.operation_code {
                op if op.is_dml() => {
                    self.end_pieces(&mut ctx, sink)?;
                    let e = self.change_event(
                        row,
                        (commit_scn, commit_ts_ms),
                        &ctx.origin,
                        &mut ctx.table_orders,
                        &mut findings,
                    )?;
                    match e {
                        Some(event) => {
                            ctx.pending = Some(Pending {
                                event,
                                findings: std::mem::take(&mut findings),
                            })
                        }
                        None => self.add_findings(findings.drain(..)),
                    }
                }
                OperationCode::Ddl => {
                    self.end_pieces(&mut ctx, sink)?;
                    let ddl = self.ddl_event(row, &ctx.origin, commit_scn, commit_ts_ms);
                    let truncate = truncate::truncate_event(&ddl);
                    self.deliver(CapturedEvent::Ddl(ddl), Vec::new(), &mut ctx, sink)?;
                    if let Some(mut t) = truncate {
                        t.table_order = ctx.table_orders.next(&t.source.schema, &t.source.table);
                        self.deliver(CapturedEvent::Change(t), Vec::new(), &mut ctx, sink)?;
                    }
                }
                OperationCode::Unsupported => {
                    let f = unsupported_finding(&row);
                    self.add_findings(std::iter::once(f));
                }
                op if lob::is_piece_code(op.code()) => self.piece(row, &mut ctx, sink)?,
                // A code the source passed on without a meaning: said, not
                // silently dropped with the change it may carry.
                OperationCode::Other(code) => {
                    let f = TxnFinding {
                        xid: row.xid.clone(),
                        scn: row.scn,
                        finding: Finding::UnknownOperation {
                            code,
                            schema: row.seg_owner.clone().unwrap_or_default(),
                            table: row.table_name.clone().unwrap_or_default(),
                        },
                    };
                    self.add_findings(std::iter::once(f));
                }
                _ => {}
            }
        }
        if let Some((message, row)) = ctx.assembly.unfinished() {
            let raw = row.sql_redo.clone().unwrap_or_default();
            self.reject(&row, commit_scn, message, 0, raw)?;
        }
        self.end_pieces(&mut ctx, sink)?;
        self.emitting = None;
        Ok(())
    }

    /// Places the open LOB's value and hands the pending change on.
    fn end_pieces(&mut self, ctx: &mut EmitCtx, sink: &mut Sink<'_>) -> Result<(), TxnError> {
        let capture = self.config.lob == LobMode::Capture;
        if let Some(p) = ctx.assembly.close_lob(capture) {
            self.place(p, ctx, sink)?;
        }
        match ctx.pending.take() {
            Some(p) => self.deliver(CapturedEvent::Change(p.event), p.findings, ctx, sink),
            None => Ok(()),
        }
    }

    /// One LOB, XML or extended-string row: parsed (an error or a dead
    /// letter when malformed or out of place) and taken into the value it
    /// belongs to.
    fn piece(
        &mut self,
        row: LogMinerRow,
        ctx: &mut EmitCtx,
        sink: &mut Sink<'_>,
    ) -> Result<(), TxnError> {
        let sql = row.sql_redo.as_deref().unwrap_or("");
        let mut piece = match lob::parse_piece(row.operation_code.code(), sql) {
            Ok(p) => p,
            Err(e) => return self.reject(&row, ctx.commit_scn, e.message, e.position, e.raw),
        };
        if let Some(target) = pieces::target_mut(&mut piece) {
            let charsets = self.config.charsets.as_deref();
            let (schema, table) = (target.schema.clone(), target.table.clone());
            decode::decode_character_hex_in(&mut target.key, &schema, &table, charsets);
        }
        let pending = ctx.pending.as_ref().map(|p| &p.event);
        let placements = match ctx.assembly.take(piece, self.config.lob, pending, &row) {
            Ok(p) => p,
            Err(message) => {
                let raw = sql.to_string();
                return self.reject(&row, ctx.commit_scn, message, 0, raw);
            }
        };
        for p in placements {
            self.place(p, ctx, sink)?;
        }
        Ok(())
    }

    /// Puts a reassembled value where it belongs: the pending change of the
    /// same row, else an UPDATE event of its own. A placeholder marks the
    /// column unavailable and reports it.
    fn place(
        &mut self,
        placement: Placement,
        ctx: &mut EmitCtx,
        sink: &mut Sink<'_>,
    ) -> Result<(), TxnError> {
        let Placement(target, field, row) = placement;
        let same = ctx
            .pending
            .as_ref()
            .is_some_and(|p| pieces::same_row(&p.event, &target));
        let Some(field) = field else {
            let given = self.reported_once.contains(
                ReportedOnce::LOB_UNAVAILABLE,
                &target.schema,
                &target.table,
                &target.column,
            );
            let finding = (!given).then(|| pieces::unavailable(&row, &target));
            match ctx.pending.as_mut().filter(|_| same) {
                Some(p) => {
                    let current = p.event.after.as_ref().and_then(|a| a.get(&target.column));
                    let carried = matches!(
                        current,
                        Some(FieldRef::Text(_) | FieldRef::Binary(_) | FieldRef::Null)
                    );
                    if !carried {
                        // A BLOB's placeholder stays binary (`EMPTY_BLOB()`).
                        let marker = match current {
                            Some(FieldRef::UnavailableBinary) => Field::UnavailableBinary,
                            _ => Field::Unavailable,
                        };
                        pieces::set_after(&mut p.event, &target.column, marker);
                    }
                    p.findings.extend(finding);
                }
                None => self.add_findings(finding.into_iter()),
            }
            return Ok(());
        };
        if same {
            if let Some(p) = ctx.pending.as_mut() {
                ctx.images.remember(&p.event, &target.column, &field);
                pieces::set_after(&mut p.event, &target.column, field);
            }
            return Ok(());
        }
        // The pending change is handed on: a LOB still open belongs to it.
        let capture = self.config.lob == LobMode::Capture;
        if let Some(open) = ctx.assembly.close_lob(capture) {
            self.place(open, ctx, sink)?;
        }
        if let Some(p) = ctx.pending.take() {
            self.deliver(CapturedEvent::Change(p.event), p.findings, ctx, sink)?;
        }
        let source = self.position(&row, &ctx.origin, ctx.commit_scn);
        let column = target.column.clone();
        let mut event = pieces::standalone_update(&target, field.clone(), source);
        ctx.images.remember(&event, &column, &field);
        event.commit_ts_ms = ctx.commit_ts_ms;
        event.table_order = ctx.table_orders.next(&target.schema, &target.table);
        ctx.pending = Some(Pending {
            event,
            findings: Vec::new(),
        });
        Ok(())
    }

    /// Hands one event to the sink, unless the checkpoint says it was.
    fn deliver(
        &mut self,
        mut event: CapturedEvent,
        findings: Vec<TxnFinding>,
        ctx: &mut EmitCtx,
        sink: &mut Sink<'_>,
    ) -> Result<(), TxnError> {
        if let CapturedEvent::Change(c) = &mut event {
            ctx.images.apply(c);
        }
        let this = ctx.index;
        ctx.index += 1;
        if self
            .filter
            .as_ref()
            .is_some_and(|f| f.already_emitted(ctx.commit_scn, &ctx.xid, this))
        {
            self.stats.skipped_as_emitted += 1;
            return Ok(());
        }
        self.add_findings(findings.into_iter());
        match &mut event {
            CapturedEvent::Change(c) => {
                c.index = this;
                c.partial = ctx.partial;
                match c.op {
                    Op::Create => self.counts.inserts += 1,
                    Op::Update => self.counts.updates += 1,
                    Op::Delete => self.counts.deletes += 1,
                    Op::Truncate => self.counts.truncates += 1,
                    Op::Read => {}
                }
            }
            CapturedEvent::Ddl(_) => self.counts.ddl += 1,
        }
        sink(event).map_err(TxnError::Sink)?;
        if let Some(e) = self.emitting.as_mut() {
            e.last_index = Some(this);
        }
        Ok(())
    }

    /// A row that cannot be read: an error, or a dead letter under
    /// [`OnParseError::Warn`].
    fn reject(
        &mut self,
        row: &LogMinerRow,
        commit_scn: Scn,
        message: String,
        position: usize,
        raw: String,
    ) -> Result<(), TxnError> {
        match self.config.on_parse_error {
            OnParseError::Fail => Err(TxnError::Parse {
                scn: row.scn,
                xid: row.xid.clone(),
                message,
                position,
                raw,
            }),
            OnParseError::Warn => {
                self.stats.dead_letters += 1;
                self.dead_letters.push(DeadLetter {
                    scn: row.scn,
                    commit_scn,
                    xid: row.xid.clone(),
                    message,
                    position,
                    raw,
                });
                Ok(())
            }
        }
    }

    fn position(&self, row: &LogMinerRow, origin: &Origin, commit_scn: Scn) -> SourcePosition {
        SourcePosition {
            name: self.config.server_name.clone(),
            db: row
                .src_con_name
                .clone()
                .unwrap_or_else(|| self.config.db_name.clone()),
            schema: row.seg_owner.clone().unwrap_or_default(),
            table: row.table_name.clone().unwrap_or_default(),
            xid: row.xid.clone(),
            scn: row.scn,
            commit_scn,
            change_ts_ms: ts_ms(row.timestamp),
            rs_id: row.rs_id.clone(),
            ssn: row.ssn,
            thread: row.thread,
            row_id: row.row_id.clone(),
            dialect: self.config.dialect,
            user_name: origin.user_name.clone(),
            start_scn: origin.start_scn,
            start_ts_ms: origin.start_ts_ms,
        }
    }

    /// [`TxnBuffer::position`] of a row no longer needed.
    fn position_of(&self, row: LogMinerRow, origin: &Origin, commit_scn: Scn) -> SourcePosition {
        SourcePosition {
            name: self.config.server_name.clone(),
            db: row
                .src_con_name
                .unwrap_or_else(|| self.config.db_name.clone()),
            schema: row.seg_owner.unwrap_or_default(),
            table: row.table_name.unwrap_or_default(),
            xid: row.xid,
            scn: row.scn,
            commit_scn,
            change_ts_ms: ts_ms(row.timestamp),
            rs_id: row.rs_id,
            ssn: row.ssn,
            thread: row.thread,
            row_id: row.row_id,
            dialect: self.config.dialect,
            user_name: origin.user_name.clone(),
            start_scn: origin.start_scn,
            start_ts_ms: origin.start_ts_ms,
        }
    }

    fn change_event(
        &mut self,
        mut row: LogMinerRow,
        (commit_scn, commit_ts_ms): (Scn, i64),
        origin: &Origin,
        table_orders: &mut TableOrders,
        findings: &mut Vec<TxnFinding>,
    ) -> Result<Option<ChangeEvent>, TxnError> {
        // The statement's text becomes its images' text: taken, not copied.
        let sql = row.sql_redo.take().unwrap_or_default();
        let tie = |finding| TxnFinding {
            xid: row.xid.clone(),
            scn: row.scn,
            finding,
        };
        if let Some(f) = decode::status_finding(row.status, row.info.as_deref()) {
            findings.push(tie(f));
            return Ok(None);
        }
        let mut decoded = match decode::decode(
            sql,
            self.config.relaxed_quotes,
            self.config.charsets.as_deref(),
            &self.reported_once,
        ) {
            Ok(d) => d,
            Err(e) => {
                self.reject(&row, commit_scn, e.message, e.position, e.raw)?;
                return Ok(None);
            }
        };
        // EMPTY_CLOB()/EMPTY_BLOB(): an empty value whose content, if any,
        // follows in LOB rows.
        for (column, binary) in &decoded.empty_lobs {
            match self.config.lob {
                LobMode::Capture => {
                    if let Some(after) = decoded.after.as_mut() {
                        let empty = if *binary {
                            Field::Binary(String::new())
                        } else {
                            Field::Text(String::new())
                        };
                        after.update(|c, _| (c == column).then(|| empty.clone()));
                    }
                }
                LobMode::Placeholder => {
                    let given = self.reported_once.contains(
                        ReportedOnce::LOB_UNAVAILABLE,
                        &decoded.schema,
                        &decoded.table,
                        column,
                    );
                    if !given {
                        findings.push(tie(Finding::LobUnavailable {
                            schema: decoded.schema.clone(),
                            table: decoded.table.clone(),
                            column: column.clone(),
                        }));
                    }
                }
            }
        }
        findings.extend(decoded.findings.into_iter().map(tie));
        let op = match decoded.kind {
            DmlKind::Insert => Op::Create,
            DmlKind::Update => Op::Update,
            DmlKind::Delete => Op::Delete,
        };
        // The row is spent here: its strings move into the event rather
        // than being copied, and the statement's names replace the row's
        // without copying those first.
        if !decoded.schema.is_empty() {
            row.seg_owner = Some(decoded.schema);
        }
        if !decoded.table.is_empty() {
            row.table_name = Some(decoded.table);
        }
        if row.row_id.is_none() {
            row.row_id = decoded.row_id;
        }
        let source = self.position_of(row, origin, commit_scn);
        let table_order = table_orders.next(&source.schema, &source.table);
        Ok(Some(ChangeEvent {
            op,
            before: decoded.before,
            after: decoded.after,
            table_order,
            source,
            snapshot: SnapshotMark::Stream,
            partial: false,
            commit_ts_ms,
            index: 0,
        }))
    }

    fn ddl_event(
        &self,
        row: LogMinerRow,
        origin: &Origin,
        commit_scn: Scn,
        commit_ts_ms: i64,
    ) -> DdlEvent {
        let source = self.position(&row, origin, commit_scn);
        DdlEvent {
            source,
            ddl: row.sql_redo.unwrap_or_default(),
            commit_ts_ms,
        }
    }

    fn add_findings(&mut self, findings: impl Iterator<Item = TxnFinding>) {
        for f in findings {
            // Once per column: a RAW column or a LOB column would otherwise
            // repeat the finding on every change.
            if let Some((kind, schema, table, column)) = ReportedOnce::key(&f.finding) {
                if !self.reported_once.insert(kind, schema, table, column) {
                    continue;
                }
            }
            self.stats.findings += 1;
            self.findings.push(f);
        }
    }

    /// Ends a mining window: every row at or below `upper_scn` has been read.
    /// A continuation chain left open is a truncated statement (an error);
    /// DDL transactions still waiting for their COMMIT auto-commit at the
    /// DDL's SCN, as Oracle's DDL does.
    pub fn finish_window(&mut self, upper_scn: Scn, sink: &mut Sink<'_>) -> Result<(), TxnError> {
        self.csf.finish()?;
        self.complete_scn = self.complete_scn.max(upper_scn);
        self.seen_scn = self.seen_scn.max(upper_scn);
        let mut ddl_only: Vec<(Scn, String)> = self
            .open
            .values()
            .filter(|t| t.ddl > 0 && t.changes == 0)
            .map(|t| (t.start_scn, t.xid.clone()))
            .collect();
        ddl_only.sort();
        for (_, xid) in ddl_only {
            let Some(txn) = self.open.remove(&xid) else {
                continue;
            };
            self.mem_bytes = self.mem_bytes.saturating_sub(txn.mem_bytes);
            // The DDL's own SCN is its commit point; it cannot sort before a
            // commit already emitted, so the later of the two is used.
            let scn = self.last_ddl_scn(&txn).max(self.commit_scn);
            let ts = txn.start_time;
            if self
                .filter
                .as_ref()
                .is_some_and(|f| f.transaction_done(scn, &xid))
            {
                continue;
            }
            self.emit(txn, scn, ts_ms(ts), sink)?;
            self.counts.commits += 1;
            self.record_commit(scn, xid.clone());
            self.auto_committed.insert(xid);
        }
        Ok(())
    }

    fn last_ddl_scn(&self, txn: &Txn) -> Scn {
        txn.mem
            .iter()
            .filter(|r| r.operation_code == OperationCode::Ddl)
            .map(|r| r.scn)
            .max()
            .unwrap_or(txn.start_scn)
    }
}

fn unsupported_finding(row: &LogMinerRow) -> TxnFinding {
    let info = match row.info.as_deref().filter(|s| !s.is_empty()) {
        Some(i) => i.to_string(),
        None => format!(
            "operation UNSUPPORTED (code 255) on {}.{}; the change is not captured",
            row.seg_owner.as_deref().unwrap_or("?"),
            row.table_name.as_deref().unwrap_or("?")
        ),
    };
    TxnFinding {
        xid: row.xid.clone(),
        scn: row.scn,
        finding: Finding::Unreconstructable { info },
    }
}
