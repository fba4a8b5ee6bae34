//! Row changes inside a transaction: the row images the workload writes
//! (values, partition keys, primary keys), INSERT/UPDATE/DELETE with their
//! redo and row locks, LOB content after an insert, and the ROLLBACK=1 redo
//! that undoes changes on rollback (to a savepoint or whole). Also the
//! initial rows that exist before the simulation starts.

use std::sync::Arc;

use chrono::{Duration, NaiveDateTime, Timelike};

use crate::engine::row::Scn;
use crate::source::sim::rng::Rng;
use crate::source::sim::scenario::PartitionKind;
use crate::source::sim::value::{ColType, Value, ValueGen};

use super::dictionary::{add_months, Bound, Column, RowState, Table};
use super::redo::{Body, DmlOp, TxnTag};
use super::txn::{Change, TxnKind};
use super::Model;

impl Model {
    /// Rows that exist before the simulation starts (no redo).
    pub(super) fn initial_load(&mut self, load_rng: &mut Rng) {
        let start = self.start;
        for t in 0..self.tables.len() {
            let n = self.scenario.tables.get(t).map_or(0, |s| s.rows);
            for _ in 0..n {
                let values = self.new_row(load_rng, t, true);
                let key = self.tables[t].next_key;
                self.tables[t].next_key += 1;
                let values = self.with_key(t, key, values);
                if let Some(part) = self.place(t, &values, start - Duration::days(30)) {
                    let rid = self.alloc_rowid(t, part);
                    self.tables[t].rows.insert(
                        key,
                        RowState {
                            values: Arc::new(values),
                            rowid: Arc::from(rid.as_str()),
                            part,
                        },
                    );
                }
            }
        }
    }

    /// A generated value as its column holds it: in the database's
    /// character sets, and (`workload.nondisplayable_text_pct` of character
    /// values) with a control character, which LogMiner prints as
    /// `HEXTORAW`. Draws from `rng` only when that percentage is set, so
    /// other scenarios generate what they always did.
    fn storable(&self, rng: &mut Rng, ty: &ColType, v: Value) -> Value {
        let v = v.stored_in(ty, &self.nls.charsets);
        let pct = self.scenario.workload.nondisplayable_text_pct;
        if pct <= 0.0 || !rng.chance(pct / 100.0) {
            return v;
        }
        with_control_character(rng, v)
    }

