//! What a scenario may ask for beyond its types: a version and character
//! sets cdcctl simulates, tables of a shape the simulator generates, and
//! bounds that keep it finite. The checks run in the file's order; the first
//! failure is the error.

use std::collections::BTreeSet;

use super::super::value::{ColType, Fraction};
use super::error::ScenarioError;
use super::spec::{parse_time, Scenario, VERSIONS};
use super::tables::{PartitionKind, TableSpec};

/// Memory the tables' initial rows may take unless `memory_mb` says more.
/// The simulator holds every row in memory from the start: a nine-column
/// row (NUMBER, VARCHAR2, NVARCHAR2, DATE, CHAR, TIMESTAMP WITH TIME ZONE,
/// RAW) took about 1,170 bytes of resident memory, so 1,500,000 rows.
const DEFAULT_MEMORY_MB: u64 = 1_800;
const BYTES_PER_ROW: u64 = 1_200;
/// Database time simulated before the first answer.
const MAX_WARMUP_S: u64 = 86_400;
/// Workload actions (row changes and commits) per second of database time:
/// enough for a 50k changes/s soak, finite so a typo cannot spin for ever.
const MAX_RATE: f64 = 100_000.0;
/// Changes in one generated transaction.
const MAX_TXN_SIZE: u32 = 1_000_000;

impl Scenario {
    /// Checks a parsed scenario section by section; a DM8 scenario loses
    /// its `resetlogs_change`, which DM8 does not have.
    pub(super) fn validate(&mut self, text: &str, origin: &str) -> Result<(), ScenarioError> {
        self.validate_dialect(text, origin)?;
        self.validate_text_forms(text, origin)?;
        for t in &self.tables {
            self.validate_table_keys(t, origin)?;
            self.validate_column_types(t, text, origin)?;
            self.validate_table_parts(t, origin)?;
        }
        self.validate_bounds(origin)?;
        self.validate_workload(origin)?;
        self.validate_redo_and_threads(origin)?;
        self.validate_faults_and_references(origin)
    }

    /// The dialect and the version, DM8's settings for a DM8 instance.
    fn validate_dialect(&mut self, text: &str, origin: &str) -> Result<(), ScenarioError> {
        let invalid = ScenarioError::invalid_in(origin);
        if self.instance.dialect == crate::source::Dialect::Yashandb {
            return Err(invalid(
                "instance.dialect: the simulator models `oracle` and `dm` instances, not yashandb"
                    .into(),
            ));
        }
        if self.is_dm() && self.version_full().is_none() {
            return Err(ScenarioError::at(
                text,
                origin,
                self.instance.version.span(),
                "instance.version",
                format!(
                    "`{}` is not a DM8 version (write four numbers starting with 8, such as 8.1.4.6)",
                    self.instance.version.get_ref()
                ),
            ));
        }
        if self.is_dm() {
            self.validate_dm(origin)?;
            // DM8 has no incarnations: every position is of the one log.
            self.instance.resetlogs_change = 0;
        }
        if self.version_full().is_none() {
            let allowed: Vec<&str> = VERSIONS.iter().map(|v| v.0).collect();
            return Err(ScenarioError::at(
                text,
                origin,
                self.instance.version.span(),
                "instance.version",
                format!(
                    "`{}` is not a version cdcctl simulates (allowed: {}, or a full version such as 19.22.0.0.0)",
                    self.instance.version.get_ref(),
                    allowed.join(", ")
                ),
            ));
        }
        Ok(())
    }

