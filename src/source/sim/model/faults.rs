//! Partition maintenance DDL (TRUNCATE, DROP and MOVE PARTITION, DROP
//! TABLE) and the faults a scenario injects: dropped connections, deleted
//! or missing archived logs, overwritten undo.

use std::sync::Arc;

use crate::engine::event::{
    CapturedEvent, ChangeEvent, DdlEvent, Op, SnapshotMark, SourcePosition,
};
use crate::engine::row::Scn;
use crate::source::sim::scenario::{ColumnSpec, FaultKind, FaultSpec, MaintenanceAction, Scenario};
use crate::source::sim::value::{ColType, Value};

use super::dictionary::{bound_cmp, Column};
use super::redo::{Body, TxnTag};
use super::workload::{Event, Scheduled};
use super::{ms, secs_ms, Model};

/// A fault that fires once the SCN reaches the first field.
pub(super) type ScnFault = (Scn, FaultSpec);

/// Appends the scenario's time-triggered faults to `scheduled` and returns
/// the SCN-triggered ones.
pub(super) fn schedule(scenario: &Scenario, scheduled: &mut Vec<Scheduled>) -> Vec<ScnFault> {
    let mut scn_faults = Vec::new();
    for f in &scenario.faults {
        if let Some(at) = f.at_s {
            scheduled.push(Scheduled {
                at_ms: secs_ms(at),
                what: Event::Fault(f.clone()),
            });
        } else if let Some(scn) = f.at_scn {
            scn_faults.push((scn, f.clone()));
        }
    }
    scn_faults
}

/// The truncate event a capture emits after the TRUNCATE TABLE DDL at
/// `pos`: second in its transaction, with no row image.
fn truncate_event(pos: &SourcePosition, commit_ts_ms: i64) -> ChangeEvent {
    ChangeEvent {
        op: Op::Truncate,
        before: None,
        after: None,
        source: pos.clone(),
        snapshot: SnapshotMark::Stream,
        partial: false,
        commit_ts_ms,
        index: 1,
        table_order: 1,
    }
}

impl Model {
    pub(super) fn fault(&mut self, f: &FaultSpec) {
        let (sequence, count) = (f.sequence, f.count);
        match f.kind {
            FaultKind::ConnectionDrop => {
                self.connection_dropped = true;
                self.connection_drops += 1;
                self.listener_down_until_ms =
                    f.duration_s.map(|d| self.now_ms.saturating_add(secs_ms(d)));
            }
            FaultKind::ArchiveDeleted => {
                let target = sequence.or_else(|| {
                    self.archived
                        .iter()
                        .filter(|a| !a.deleted)
                        .map(|a| a.sequence)
                        .max()
                });
                if let Some(seq) = target {
                    for i in 0..self.archived.len() {
                        if self.archived[i].sequence == seq {
                            self.delete_archive(i);
                        }
                    }
                }
                self.prune_records();
            }
            FaultKind::UndoOverwritten => self.overwrite_all_undo(),
            FaultKind::ArchiveGap => self.gap_pending += count.unwrap_or(1),
            FaultKind::Resetlogs => {
                // OPEN RESETLOGS: the new incarnation starts at the next
                // SCN; archives of the old one keep its RESETLOGS_CHANGE#.
                self.scn += 1;
                self.scenario.instance.resetlogs_change = self.scn;
                self.resetlogs_time = self.now_sec();
            }
            FaultKind::MemberInvalid => {
                for g in self.threads.iter_mut().flat_map(|t| t.groups.iter_mut()) {
                    if g.members.len() > 1 {
                        g.invalid_members = g.members[..1].to_vec();
                    }
                }
            }
        }
    }

    /// Partition maintenance or DROP TABLE; false when open transactions on
    /// the segment block it (Oracle would raise ORA-00054).
    pub(super) fn maintenance(
        &mut self,
        t: usize,
        action: MaintenanceAction,
        partition: Option<String>,
        column: Option<&ColumnSpec>,
    ) -> bool {
        if self.tables[t].dropped {
            return true;
        }
        let Some(part) = self.maintenance_target(t, action, &partition) else {
            return true;
        };
        if self.maintenance_blocked(t, part) {
            return false;
        }
        let sql = self.maintenance_sql(t, action, part, column);
        let xid = self.new_xid();
        let user: Arc<str> = Arc::from(self.scenario.workload.username.as_str());
        let pdb = self.con_name(Some(t));
        let tag = TxnTag::new(xid.clone(), user, pdb);
        let start_time = self.now_sec();
        let start_scn = self.emit(1, &tag, Body::Start, 40, false).scn;
        let ddl_scn = self
            .emit(
                1,
                &tag,
                Body::Ddl {
                    table: t,
                    sql: sql.clone(),
                },
                200,
                false,
            )
            .scn;
        let ddl_time = self.now_sec();
        self.maintenance_effect(t, action, part, column, ddl_scn);
        let commit_scn = self
            .emit(1, &tag, Body::Commit { start_scn }, 40, false)
            .scn;
        let pos = self.position(t, &xid, ddl_scn, commit_scn, ddl_time, None, 1, None);
        let pos = self.with_origin(pos, &tag.username, start_scn, start_time);
        let commit_ts_ms = ms(self.now_sec());
        let truncated = (action == MaintenanceAction::TruncateTable)
            .then(|| truncate_event(&pos, commit_ts_ms));
        self.record_truth(
            start_scn,
            CapturedEvent::Ddl(DdlEvent {
                source: pos,
                ddl: sql,
                commit_ts_ms,
            }),
        );
        if let Some(e) = truncated {
            self.record_truth(start_scn, CapturedEvent::Change(e));
        }
        true
    }