    fn new_row(&self, rng: &mut Rng, t: usize, initial: bool) -> Vec<Value> {
        let table = &self.tables[t];
        let now = if initial {
            self.start - Duration::days(10)
        } else {
            self.now()
        };
        table
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if c.nullable && !table.pk.contains(&i) && rng.chance(0.08) {
                    return Value::Null;
                }
                if let (ColType::Raw(n), true) = (&c.ty, table.pk.contains(&i)) {
                    // A RAW key is a SYS_GUID(): 16 random bytes, unique.
                    let len = (*n).clamp(1, 16) as usize;
                    return Value::Raw((0..len).map(|_| rng.below(256) as u8).collect());
                }
                if let Some(p) = &table.partitioning {
                    if p.column == i {
                        if let Some(v) = self.partition_key_value(rng, table, c, now, initial) {
                            return v;
                        }
                    }
                }
                let v = ValueGen::generate(rng, &c.ty, &c.name, now, true);
                let v = self.storable(rng, &c.ty, v);
                if v.is_null() && !c.nullable {
                    // Oracle stores '' as NULL; a NOT NULL column needs text.
                    return match c.ty {
                        ColType::NVarchar2(_) => Value::NStr("x".into()),
                        _ => Value::Str("x".into()),
                    };
                }
                v
            })
            .collect()
    }

    fn partition_key_value(
        &self,
        rng: &mut Rng,
        table: &Table,
        c: &Column,
        now: NaiveDateTime,
        initial: bool,
    ) -> Option<Value> {
        let p = table.partitioning.as_ref()?;
        match p.kind {
            PartitionKind::List => {
                let mut vals: Vec<&String> = p
                    .partitions
                    .iter()
                    .filter(|x| !x.dropped)
                    .flat_map(|x| match &x.bound {
                        Bound::List(v) => v.iter().collect(),
                        _ => Vec::new(),
                    })
                    .collect();
                vals.sort();
                let v = rng.pick(&vals)?;
                Some(match c.ty {
                    ColType::Number { .. } => Value::Number((*v).clone()),
                    _ => Value::Str((*v).clone()),
                })
            }
            PartitionKind::Range | PartitionKind::Interval => match c.ty {
                ColType::Date => {
                    let first = p.partitions.iter().find_map(|x| match x.bound {
                        Bound::Date(d) => Some(d),
                        _ => None,
                    })?;
                    let lo = add_months(first, -1);
                    let (lo, hi) = if initial {
                        (lo, self.start)
                    } else {
                        // Mostly recent orders, some a few days ahead (new interval partitions).
                        (now - Duration::days(20), now + Duration::days(3))
                    };
                    let span = (hi - lo).num_seconds().max(1) as u64;
                    let mut d = lo + Duration::seconds(rng.below(span) as i64);
                    if p.kind == PartitionKind::Range {
                        // Plain range partitioning refuses keys above the top bound (ORA-14400).
                        let top = p
                            .partitions
                            .iter()
                            .filter(|x| !x.dropped)
                            .filter_map(|x| match x.bound {
                                Bound::Date(h) => Some(h),
                                _ => None,
                            })
                            .max();
                        let unbounded = p
                            .partitions
                            .iter()
                            .any(|x| !x.dropped && x.bound == Bound::MaxValue);
                        if let (Some(h), false) = (top, unbounded) {
                            if d >= h {
                                d = h - Duration::days(1);
                            }
                        }
                    }
                    Some(Value::Date(d.with_nanosecond(0).unwrap_or(d)))
                }
                _ => None,
            },
            PartitionKind::Hash => None,
        }
    }

    fn with_key(&self, t: usize, key: i64, mut values: Vec<Value>) -> Vec<Value> {
        if let Some((i, v)) = self.tables[t].key_value(key) {
            values[i] = v;
        }
        values
    }

    /// A row for an UPDATE or DELETE: one no open transaction holds.
    /// `None` only when there is no such row at all.
    fn pick_row(&mut self, t: usize) -> Option<i64> {
        let table = &self.tables[t];
        let (&lo, _) = table.rows.first_key_value()?;
        let (&hi, _) = table.rows.last_key_value()?;
        let mut k = lo;
        for _ in 0..4 {
            k = lo + self.rng.below((hi - lo + 1) as u64) as i64;
            let key = *self.tables[t].rows.range(k..).next()?.0;
            if !self.locks.contains_key(&(t, key)) {
                return Some(key);
            }
        }
        // Every draw hit a row an open transaction holds. The draws land on
        // the rows after gaps that deletes left in the key range, which
        // recent changes hold more and more often as the table ages; giving
        // up here turned the statement into an INSERT, so the table grew
        // although inserts and deletes had the same weight. The next free
        // row after the last draw (wrapping round) is taken instead.
        let rows = &self.tables[t].rows;
        rows.range(k..)
            .chain(rows.range(..k))
            .map(|(&key, _)| key)
            .find(|&key| !self.locks.contains_key(&(t, key)))
    }

    /// One statement of open transaction `i`: an INSERT, UPDATE or DELETE
    /// drawn by the workload's weights, or a `dbms_lob` rewrite.
    pub(super) fn dml(&mut self, i: usize) {
        let Some(t) = self.open[i]
            .table
            .filter(|&t| !self.tables[t].dropped)
            .or_else(|| self.pick_table())
        else {
            return;
        };
        if self.open[i].kind == TxnKind::Normal && self.open[i].changes.is_empty() {
            let pdb = self.con_name(Some(t));
            let x = &mut self.open[i];
            if *x.pdb() != pdb {
                x.tag = TxnTag::new(x.xid().clone(), x.username().clone(), pdb);
            }
        }
        if self.open[i].pdb().as_deref() != self.con_name(Some(t)).as_deref() {
            // A transaction stays inside one container.
            return;
        }
        let w = &self.scenario.workload;
        let total = u64::from(w.insert + w.update + w.delete);
        let x = self.rng.below(total) as u32;
        let op = if x < w.insert {
            DmlOp::Insert
        } else if x < w.insert + w.update {
            DmlOp::Update
        } else {
            DmlOp::Delete
        };
        let key = if op == DmlOp::Insert {
            None
        } else {
            self.pick_row(t)
        };
        let mut rng = self.rng.fork();
        let xid = self.open[i].xid().clone();
        let lob_pct = self.scenario.workload.lob_update_pct;
        // Only as the last change of a transaction that commits with no
        // savepoint to roll back to: LogMiner shows no statement to undo.
        let last = self.open[i].remaining == 1
            && !self.open[i].will_rollback
            && self.open[i].savepoint.is_none();
        if let (DmlOp::Update, Some(key)) = (op, key) {
            if last
                && lob_pct > 0.0
                && rng.chance(lob_pct / 100.0)
                && self.lob_update(i, t, key, &mut rng)
            {
                return;
            }
        }
        match (op, key) {
            (DmlOp::Update, Some(key)) => self.dml_update(i, t, key, xid, rng),
            (DmlOp::Delete, Some(key)) => self.dml_delete(i, t, key, xid),
            // An INSERT, or an UPDATE or DELETE that finds no row free (an
            // empty table fills this way).
            _ => self.dml_insert(i, t, xid, rng),
        }
    }

    /// An UPDATE of row `key` of table `t`: one to three columns get new
    /// values, written as the DML row and the pieces of what it does not print.
    fn dml_update(&mut self, i: usize, t: usize, key: i64, xid: Arc<str>, mut rng: Rng) {
        let Some(row) = self.tables[t].rows.get(&key).cloned() else {
            return;
        };
        let Some(changed) = self.columns_to_change(t, &mut rng) else {
            return;
        };
        let now = self.now();
        let mut after = (*row.values).clone();
        for &c in &changed {
            let col = &self.tables[t].columns[c];
            let v = ValueGen::generate(&mut rng, &col.ty, &col.name, now, true);
            let mut v = self.storable(&mut rng, &col.ty, v);
            if col.nullable && rng.chance(0.08) {
                v = Value::Null;
            }
            if v.is_null() && !col.nullable {
                v = row.values[c].clone();
            }
            after[c] = v;
        }
        self.ensure_started(i);
        self.locks.insert((t, key), xid);
        let (obj, objd) = self.tables[t].segment(row.part);
        let before = row.values.clone();
        let after = Arc::new(after);
        if let Some(r) = self.tables[t].rows.get_mut(&key) {
            r.values = after.clone();
        }
        self.push_change(
            i,
            t,
            key,
            DmlOp::Update,
            Some(before),
            Some(after.clone()),
            row.rowid.clone(),
            obj,
            objd,
            changed.clone(),
        );
        self.write_pieces(i, t, obj, objd, &row.rowid, &after, &changed);
    }

    /// The columns an UPDATE of table `t` changes: one to three that are
    /// neither key, partitioning column nor LOB, one of them printed in the
    /// statement; none when the table has no such column.
    fn columns_to_change(&self, t: usize, rng: &mut Rng) -> Option<Vec<usize>> {
        let table = &self.tables[t];
        let part_col = table.partitioning.as_ref().map(|p| p.column);
        let candidates: Vec<usize> = (0..table.columns.len())
            .filter(|c| {
                !table.pk.contains(c) && Some(*c) != part_col && !table.columns[*c].ty.is_lob()
            })
            .collect();
        if candidates.is_empty() {
            return None;
        }
        let n = rng.range(1, 3.min(candidates.len() as u64)) as usize;
        let mut changed: Vec<usize> = Vec::new();
        while changed.len() < n {
            if let Some(&c) = rng.pick(&candidates) {
                if !changed.contains(&c) {
                    changed.push(c);
                }
            }
        }
        // A statement always changes one column LogMiner prints, so
        // the XML or 32K rows follow a DML row of their own.
        let printed: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|&c| !pieces_type(&table.columns[c].ty))
            .collect();
        if changed.iter().all(|&c| pieces_type(&table.columns[c].ty)) {
            if let Some(&c) = rng.pick(&printed) {
                changed.push(c);
            }
        }
        changed.sort_unstable();
        Some(changed)
    }

    /// A DELETE of row `key` of table `t`.
    fn dml_delete(&mut self, i: usize, t: usize, key: i64, xid: Arc<str>) {
        let Some(row) = self.tables[t].rows.get(&key).cloned() else {
            return;
        };
        self.ensure_started(i);
        self.locks.insert((t, key), xid);
        let (obj, objd) = self.tables[t].segment(row.part);
        self.tables[t].rows.remove(&key);
        self.push_change(
            i,
            t,
            key,
            DmlOp::Delete,
            Some(row.values),
            None,
            row.rowid,
            obj,
            objd,
            Vec::new(),
        );
    }

    /// An INSERT of a new row into table `t`, with the pieces of what its
    /// statement does not print.
    fn dml_insert(&mut self, i: usize, t: usize, xid: Arc<str>, mut rng: Rng) {
        let values = self.new_row(&mut rng, t, false);
        let key = self.tables[t].next_key;
        let values = self.with_key(t, key, values);
        let now = self.now_sec();
        let Some(part) = self.place(t, &values, now) else {
            return;
        };
        self.tables[t].next_key += 1;
        self.ensure_started(i);
        self.locks.insert((t, key), xid);
        let rid: Arc<str> = Arc::from(self.alloc_rowid(t, part).as_str());
        let (obj, objd) = self.tables[t].segment(part);
        let after = Arc::new(values);
        self.tables[t].rows.insert(
            key,
            RowState {
                values: after.clone(),
                rowid: rid.clone(),
                part,
            },
        );
        self.push_change(
            i,
            t,
            key,
            DmlOp::Insert,
            None,
            Some(after.clone()),
            rid.clone(),
            obj,
            objd,
            Vec::new(),
        );
        let all: Vec<usize> = (0..after.len()).collect();
        self.write_pieces(i, t, obj, objd, &rid, &after, &all);
    }

    /// `dbms_lob` rewrites a CLOB or BLOB of an existing row: no DML row,
    /// only the locator, the writes and a trim to the new length. False when
    /// the table has no LOB column to write.
    fn lob_update(&mut self, i: usize, t: usize, key: i64, rng: &mut Rng) -> bool {
        let Some(row) = self.tables[t].rows.get(&key).cloned() else {
            return false;
        };
        let lobs: Vec<usize> = (0..self.tables[t].columns.len())
            .filter(|&c| self.tables[t].columns[c].ty.is_lob())
            .collect();
        let Some(&c) = rng.pick(&lobs) else {
            return false;
        };
        let now = self.now();
        let col = &self.tables[t].columns[c];
        let v = ValueGen::generate(rng, &col.ty, &col.name, now, true);
        let v = self.storable(rng, &col.ty, v);
        let mut after = (*row.values).clone();
        after[c] = v;
        let xid = self.open[i].xid().clone();
        self.ensure_started(i);
        self.locks.insert((t, key), xid);
        let (obj, objd) = self.tables[t].segment(row.part);
        let after = Arc::new(after);
        if let Some(r) = self.tables[t].rows.get_mut(&key) {
            r.values = after.clone();
        }
        let (scn, rs_id) = self.write_lob(i, t, obj, objd, &row.rowid, &after, c, true);
        let (time, thread) = (self.now_sec(), self.open[i].thread);
        self.open[i].changes.push(Change {
            table: t,
            key,
            op: DmlOp::Update,
            before: Some(row.values.clone()),
            after: Some(after),
            rowid: row.rowid.clone(),
            scn,
            time,
            rs_id,
            thread,
            obj,
            objd,
            changed: vec![c],
            lob_only: true,
        });
        true
    }

    /// The values LogMiner leaves out of a statement follow it, each in its
    /// own rows: LOB content after EMPTY_LOB() (a locator row, then
    /// LOB_WRITE pieces), XMLType in XML DOC BEGIN/WRITE/END, extended
    /// strings in 32K BEGIN/WRITE/END. `columns`: which of `row` to write.
    #[allow(clippy::too_many_arguments)]
    fn write_pieces(
        &mut self,
        i: usize,
        t: usize,
        obj: u64,
        objd: u64,
        rowid: &Arc<str>,
        row: &Arc<Vec<Value>>,
        columns: &[usize],
    ) {
        // DM8 prints LOB values in the statement itself (or OUT_CLOB):
        // it has no LOB, XML DOC or 32K rows.
        if self.scenario.is_dm() {
            return;
        }
        for &c in columns {
            match row.get(c) {
                Some(Value::Clob(_) | Value::Blob(_)) => {
                    self.write_lob(i, t, obj, objd, rowid, row, c, false);
                }
                Some(v @ Value::Xml(_)) => {
                    let sqls = self.xml_rows(t, c, row, v);
                    self.emit_pieces(i, t, obj, objd, rowid, sqls);
                }
                Some(v) if v.is_extended_string() => {
                    let sqls = self.string_rows(t, c, row, v);
                    self.emit_pieces(i, t, obj, objd, rowid, sqls);
                }
                _ => {}
            }
        }
    }

    fn emit_pieces(
        &mut self,
        i: usize,
        t: usize,
        obj: u64,
        objd: u64,
        rowid: &Arc<str>,
        sqls: Vec<(u16, Option<String>)>,
    ) {
        let (thread, tag) = (self.open[i].thread, self.open[i].tag.clone());
        for (code, sql) in sqls {
            let size = sql.as_ref().map_or(40, |s| s.len() as u64 + 40);
            let body = Body::Piece {
                table: t,
                obj,
                objd,
                rowid: rowid.clone(),
                code,
                sql,
            };
            self.emit(thread, &tag, body, size, false);
        }
    }

    /// `a."PK" = '1'`: the key XML DOC BEGIN and 32K BEGIN name the row by.
    fn alias_key(&self, t: usize, row: &[Value], quote_twice: bool) -> String {
        let table = &self.tables[t];
        table
            .pk
            .iter()
            .filter_map(|&k| {
                let lit = row.get(k)?.sql_literal();
                let lit = if quote_twice {
                    lit.replace('\'', "''")
                } else {
                    lit
                };
                Some(format!("a.\"{}\" = {lit}", table.columns[k].name))
            })
            .collect::<Vec<_>>()
            .join(" and ")
    }

    /// XML DOC BEGIN / WRITE / END as Oracle's XMLType example prints them;
    /// a document stored out of line comes as HEXTORAW pieces that may cut
    /// a character in two.
    fn xml_rows(&self, t: usize, c: usize, row: &[Value], v: &Value) -> Vec<(u16, Option<String>)> {
        let table = &self.tables[t];
        let Value::Xml(doc) = v else {
            return Vec::new();
        };
        let mut out = vec![(
            68,
            Some(format!(
                "update \"{}\".\"{}\" a set a.\"{}\" = XMLType(:1) where {};",
                table.name.owner,
                table.name.table,
                table.columns[c].name,
                self.alias_key(t, row, false)
            )),
        )];
        if doc.len() > 4000 {
            for piece in doc.as_bytes().chunks(1000) {
                let hex = crate::source::sim::value::hex(piece);
                out.push((
                    70,
                    Some(format!("XML_REDO := HEXTORAW('{hex}'):{}", piece.len())),
                ));
            }
        } else {
            let chars: Vec<char> = doc.chars().collect();
            for piece in chars.chunks(1000) {
                let text: String = piece.iter().collect();
                out.push((
                    70,
                    Some(format!(
                        "XML_REDO := '{}':{}",
                        text.replace('\'', "''"),
                        piece.len()
                    )),
                ));
            }
        }
        out.push((71, None));
        out
    }

    /// 32K BEGIN / WRITE / END of a VARCHAR2 value past 4000 bytes.
    fn string_rows(
        &self,
        t: usize,
        c: usize,
        row: &[Value],
        v: &Value,
    ) -> Vec<(u16, Option<String>)> {
        let table = &self.tables[t];
        let Value::Str(text) = v else {
            return Vec::new();
        };
        let col = &table.columns[c].name;
        let mut out = vec![(
            91,
            Some(format!(
                "DECLARE \n TempLob CLOB;\n buf_c VARCHAR2(32767);\n Stmt CLOB;\nBEGIN\n DBMS_LOB.CreateTemporary(TempLob, FALSE);\n Stmt := 'update \"{}\".\"{}\" a set a.\"{col}\" = :{col} where {};';",
                table.name.owner,
                table.name.table,
                self.alias_key(t, row, true)
            )),
        )];
        let chars: Vec<char> = text.chars().collect();
        for piece in chars.chunks(2000) {
            let s: String = piece.iter().collect();
            out.push((
                92,
                Some(format!(
                    " buf_c := '{}';\n DBMS_LOB.WRITEAPPEND(TempLob, {}, buf_c);",
                    s.replace('\'', "''"),
                    piece.len()
                )),
            ));
        }
        out.push((93, None));
        out
    }

    /// A LOB's content: a locator row, then LOB_WRITE pieces, each its own
    /// redo record; rewriting an existing value (`dbms_lob`) ends with a
    /// LOB_TRIM to the new length.
    #[allow(clippy::too_many_arguments)]
    fn write_lob(
        &mut self,
        i: usize,
        t: usize,
        obj: u64,
        objd: u64,
        rowid: &Arc<str>,
        row: &Arc<Vec<Value>>,
        c: usize,
        trim: bool,
    ) -> (Scn, Arc<str>) {
        let none = (self.scn, Arc::from(""));
        let Some(v) = row.get(c) else {
            return none;
        };
        let data = match v {
            Value::Clob(s) => s.clone(),
            Value::Blob(b) => crate::source::sim::value::hex(b),
            _ => return none,
        };
        let (thread, tag) = (self.open[i].thread, self.open[i].tag.clone());
        let locator = self.emit(
            thread,
            &tag,
            Body::LobLocator {
                table: t,
                obj,
                objd,
                column: c,
                rowid: rowid.clone(),
                row: row.clone(),
            },
            200,
            false,
        );
        let blob = matches!(v, Value::Blob(_));
        let chunk = if blob { 2000 } else { 1000 };
        let mut offset = 1u64;
        for (s, chars) in char_chunks(&data, chunk) {
            let s = s.to_string();
            let size = s.len() as u64;
            self.emit(
                thread,
                &tag,
                Body::LobWrite {
                    table: t,
                    obj,
                    objd,
                    column: c,
                    rowid: rowid.clone(),
                    data: s,
                    offset,
                },
                size,
                false,
            );
            offset += if blob { chars as u64 / 2 } else { chars as u64 };
        }
        if trim {
            let var = if blob { "loc_b" } else { "loc_c" };
            let body = Body::Piece {
                table: t,
                obj,
                objd,
                rowid: rowid.clone(),
                code: 11,
                sql: Some(format!(" dbms_lob.trim({var}, {});", offset - 1)),
            };
            self.emit(thread, &tag, body, 60, false);
        }
        (locator.scn, locator.rs_id())
    }

    #[allow(clippy::too_many_arguments)]
    fn push_change(
        &mut self,
        i: usize,
        t: usize,
        key: i64,
        op: DmlOp,
        before: Option<Arc<Vec<Value>>>,
        after: Option<Arc<Vec<Value>>>,
        rowid: Arc<str>,
        obj: u64,
        objd: u64,
        changed: Vec<usize>,
    ) {
        let size: usize = before
            .iter()
            .chain(after.iter())
            .flat_map(|v| v.iter())
            .map(Value::redo_len)
            .sum::<usize>()
            + 120;
        let (thread, tag) = (self.open[i].thread, self.open[i].tag.clone());
        let body = Body::Dml {
            table: t,
            obj,
            objd,
            op,
            rollback: false,
            rowid: rowid.clone(),
            before: before.clone(),
            after: after.clone(),
            changed: changed.clone(),
        };
        let emitted = self.emit(thread, &tag, body, size as u64, false);
        let scn = emitted.scn;
        let time = self.now_sec();
        self.open[i].changes.push(Change {
            table: t,
            key,
            op,
            before,
            after,
            rowid,
            scn,
            time,
            rs_id: emitted.rs_id(),
            thread,
            obj,
            objd,
            changed,
            lob_only: false,
        });
    }

    /// Undoes the transaction's changes after the first `keep`, newest first,
    /// writing ROLLBACK=1 rows as Oracle does.
    pub(super) fn rollback_changes(&mut self, i: usize, keep: usize) {
        while self.open[i].changes.len() > keep {
            let Some(c) = self.open[i].changes.pop() else {
                break;
            };
            let (op, before, after) = match c.op {
                DmlOp::Insert => (DmlOp::Delete, c.after.clone(), None),
                DmlOp::Update => (DmlOp::Update, c.after.clone(), c.before.clone()),
                DmlOp::Delete => (DmlOp::Insert, None, c.before.clone()),
            };
            // Restore the row image.
            match c.op {
                DmlOp::Insert => {
                    self.tables[c.table].rows.remove(&c.key);
                }
                DmlOp::Update => {
                    if let (Some(r), Some(b)) =
                        (self.tables[c.table].rows.get_mut(&c.key), &c.before)
                    {
                        r.values = b.clone();
                    }
                }
                DmlOp::Delete => {
                    if let Some(b) = &c.before {
                        let part = self.place(c.table, b, self.now_sec()).unwrap_or(0);
                        self.tables[c.table].rows.insert(
                            c.key,
                            RowState {
                                values: b.clone(),
                                rowid: c.rowid.clone(),
                                part,
                            },
                        );
                    }
                }
            }
            let (thread, tag) = (self.open[i].thread, self.open[i].tag.clone());
            let body = Body::Dml {
                table: c.table,
                obj: c.obj,
                objd: c.objd,
                op,
                rollback: true,
                rowid: c.rowid.clone(),
                before,
                after,
                changed: c.changed.clone(),
            };
            let undo = self.emit(thread, &tag, body, 150, false).scn;
            if self.scenario.is_dm() {
                self.undone.insert(c.scn, undo);
            }
        }
    }
}

