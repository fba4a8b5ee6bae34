//! The data dictionary: tables and their columns, primary keys and
//! supplemental log groups, partitions (range, interval, list, hash) with
//! their object and data object ids, the container (PDB) a table lives in,
//! and where a row is stored (partition, segment, ROWID).

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use chrono::{Datelike, Duration, NaiveDate, NaiveDateTime};

use crate::engine::row::Scn;
use crate::source::catalog::TableName;
use crate::source::sim::scenario::{parse_time, PartitionKind, Scenario, SuppLevel};
use crate::source::sim::value::{ColType, Value};

use super::undo::UndoEntry;
use super::Model;

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
    pub(super) undo: VecDeque<UndoEntry>,
    /// Changes committed at or below this SCN have lost their undo.
    pub undo_lost_scn: Scn,
    next_block: u32,
}

impl Table {
    /// Whether the table shows in `container`'s dictionary (`ALL_*` views,
    /// flashback reads): in a CDB each container has its own dictionary, so
    /// the root sees only its own tables and a PDB only its own.
    pub fn visible_in(&self, cdb: bool, container: &str) -> bool {
        if !cdb {
            return true;
        }
        match &self.pdb {
            Some(pdb) => pdb == container,
            None => container.eq_ignore_ascii_case("CDB$ROOT"),
        }
    }

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

    pub fn key_value(&self, key: i64) -> Option<(usize, Value)> {
        let first = *self.pk.first()?;
        match self.columns.get(first)?.ty {
            ColType::Number { .. } | ColType::Int | ColType::BigInt => {
                Some((first, Value::Number(key.to_string())))
            }
            _ => None,
        }
    }
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

pub(super) fn add_months(t: NaiveDateTime, months: i64) -> NaiveDateTime {
    let total = i64::from(t.year()) * 12 + i64::from(t.month0()) + months;
    let y = total.div_euclid(12) as i32;
    let m = total.rem_euclid(12) as u32 + 1;
    NaiveDate::from_ymd_opt(y, m, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .unwrap_or(t)
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
                .or_else(|| parse_time(t));
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

/// The dictionary as the scenario declares it: one table (and its
/// partitions) per spec, object ids allocated from `next_obj`.
pub(super) fn build_tables(
    scenario: &Scenario,
    start: NaiveDateTime,
    next_obj: &mut u64,
) -> Vec<Table> {
    let default_pdb = scenario.instance.pdbs.first().cloned();
    let mut tables = Vec::new();
    for spec in &scenario.tables {
        let columns: Vec<Column> = spec
            .columns
            .iter()
            .map(|c| Column {
                name: c.name.clone(),
                ty: ColType::parse_in(c.ty.get_ref(), scenario.instance.dialect)
                    .unwrap_or(ColType::Varchar2(100)),
                nullable: c.nullable && !spec.primary_key.contains(&c.name),
            })
            .collect();
        let pk: Vec<usize> = spec
            .primary_key
            .iter()
            .filter_map(|k| columns.iter().position(|c| &c.name == k))
            .collect();
        let obj_id = *next_obj;
        *next_obj += 1;
        let partitioning = spec.partitioning.as_ref().and_then(|p| {
            let column = columns.iter().position(|c| c.name == p.column)?;
            let ty = &columns[column].ty;
            let mut partitions = Vec::new();
            let mut mk = |name: String, bound: Bound| {
                let id = *next_obj;
                *next_obj += 1;
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
    tables
}

impl Model {
    pub(super) fn con_name(&self, table: Option<usize>) -> Option<Arc<str>> {
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

    /// Finds (or, for interval partitioning, creates) the partition of a row.
    pub(super) fn place(
        &mut self,
        t: usize,
        values: &[Value],
        created: NaiveDateTime,
    ) -> Option<usize> {
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

    pub(super) fn alloc_rowid(&mut self, t: usize, part: usize) -> String {
        let (_, objd) = self.tables[t].segment(part);
        let table = &mut self.tables[t];
        let n = table.next_block;
        table.next_block += 1;
        // About 40 rows per block.
        rowid(objd, 12, u64::from(130 + n / 40), u64::from(n % 40))
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

pub(super) fn bound_cmp(a: &Bound, b: &Bound) -> std::cmp::Ordering {
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