    /// Character sets, the session's timestamp format, percentages and the start time.
    fn validate_text_forms(&self, text: &str, origin: &str) -> Result<(), ScenarioError> {
        let invalid = ScenarioError::invalid_in(origin);
        for (key, name) in [
            ("instance.characterset", &self.instance.characterset),
            (
                "instance.nchar_characterset",
                &self.instance.nchar_characterset,
            ),
        ] {
            if let Err(e) = crate::engine::charset::Charset::from_oracle_name(name) {
                return Err(invalid(format!(
                    "{key}: {e} (e.g. AL32UTF8, UTF8, AL16UTF16, ZHS16GBK, WE8MSWIN1252, WE8ISO8859P1)"
                )));
            }
        }
        if Fraction::from_format(&self.logminer.nls_timestamp_format).is_none() {
            return Err(invalid(format!(
                "logminer.nls_timestamp_format: `{}` is not a format the simulator prints (allowed: {})",
                self.logminer.nls_timestamp_format,
                Fraction::ALLOWED
            )));
        }
        for (key, pct) in [
            ("logminer.table_alias_pct", self.logminer.table_alias_pct),
            (
                "workload.nondisplayable_text_pct",
                self.workload.nondisplayable_text_pct,
            ),
        ] {
            if !(0.0..=100.0).contains(&pct) {
                return Err(invalid(format!(
                    "{key}: {pct} is not a percentage (0 to 100)"
                )));
            }
        }
        if parse_time(self.start_time.get_ref()).is_none() {
            return Err(ScenarioError::at(
                text,
                origin,
                self.start_time.span(),
                "start_time",
                format!(
                    "`{}` is not a time (allowed: YYYY-MM-DDTHH:MM:SS)",
                    self.start_time.get_ref()
                ),
            ));
        }
        Ok(())
    }

    /// A table's columns and key: one integral key column; a DATE column
    /// under interval partitioning.
    fn validate_table_keys(&self, t: &TableSpec, origin: &str) -> Result<(), ScenarioError> {
        let invalid = ScenarioError::invalid_in(origin);
        if t.columns.is_empty() {
            return Err(invalid(format!(
                "table {}.{} has no columns",
                t.owner, t.name
            )));
        }
        if t.primary_key.len() > 1 {
            return Err(invalid(format!(
                "table {}.{}: primary_key must be one NUMBER column (the simulator generates keys in sequence)",
                t.owner, t.name
            )));
        }
        for k in &t.primary_key {
            let ty = t
                .columns
                .iter()
                .find(|c| &c.name == k)
                .map(|c| ColType::parse_in(c.ty.get_ref(), self.instance.dialect));
            if let Some(Ok(ty)) = ty {
                // A RAW key is a SYS_GUID(): 16 random bytes.
                let guid = matches!(ty, ColType::Raw(n) if n >= 16) && !self.is_dm();
                if !ty.is_integral_key() && !guid {
                    return Err(invalid(format!(
                        "table {}.{}: primary_key column {k} must be a NUMBER, which the simulator fills in sequence, or (Oracle) a RAW(16) or wider, which it fills as SYS_GUID() does (DM8: INT, BIGINT or DECIMAL)",
                        t.owner, t.name
                    )));
                }
            }
        }
        if let Some(p) = &t.partitioning {
            let ty = t
                .columns
                .iter()
                .find(|c| c.name == p.column)
                .map(|c| ColType::parse_in(c.ty.get_ref(), self.instance.dialect));
            if p.kind == PartitionKind::Interval && !matches!(ty, Some(Ok(ColType::Date))) {
                return Err(invalid(format!(
                    "table {}.{}: interval partitioning needs a DATE column (interval_months); {} is not one",
                    t.owner, t.name, p.column
                )));
            }
        }
        Ok(())
    }

    /// Each column's type, as the dialect, the version and
    /// `max_string_size` allow it.
    fn validate_column_types(
        &self,
        t: &TableSpec,
        text: &str,
        origin: &str,
    ) -> Result<(), ScenarioError> {
        let extended = self
            .instance
            .parameters
            .get("max_string_size")
            .is_some_and(|v| v.eq_ignore_ascii_case("EXTENDED"));
        let json_type = self
            .version_full()
            .and_then(|v| v.split('.').next()?.parse::<u32>().ok())
            .is_some_and(|major| major >= 21);
        let dialect = self.instance.dialect;
        for c in &t.columns {
            match ColType::parse_in(c.ty.get_ref(), dialect) {
                Err(m) => {
                    return Err(ScenarioError::at(text, origin, c.ty.span(), "type", m));
                }
                Ok(ColType::Json) if !json_type => {
                    let m = format!(
                        "JSON is a column type from Oracle 21c; instance.version is {}",
                        self.instance.version.get_ref()
                    );
                    return Err(ScenarioError::at(text, origin, c.ty.span(), "type", m));
                }
                Ok(ColType::Varchar2(n)) if n > 32_767 || (n > 4000 && !extended) => {
                    let m = format!(
                        "VARCHAR2({n}) is longer than the database allows: 4000 bytes, or 32767 with \
                         instance.parameters.max_string_size = \"EXTENDED\""
                    );
                    return Err(ScenarioError::at(text, origin, c.ty.span(), "type", m));
                }
                Ok(_) => {}
            }
        }
        Ok(())
    }

