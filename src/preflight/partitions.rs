//! Partition analysis shared by the `part-churn` check and `cdcctl
//! partitions`: interval partitions a snapshot will create, segments whose
//! data object id moved (TRUNCATE, MOVE, EXCHANGE: ORA-08103), recent
//! partition DDL, unusable local index partitions.

use chrono::{Duration, NaiveDate, NaiveDateTime};
use serde::Serialize;

use crate::source::TableFacts;

/// What can go wrong with a partitioned table during capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RiskKind {
    /// An insert beyond the last partition's bound creates a partition during the snapshot.
    IntervalDuringSnapshot,
    /// `DATA_OBJECT_ID` differs from `OBJECT_ID`: the segment was truncated, moved or exchanged.
    SegmentReplaced,
    /// Partition DDL inside the look-back window.
    RecentDdl,
    /// Local index partitions are unusable.
    UnusableIndex,
}

/// One risk on one table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PartitionRisk {
    pub kind: RiskKind,
    pub partition: Option<String>,
    pub detail: String,
}

/// The advice for partition churn (seed: Flink CDC on interval partitions),
/// in the order it is carried out.
pub const ADVICE: &[&str] = &[
    "before the snapshot, stop interval creation (ALTER TABLE ... SET INTERVAL ()), then pre-create the partitions the snapshot window needs (ALTER TABLE ... ADD PARTITION ... UPDATE INDEXES): Oracle refuses ADD PARTITION while the table is interval-partitioned (ORA-14760)",
    "after the snapshot, restore interval creation: ALTER TABLE ... SET INTERVAL (<the interval>)",
    "lower the chunk size (cdcctl run --snapshot-chunk-rows, or 'scan.incremental.snapshot.chunk.size', e.g. 2000) so each chunk query is short",
    "schedule TRUNCATE/MOVE/EXCHANGE/DROP PARTITION outside the snapshot window",
];

/// The statements around a snapshot of an interval-partitioned table, in
/// the order they run: interval creation off (ADD PARTITION is refused
/// while it is on, ORA-14760), the next partition pre-created, interval
/// creation restored afterwards. `None` for a table without an interval.
pub fn interval_steps(t: &TableFacts) -> Option<String> {
    let p = t.partitioning.as_ref()?;
    let interval = p.interval.as_deref()?;
    let name = crate::preflight::remedy::sql_table(&t.name);
    let bound = next_bound(t).unwrap_or_else(|| "...".to_string());
    Some(format!(
        "-- before the snapshot: stop interval creation, then pre-create the partitions it needs\n\
         ALTER TABLE {name} SET INTERVAL ();\n\
         ALTER TABLE {name} ADD PARTITION P_NEXT VALUES LESS THAN ({bound}) UPDATE INDEXES;\n\
         -- after the snapshot: restore interval creation\n\
         ALTER TABLE {name} SET INTERVAL ({interval});"
    ))
}

/// The bound of the partition after the highest one: its high value plus
/// one interval, when both read as a date and a month, year or day count.
fn next_bound(t: &TableFacts) -> Option<String> {
    let p = t.partitioning.as_ref()?;
    let last = p.partitions.iter().max_by_key(|x| x.position)?;
    let high = high_value_date(&last.high_value)?;
    let next = add_interval(high, p.interval.as_deref()?)?;
    Some(format!(
        "TO_DATE('{}', 'YYYY-MM-DD HH24:MI:SS')",
        next.format("%Y-%m-%d %H:%M:%S")
    ))
}

/// `t` plus `NUMTOYMINTERVAL(n, 'MONTH'|'YEAR')` or
/// `NUMTODSINTERVAL(n, 'DAY'|'HOUR')`.
fn add_interval(t: NaiveDateTime, interval: &str) -> Option<NaiveDateTime> {
    let upper = interval.to_ascii_uppercase().replace(' ', "");
    let (func, args) = upper.split_once('(')?;
    let (n, unit) = args.trim_end_matches(')').split_once(',')?;
    let n: u32 = n.parse().ok()?;
    match (func, unit.trim_matches('\'')) {
        ("NUMTOYMINTERVAL", "MONTH") => t.checked_add_months(chrono::Months::new(n)),
        ("NUMTOYMINTERVAL", "YEAR") => t.checked_add_months(chrono::Months::new(n * 12)),
        ("NUMTODSINTERVAL", "DAY") => t.checked_add_signed(Duration::days(i64::from(n))),
        ("NUMTODSINTERVAL", "HOUR") => t.checked_add_signed(Duration::hours(i64::from(n))),
        _ => None,
    }
}

