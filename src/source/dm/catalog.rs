//! `Catalog` for a live DM8 database: the instance from `V$DATABASE`,
//! `V$DM_INI`, `V$DM_ARCH_INI` and `V$RLOG`, the session's reach by
//! probing the views mining needs, and tables through DM8's
//! Oracle-compatible `ALL_*` views.
//!
//! A fact the user may not read stays unset (a view not granted is noted
//! in `SessionFacts.inaccessible_objects`), so preflight says "cannot
//! check" rather than the run aborting.

use std::collections::{BTreeMap, BTreeSet};

use crate::source::oracle::catalog::constraints_from_rows;
use crate::source::oracle::rows::Reader;
use crate::source::{
    Catalog, ColumnFacts, Dialect, DmFacts, InstanceFacts, LogInventory, OpenTransaction,
    PartitionFacts, PartitioningFacts, RedoSource, SessionFacts, SourceError, TableFacts,
    TableName, TablePattern,
};

use super::rows::{self, TextRow};
use super::{error, sql, DmSource};

/// `Ok(None)` for an error that only means the fact is unavailable.
fn optional<T>(result: Result<T, SourceError>) -> Result<Option<T>, SourceError> {
    match result {
        Ok(v) => Ok(Some(v)),
        Err(e) if error::is_missing_fact(&e) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Fills the DM8 facts and the parameters from the rows of
/// [`sql::DATABASE`], [`sql::DM_INI`], [`sql::LOGMNR_PACKAGE`] and
/// [`sql::ARCH_DESTS`]. `None` rows were not readable.
pub fn apply_instance_rows(
    facts: &mut InstanceFacts,
    database: Option<&[TextRow]>,
    ini: Option<&[TextRow]>,
    package: Option<&[TextRow]>,
    dests: Option<&[TextRow]>,
) -> Result<(), SourceError> {
    facts.dialect = Dialect::Dm;
    if let Some(row) = database.and_then(|r| r.first()) {
        let r = Reader::new(row, "V$DATABASE");
        facts.db_name = r.text_or_empty(0)?;
        facts.log_mode = if r.opt_text(1)?.as_deref().map(str::trim) == Some("Y") {
            "ARCHIVELOG"
        } else {
            "NOARCHIVELOG"
        }
        .into();
    }
    let mut params = BTreeMap::new();
    for row in ini.unwrap_or_default() {
        let r = Reader::new(row, "V$DM_INI");
        let name = r.text_or_empty(0)?.trim().to_string();
        let value = r.text_or_empty(1)?.trim().to_string();
        params.insert(name, value);
    }
    for (name, value) in &params {
        facts
            .parameters
            .insert(name.to_ascii_lowercase(), value.clone());
    }
    let installed = match package.and_then(|r| r.first()) {
        Some(row) => Reader::new(row, "SF_CHECK_SYSTEM_PACKAGE").opt_text(0)?,
        None => None,
    };
    facts.dm = Some(DmFacts {
        arch_ini: params.get("ARCH_INI").cloned(),
        rlog_append_logic: params.get("RLOG_APPEND_LOGIC").cloned(),
        logmnr_package_installed: installed.map(|v| v.trim() == "1"),
        mpp: params.get("MPP_INI").map(|v| v == "1"),
        arch_destinations: match dests {
            Some(rows) => rows::arch_dests(rows)?,
            None => Vec::new(),
        },
        dsc_nodes: None,
    });
    Ok(())
}

/// The banner's first line and the release it names (`8` for DM8).
pub fn banner_and_version(rows: &[TextRow]) -> (String, String) {
    let lines: Vec<String> = rows
        .iter()
        .filter_map(|r| r.first().cloned().flatten())
        .collect();
    let banner = lines.first().cloned().unwrap_or_default();
    let version = if banner.contains("V8") { "8" } else { "" };
    (banner, version.to_string())
}

/// Rows of [`sql::TABLE_COLUMNS`].
pub fn columns_from_rows(rows: &[TextRow]) -> Result<Vec<ColumnFacts>, SourceError> {
    rows.iter()
        .map(|row| {
            let r = Reader::new(row, "ALL_TAB_COLUMNS");
            Ok(ColumnFacts {
                name: r.text(0, "COLUMN_NAME")?,
                data_type: r.text_or_empty(1)?,
                data_type_owner: None,
                nullable: r.opt_text(2)?.as_deref() != Some("N"),
                data_length: r.opt_small(3, "DATA_LENGTH")?,
                data_precision: r.opt_small(4, "DATA_PRECISION")?,
                data_scale: r.opt_i32(5, "DATA_SCALE")?,
                hidden: false,
                virtual_column: false,
            })
        })
        .collect()
}

/// Rows of [`sql::TABLE_PARTITIONS`].
pub fn partitions_from_rows(rows: &[TextRow]) -> Result<Vec<PartitionFacts>, SourceError> {
    rows.iter()
        .map(|row| {
            let r = Reader::new(row, "ALL_TAB_PARTITIONS");
            Ok(PartitionFacts {
                name: r.text(0, "PARTITION_NAME")?,
                position: r.small(1, "PARTITION_POSITION")?,
                high_value: r.text_or_empty(2)?,
                num_rows: r.opt_u64(3, "NUM_ROWS")?,
                ..Default::default()
            })
        })
        .collect()
}

impl DmSource {
    fn table_rows(&mut self, text: &str, name: &TableName) -> Result<Vec<TextRow>, SourceError> {
        Ok(self
            .query(&sql::table_bound(text, &name.owner, &name.table))?
            .rows)
    }

    pub(super) fn table_facts(&mut self, name: &TableName) -> Result<TableFacts, SourceError> {
        let mut facts = TableFacts {
            name: name.clone(),
            ..Default::default()
        };
        facts.columns = columns_from_rows(&self.table_rows(sql::TABLE_COLUMNS, name)?)?;
        if let Some(rows) = optional(self.table_rows(sql::TABLE_KEYS, name))? {
            facts.constraints = constraints_from_rows(&rows)?;
        }
        if let Some(rows) = optional(self.table_rows(sql::TABLE_PARTITIONING, name))? {
            if let Some(row) = rows.first() {
                let r = Reader::new(row, "ALL_PART_TABLES");
                let partitions = match optional(self.table_rows(sql::TABLE_PARTITIONS, name))? {
                    Some(rows) => partitions_from_rows(&rows)?,
                    None => Vec::new(),
                };
                facts.partitioning = Some(PartitioningFacts {
                    partitioning_type: r.text_or_empty(0)?,
                    subpartitioning_type: r.opt_text(1)?.filter(|s| s != "NONE"),
                    key_columns: Vec::new(),
                    interval: None,
                    partitions,
                });
            }
        }
        Ok(facts)
    }
}

impl Catalog for DmSource {
    fn instance(&mut self) -> Result<InstanceFacts, SourceError> {
        let mut facts = InstanceFacts::default();
        let database = optional(self.query_plain(sql::DATABASE))?;
        let ini = optional(self.query_plain(sql::DM_INI))?;
        let package = optional(self.query_plain(sql::LOGMNR_PACKAGE))?;
        let dests = optional(self.query_plain(sql::ARCH_DESTS))?;
        apply_instance_rows(
            &mut facts,
            database.as_deref(),
            ini.as_deref(),
            package.as_deref(),
            dests.as_deref(),
        )?;
        if let (Some(dm), Some(rows)) = (
            facts.dm.as_mut(),
            optional(self.query_plain(sql::DSC_NODES))?,
        ) {
            dm.dsc_nodes = Some(u32::try_from(rows.len()).unwrap_or(u32::MAX));
        }
        if let Some(rows) = optional(self.query_plain(sql::VERSION))? {
            (facts.banner, facts.version) = banner_and_version(&rows);
        }
        if let Some((cur, _, now)) = optional(self.lsn())? {
            facts.current_scn = cur;
            facts.now = Some(now);
        }
        Ok(facts)
    }

    fn session(&mut self) -> Result<SessionFacts, SourceError> {
        let mut facts = SessionFacts::default();
        if let Some(row) = self.query_plain(sql::SESSION_USER)?.first() {
            facts.user = Reader::new(row, "DUAL").text_or_empty(0)?;
        }
        for (object, probe) in sql::PROBED_OBJECTS {
            match self.query_plain(probe) {
                Ok(_) => {}
                // The map holds Oracle-style positive codes; DM's sign is dropped.
                Err(e) if error::is_missing_fact(&e) => {
                    let code = error::dm_code(&e).map_or(0, i32::unsigned_abs);
                    facts.inaccessible_objects.insert(object.to_string(), code);
                }
                Err(e) => return Err(e),
            }
        }
        if self.logmnr_installed()? == Some(false) {
            facts.inaccessible_objects.insert(
                "DBMS_LOGMNR".into(),
                error::NO_PACKAGE_MEMBER.unsigned_abs(),
            );
        }
        Ok(facts)
    }

    fn tables(&mut self, patterns: &[TablePattern]) -> Result<Vec<TableFacts>, SourceError> {
        let every = TablePattern::every_table();
        let patterns = if patterns.is_empty() {
            std::slice::from_ref(&every)
        } else {
            patterns
        };
        let mut found = BTreeSet::new();
        for p in patterns {
            for row in self.query(&sql::tables_matching(&p.owner, &p.table))?.rows {
                let r = Reader::new(&row, "ALL_TABLES");
                found.insert(TableName {
                    owner: r.text(0, "OWNER")?,
                    table: r.text(1, "TABLE_NAME")?,
                });
            }
        }
        found.iter().map(|name| self.table_facts(name)).collect()
    }

    fn open_transactions(&mut self) -> Result<Vec<OpenTransaction>, SourceError> {
        RedoSource::open_transactions(self)
    }

    fn log_inventory(&mut self) -> Result<LogInventory, SourceError> {
        RedoSource::log_inventory(self)
    }
}