/// Control characters a client may store in character data.
const CONTROL: [char; 5] = ['\u{1}', '\u{7}', '\u{1b}', '\u{1f}', '\u{7f}'];

/// `v` with its first character, when it is ASCII (so CHAR keeps its
/// length), replaced by a control character; extended strings are left
/// alone (their 32K rows carry text whatever it holds).
fn with_control_character(rng: &mut Rng, v: Value) -> Value {
    let c = rng.pick(&CONTROL).copied().unwrap_or('\u{1}');
    let swap = |s: String| -> String {
        match s.chars().next() {
            Some(first) if first.is_ascii() => format!("{c}{}", &s[1..]),
            _ => s,
        }
    };
    match v {
        Value::Str(s) if !Value::Str(s.clone()).is_extended_string() => Value::Str(swap(s)),
        Value::NStr(s) => Value::NStr(swap(s)),
        other => other,
    }
}

/// A type whose values may need rows of their own (XMLType, a VARCHAR2
/// past 4000 bytes).
fn pieces_type(ty: &ColType) -> bool {
    matches!(ty, ColType::XmlType)
        || matches!(ty, ColType::Varchar2(n) if *n as usize > crate::source::sim::value::INLINE_STRING_BYTES)
}

/// `text` cut into pieces of `n` characters (the last may be shorter), each
/// with its length in characters; borrowed, so a long LOB is not copied
/// character by character to be cut.
fn char_chunks(text: &str, n: usize) -> impl Iterator<Item = (&str, usize)> {
    let n = n.max(1);
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let (end, chars) = match rest.char_indices().nth(n) {
            Some((end, _)) => (end, n),
            None => (rest.len(), rest.chars().count()),
        };
        let (piece, tail) = rest.split_at(end);
        rest = tail;
        Some((piece, chars))
    })
}