    /// What a table names: its key and partitioning columns among its
    /// columns, the partitions its partitioning needs, its PDB.
    fn validate_table_parts(&self, t: &TableSpec, origin: &str) -> Result<(), ScenarioError> {
        let invalid = ScenarioError::invalid_in(origin);
        for k in &t.primary_key {
            if !t.columns.iter().any(|c| &c.name == k) {
                return Err(invalid(format!(
                    "table {}.{}: primary_key column {k} is not among its columns",
                    t.owner, t.name
                )));
            }
        }
        if let Some(p) = &t.partitioning {
            if !t.columns.iter().any(|c| c.name == p.column) {
                return Err(invalid(format!(
                    "table {}.{}: partitioning column {} is not among its columns",
                    t.owner, t.name, p.column
                )));
            }
            let ok = match p.kind {
                PartitionKind::Hash => p.count.unwrap_or(p.partitions.len() as u32) > 0,
                PartitionKind::Interval => {
                    p.interval_months.is_some_and(|m| m > 0) && !p.partitions.is_empty()
                }
                _ => !p.partitions.is_empty(),
            };
            if !ok {
                return Err(invalid(format!(
                    "table {}.{}: {:?} partitioning needs {}",
                    t.owner,
                    t.name,
                    p.kind,
                    match p.kind {
                        PartitionKind::Hash => "count > 0 or listed partitions",
                        PartitionKind::Interval => "interval_months > 0 and at least one partition",
                        _ => "at least one partition",
                    }
                )));
            }
        }
        if let Some(pdb) = &t.pdb {
            if self.instance.cdb && !self.instance.pdbs.contains(pdb) {
                return Err(invalid(format!(
                    "table {}.{}: pdb {pdb} is not in instance.pdbs ({})",
                    t.owner,
                    t.name,
                    self.instance.pdbs.join(", ")
                )));
            }
        }
        Ok(())
    }

    /// Bounds that keep the simulator finite: it generates every row and
    /// transaction in memory, and warms up before answering.
    fn validate_bounds(&self, origin: &str) -> Result<(), ScenarioError> {
        let invalid = ScenarioError::invalid_in(origin);
        let mut names = BTreeSet::new();
        let mut initial_rows = 0u64;
        let memory_mb = self.memory_mb.unwrap_or(DEFAULT_MEMORY_MB);
        let max_rows = memory_mb.saturating_mul(1_000_000) / BYTES_PER_ROW;
        for t in &self.tables {
            if !names.insert((t.owner.as_str(), t.name.as_str())) {
                return Err(invalid(format!(
                    "table {}.{} is listed twice",
                    t.owner, t.name
                )));
            }
            initial_rows = initial_rows.saturating_add(t.rows);
            if initial_rows > max_rows {
                return Err(invalid(format!(
                    "table {}.{}: rows = {} brings the tables' initial rows to {initial_rows}, \
                     past the {max_rows} the simulator holds in memory_mb = {memory_mb} (about \
                     1.2 KB a row; raise memory_mb on a machine that has the memory)",
                    t.owner, t.name, t.rows
                )));
            }
        }
        if self.warmup_s > MAX_WARMUP_S {
            return Err(invalid(format!(
                "warmup_s must be at most {MAX_WARMUP_S} (a day; got {})",
                self.warmup_s
            )));
        }
        if self.instance.undo_tablespace_mb == 0 {
            return Err(invalid(
                "instance.undo_tablespace_mb must be at least 1".into(),
            ));
        }
        Ok(())
    }

