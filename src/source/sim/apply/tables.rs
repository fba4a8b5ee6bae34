//! ALTER TABLE as the remediation writes it: a table's supplemental log
//! group, and the interval partitioning DDL (`SET INTERVAL`, `ADD
//! PARTITION`), with Oracle's errors for the wrong order (ORA-14760) and
//! the wrong container (ORA-00942).

use chrono::NaiveDateTime;

use super::{ApplyError, Outcome, Session, Tokens};
use crate::source::sim::model::{Bound, Partition};
use crate::source::sim::scenario::{PartitionKind, SuppLevel};

impl Session<'_> {
    pub(super) fn alter_table(&mut self, t: &mut Tokens) -> Result<Outcome, ApplyError> {
        t.eat_seq(&["ALTER", "TABLE"]);
        let name = t.next_table();
        let cdb = self.is_cdb();
        let container = self.container.clone();
        let Some(ti) = self.sim.model.tables.iter().position(|tb| {
            !tb.dropped
                && tb.name.table == name.table
                && (name.owner.is_empty() || tb.name.owner == name.owner)
                && tb.visible_in(cdb, &container)
        }) else {
            return Err(ApplyError::new(
                942,
                format!("table or view does not exist ({name} in {container})"),
            ));
        };
        let outcome = if t.eat_seq(&["ADD", "SUPPLEMENTAL", "LOG", "DATA"]) {
            self.table_log_group(ti, t)
        } else if t.eat_seq(&["SET", "INTERVAL"]) {
            self.set_interval(ti, t)
        } else if t.eat_seq(&["ADD", "PARTITION"]) {
            self.add_partition(ti, t)
        } else {
            return Ok(Outcome::NotApplied);
        }?;
        if outcome == Outcome::Applied {
            // DDL moves LAST_DDL_TIME, as DBA_OBJECTS shows it.
            let now = self.sim.model.now();
            self.sim.model.tables[ti].last_ddl = now;
        }
        Ok(outcome)
    }

    fn table_log_group(&mut self, ti: usize, t: &mut Tokens) -> Result<Outcome, ApplyError> {
        let Some(cols) = t.parenthesised() else {
            return Ok(Outcome::NotApplied);
        };
        if !t.eat("COLUMNS") || !t.at_end() {
            return Ok(Outcome::NotApplied);
        }
        let level = match cols.join(" ").as_str() {
            "ALL" => SuppLevel::All,
            "PRIMARY KEY" => SuppLevel::Pk,
            _ => return Ok(Outcome::NotApplied),
        };
        let table = &mut self.sim.model.tables[ti];
        if table.log_group != Some(SuppLevel::All) {
            table.log_group = Some(level);
        }
        Ok(Outcome::Applied)
    }

    /// `SET INTERVAL ()` makes the table range partitioned (its interval
    /// partitions become range ones); `SET INTERVAL (NUMTOYMINTERVAL(n,
    /// 'MONTH'))` makes it interval partitioned again.
    fn set_interval(&mut self, ti: usize, t: &mut Tokens) -> Result<Outcome, ApplyError> {
        let Some(inner) = t.parenthesised() else {
            return Ok(Outcome::NotApplied);
        };
        let months = match inner.as_slice() {
            [] => None,
            [f, open, n, comma, unit, close]
                if f == "NUMTOYMINTERVAL" && open == "(" && comma == "," && close == ")" =>
            {
                let per = match unit.trim_matches('\'').to_ascii_uppercase().as_str() {
                    "MONTH" => 1,
                    "YEAR" => 12,
                    _ => return Ok(Outcome::NotApplied),
                };
                match n.parse::<u32>() {
                    Ok(n) => Some(n * per),
                    Err(_) => return Ok(Outcome::NotApplied),
                }
            }
            _ => return Ok(Outcome::NotApplied),
        };
        let table = &self.sim.model.tables[ti];
        let name = table.name.clone();
        let Some(p) = self.sim.model.tables[ti].partitioning.as_mut() else {
            return Err(ApplyError::new(
                14501,
                format!("object is not partitioned ({name})"),
            ));
        };
        match months {
            None => {
                p.kind = PartitionKind::Range;
                p.interval_months = None;
                for x in &mut p.partitions {
                    x.interval = false;
                }
            }
            Some(n) => {
                p.kind = PartitionKind::Interval;
                p.interval_months = Some(n);
            }
        }
        Ok(Outcome::Applied)
    }

    /// `ADD PARTITION name VALUES LESS THAN (TO_DATE('...', '...'))`.
    fn add_partition(&mut self, ti: usize, t: &mut Tokens) -> Result<Outcome, ApplyError> {
        let part = t.next_name();
        if !t.eat_seq(&["VALUES", "LESS", "THAN"]) {
            return Ok(Outcome::NotApplied);
        }
        let Some(bound) = t.parenthesised().and_then(|b| date_bound(&b)) else {
            return Ok(Outcome::NotApplied);
        };
        t.eat_seq(&["UPDATE", "INDEXES"]);
        if !t.at_end() {
            return Ok(Outcome::NotApplied);
        }
        let now = self.sim.model.now();
        let scn = self.sim.model.scn;
        let id = self.sim.model.alloc_obj();
        let table = &mut self.sim.model.tables[ti];
        let Some(p) = table.partitioning.as_mut() else {
            return Err(ApplyError::new(
                14501,
                format!("object is not partitioned ({})", table.name),
            ));
        };
        if p.kind == PartitionKind::Interval {
            return Err(ApplyError::new(
                14760,
                "ADD PARTITION is not permitted on Interval partitioned objects",
            ));
        }
        let higher = p
            .partitions
            .iter()
            .filter(|x| !x.dropped)
            .all(|x| match x.bound {
                Bound::Date(d) => d < bound,
                _ => false,
            });
        if !higher {
            return Err(ApplyError::new(
                14074,
                "partition bound must collate higher than that of the last partition",
            ));
        }
        p.partitions.push(Partition {
            name: part,
            bound: Bound::Date(bound),
            obj_id: id,
            data_obj_id: id,
            created: now,
            last_ddl: now,
            interval: false,
            objd_changed_scn: scn,
            dropped: false,
        });
        Ok(Outcome::Applied)
    }
}

/// `TO_DATE('2025-05-01 00:00:00', 'YYYY-MM-DD HH24:MI:SS')` as tokens.
fn date_bound(tokens: &[String]) -> Option<NaiveDateTime> {
    match tokens {
        [f, open, text, comma, _fmt, close]
            if f == "TO_DATE" && open == "(" && comma == "," && close == ")" =>
        {
            NaiveDateTime::parse_from_str(text.trim_matches('\''), "%Y-%m-%d %H:%M:%S").ok()
        }
        _ => None,
    }
}