    /// TRUNCATE TABLE: the rows leave without row redo and every segment
    /// gets a new data object id from `new_id` on. Unlike partition DDL the
    /// rows are not kept as removed by DDL: the capture's truncate event
    /// tells a consumer they went.
    fn truncate_table(&mut self, t: usize, ddl_scn: Scn, new_id: u64) {
        self.tables[t].rows.clear();
        self.new_segments(t, ddl_scn, new_id);
    }

    /// Gives every live segment of table `t` a new data object id, from
    /// `new_id` on, at `ddl_scn`.
    fn new_segments(&mut self, t: usize, ddl_scn: Scn, mut new_id: u64) {
        let now = self.now_sec();
        let tb = &mut self.tables[t];
        tb.last_ddl = now;
        tb.data_obj_id = new_id;
        tb.objd_changed_scn = ddl_scn;
        if let Some(pp) = tb.partitioning.as_mut() {
            for x in pp.partitions.iter_mut().filter(|x| !x.dropped) {
                new_id += 1;
                x.data_obj_id = new_id;
                x.objd_changed_scn = ddl_scn;
                x.last_ddl = now;
            }
        }
        self.next_obj = self.next_obj.max(new_id + 1);
    }

    /// ALTER TABLE MOVE: each segment is rewritten into a new one, with a
    /// new data object id from `new_id` on; every row gets a new ROWID.
    fn move_table(&mut self, t: usize, ddl_scn: Scn, new_id: u64) {
        self.new_segments(t, ddl_scn, new_id);
        self.new_rowids(t, |_| true);
    }

    /// MOVE rewrites rows into a new segment: each row of table `t` in a
    /// partition `moved` accepts gets a new ROWID there.
    fn new_rowids(&mut self, t: usize, moved: impl Fn(usize) -> bool) {
        let rows: Vec<(i64, usize)> = self.tables[t]
            .rows
            .iter()
            .filter(|(_, r)| moved(r.part))
            .map(|(k, r)| (*k, r.part))
            .collect();
        for (k, part) in rows {
            let rid = self.alloc_rowid(t, part);
            if let Some(r) = self.tables[t].rows.get_mut(&k) {
                r.rowid = Arc::from(rid.as_str());
            }
        }
    }

    /// ALTER TABLE ADD: the column joins the dictionary, NULL in every
    /// row; redo written before keeps the values it had.
    fn add_column(&mut self, t: usize, spec: &ColumnSpec) {
        let dialect = self.scenario.instance.dialect;
        let now = self.now_sec();
        let tb = &mut self.tables[t];
        tb.last_ddl = now;
        tb.columns.push(Column {
            name: spec.name.clone(),
            ty: ColType::parse_in(spec.ty.get_ref(), dialect).unwrap_or(ColType::Varchar2(100)),
            nullable: true,
        });
        for row in tb.rows.values_mut() {
            let mut values = row.values.as_ref().clone();
            values.push(Value::Null);
            row.values = Arc::new(values);
        }
    }

    /// The partition maintenance acts on (none for DROP TABLE); nothing
    /// when the table is not partitioned or the partition is gone.
    fn maintenance_target(
        &self,
        t: usize,
        action: MaintenanceAction,
        partition: &Option<String>,
    ) -> Option<Option<usize>> {
        match (&self.tables[t].partitioning, action) {
            (
                _,
                MaintenanceAction::DropTable
                | MaintenanceAction::TruncateTable
                | MaintenanceAction::MoveTable
                | MaintenanceAction::AddColumn,
            ) => Some(None),
            (Some(p), _) => {
                let live: Vec<usize> = (0..p.partitions.len())
                    .filter(|&i| !p.partitions[i].dropped)
                    .collect();
                let chosen = match partition {
                    Some(name) => live
                        .iter()
                        .copied()
                        .find(|&i| &p.partitions[i].name == name),
                    None => live
                        .iter()
                        .copied()
                        .min_by(|a, b| bound_cmp(&p.partitions[*a].bound, &p.partitions[*b].bound)),
                };
                chosen.map(Some)
            }
            (None, _) => None,
        }
    }

    /// Whether an open transaction holds a row of the segment (Oracle
    /// would raise ORA-00054).
    fn maintenance_blocked(&self, t: usize, part: Option<usize>) -> bool {
        self.locks.keys().any(|(tt, k)| {
            *tt == t
                && (part.is_none()
                    || self.tables[t]
                        .rows
                        .get(k)
                        .is_none_or(|r| Some(r.part) == part))
        })
    }

