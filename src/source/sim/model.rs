//! The simulated instance's state: dictionary (tables, partitions, object
//! ids), rows, open transactions, the SCN clock, redo records, online and
//! archived logs, undo history and the ground truth of committed changes.
//!
//! Generation is incremental: `advance_to` produces workload up to a
//! database time, and redo of logs that no longer exist anywhere is dropped,
//! so memory stays bounded however long the simulation runs.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::Arc;

use chrono::{Datelike, Duration, NaiveDate, NaiveDateTime, Timelike};

use crate::engine::event::{
    CapturedEvent, ChangeEvent, DdlEvent, Field, Image, Op, SourcePosition,
};
use crate::engine::row::{format_xid, Scn};
use crate::source::catalog::TableName;
use crate::source::inventory::ArchivedLog;

use super::rng::Rng;
use super::scenario::{FaultKind, LogMode, MaintenanceAction, PartitionKind, Scenario, SuppLevel};
use super::value::{ColType, Value, ValueGen};

/// `NEXT_CHANGE#` Oracle shows for the CURRENT log.
pub const MAX_NEXT_CHANGE: Scn = 281_474_976_710_655;

#[derive(Debug, Clone)]
pub struct Column {
    pub name: String,
    pub ty: ColType,
    pub nullable: bool,
}

/// Upper bound (range/interval), values (list) or hash bucket.
#[derive(Debug, Clone, PartialEq)]
pub enum Bound {
    Date(NaiveDateTime),
    Number(f64),
    MaxValue,
    List(Vec<String>),
    Default,
    Hash,
}

#[derive(Debug, Clone)]
pub struct Partition {
    pub name: String,
    pub bound: Bound,
    pub obj_id: u64,
    pub data_obj_id: u64,
    pub created: NaiveDateTime,
    pub last_ddl: NaiveDateTime,
    pub interval: bool,
    /// SCN of the last TRUNCATE/MOVE that gave the segment a new data object id.
    pub objd_changed_scn: Scn,
    pub dropped: bool,
}

#[derive(Debug, Clone)]
pub struct Partitioning {
    pub kind: PartitionKind,
    pub column: usize,
    pub interval_months: Option<u32>,
    pub partitions: Vec<Partition>,
}

#[derive(Debug, Clone)]
pub struct RowState {
    /// Shared with the redo records and undo that carry this image.
    pub values: Arc<Vec<Value>>,
    pub rowid: Arc<str>,
    pub part: usize,
}

/// A committed change kept for `AS OF SCN` reads while undo retains it.
#[derive(Debug, Clone)]
struct UndoEntry {
    commit_scn: Scn,
    commit_time: NaiveDateTime,
    key: i64,
    before: Option<Arc<Vec<Value>>>,
}

#[derive(Debug, Clone)]
pub struct Table {
    pub name: TableName,
    /// PDB name in a CDB.
    pub pdb: Option<String>,
    pub columns: Vec<Column>,
    pub pk: Vec<usize>,
    pub log_group: Option<SuppLevel>,
    pub obj_id: u64,
    pub data_obj_id: u64,
    pub partitioning: Option<Partitioning>,
    pub rows: BTreeMap<i64, RowState>,
    pub next_key: i64,
    pub weight: f64,
    pub grants: Vec<String>,
    pub dropped: bool,
    pub created: NaiveDateTime,
    pub last_ddl: NaiveDateTime,
    /// SCN when a non-partitioned segment last got a new data object id.
    pub objd_changed_scn: Scn,
    undo: VecDeque<UndoEntry>,
    /// Changes committed at or below this SCN have lost their undo.
    pub undo_lost_scn: Scn,
    next_block: u32,
}

impl Table {
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    /// (object id, data object id) of the segment holding partition `part`.
    pub fn segment(&self, part: usize) -> (u64, u64) {
        match &self.partitioning {
            Some(p) => p
                .partitions
                .get(part)
                .map_or((self.obj_id, self.data_obj_id), |x| {
                    (x.obj_id, x.data_obj_id)
                }),
            None => (self.obj_id, self.data_obj_id),
        }
    }

