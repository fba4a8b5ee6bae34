//! The built-in scenarios embedded in the binary, and loading a scenario
//! by built-in name or file path.

use std::path::Path;

use super::error::ScenarioError;
use super::spec::Scenario;

/// A built-in scenario: name, one-line description, TOML text.
pub struct Builtin {
    pub name: &'static str,
    pub description: &'static str,
    pub text: &'static str,
}

macro_rules! builtin {
    ($name:literal, $desc:literal) => {
        Builtin {
            name: $name,
            description: $desc,
            text: include_str!(concat!("../scenarios/", $name, ".toml")),
        }
    };
}

/// Every built-in scenario, in the order `cdcctl sim scenarios` lists them.
pub const BUILTINS: &[Builtin] = &[
    builtin!("demo", "healthy 19c CDB: PDB ORCLPDB1, C##CDCCTL in CDB$ROOT, APP.ORDERS, APP.DOCS and the interval-partitioned APP.ORDER_HIS"),
    builtin!("noarchivelog", "19c CDB in NOARCHIVELOG mode: online logs are overwritten and nothing is archived"),
    builtin!("no-supplemental-logging", "19c CDB without supplemental logging: updates carry only changed columns and ROWID"),
    builtin!("missing-grants", "19c CDB whose capture user lacks LOGMINING, SELECT ANY TRANSACTION and FLASHBACK"),
    builtin!("wrong-container", "19c CDB connected to the PDB with a local user: START_LOGMNR raises ORA-65040"),
    builtin!("undo-too-small", "19c CDB with UNDO_RETENTION of 60 s under a busy workload: snapshots hit ORA-01555"),
    builtin!("fra-nearly-full", "19c CDB whose recovery area is 96% used with nothing reclaimable"),
    builtin!("archive-gap", "19c CDB where a cleanup job deletes archived logs before capture reads them (ORA-01291)"),
    builtin!("interval-partition-churn", "the ORA-08103 incident: APP.ORDER_HIS gains interval partitions and is truncated and moved during a snapshot"),
    builtin!("snapshot-under-fire", "an initial snapshot under fire: interval partitions created, truncated, exchanged, moved and dropped, undo overwritten, a table dropped and the connection lost while APP.ORDER_HIS is read"),
    builtin!("long-transaction", "19c CDB with a transaction left open for hours, pinning the restart SCN"),
    builtin!("big-transaction", "19c CDB with a 60,000-change transaction among normal traffic"),
    builtin!("oracle11g", "non-CDB 11.2.0.4 in ARCHIVELOG with minimal supplemental logging and a DBA user"),
    builtin!("rac", "two-node RAC 19c CDB: two redo threads, node 2 quiet for minutes at a time"),
    builtin!("lobs", "19c CDB with MAX_STRING_SIZE = EXTENDED: CLOB/BLOB (EMPTY_LOB inserts, dbms_lob rewrites), XMLType and 32k VARCHAR2 values in their LOB, XML DOC and 32K rows"),
    builtin!("redo-forms", "21c CDB in ZHS16GBK: table aliases, TIMESTAMP(0) under a SS.FF format, native JSON, character data LogMiner prints as HEXTORAW"),
    builtin!("dm8", "healthy Dameng DM8: ARCH on, RLOG_APPEND_LOGIC = 2, DBMS_LOGMNR installed, a table of every DM8 column type with long LOBs as OUT_CLOB"),
    builtin!("dm8-append-logic-0", "DM8 with RLOG_APPEND_LOGIC = 0: files are archived but V$LOGMNR_CONTENTS comes back empty"),
    builtin!("dm8-no-arch", "DM8 with archiving off: no archived file for DBMS_LOGMNR to mine"),
    builtin!("example", "the fully commented example scenario (every key with its default)"),
];

impl Scenario {
    /// Loads a built-in by name or a scenario file by path.
    pub fn load(spec: &str) -> Result<Scenario, ScenarioError> {
        let spec = spec.trim();
        let spec = if spec.is_empty() { "demo" } else { spec };
        if let Some(b) = BUILTINS.iter().find(|b| b.name == spec) {
            let mut s = Scenario::parse(b.text, &format!("built-in scenario {}", b.name))?;
            if s.name.is_empty() {
                s.name = b.name.to_string();
            }
            return Ok(s);
        }
        let looks_like_path = spec.ends_with(".toml") || spec.contains('/') || spec.contains('\\');
        if !looks_like_path {
            return Err(ScenarioError::UnknownBuiltin {
                name: spec.to_string(),
                builtins: BUILTINS
                    .iter()
                    .map(|b| b.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        let path = Path::new(spec);
        let text = crate::limits::read_text(path, crate::limits::CONFIG_BYTES).map_err(|e| {
            ScenarioError::Io {
                path: spec.to_string(),
                message: e.to_string(),
            }
        })?;
        let mut s = Scenario::parse(&text, spec)?;
        if s.name.is_empty() {
            s.name = path
                .file_stem()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| spec.to_string());
        }
        Ok(s)
    }
}