    /// The DDL statement of the action on the table or its partition.
    fn maintenance_sql(
        &self,
        t: usize,
        action: MaintenanceAction,
        part: Option<usize>,
        column: Option<&ColumnSpec>,
    ) -> String {
        let owner = self.tables[t].name.owner.clone();
        let name = self.tables[t].name.table.clone();
        let pname = part
            .and_then(|p| {
                self.tables[t]
                    .partitioning
                    .as_ref()
                    .map(|x| x.partitions[p].name.clone())
            })
            .unwrap_or_default();
        match action {
            MaintenanceAction::TruncatePartition => {
                format!("ALTER TABLE \"{owner}\".\"{name}\" TRUNCATE PARTITION \"{pname}\";")
            }
            MaintenanceAction::DropPartition => {
                format!("ALTER TABLE \"{owner}\".\"{name}\" DROP PARTITION \"{pname}\";")
            }
            MaintenanceAction::MovePartition => {
                format!("ALTER TABLE \"{owner}\".\"{name}\" MOVE PARTITION \"{pname}\";")
            }
            MaintenanceAction::ExchangePartition => format!(
                "ALTER TABLE \"{owner}\".\"{name}\" EXCHANGE PARTITION \"{pname}\" WITH TABLE \"{owner}\".\"{name}_XCHG\" WITHOUT VALIDATION;"
            ),
            MaintenanceAction::DropTable => format!("DROP TABLE \"{owner}\".\"{name}\" PURGE;"),
            MaintenanceAction::MoveTable => format!("ALTER TABLE \"{owner}\".\"{name}\" MOVE;"),
            MaintenanceAction::AddColumn => {
                let (column, ty) = column.map_or(("", ""), |c| (c.name.as_str(), c.ty.get_ref().as_str()));
                format!("ALTER TABLE \"{owner}\".\"{name}\" ADD \"{column}\" {ty};")
            }
            // LogMiner gives the statement as it was typed: unquoted here,
            // so the capture names the table from the row's columns.
            MaintenanceAction::TruncateTable => {
                format!("truncate table {}.{} drop storage", owner.to_lowercase(), name.to_lowercase())
            }
        }
    }

    /// What the DDL does to the dictionary and the rows: a dropped table
    /// or partition, a new segment, rows gone without row redo (kept for
    /// the ground truth) or given new ROWIDs, a column added.
    fn maintenance_effect(
        &mut self,
        t: usize,
        action: MaintenanceAction,
        part: Option<usize>,
        column: Option<&ColumnSpec>,
        ddl_scn: Scn,
    ) {
        if let (MaintenanceAction::AddColumn, Some(c)) = (action, column) {
            // No segment changes: no new data object id.
            self.add_column(t, c);
            return;
        }
        let new_id = self.next_obj;
        self.next_obj += 1;
        let now = self.now_sec();
        match (action, part) {
            (MaintenanceAction::DropTable, _) => {
                let tb = &mut self.tables[t];
                tb.dropped = true;
                tb.rows.clear();
                self.dropped_objects.insert(tb.obj_id);
                if let Some(p) = &tb.partitioning {
                    for x in &p.partitions {
                        self.dropped_objects.insert(x.obj_id);
                    }
                }
            }
            (MaintenanceAction::TruncateTable, _) => self.truncate_table(t, ddl_scn, new_id),
            (MaintenanceAction::MoveTable, _) => self.move_table(t, ddl_scn, new_id),
            (action, Some(p)) => {
                let mut moved = false;
                let mut removed = Vec::new();
                {
                    let tb = &mut self.tables[t];
                    tb.last_ddl = now;
                    if let Some(pp) = tb.partitioning.as_mut() {
                        let x = &mut pp.partitions[p];
                        x.last_ddl = now;
                        match action {
                            MaintenanceAction::DropPartition => {
                                x.dropped = true;
                                x.objd_changed_scn = ddl_scn;
                                self.dropped_objects.insert(x.obj_id);
                            }
                            _ => {
                                x.data_obj_id = new_id;
                                x.objd_changed_scn = ddl_scn;
                            }
                        }
                    }
                    match action {
                        MaintenanceAction::TruncatePartition
                        | MaintenanceAction::DropPartition
                        | MaintenanceAction::ExchangePartition => {
                            // The rows leave without row redo: a capture sees
                            // only the DDL, so the ground truth keeps which
                            // keys went (see `Model::ddl_removed`).
                            let gone: Vec<(i64, Arc<Vec<crate::source::sim::value::Value>>)> = tb
                                .rows
                                .iter()
                                .filter(|(_, r)| r.part == p)
                                .map(|(k, r)| (*k, r.values.clone()))
                                .collect();
                            tb.rows.retain(|_, r| r.part != p);
                            removed = gone;
                        }
                        _ => moved = true,
                    }
                }
                for (k, values) in removed {
                    let key = self.key_texts(t, k, &values);
                    self.record_ddl_removed(ddl_scn, t, key);
                }
                if moved {
                    self.new_rowids(t, |part| part == p);
                }
            }
            _ => {}
        }
    }
}