/// Reads the first `YYYY-MM-DD[ HH:MI:SS]` of a `HIGH_VALUE` text.
pub fn high_value_date(high_value: &str) -> Option<NaiveDateTime> {
    let b = high_value.as_bytes();
    for start in 0..b.len().saturating_sub(9) {
        if !high_value.is_char_boundary(start) {
            continue;
        }
        let s = &high_value[start..];
        if s.len() >= 10 && s.is_char_boundary(10) {
            if let Ok(d) = NaiveDate::parse_from_str(&s[..10], "%Y-%m-%d") {
                if s.len() >= 19 && s.is_char_boundary(19) {
                    if let Ok(t) = NaiveDateTime::parse_from_str(&s[..19], "%Y-%m-%d %H:%M:%S") {
                        return Some(t);
                    }
                }
                return d.and_hms_opt(0, 0, 0);
            }
        }
    }
    None
}

/// Parses `NUMTOYMINTERVAL(n, 'MONTH'|'YEAR')` / `NUMTODSINTERVAL(n, 'DAY'|'HOUR'|...)` roughly.
pub fn interval_length(interval: &str) -> Option<Duration> {
    let up = interval.to_ascii_uppercase();
    let open = up.find('(')?;
    let inner = &up[open + 1..];
    let n: i64 = inner.split(',').next()?.trim().parse().ok()?;
    let unit = inner.split('\'').nth(1)?;
    let days = match unit {
        "YEAR" => 365 * n,
        "MONTH" => 30 * n,
        "DAY" => n,
        "HOUR" => return Some(Duration::hours(n)),
        "MINUTE" => return Some(Duration::minutes(n)),
        _ => return None,
    };
    Some(Duration::days(days))
}

/// Analyses one table. `snapshot` is the estimated snapshot duration.
pub fn analyse(
    t: &TableFacts,
    now: NaiveDateTime,
    snapshot: Duration,
    recent: Duration,
) -> Vec<PartitionRisk> {
    analyse_with_lookahead(t, now, snapshot, recent, Duration::zero())
}