    fn key_value(&self, key: i64) -> Option<(usize, Value)> {
        let first = *self.pk.first()?;
        match self.columns.get(first)?.ty {
            ColType::Number { .. } => Some((first, Value::Number(key.to_string()))),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DmlOp {
    Insert,
    Update,
    Delete,
}

/// What a redo record holds.
#[derive(Debug, Clone)]
pub enum Body {
    Start,
    Commit {
        start_scn: Scn,
    },
    Rollback {
        start_scn: Scn,
    },
    Dml {
        table: usize,
        obj: u64,
        objd: u64,
        op: DmlOp,
        rollback: bool,
        rowid: Arc<str>,
        before: Option<Arc<Vec<Value>>>,
        after: Option<Arc<Vec<Value>>>,
        changed: Vec<usize>,
    },
    LobLocator {
        table: usize,
        obj: u64,
        objd: u64,
        column: usize,
        rowid: Arc<str>,
        row: Arc<Vec<Value>>,
    },
    LobWrite {
        table: usize,
        obj: u64,
        objd: u64,
        column: usize,
        rowid: Arc<str>,
        /// Text (CLOB) or hex (BLOB) of this piece.
        data: String,
        offset: u64,
    },
    Ddl {
        table: usize,
        sql: String,
    },
}

/// One redo record (one row of V$LOGMNR_CONTENTS before CSF splitting).
#[derive(Debug, Clone)]
pub struct Rec {
    pub scn: Scn,
    pub time: NaiveDateTime,
    pub thread: u16,
    pub seq: u64,
    pub rs_id: Arc<str>,
    pub ssn: u64,
    pub xid: Arc<str>,
    pub username: Arc<str>,
    pub pdb: Option<Arc<str>>,
    pub body: Body,
}

#[derive(Debug, Clone)]
pub struct Group {
    pub number: u32,
    pub seq: Option<u64>,
    pub first_change: Scn,
    pub next_change: Scn,
    pub first_time: Option<NaiveDateTime>,
    pub status: &'static str,
    pub archived: bool,
    pub members: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct ThreadLogs {
    pub thread: u16,
    pub groups: Vec<Group>,
    pub current: usize,
    pub seq: u64,
    pub bytes_used: u64,
    pub last_redo_scn: Scn,
    /// Redo block counter inside the current log (for RS_ID).
    pub block: u64,
}

#[derive(Debug, Clone)]
struct Change {
    table: usize,
    key: i64,
    op: DmlOp,
    before: Option<Arc<Vec<Value>>>,
    after: Option<Arc<Vec<Value>>>,
    rowid: Arc<str>,
    scn: Scn,
    time: NaiveDateTime,
    rs_id: Arc<str>,
    thread: u16,
    obj: u64,
    objd: u64,
    changed: Vec<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TxnKind {
    Normal,
    Long { next_at_ms: i64, step_ms: i64 },
    Big,
}

#[derive(Debug, Clone)]
pub struct Txn {
    pub xid: Arc<str>,
    pub start_scn: Scn,
    pub start_time: NaiveDateTime,
    pub thread: u16,
    pub username: Arc<str>,
    pub pdb: Option<Arc<str>>,
    started: bool,
    remaining: u32,
    changes: Vec<Change>,
    savepoint: Option<usize>,
    will_rollback: bool,
    kind: TxnKind,
    table: Option<usize>,
}

impl Txn {
    pub fn change_count(&self) -> usize {
        self.changes.len()
    }
}

#[derive(Debug, Clone)]
struct Scheduled {
    at_ms: i64,
    what: Event,
}

#[derive(Debug, Clone)]
enum Event {
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
    },
    Fault {
        kind: FaultKind,
        sequence: Option<u64>,
        count: Option<u32>,
    },
}

/// The instance.
pub struct Model {
    pub scenario: Scenario,
    pub version_major: u32,
    rng: Rng,
    pub start: NaiveDateTime,
    /// Database time, ms since `start`.
    pub now_ms: i64,
    pub scn: Scn,
    pub tables: Vec<Table>,
    pub open: Vec<Txn>,
    locks: HashMap<(usize, i64), Arc<str>>,
    pub records: VecDeque<Rec>,
    pub threads: Vec<ThreadLogs>,
    pub archived: Vec<ArchivedLog>,
    /// Object ids no longer in the dictionary (dropped tables and partitions).
    pub dropped_objects: HashSet<u64>,
    next_obj: u64,
    next_sys_part: u32,
    next_usn_slot: u32,
    next_sqn: u32,
    /// Committed changes and DDL in commit order, with their transaction's START SCN.
    pub truth: VecDeque<(Scn, CapturedEvent)>,
    pub truth_dropped: u64,
    pub truth_limit: Option<usize>,
    scheduled: Vec<Scheduled>,
    next_at: Option<i64>,
    scn_faults: Vec<(Scn, FaultKind, Option<u64>, Option<u32>)>,
    /// Archives of this many coming switches are deleted right away.
    gap_pending: u32,
    /// A connection-drop fault fired and the session has not seen it yet.
    pub connection_dropped: bool,
    pub fra_archive_bytes: u64,
    /// Archive destinations that failed, with the error they show.
    pub dest_errors: BTreeMap<u32, String>,
    /// A log could not be archived and no online log can be reused: the
    /// database generates no redo until space is freed.
    pub archiver_stuck: bool,
    pub switches: Vec<NaiveDateTime>,
    pub rows_generated: u64,
    pub snapshot_too_old_errors: u64,
}

const ROWID_ALPHABET: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn b64(mut v: u64, width: usize, out: &mut String) {
    let mut buf = vec![b'A'; width];
    for slot in buf.iter_mut().rev() {
        *slot = ROWID_ALPHABET[(v & 63) as usize];
        v >>= 6;
    }
    out.push_str(&String::from_utf8_lossy(&buf));
}

/// An extended ROWID: data object id, relative file, block, row slot.
pub fn rowid(objd: u64, file: u64, block: u64, slot: u64) -> String {
    let mut s = String::with_capacity(18);
    b64(objd, 6, &mut s);
    b64(file, 3, &mut s);
    b64(block, 6, &mut s);
    b64(slot, 3, &mut s);
    s
}

/// `RS_ID` as LogMiner prints it: log sequence, block, offset, with the
/// leading and trailing blank.
pub fn rs_id(seq: u64, block: u64, offset: u64) -> String {
    format!(" 0x{seq:06x}.{block:08x}.{offset:04x} ")
}

fn add_months(t: NaiveDateTime, months: i64) -> NaiveDateTime {
    let total = i64::from(t.year()) * 12 + i64::from(t.month0()) + months;
    let y = total.div_euclid(12) as i32;
    let m = total.rem_euclid(12) as u32 + 1;
    NaiveDate::from_ymd_opt(y, m, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .unwrap_or(t)
}

fn ms(t: NaiveDateTime) -> i64 {
    t.and_utc().timestamp_millis()
}

fn parse_bound(text: &str, ty: &ColType) -> Bound {
    let t = text.trim();
    if t.eq_ignore_ascii_case("MAXVALUE") {
        return Bound::MaxValue;
    }
    match ty {
        ColType::Date | ColType::Timestamp(_) | ColType::TimestampTz(_) => {
            let d = NaiveDate::parse_from_str(t, "%Y-%m-%d")
                .ok()
                .and_then(|d| d.and_hms_opt(0, 0, 0))
                .or_else(|| super::scenario::parse_time(t));
            d.map_or(Bound::MaxValue, Bound::Date)
        }
        _ => t.parse::<f64>().map_or(Bound::MaxValue, Bound::Number),
    }
}

fn value_date(v: &Value) -> Option<NaiveDateTime> {
    match v {
        Value::Date(t) | Value::Timestamp(t) | Value::TimestampTz(t, _) => Some(*t),
        _ => None,
    }
}

fn value_key_text(v: &Value) -> String {
    v.snapshot_text().unwrap_or_default()
}

impl Model {
    pub fn new(scenario: Scenario) -> Model {
        let version_major = scenario
            .version_full()
            .and_then(|v| v.split('.').next().and_then(|m| m.parse().ok()))
            .unwrap_or(19);
        let start = scenario.start();
        let mut rng = Rng::new(scenario.seed);
        let mut next_obj = 74_000u64;
        let default_pdb = scenario.instance.pdbs.first().cloned();
        let db_supp = scenario.instance.supplemental_logging;
        let mut tables = Vec::new();
        let mut load_rng = rng.fork();
        for spec in &scenario.tables {
            let columns: Vec<Column> = spec
                .columns
                .iter()
                .map(|c| Column {
                    name: c.name.clone(),
                    ty: ColType::parse(c.ty.get_ref()).unwrap_or(ColType::Varchar2(100)),
                    nullable: c.nullable && !spec.primary_key.contains(&c.name),
                })
                .collect();
            let pk: Vec<usize> = spec
                .primary_key
                .iter()
                .filter_map(|k| columns.iter().position(|c| &c.name == k))
                .collect();
            let obj_id = next_obj;
            next_obj += 1;
            let partitioning = spec.partitioning.as_ref().and_then(|p| {
                let column = columns.iter().position(|c| c.name == p.column)?;
                let ty = &columns[column].ty;
                let mut partitions = Vec::new();
                let mut mk = |name: String, bound: Bound| {
                    let id = next_obj;
                    next_obj += 1;
                    Partition {
                        name,
                        bound,
                        obj_id: id,
                        data_obj_id: id,
                        created: start - Duration::days(400),
                        last_ddl: start - Duration::days(400),
                        interval: false,
                        objd_changed_scn: 0,
                        dropped: false,
                    }
                };
                match p.kind {
                    PartitionKind::Hash if p.partitions.is_empty() => {
                        for i in 0..p.count.unwrap_or(4) {
                            partitions.push(mk(format!("SYS_P{}", 1000 + i), Bound::Hash));
                        }
                    }
                    PartitionKind::Hash => {
                        for s in &p.partitions {
                            partitions.push(mk(s.name.clone(), Bound::Hash));
                        }
                    }
                    PartitionKind::List => {
                        for s in &p.partitions {
                            let b = if s.values.iter().any(|v| v.eq_ignore_ascii_case("DEFAULT")) {
                                Bound::Default
                            } else {
                                Bound::List(s.values.clone())
                            };
                            partitions.push(mk(s.name.clone(), b));
                        }
                    }
                    PartitionKind::Range | PartitionKind::Interval => {
                        for s in &p.partitions {
                            let b = parse_bound(s.high_value.as_deref().unwrap_or("MAXVALUE"), ty);
                            partitions.push(mk(s.name.clone(), b));
                        }
                    }
                }
                Some(Partitioning {
                    kind: p.kind,
                    column,
                    interval_months: p.interval_months,
                    partitions,
                })
            });
            tables.push(Table {
                name: TableName {
                    owner: spec.owner.clone(),
                    table: spec.name.clone(),
                },
                pdb: if scenario.instance.cdb {
                    spec.pdb.clone().or_else(|| default_pdb.clone())
                } else {
                    None
                },
                columns,
                pk,
                log_group: spec.supplemental_logging,
                obj_id,
                data_obj_id: obj_id,
                partitioning,
                rows: BTreeMap::new(),
                next_key: 1,
                weight: spec.weight.max(0.0),
                grants: spec
                    .grants
                    .clone()
                    .unwrap_or_else(|| vec!["SELECT".into(), "FLASHBACK".into()]),
                dropped: false,
                created: start - Duration::days(400),
                last_ddl: start - Duration::days(30),
                objd_changed_scn: 0,
                undo: VecDeque::new(),
                undo_lost_scn: 0,
                next_block: 130,
            });
        }
        let _ = db_supp;
        let mut threads = Vec::new();
        let db = scenario.instance.db_name.clone();
        for t in 1..=scenario.instance.threads {
            let mut groups = Vec::new();
            for g in 0..scenario.redo.groups {
                let number = u32::from(t - 1) * scenario.redo.groups + g + 1;
                let members = (0..scenario.redo.members.max(1))
                    .map(|m| {
                        let suffix = if m == 0 {
                            String::new()
                        } else {
                            ((b'a' + m as u8) as char).to_string()
                        };
                        format!("/u01/app/oracle/oradata/{db}/redo{number:02}{suffix}.log")
                    })
                    .collect();
                groups.push(Group {
                    number,
                    seq: None,
                    first_change: 0,
                    next_change: 0,
                    first_time: None,
                    status: "UNUSED",
                    archived: false,
                    members,
                });
            }
            let seq = scenario.redo.start_sequence;
            groups[0].seq = Some(seq);
            groups[0].status = "CURRENT";
            groups[0].first_change = scenario.instance.start_scn;
            groups[0].next_change = MAX_NEXT_CHANGE;
            groups[0].first_time = Some(start);
            threads.push(ThreadLogs {
                thread: t,
                groups,
                current: 0,
                seq,
                bytes_used: 0,
                last_redo_scn: scenario.instance.start_scn,
                block: 2,
            });
        }
        let mut scheduled = Vec::new();
        let table_index = |name: &Option<String>| -> Option<usize> {
            let n = name.as_ref()?;
            tables
                .iter()
                .position(|t: &Table| &format!("{}.{}", t.name.owner, t.name.table) == n)
        };
        for l in &scenario.workload.long_transactions {
            scheduled.push(Scheduled {
                at_ms: l.at_s as i64 * 1000,
                what: Event::Long {
                    duration_s: l.duration_s,
                    changes: l.changes,
                    table: table_index(&l.table),
                },
            });
        }
        for b in &scenario.workload.big_transactions {
            scheduled.push(Scheduled {
                at_ms: b.at_s as i64 * 1000,
                what: Event::Big {
                    changes: b.changes,
                    table: table_index(&b.table),
                },
            });
        }
        for m in &scenario.workload.maintenance {
            if let Some(table) = table_index(&Some(m.table.clone())) {
                scheduled.push(Scheduled {
                    at_ms: m.at_s as i64 * 1000,
                    what: Event::Maintenance {
                        table,
                        action: m.action,
                        partition: m.partition.clone(),
                        every_s: m.every_s,
                    },
                });
            }
        }
        let mut scn_faults = Vec::new();
        for f in &scenario.faults {
            if let Some(at) = f.at_s {
                scheduled.push(Scheduled {
                    at_ms: at as i64 * 1000,
                    what: Event::Fault {
                        kind: f.kind,
                        sequence: f.sequence,
                        count: f.count,
                    },
                });
            } else if let Some(scn) = f.at_scn {
                scn_faults.push((scn, f.kind, f.sequence, f.count));
            }
        }
        let mut m = Model {
            version_major,
            start,
            now_ms: 0,
            scn: scenario.instance.start_scn,
            tables,
            open: Vec::new(),
            locks: HashMap::new(),
            records: VecDeque::new(),
            threads,
            archived: Vec::new(),
            dropped_objects: HashSet::new(),
            next_obj,
            next_sys_part: 6000,
            next_usn_slot: 0,
            next_sqn: 0x3C5D,
            truth: VecDeque::new(),
            truth_dropped: 0,
            truth_limit: Some(200_000),
            scheduled,
            next_at: None,
            scn_faults,
            gap_pending: 0,
            connection_dropped: false,
            fra_archive_bytes: 0,
            dest_errors: BTreeMap::new(),
            archiver_stuck: false,
            switches: Vec::new(),
            rows_generated: 0,
            snapshot_too_old_errors: scenario.instance.snapshot_too_old_errors,
            rng: Rng::new(0),
            scenario,
        };
        m.rng = rng.fork();
        // Initial load: rows that exist before the simulation starts (no redo).
        for t in 0..m.tables.len() {
            let n = m.scenario.tables.get(t).map_or(0, |s| s.rows);
            for _ in 0..n {
                let values = m.new_row(&mut load_rng, t, true);
                let key = m.tables[t].next_key;
                m.tables[t].next_key += 1;
                let values = m.with_key(t, key, values);
                if let Some(part) = m.place(t, &values, start - Duration::days(30)) {
                    let rid = m.alloc_rowid(t, part);
                    m.tables[t].rows.insert(
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
        m
    }

    pub fn now(&self) -> NaiveDateTime {
        self.start + Duration::milliseconds(self.now_ms)
    }

    fn now_sec(&self) -> NaiveDateTime {
        let t = self.now();
        t.with_nanosecond(0).unwrap_or(t)
    }

    fn con_name(&self, table: Option<usize>) -> Option<Arc<str>> {
        if !self.scenario.instance.cdb {
            return None;
        }
        let pdb = table
            .and_then(|t| self.tables.get(t))
            .and_then(|t| t.pdb.clone())
            .or_else(|| self.scenario.instance.pdbs.first().cloned());
        pdb.map(Arc::from)
    }

    /// Effective supplemental logging for a table.
    pub fn supp_level(&self, table: usize) -> SuppLevel {
        let db = self.scenario.instance.supplemental_logging;
        let t = self
            .tables
            .get(table)
            .and_then(|t| t.log_group)
            .unwrap_or(SuppLevel::None);
        if db == SuppLevel::None {
            // Table log groups need database-level minimal logging to take effect.
            return SuppLevel::None;
        }
        db.max(t)
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
                if let Some(p) = &table.partitioning {
                    if p.column == i {
                        if let Some(v) = self.partition_key_value(rng, table, c, now, initial) {
                            return v;
                        }
                    }
                }
                let v = ValueGen::generate(rng, &c.ty, &c.name, now, true);
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

    /// Finds (or, for interval partitioning, creates) the partition of a row.
    fn place(&mut self, t: usize, values: &[Value], created: NaiveDateTime) -> Option<usize> {
        let scn = self.scn;
        let table = self.tables.get_mut(t)?;
        let Some(p) = table.partitioning.as_mut() else {
            return Some(0);
        };
        let v = values.get(p.column)?;
        match p.kind {
            PartitionKind::Hash => {
                let n = p.partitions.len().max(1) as u64;
                let text = value_key_text(v);
                let h = text.bytes().fold(0xcbf29ce484222325u64, |a, b| {
                    (a ^ u64::from(b)).wrapping_mul(0x100000001b3)
                });
                Some((h % n) as usize)
            }
            PartitionKind::List => {
                let text = value_key_text(v);
                p.partitions
                    .iter()
                    .position(|x| {
                        !x.dropped && matches!(&x.bound, Bound::List(vals) if vals.contains(&text))
                    })
                    .or_else(|| {
                        p.partitions
                            .iter()
                            .position(|x| !x.dropped && x.bound == Bound::Default)
                    })
            }
            PartitionKind::Range | PartitionKind::Interval => {
                let fits = |b: &Bound| match (b, v) {
                    (Bound::MaxValue, _) => true,
                    (Bound::Date(h), v) => value_date(v).is_some_and(|d| d < *h),
                    (Bound::Number(h), Value::Number(n)) => n.parse::<f64>().is_ok_and(|n| n < *h),
                    _ => false,
                };
                let mut order: Vec<usize> = (0..p.partitions.len()).collect();
                order.sort_by(|a, b| bound_cmp(&p.partitions[*a].bound, &p.partitions[*b].bound));
                // A row belongs to the lowest bound above it; a dropped
                // partition's range folds into the next one up.
                for &i in &order {
                    if !p.partitions[i].dropped && fits(&p.partitions[i].bound) {
                        return Some(i);
                    }
                }
                let months = p.interval_months?;
                let date = value_date(v)?;
                // The transition point is the highest range (non-interval) bound.
                let base = p
                    .partitions
                    .iter()
                    .filter(|x| !x.interval)
                    .filter_map(|x| match x.bound {
                        Bound::Date(d) => Some(d),
                        _ => None,
                    })
                    .max()?;
                let months_between = (i64::from(date.year()) * 12 + i64::from(date.month0()))
                    - (i64::from(base.year()) * 12 + i64::from(base.month0()));
                let k = months_between.div_euclid(i64::from(months)) + 1;
                let high = add_months(base, k * i64::from(months));
                let id = self.next_obj;
                self.next_obj += 1;
                let name = format!("SYS_P{}", self.next_sys_part);
                self.next_sys_part += 1;
                p.partitions.push(Partition {
                    name,
                    bound: Bound::Date(high),
                    obj_id: id,
                    data_obj_id: id,
                    created,
                    last_ddl: created,
                    interval: true,
                    objd_changed_scn: scn,
                    dropped: false,
                });
                Some(p.partitions.len() - 1)
            }
        }
    }

    fn alloc_rowid(&mut self, t: usize, part: usize) -> String {
        let (_, objd) = self.tables[t].segment(part);
        let table = &mut self.tables[t];
        let n = table.next_block;
        table.next_block += 1;
        // About 40 rows per block.
        rowid(objd, 12, u64::from(130 + n / 40), u64::from(n % 40))
    }

    fn new_xid(&mut self) -> Arc<str> {
        self.next_usn_slot += 1;
        self.next_sqn += 1;
        let usn = (self.next_usn_slot % 10 + 1) as u16;
        let slot = ((self.next_usn_slot / 10) % 34) as u16;
        Arc::from(format_xid(usn, slot, self.next_sqn))
    }

    /// Appends a redo record at the next SCN (or the same SCN when `same_scn`).
    #[allow(clippy::too_many_arguments)]
    fn emit(
        &mut self,
        thread: u16,
        xid: &Arc<str>,
        username: &Arc<str>,
        pdb: &Option<Arc<str>>,
        body: Body,
        size: u64,
        same_scn: bool,
    ) -> (Scn, Arc<str>, u64) {
        if !same_scn {
            self.scn += 1 + self.rng.below(3);
        }
        let scn = self.scn;
        let time = self.now_sec();
        let ti = usize::from(thread.saturating_sub(1)).min(self.threads.len().saturating_sub(1));
        let lt = &mut self.threads[ti];
        let offset = lt.block * 512 % 0x10000;
        let rsid: Arc<str> = Arc::from(rs_id(lt.seq, lt.block, 0x10 + offset % 0x1f0));
        lt.block += 1 + size / 512;
        lt.bytes_used += size + 64;
        lt.last_redo_scn = scn;
        let seq = lt.seq;
        self.records.push_back(Rec {
            scn,
            time,
            thread,
            seq,
            rs_id: rsid.clone(),
            ssn: 0,
            xid: xid.clone(),
            username: username.clone(),
            pdb: pdb.clone(),
            body,
        });
        self.rows_generated += 1;
        if self.threads[ti].bytes_used >= self.scenario.redo.group_bytes {
            self.switch_log(ti);
        }
        (scn, rsid, seq)
    }

    /// `ALTER SYSTEM SWITCH LOGFILE` on one thread: archive, advance sequence.
    pub fn switch_log(&mut self, ti: usize) {
        let now = self.now_sec();
        self.scn += 1;
        let switch_scn = self.scn;
        let archivelog = self.scenario.instance.log_mode == LogMode::Archivelog;
        let resetlogs = self.scenario.instance.resetlogs_change;
        let group_bytes = self.scenario.redo.group_bytes;
        {
            // ARCHIVELOG never overwrites a log that was not archived: with
            // the archiver stuck the database hangs (ORA-00257).
            let lt = &self.threads[ti];
            let next = &lt.groups[(lt.current + 1) % lt.groups.len()];
            if archivelog && next.seq.is_some() && !next.archived {
                self.archiver_stuck = true;
                self.scn -= 1;
                return;
            }
        }
        let lt = &mut self.threads[ti];
        let cur = lt.current;
        let old_seq = lt.seq;
        let (first, first_time) = {
            let g = &mut lt.groups[cur];
            g.next_change = switch_scn;
            g.status = "ACTIVE";
            g.archived = false;
            (g.first_change, g.first_time)
        };
        for (i, g) in lt.groups.iter_mut().enumerate() {
            if i != cur && g.status == "ACTIVE" {
                g.status = "INACTIVE";
            }
        }
        let next = (cur + 1) % lt.groups.len();
        lt.seq += 1;
        lt.current = next;
        lt.bytes_used = 0;
        lt.block = 2;
        let g = &mut lt.groups[next];
        g.seq = Some(lt.seq);
        g.status = "CURRENT";
        g.archived = false;
        g.first_change = switch_scn;
        g.next_change = MAX_NEXT_CHANGE;
        g.first_time = Some(now);
        let thread = lt.thread;
        self.switches.push(now);
        if self.switches.len() > 2000 {
            self.switches.drain(..1000);
        }
        if archivelog {
            let delete_now = self.gap_pending > 0;
            if delete_now {
                self.gap_pending -= 1;
            }
            let mut written = false;
            for d in self.scenario.redo.destinations.clone() {
                if d.status != "VALID" || self.dest_errors.contains_key(&d.id) {
                    continue;
                }
                let name = self.archive_name(&d.destination, thread, old_seq, now);
                let in_fra = d.destination == "USE_DB_RECOVERY_FILE_DEST";
                let inst = &self.scenario.instance;
                if in_fra
                    && inst.recovery_area_used + self.fra_archive_bytes + group_bytes
                        > inst.recovery_area_size
                {
                    self.dest_errors.insert(
                        d.id,
                        "ORA-19809: limit exceeded for recovery files".to_string(),
                    );
                    continue;
                }
                written = true;
                if in_fra && !delete_now {
                    self.fra_archive_bytes += group_bytes;
                }
                self.archived.push(ArchivedLog {
                    name: if delete_now { None } else { Some(name) },
                    dest_id: d.id,
                    thread,
                    sequence: old_seq,
                    first_change: first,
                    next_change: switch_scn,
                    first_time,
                    next_time: Some(now),
                    status: if delete_now { "D".into() } else { "A".into() },
                    deleted: delete_now,
                    archived: true,
                    resetlogs_change: resetlogs,
                    bytes: group_bytes,
                });
            }
            if let Some(g) = self.threads[ti].groups.get_mut(cur) {
                g.archived = written;
            }
        }
        self.apply_retention();
        self.prune_records();
        self.bound_memory();
    }

    /// Keeps the redo held in memory under `redo.memory_records` by deleting
    /// the oldest archived sequences, which the inventory then shows as
    /// deleted: a session that needs them fails with ORA-01291 rather than
    /// reading silently missing redo.
    fn bound_memory(&mut self) {
        let cap = self.scenario.redo.memory_records;
        while self.records.len() > cap {
            let Some((thread, seq)) = self.records.front().map(|r| (r.thread, r.seq)) else {
                break;
            };
            let online = self
                .threads
                .iter()
                .any(|t| t.thread == thread && t.groups.iter().any(|g| g.seq == Some(seq)));
            if online {
                // The oldest redo is still in an online log: nothing to give up.
                break;
            }
            for i in 0..self.archived.len() {
                if self.archived[i].thread == thread && self.archived[i].sequence == seq {
                    self.delete_archive(i);
                }
            }
            self.prune_records();
        }
    }

    fn archive_name(&self, dest: &str, thread: u16, seq: u64, now: NaiveDateTime) -> String {
        let db = &self.scenario.instance.db_name;
        if dest == "USE_DB_RECOVERY_FILE_DEST" {
            // Oracle-managed file names in the fast recovery area.
            let tag = seq.wrapping_mul(2_654_435_761) % 0x1_0000_0000;
            return format!(
                "/u01/app/oracle/fast_recovery_area/{db}/archivelog/{}/o1_mf_{thread}_{seq}_{tag:08x}_.arc",
                now.format("%Y_%m_%d")
            );
        }
        let dir = dest
            .strip_prefix("LOCATION=")
            .unwrap_or(dest)
            .trim_end_matches('/');
        let file = self
            .scenario
            .redo
            .log_archive_format
            .replace("%t", &thread.to_string())
            .replace("%T", &format!("{thread:04}"))
            .replace("%s", &seq.to_string())
            .replace("%S", &format!("{seq:09}"))
            .replace("%r", &self.scenario.instance.resetlogs_change.to_string());
        format!("{dir}/{file}")
    }

    fn delete_archive(&mut self, i: usize) {
        let fra: Vec<u32> = self
            .scenario
            .redo
            .destinations
            .iter()
            .filter(|d| d.destination == "USE_DB_RECOVERY_FILE_DEST")
            .map(|d| d.id)
            .collect();
        if let Some(a) = self.archived.get_mut(i) {
            if a.deleted {
                return;
            }
            if fra.contains(&a.dest_id) {
                self.fra_archive_bytes = self.fra_archive_bytes.saturating_sub(a.bytes);
            }
            a.name = None;
            a.deleted = true;
            a.status = "D".into();
        }
    }

    fn apply_retention(&mut self) {
        let Some(ret) = self.scenario.redo.archive_retention_s else {
            return;
        };
        let limit = self.now_sec() - Duration::seconds(ret as i64);
        for i in 0..self.archived.len() {
            if !self.archived[i].deleted && self.archived[i].next_time.is_some_and(|t| t < limit) {
                self.delete_archive(i);
            }
        }
        // V$ARCHIVED_LOG keeps deleted rows until the control file reuses them.
        if self.archived.len() > 5000 {
            self.archived.drain(..1000);
        }
    }

    /// Whether any copy of (thread, seq) can still be read.
    pub fn sequence_available(&self, thread: u16, seq: u64) -> bool {
        let online = self
            .threads
            .iter()
            .any(|t| t.thread == thread && t.groups.iter().any(|g| g.seq == Some(seq)));
        online
            || self
                .archived
                .iter()
                .any(|a| a.thread == thread && a.sequence == seq && a.is_available())
    }

    fn prune_records(&mut self) {
        while let Some(r) = self.records.front() {
            if self.sequence_available(r.thread, r.seq) {
                break;
            }
            self.records.pop_front();
        }
    }

    fn record_truth(&mut self, start_scn: Scn, ev: CapturedEvent) {
        self.truth.push_back((start_scn, ev));
        if let Some(limit) = self.truth_limit {
            while self.truth.len() > limit {
                self.truth.pop_front();
                self.truth_dropped += 1;
            }
        }
    }

    /// Generates workload until database time reaches `target_ms`.
    pub fn advance_to(&mut self, target_ms: i64) {
        loop {
            let at = self.next_action_at();
            if at > target_ms {
                break;
            }
            self.run_next();
        }
        self.now_ms = self.now_ms.max(target_ms);
    }

    /// Generates until at least `n` more redo records exist.
    pub fn generate_records(&mut self, n: u64) {
        let goal = self.rows_generated + n;
        while self.rows_generated < goal {
            self.run_next();
        }
    }

    /// Generates until the SCN reaches `scn`.
    pub fn advance_to_scn(&mut self, scn: Scn) {
        while self.scn < scn {
            self.run_next();
        }
    }

    /// Database time of the next workload action. It is drawn once and kept,
    /// so the redo is the same however often the clock is polled.
    fn next_action_at(&mut self) -> i64 {
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

    fn run_next(&mut self) {
        let at = self.next_action_at();
        self.now_ms = self.now_ms.max(at);
        self.next_at = None;
        self.step();
    }

    fn step(&mut self) {
        self.fire_due();
        if self.archiver_stuck {
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
                    next_at_ms: next_at_ms + step_ms,
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
                    let step_ms = (duration_s as i64 * 1000 / i64::from(changes)).max(1);
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
                } => {
                    let done = self.maintenance(table, action, partition.clone());
                    if !done {
                        // Blocked by open transactions on the segment: retry shortly.
                        self.scheduled.push(Scheduled {
                            at_ms: now + 1000,
                            what: s.what.clone(),
                        });
                    } else if let Some(e) = every_s {
                        self.scheduled.push(Scheduled {
                            at_ms: s.at_ms + e.max(1) as i64 * 1000,
                            what: s.what.clone(),
                        });
                    }
                }
                Event::Fault {
                    kind,
                    sequence,
                    count,
                } => self.fault(kind, sequence, count),
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
        for (_, kind, seq, count) in fired {
            self.fault(kind, seq, count);
        }
    }

    fn fault(&mut self, kind: FaultKind, sequence: Option<u64>, count: Option<u32>) {
        match kind {
            FaultKind::ConnectionDrop => self.connection_dropped = true,
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
            FaultKind::UndoOverwritten => {
                let scn = self.scn;
                for t in &mut self.tables {
                    t.undo.clear();
                    t.undo_lost_scn = scn;
                }
            }
            FaultKind::ArchiveGap => self.gap_pending += count.unwrap_or(1),
        }
    }

    fn pick_table(&mut self) -> Option<usize> {
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
        let threads = self.scenario.instance.threads.max(1);
        let thread = (self.next_usn_slot % u32::from(threads)) as u16 + 1;
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
            xid,
            start_scn: 0,
            start_time: self.now_sec(),
            thread,
            username,
            pdb,
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
            self.dml(i);
            self.open[i].remaining -= 1;
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

    fn ensure_started(&mut self, i: usize) {
        if self.open[i].started {
            return;
        }
        let (xid, user, pdb, thread) = {
            let t = &self.open[i];
            (t.xid.clone(), t.username.clone(), t.pdb.clone(), t.thread)
        };
        let (scn, _, _) = self.emit(thread, &xid, &user, &pdb, Body::Start, 40, false);
        let t = &mut self.open[i];
        t.started = true;
        t.start_scn = scn;
        t.start_time = self.start + Duration::milliseconds(self.now_ms);
        t.start_time = t.start_time.with_nanosecond(0).unwrap_or(t.start_time);
    }

    fn pick_row(&mut self, t: usize) -> Option<i64> {
        let table = &self.tables[t];
        let (&lo, _) = table.rows.first_key_value()?;
        let (&hi, _) = table.rows.last_key_value()?;
        for _ in 0..4 {
            let k = lo + self.rng.below((hi - lo + 1) as u64) as i64;
            let key = *self.tables[t].rows.range(k..).next()?.0;
            if !self.locks.contains_key(&(t, key)) {
                return Some(key);
            }
        }
        None
    }

    fn dml(&mut self, i: usize) {
        let Some(t) = self.open[i]
            .table
            .filter(|&t| !self.tables[t].dropped)
            .or_else(|| self.pick_table())
        else {
            return;
        };
        if self.open[i].kind == TxnKind::Normal && self.open[i].changes.is_empty() {
            self.open[i].pdb = self.con_name(Some(t));
        }
        if self.open[i].pdb.as_deref() != self.con_name(Some(t)).as_deref() {
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
        let xid = self.open[i].xid.clone();
        match (op, key) {
            (DmlOp::Update, Some(key)) => {
                let Some(row) = self.tables[t].rows.get(&key).cloned() else {
                    return;
                };
                let table = &self.tables[t];
                let part_col = table.partitioning.as_ref().map(|p| p.column);
                let candidates: Vec<usize> = (0..table.columns.len())
                    .filter(|c| {
                        !table.pk.contains(c)
                            && Some(*c) != part_col
                            && !table.columns[*c].ty.is_lob()
                    })
                    .collect();
                if candidates.is_empty() {
                    return;
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
                changed.sort_unstable();
                let now = self.now();
                let mut after = (*row.values).clone();
                for &c in &changed {
                    let col = &self.tables[t].columns[c];
                    let mut v = ValueGen::generate(&mut rng, &col.ty, &col.name, now, true);
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
                    Some(after),
                    row.rowid.clone(),
                    obj,
                    objd,
                    changed,
                );
            }
            (DmlOp::Delete, Some(key)) => {
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
            _ => {
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
                // LOB content follows the EMPTY_LOB() insert.
                for (c, v) in after.iter().enumerate() {
                    let data = match v {
                        Value::Clob(s) => s.clone(),
                        Value::Blob(b) => b.iter().map(|x| format!("{x:02x}")).collect(),
                        _ => continue,
                    };
                    let (thread, user, pdb) = (
                        self.open[i].thread,
                        self.open[i].username.clone(),
                        self.open[i].pdb.clone(),
                    );
                    let xid = self.open[i].xid.clone();
                    self.emit(
                        thread,
                        &xid,
                        &user,
                        &pdb,
                        Body::LobLocator {
                            table: t,
                            obj,
                            objd,
                            column: c,
                            rowid: rid.clone(),
                            row: after.clone(),
                        },
                        200,
                        false,
                    );
                    let chunk = if matches!(v, Value::Blob(_)) {
                        2000
                    } else {
                        1000
                    };
                    let chars: Vec<char> = data.chars().collect();
                    let mut offset = 1u64;
                    for piece in chars.chunks(chunk) {
                        let s: String = piece.iter().collect();
                        let size = s.len() as u64;
                        self.emit(
                            thread,
                            &xid,
                            &user,
                            &pdb,
                            Body::LobWrite {
                                table: t,
                                obj,
                                objd,
                                column: c,
                                rowid: rid.clone(),
                                data: s,
                                offset,
                            },
                            size,
                            false,
                        );
                        offset += piece.len() as u64;
                    }
                }
            }
        }
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
        let (thread, user, pdb, xid) = {
            let x = &self.open[i];
            (x.thread, x.username.clone(), x.pdb.clone(), x.xid.clone())
        };
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
        let (scn, rsid, _) = self.emit(thread, &xid, &user, &pdb, body, size as u64, false);
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
            rs_id: rsid,
            thread,
            obj,
            objd,
            changed,
        });
    }

    /// Undoes the transaction's changes after the first `keep`, newest first,
    /// writing ROLLBACK=1 rows as Oracle does.
    fn rollback_changes(&mut self, i: usize, keep: usize) {
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
            let (thread, user, pdb, xid) = {
                let x = &self.open[i];
                (x.thread, x.username.clone(), x.pdb.clone(), x.xid.clone())
            };
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
            self.emit(thread, &xid, &user, &pdb, body, 150, false);
        }
    }

    fn finish(&mut self, i: usize, commit: bool) {
        let txn = self.open.remove(i);
        for c in &txn.changes {
            self.locks.remove(&(c.table, c.key));
        }
        self.locks.retain(|_, x| *x != txn.xid);
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
        let (commit_scn, _, _) = self.emit(
            txn.thread,
            &txn.xid,
            &txn.username,
            &txn.pdb,
            body,
            40,
            false,
        );
        if !commit {
            return;
        }
        let commit_time = self.now_sec();
        let commit_ts_ms = ms(commit_time);
        let mut per_table: HashMap<usize, u32> = HashMap::new();
        for (index, c) in txn.changes.iter().enumerate() {
            let order = per_table.entry(c.table).or_insert(0);
            *order += 1;
            let table_order = *order;
            if self.truth_limit != Some(0) {
                let ev =
                    self.change_event(&txn, c, commit_scn, commit_ts_ms, index as u32, table_order);
                self.record_truth(txn.start_scn, CapturedEvent::Change(ev));
            }
            let tb = &mut self.tables[c.table];
            tb.undo.push_back(UndoEntry {
                commit_scn,
                commit_time,
                key: c.key,
                before: c.before.clone(),
            });
        }
        self.prune_undo();
    }

    fn image(&self, t: usize, values: &[Value]) -> Image {
        self.tables[t]
            .columns
            .iter()
            .zip(values)
            .map(|(c, v)| (c.name.clone(), v.field()))
            .collect()
    }

    #[allow(clippy::too_many_arguments)]
    fn position(
        &self,
        t: usize,
        xid: &str,
        scn: Scn,
        commit_scn: Scn,
        time: NaiveDateTime,
        rs_id: Option<String>,
        thread: u16,
        row_id: Option<String>,
    ) -> SourcePosition {
        let table = &self.tables[t];
        SourcePosition {
            name: "cdcctl".into(),
            db: table
                .pdb
                .clone()
                .unwrap_or_else(|| self.scenario.instance.db_name.clone()),
            schema: table.name.owner.clone(),
            table: table.name.table.clone(),
            xid: xid.to_string(),
            scn,
            commit_scn,
            change_ts_ms: ms(time),
            rs_id,
            ssn: 0,
            thread,
            row_id,
        }
    }

    fn change_event(
        &self,
        txn: &Txn,
        c: &Change,
        commit_scn: Scn,
        commit_ts_ms: i64,
        index: u32,
        table_order: u32,
    ) -> ChangeEvent {
        let op = match c.op {
            DmlOp::Insert => Op::Create,
            DmlOp::Update => Op::Update,
            DmlOp::Delete => Op::Delete,
        };
        let lob = |name: &str| {
            self.tables[c.table]
                .columns
                .iter()
                .any(|col| col.name == name && col.ty.is_lob())
        };
        // LOB content never travels in DML redo: an insert shows NULL or
        // EMPTY_LOB() (content in LOB_WRITE rows), and UPDATE/DELETE images
        // do not carry LOB columns at all.
        let mut before = c.before.as_ref().map(|v| self.image(c.table, v));
        for (name, f) in before.iter_mut().flatten() {
            if lob(name) {
                *f = Field::Unavailable;
            }
        }
        let mut after = c.after.as_ref().map(|v| self.image(c.table, v));
        if c.op == DmlOp::Update {
            for (name, f) in after.iter_mut().flatten() {
                if lob(name) {
                    *f = Field::Unavailable;
                }
            }
        }
        ChangeEvent {
            op,
            before,
            after,
            source: self.position(
                c.table,
                &txn.xid,
                c.scn,
                commit_scn,
                c.time,
                Some(c.rs_id.to_string()),
                c.thread,
                Some(c.rowid.to_string()),
            ),
            snapshot: false,
            commit_ts_ms,
            index,
            table_order,
        }
    }

    fn prune_undo(&mut self) {
        let limit =
            self.now_sec() - Duration::seconds(self.scenario.instance.undo_retention_s as i64);
        for t in &mut self.tables {
            while let Some(u) = t.undo.front() {
                if u.commit_time >= limit {
                    break;
                }
                t.undo_lost_scn = t.undo_lost_scn.max(u.commit_scn);
                t.undo.pop_front();
            }
        }
    }

    /// Partition maintenance or DROP TABLE; false when open transactions on
    /// the segment block it (Oracle would raise ORA-00054).
    fn maintenance(
        &mut self,
        t: usize,
        action: MaintenanceAction,
        partition: Option<String>,
    ) -> bool {
        if self.tables[t].dropped {
            return true;
        }
        let part = match (&self.tables[t].partitioning, action) {
            (_, MaintenanceAction::DropTable) => None,
            (Some(p), _) => {
                let live: Vec<usize> = (0..p.partitions.len())
                    .filter(|&i| !p.partitions[i].dropped)
                    .collect();
                let chosen = match &partition {
                    Some(name) => live
                        .iter()
                        .copied()
                        .find(|&i| &p.partitions[i].name == name),
                    None => live
                        .iter()
                        .copied()
                        .min_by(|a, b| bound_cmp(&p.partitions[*a].bound, &p.partitions[*b].bound)),
                };
                match chosen {
                    Some(c) => Some(c),
                    None => return true,
                }
            }
            (None, _) => return true,
        };
        let blocked = self.locks.keys().any(|(tt, k)| {
            *tt == t
                && (part.is_none()
                    || self.tables[t]
                        .rows
                        .get(k)
                        .is_none_or(|r| Some(r.part) == part))
        });
        if blocked {
            return false;
        }
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
        let sql = match action {
            MaintenanceAction::TruncatePartition => {
                format!("ALTER TABLE \"{owner}\".\"{name}\" TRUNCATE PARTITION \"{pname}\";")
            }
            MaintenanceAction::DropPartition => {
                format!("ALTER TABLE \"{owner}\".\"{name}\" DROP PARTITION \"{pname}\";")
            }
            MaintenanceAction::MovePartition => {
                format!("ALTER TABLE \"{owner}\".\"{name}\" MOVE PARTITION \"{pname}\";")
            }
            MaintenanceAction::DropTable => format!("DROP TABLE \"{owner}\".\"{name}\" PURGE;"),
        };
        let xid = self.new_xid();
        let user: Arc<str> = Arc::from(self.scenario.workload.username.as_str());
        let pdb = self.con_name(Some(t));
        let (start_scn, _, _) = self.emit(1, &xid, &user, &pdb, Body::Start, 40, false);
        let (ddl_scn, _, _) = self.emit(
            1,
            &xid,
            &user,
            &pdb,
            Body::Ddl {
                table: t,
                sql: sql.clone(),
            },
            200,
            false,
        );
        let ddl_time = self.now_sec();
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
            (action, Some(p)) => {
                let mut moved = Vec::new();
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
                        MaintenanceAction::TruncatePartition | MaintenanceAction::DropPartition => {
                            tb.rows.retain(|_, r| r.part != p);
                        }
                        _ => {
                            moved = tb
                                .rows
                                .iter()
                                .filter(|(_, r)| r.part == p)
                                .map(|(k, _)| *k)
                                .collect()
                        }
                    }
                }
                // MOVE rewrites the rows into a new segment: new ROWIDs.
                for k in moved {
                    let rid = self.alloc_rowid(t, p);
                    if let Some(r) = self.tables[t].rows.get_mut(&k) {
                        r.rowid = Arc::from(rid.as_str());
                    }
                }
            }
            _ => {}
        }
        let (commit_scn, _, _) =
            self.emit(1, &xid, &user, &pdb, Body::Commit { start_scn }, 40, false);
        let pos = self.position(t, &xid, ddl_scn, commit_scn, ddl_time, None, 1, None);
        let commit_ts_ms = ms(self.now_sec());
        self.record_truth(
            start_scn,
            CapturedEvent::Ddl(DdlEvent {
                source: pos,
                ddl: sql,
                commit_ts_ms,
            }),
        );
        true
    }

    /// `SELECT ... AS OF SCN` for one chunk, in key order.
    #[allow(clippy::type_complexity)]
    pub fn snapshot_rows(
        &self,
        t: usize,
        as_of: Scn,
        after: Option<i64>,
        limit: usize,
    ) -> Vec<(i64, Arc<Vec<Value>>)> {
        let table = &self.tables[t];
        // The as-of image of each key changed after `as_of`: the before image of
        // its oldest later change (committed first, then still-open ones).
        let mut over: BTreeMap<i64, Option<Arc<Vec<Value>>>> = BTreeMap::new();
        for u in table.undo.iter().filter(|u| u.commit_scn > as_of) {
            over.entry(u.key).or_insert_with(|| u.before.clone());
        }
        for txn in &self.open {
            for c in txn.changes.iter().filter(|c| c.table == t) {
                over.entry(c.key).or_insert_with(|| c.before.clone());
            }
        }
        let lo = after.map_or(i64::MIN, |a| a.saturating_add(1));
        let mut out = Vec::with_capacity(limit.min(10_000));
        let mut cur = table.rows.range(lo..).peekable();
        let mut ov = over.range(lo..).peekable();
        while out.len() < limit {
            let next_cur = cur.peek().map(|(k, _)| **k);
            let next_ov = ov.peek().map(|(k, _)| **k);
            let k = match (next_cur, next_ov) {
                (None, None) => break,
                (Some(a), None) => a,
                (None, Some(b)) => b,
                (Some(a), Some(b)) => a.min(b),
            };
            if next_cur == Some(k) {
                cur.next();
            }
            if next_ov == Some(k) {
                if let Some((_, v)) = ov.next() {
                    if let Some(v) = v {
                        out.push((k, v.clone()));
                    }
                    continue;
                }
            }
            if let Some(r) = table.rows.get(&k) {
                out.push((k, r.values.clone()));
            }
        }
        out
    }

    /// The SCN above which `AS OF` reads of table `t` still find their undo.
    pub fn undo_floor(&self, t: usize) -> Scn {
        self.tables.get(t).map_or(0, |x| x.undo_lost_scn)
    }

    /// SCN at which a segment of the table last changed data object id.
    pub fn objd_changed_scn(&self, t: usize) -> Scn {
        let tb = &self.tables[t];
        let parts = tb.partitioning.as_ref().map_or(0, |p| {
            p.partitions
                .iter()
                .map(|x| x.objd_changed_scn)
                .max()
                .unwrap_or(0)
        });
        parts.max(tb.objd_changed_scn)
    }

    /// The key value text(s) of a row for `last_key`.
    pub fn key_texts(&self, t: usize, key: i64, values: &[Value]) -> Vec<String> {
        let tb = &self.tables[t];
        if tb.pk.is_empty() {
            return vec![key.to_string()];
        }
        tb.pk
            .iter()
            .map(|&i| values.get(i).map(value_key_text).unwrap_or_default())
            .collect()
    }

    /// Parses `after_key` texts back to the internal key.
    pub fn key_from_texts(&self, t: usize, texts: &[String]) -> Option<i64> {
        let tb = &self.tables[t];
        if tb.pk.is_empty() {
            return texts.first()?.parse().ok();
        }
        let first = texts.first()?;
        if tb.key_value(0).is_some() {
            return first.parse().ok();
        }
        tb.rows
            .iter()
            .find(|(_, r)| {
                tb.pk
                    .first()
                    .and_then(|&i| r.values.get(i))
                    .map(value_key_text)
                    .as_deref()
                    == Some(first.as_str())
            })
            .map(|(k, _)| *k)
    }
}

fn bound_cmp(a: &Bound, b: &Bound) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a, b) {
        (Bound::Date(x), Bound::Date(y)) => x.cmp(y),
        (Bound::Number(x), Bound::Number(y)) => x.partial_cmp(y).unwrap_or(Ordering::Equal),
        (Bound::MaxValue, Bound::MaxValue) => Ordering::Equal,
        (Bound::MaxValue, _) => Ordering::Greater,
        (_, Bound::MaxValue) => Ordering::Less,
        _ => Ordering::Equal,
    }
}

/// `HIGH_VALUE` text as ALL_TAB_PARTITIONS shows it.
pub fn high_value_text(b: &Bound) -> String {
    match b {
        Bound::Date(d) => format!(
            "TO_DATE(' {}', 'SYYYY-MM-DD HH24:MI:SS', 'NLS_CALENDAR=GREGORIAN')",
            d.format("%Y-%m-%d %H:%M:%S")
        ),
        Bound::Number(n) => format!("{n}"),
        Bound::MaxValue => "MAXVALUE".into(),
        Bound::List(v) => v
            .iter()
            .map(|x| format!("'{x}'"))
            .collect::<Vec<_>>()
            .join(", "),
        Bound::Default => "DEFAULT".into(),
        Bound::Hash => String::new(),
    }
}