    /// The workload's rate, percentages, mix and transaction sizes.
    fn validate_workload(&self, origin: &str) -> Result<(), ScenarioError> {
        let invalid = ScenarioError::invalid_in(origin);
        let w = &self.workload;
        if w.rate > MAX_RATE {
            return Err(invalid(format!(
                "workload.rate must be at most {MAX_RATE} changes per second (got {})",
                w.rate
            )));
        }
        if !(0.0..=100.0).contains(&w.rollback_pct) {
            return Err(invalid(format!(
                "workload.rollback_pct must be between 0 and 100 (got {})",
                w.rollback_pct
            )));
        }
        if !(0.0..=100.0).contains(&w.lob_update_pct) {
            return Err(invalid(format!(
                "workload.lob_update_pct must be between 0 and 100 (got {})",
                w.lob_update_pct
            )));
        }
        if w.txn_size[1] > MAX_TXN_SIZE {
            return Err(invalid(format!(
                "workload.txn_size must be at most {MAX_TXN_SIZE} changes (got {})",
                w.txn_size[1]
            )));
        }
        if !(w.rate > 0.0 && w.rate.is_finite()) {
            return Err(invalid(format!(
                "workload.rate must be above 0 (got {})",
                w.rate
            )));
        }
        if w.insert + w.update + w.delete == 0 {
            return Err(invalid(
                "workload: insert, update and delete weights are all 0".into(),
            ));
        }
        if w.txn_size[0] == 0 || w.txn_size[0] > w.txn_size[1] {
            return Err(invalid(
                "workload.txn_size must be [min, max] with 1 <= min <= max".into(),
            ));
        }
        Ok(())
    }

    /// Containers, online redo, RAC threads and the redo kept in memory.
    fn validate_redo_and_threads(&self, origin: &str) -> Result<(), ScenarioError> {
        let invalid = ScenarioError::invalid_in(origin);
        if self.instance.cdb && self.instance.pdbs.is_empty() {
            return Err(invalid(
                "instance.cdb is true but instance.pdbs is empty".into(),
            ));
        }
        if self.redo.groups < 2 {
            return Err(invalid(
                "redo.groups must be at least 2 (Oracle needs two online log groups)".into(),
            ));
        }
        if self.redo.group_bytes < 64 * 1024 {
            return Err(invalid("redo.group_bytes must be at least 65536".into()));
        }
        if !(1..=16).contains(&self.instance.threads) {
            return Err(invalid("instance.threads must be 1 to 16".into()));
        }
        for t in &self.instance.thread_schedule {
            if !(1..=self.instance.threads).contains(&t.thread) {
                return Err(invalid(format!(
                    "instance.thread_schedule: thread {} is not one of the {} threads",
                    t.thread, self.instance.threads
                )));
            }
            if t.thread == 1 && t.enabled_at_s.is_some() {
                return Err(invalid(
                    "instance.thread_schedule: thread 1 is the instance itself and is enabled from the start".into(),
                ));
            }
            if let Some([from, to]) = t.quiet.iter().find(|[from, to]| from >= to) {
                return Err(invalid(format!(
                    "instance.thread_schedule: quiet period [{from}, {to}] of thread {} is empty",
                    t.thread
                )));
            }
        }
        if self.redo.memory_records < 10_000 {
            return Err(invalid("redo.memory_records must be at least 10000".into()));
        }
        let copy = self.redo.archive_copy_s;
        if !(0.0..=3600.0).contains(&copy) {
            return Err(invalid(format!(
                "redo.archive_copy_s must be between 0 and 3600 seconds (got {copy})"
            )));
        }
        Ok(())
    }