/// Like [`analyse`], also flagging an interval partition due within `lookahead`
/// (a capture or snapshot starting around then meets a new object id).
pub fn analyse_with_lookahead(
    t: &TableFacts,
    now: NaiveDateTime,
    snapshot: Duration,
    recent: Duration,
    lookahead: Duration,
) -> Vec<PartitionRisk> {
    let mut out = Vec::new();
    let Some(p) = t.partitioning.as_ref() else {
        return out;
    };
    if p.interval.is_some() {
        let last = p.partitions.iter().max_by_key(|x| x.position);
        if let Some(last) = last {
            match high_value_date(&last.high_value) {
                Some(high) if high <= now + snapshot.max(lookahead) => out.push(PartitionRisk {
                    kind: RiskKind::IntervalDuringSnapshot,
                    partition: Some(last.name.clone()),
                    detail: if high <= now + snapshot {
                        format!(
                            "the last partition {} ends {high}; rows dated after it create a new partition (new object id) while a snapshot of ~{} min runs",
                            last.name,
                            snapshot.num_minutes().max(1)
                        )
                    } else {
                        format!(
                            "the last partition {} ends {high}, within {} day(s): the next interval partition (a new object id) appears soon",
                            last.name,
                            lookahead.num_days()
                        )
                    },
                }),
                Some(_) => {}
                None => out.push(PartitionRisk {
                    kind: RiskKind::IntervalDuringSnapshot,
                    partition: Some(last.name.clone()),
                    detail: format!(
                        "interval partitioning on a non-date key: any row above {} creates a partition during the snapshot",
                        last.high_value
                    ),
                }),
            }
        }
    }
    for part in &p.partitions {
        if let Some(dobj) = part.data_object_id {
            if dobj != part.object_id {
                out.push(PartitionRisk {
                    kind: RiskKind::SegmentReplaced,
                    partition: Some(part.name.clone()),
                    detail: format!(
                        "{}: data object id {dobj} differs from object id {} (TRUNCATE, MOVE or EXCHANGE): readers of the old segment get ORA-08103",
                        part.name, part.object_id
                    ),
                });
            }
        }
        if let Some(ddl) = part.last_ddl_time {
            let created_recently = part.created.is_some_and(|c| c == ddl);
            if ddl > now - recent && !created_recently {
                out.push(PartitionRisk {
                    kind: RiskKind::RecentDdl,
                    partition: Some(part.name.clone()),
                    detail: format!("{}: partition DDL at {ddl}", part.name),
                });
            }
        }
    }
    for idx in &t.indexes {
        if !idx.unusable_partitions.is_empty() {
            out.push(PartitionRisk {
                kind: RiskKind::UnusableIndex,
                partition: None,
                detail: format!(
                    "index {} has unusable partitions: {}",
                    idx.name,
                    idx.unusable_partitions.join(", ")
                ),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{PartitionFacts, PartitioningFacts};

    fn at(s: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").unwrap()
    }

    #[test]
    fn high_value_date_reads_oracle_to_date_text() {
        let hv =
            "TO_DATE(' 2025-02-01 00:00:00', 'SYYYY-MM-DD HH24:MI:SS', 'NLS_CALENDAR=GREGORIAN')";
        assert_eq!(high_value_date(hv), Some(at("2025-02-01 00:00:00")));
        assert_eq!(high_value_date("100000"), None);
    }

    #[test]
    fn interval_table_past_its_last_bound_is_a_snapshot_risk_and_moved_segment_too() {
        let t = TableFacts {
            partitioning: Some(PartitioningFacts {
                partitioning_type: "RANGE".into(),
                interval: Some("NUMTOYMINTERVAL(1, 'MONTH')".into()),
                partitions: vec![PartitionFacts {
                    name: "P_202501".into(),
                    position: 1,
                    high_value: "TO_DATE(' 2025-02-01 00:00:00', 'SYYYY-MM-DD HH24:MI:SS')".into(),
                    object_id: 10,
                    data_object_id: Some(11),
                    ..Default::default()
                }],
                ..Default::default()
            }),
            ..Default::default()
        };
        let risks = analyse(
            &t,
            at("2025-01-31 23:00:00"),
            Duration::hours(2),
            Duration::days(7),
        );
        let kinds: Vec<RiskKind> = risks.iter().map(|r| r.kind).collect();
        assert_eq!(
            kinds,
            vec![RiskKind::IntervalDuringSnapshot, RiskKind::SegmentReplaced]
        );
        let calm = analyse(
            &t,
            at("2024-06-01 00:00:00"),
            Duration::hours(2),
            Duration::days(7),
        );
        assert_eq!(calm.len(), 1, "only the moved segment remains");
    }

    proptest::proptest! {
        #[test]
        fn high_value_parsing_never_panics(text in "\\PC{0,60}") {
            let _ = high_value_date(&text);
            let _ = interval_length(&text);
        }
    }

    #[test]
    fn high_value_with_multibyte_text_is_read() {
        assert_eq!(
            high_value_date("日期 TO_DATE(' 2025-02-01 00:00:00')"),
            Some(at("2025-02-01 00:00:00"))
        );
    }

    #[test]
    fn interval_units_are_understood() {
        assert_eq!(
            interval_length("NUMTOYMINTERVAL(1, 'MONTH')"),
            Some(Duration::days(30))
        );
        assert_eq!(
            interval_length("NUMTODSINTERVAL(2,'DAY')"),
            Some(Duration::days(2))
        );
    }
}

/// One partition as `cdcctl partitions` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PartitionRow {
    pub name: String,
    pub position: u32,
    pub high_value: String,
    pub rows: Option<u64>,
    pub bytes: Option<u64>,
    pub object_id: u64,
    pub data_object_id: Option<u64>,
    pub last_ddl_time: Option<NaiveDateTime>,
    pub interval: bool,
    pub subpartitions: u32,
}

/// The `cdcctl partitions` report of one table (`--format json` prints it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PartitionReport {
    pub table: String,
    pub partitioned: bool,
    pub partitioning_type: Option<String>,
    pub subpartitioning_type: Option<String>,
    pub key_columns: Vec<String>,
    pub interval: Option<String>,
    /// Estimated snapshot duration used for the interval risk, seconds.
    pub snapshot_estimate_s: i64,
    pub partitions: Vec<PartitionRow>,
    pub risks: Vec<PartitionRisk>,
    /// Advice shown when there is any risk.
    pub advice: Vec<String>,
    /// The statements of the advice for this table, in the order they run
    /// (interval-partitioned tables at risk).
    pub statements: Option<String>,
}

/// Builds the report of one table.
pub fn report(
    t: &TableFacts,
    now: NaiveDateTime,
    snapshot: Duration,
    recent: Duration,
) -> PartitionReport {
    let risks = analyse(t, now, snapshot, recent);
    let p = t.partitioning.as_ref();
    PartitionReport {
        table: t.name.to_string(),
        partitioned: p.is_some(),
        partitioning_type: p.map(|p| p.partitioning_type.clone()),
        subpartitioning_type: p.and_then(|p| p.subpartitioning_type.clone()),
        key_columns: p.map(|p| p.key_columns.clone()).unwrap_or_default(),
        interval: p.and_then(|p| p.interval.clone()),
        snapshot_estimate_s: snapshot.num_seconds(),
        partitions: p
            .map(|p| {
                let mut v: Vec<PartitionRow> = p
                    .partitions
                    .iter()
                    .map(|x| PartitionRow {
                        name: x.name.clone(),
                        position: x.position,
                        high_value: x.high_value.clone(),
                        rows: x.num_rows,
                        bytes: x.bytes,
                        object_id: x.object_id,
                        data_object_id: x.data_object_id,
                        last_ddl_time: x.last_ddl_time,
                        interval: x.interval,
                        subpartitions: x.subpartition_count,
                    })
                    .collect();
                v.sort_by_key(|r| r.position);
                v
            })
            .unwrap_or_default(),
        advice: if risks.is_empty() {
            Vec::new()
        } else {
            ADVICE.iter().map(|a| a.to_string()).collect()
        },
        statements: if risks.is_empty() {
            None
        } else {
            interval_steps(t)
        },
        risks,
    }
}