    /// When each fault strikes, and the tables the workload's extras name.
    fn validate_faults_and_references(&self, origin: &str) -> Result<(), ScenarioError> {
        let invalid = ScenarioError::invalid_in(origin);
        for f in &self.faults {
            if f.at_s.is_none() && f.at_scn.is_none() {
                return Err(invalid(format!(
                    "fault {}: needs at_s or at_scn",
                    f.kind.name()
                )));
            }
            if f.duration_s.is_some() && f.kind != super::FaultKind::ConnectionDrop {
                return Err(invalid(format!(
                    "fault {}: duration_s goes with kind = \"connection_drop\" only",
                    f.kind.name()
                )));
            }
        }
        let names: Vec<String> = self
            .tables
            .iter()
            .map(|t| format!("{}.{}", t.owner, t.name))
            .collect();
        let check = |what: &str, t: &Option<String>| -> Result<(), ScenarioError> {
            match t {
                Some(t) if !names.contains(t) => Err(invalid(format!(
                    "{what}: table {t} is not defined (tables: {})",
                    names.join(", ")
                ))),
                _ => Ok(()),
            }
        };
        for l in &self.workload.long_transactions {
            check("workload.long_transactions", &l.table)?;
        }
        for b in &self.workload.big_transactions {
            check("workload.big_transactions", &b.table)?;
        }
        for m in &self.workload.maintenance {
            check("workload.maintenance", &Some(m.table.clone()))?;
            let adds = m.action == super::MaintenanceAction::AddColumn;
            if adds != m.column.is_some() {
                return Err(invalid(format!(
                    "workload.maintenance on {}: `column = {{ name = \"…\", type = \"…\" }}` goes with action = \"add_column\", and only with it",
                    m.table
                )));
            }
            if adds && !self.is_dm() {
                return Err(invalid(format!(
                    "workload.maintenance on {}: add_column is modelled for DM8 only (Oracle's LogMiner marks rows mined across it as a dictionary version mismatch, which the simulator does not model)",
                    m.table
                )));
            }
        }
        Ok(())
    }

    /// What a DM8 scenario may not ask for: Oracle-only settings, and
    /// behaviour of DM8 nobody has verified (partial rollbacks to a
    /// savepoint or of one failed statement, whose redo form is unknown).
    fn validate_dm(&self, origin: &str) -> Result<(), ScenarioError> {
        let invalid = ScenarioError::invalid_in(origin);
        let w = &self.workload;
        // A rollback to a savepoint shows only where rolled-back work shows.
        let savepoints = if self.dm.rollback_rows == super::DmRollbackRows::None {
            w.savepoint_pct
        } else {
            0.0
        };
        for (key, pct) in [
            ("workload.savepoint_pct", savepoints),
            ("workload.statement_rollback_pct", w.statement_rollback_pct),
            ("workload.lob_update_pct", w.lob_update_pct),
            ("logminer.table_alias_pct", self.logminer.table_alias_pct),
        ] {
            if pct != 0.0 {
                return Err(invalid(format!(
                    "{key}: a DM8 scenario cannot set it (how DM8 logs it is not verified, or it is Oracle's form); leave it 0"
                )));
            }
        }
        // A dropped connection is the one fault DM8 shares: it raises DM8's
        // own network error.
        let oracle_faults = self
            .faults
            .iter()
            .any(|f| f.kind != super::FaultKind::ConnectionDrop);
        let oracle_ddl = w
            .maintenance
            .iter()
            .any(|m| m.action != super::MaintenanceAction::AddColumn);
        if oracle_faults || oracle_ddl {
            return Err(invalid(
                "faults other than connection_drop, and workload.maintenance other than add_column, raise Oracle's errors and DDL; the DM8 mode does not model them".into(),
            ));
        }
        if let Some(t) = self.tables.iter().find(|t| t.partitioning.is_some()) {
            return Err(invalid(format!(
                "table {}.{}: the DM8 mode does not model partitioned tables",
                t.owner, t.name
            )));
        }
        if self.instance.cdb || self.instance.threads != 1 {
            return Err(invalid(
                "a DM8 instance is single-node without containers: instance.cdb = false, instance.threads = 1".into(),
            ));
        }
        if self.dm.rlog_append_logic > 4 {
            return Err(invalid(format!(
                "dm.rlog_append_logic: {} is not a value DM8 takes (0 to 4)",
                self.dm.rlog_append_logic
            )));
        }
        for (name, pct) in [
            ("dm.xa_pct", self.dm.xa_pct),
            ("dm.batch_update_pct", self.dm.batch_update_pct),
            ("dm.lock_wait_pct", self.dm.lock_wait_pct),
        ] {
            if !(0.0..=100.0).contains(&pct) {
                return Err(invalid(format!("{name}: {pct} is not a percentage")));
            }
        }
        Ok(())
    }
}
