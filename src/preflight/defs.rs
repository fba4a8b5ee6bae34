//! The check catalog: one TOML file per check under `checks/`, embedded in
//! the binary. The live run, `--list`, `--explain` and the offline evidence
//! script (`cdcctl collect`) all read this one catalog.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::source::Dialect;

/// The catalog files, embedded in the binary. A test fails when a file in checks/ is missing here.
pub(crate) const CHECK_FILES: &[(&str, &str)] = &[
    (
        "arch-dest.toml",
        include_str!("../../checks/arch-dest.toml"),
    ),
    (
        "arch-files-present.toml",
        include_str!("../../checks/arch-files-present.toml"),
    ),
    (
        "arch-format.toml",
        include_str!("../../checks/arch-format.toml"),
    ),
    ("arch-gap.toml", include_str!("../../checks/arch-gap.toml")),
    (
        "arch-retention.toml",
        include_str!("../../checks/arch-retention.toml"),
    ),
    (
        "archivelog-mode.toml",
        include_str!("../../checks/archivelog-mode.toml"),
    ),
    (
        "cdb-mining-container.toml",
        include_str!("../../checks/cdb-mining-container.toml"),
    ),
    (
        "cfg-archive-dest.toml",
        include_str!("../../checks/cfg-archive-dest.toml"),
    ),
    (
        "cfg-chunk-key.toml",
        include_str!("../../checks/cfg-chunk-key.toml"),
    ),
    (
        "cfg-chunk-size.toml",
        include_str!("../../checks/cfg-chunk-size.toml"),
    ),
    (
        "cfg-continuous-mine.toml",
        include_str!("../../checks/cfg-continuous-mine.toml"),
    ),
    (
        "cfg-database-name.toml",
        include_str!("../../checks/cfg-database-name.toml"),
    ),
    ("cfg-lint.toml", include_str!("../../checks/cfg-lint.toml")),
    (
        "cfg-mining-ranges.toml",
        include_str!("../../checks/cfg-mining-ranges.toml"),
    ),
    (
        "cfg-name-case.toml",
        include_str!("../../checks/cfg-name-case.toml"),
    ),
    (
        "cfg-password.toml",
        include_str!("../../checks/cfg-password.toml"),
    ),
    (
        "cfg-service.toml",
        include_str!("../../checks/cfg-service.toml"),
    ),
    (
        "cfg-strategy.toml",
        include_str!("../../checks/cfg-strategy.toml"),
    ),
    (
        "compat-params.toml",
        include_str!("../../checks/compat-params.toml"),
    ),
    (
        "container-data.toml",
        include_str!("../../checks/container-data.toml"),
    ),
    ("db-role.toml", include_str!("../../checks/db-role.toml")),
    (
        "dm-arch-dest.toml",
        include_str!("../../checks/dm-arch-dest.toml"),
    ),
    ("dm-arch.toml", include_str!("../../checks/dm-arch.toml")),
    (
        "dm-archive-only.toml",
        include_str!("../../checks/dm-archive-only.toml"),
    ),
    (
        "dm-logic-log.toml",
        include_str!("../../checks/dm-logic-log.toml"),
    ),
    ("dm-pkg.toml", include_str!("../../checks/dm-pkg.toml")),
    (
        "dm-topology-ddl.toml",
        include_str!("../../checks/dm-topology-ddl.toml"),
    ),
    (
        "dm-flashback.toml",
        include_str!("../../checks/dm-flashback.toml"),
    ),
    (
        "dm-grants.toml",
        include_str!("../../checks/dm-grants.toml"),
    ),
    (
        "dm-tbl-key.toml",
        include_str!("../../checks/dm-tbl-key.toml"),
    ),
    (
        "dm-tbl-types.toml",
        include_str!("../../checks/dm-tbl-types.toml"),
    ),
    (
        "flashback-probe.toml",
        include_str!("../../checks/flashback-probe.toml"),
    ),
    (
        "force-logging.toml",
        include_str!("../../checks/force-logging.toml"),
    ),
    (
        "fra-usage.toml",
        include_str!("../../checks/fra-usage.toml"),
    ),
    ("long-txn.toml", include_str!("../../checks/long-txn.toml")),
    (
        "part-churn.toml",
        include_str!("../../checks/part-churn.toml"),
    ),
    ("pdb-open.toml", include_str!("../../checks/pdb-open.toml")),
    (
        "priv-objects.toml",
        include_str!("../../checks/priv-objects.toml"),
    ),
    (
        "priv-scope.toml",
        include_str!("../../checks/priv-scope.toml"),
    ),
    ("priv-sys.toml", include_str!("../../checks/priv-sys.toml")),
    ("profile.toml", include_str!("../../checks/profile.toml")),
    (
        "rac-threads.toml",
        include_str!("../../checks/rac-threads.toml"),
    ),
    (
        "redo-size.toml",
        include_str!("../../checks/redo-size.toml"),
    ),
    (
        "smoke-mine.toml",
        include_str!("../../checks/smoke-mine.toml"),
    ),
    ("supp-min.toml", include_str!("../../checks/supp-min.toml")),
    (
        "switch-rate.toml",
        include_str!("../../checks/switch-rate.toml"),
    ),
    ("tbl-key.toml", include_str!("../../checks/tbl-key.toml")),
    (
        "tbl-lob-xml.toml",
        include_str!("../../checks/tbl-lob-xml.toml"),
    ),
    (
        "tbl-name-len.toml",
        include_str!("../../checks/tbl-name-len.toml"),
    ),
    (
        "tbl-recent-ddl.toml",
        include_str!("../../checks/tbl-recent-ddl.toml"),
    ),
    (
        "tbl-storage.toml",
        include_str!("../../checks/tbl-storage.toml"),
    ),
    (
        "tbl-supp-log.toml",
        include_str!("../../checks/tbl-supp-log.toml"),
    ),
    (
        "tbl-types.toml",
        include_str!("../../checks/tbl-types.toml"),
    ),
    (
        "tde-wallet.toml",
        include_str!("../../checks/tde-wallet.toml"),
    ),
    (
        "undo-vs-snapshot.toml",
        include_str!("../../checks/undo-vs-snapshot.toml"),
    ),
    (
        "version-edition.toml",
        include_str!("../../checks/version-edition.toml"),
    ),
    (
        "ys-arch-supp.toml",
        include_str!("../../checks/ys-arch-supp.toml"),
    ),
    (
        "ys-config.toml",
        include_str!("../../checks/ys-config.toml"),
    ),
    (
        "ys-grants.toml",
        include_str!("../../checks/ys-grants.toml"),
    ),
    ("ys-pool.toml", include_str!("../../checks/ys-pool.toml")),
    (
        "ys-server.toml",
        include_str!("../../checks/ys-server.toml"),
    ),
    (
        "ys-startscn-hygiene.toml",
        include_str!("../../checks/ys-startscn-hygiene.toml"),
    ),
    ("ys-types.toml", include_str!("../../checks/ys-types.toml")),
];

/// The groups checks are shown in, in display order.
pub const GROUPS: &[&str] = &[
    "instance",
    "redo-archive",
    "privileges",
    "multitenant",
    "snapshot-undo",
    "table",
    "partitions",
    "config",
    "dm",
    "yashandb",
];

/// One query of a check: the evidence file keys its rows by `name`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckSql {
    pub dialect: Dialect,
    pub name: String,
    pub text: String,
}

/// One check as the catalog describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckDef {
    pub id: String,
    pub title: String,
    pub group: String,
    /// The database family the check applies to.
    pub dialect: Dialect,
    /// The ORA- code or the silent loss the check prevents.
    pub prevents: String,
    /// The rule in words: when it passes, warns or fails.
    pub rule: String,
    /// Only meaningful with a connector config (`--config`).
    #[serde(default)]
    pub needs_config: bool,
    /// Needs a live source (it mines); an evidence file cannot answer it.
    #[serde(default)]
    pub live_only: bool,
    pub remediation: String,
    #[serde(default)]
    pub references: Vec<String>,
    #[serde(default)]
    pub thresholds: BTreeMap<String, toml::Value>,
    #[serde(default)]
    pub sql: Vec<CheckSql>,
}

impl CheckDef {
    /// A numeric threshold, or `default` when the file does not set it.
    pub fn threshold(&self, name: &str, default: f64) -> f64 {
        match self.thresholds.get(name) {
            Some(toml::Value::Integer(i)) => *i as f64,
            Some(toml::Value::Float(f)) => *f,
            _ => default,
        }
    }
}

/// A catalog file that does not parse or breaks a catalog invariant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CatalogError {
    #[error("checks/{file}: {message}")]
    Invalid { file: String, message: String },
}

/// Parses every embedded check file, ordered by group then id.
pub fn load() -> Result<Vec<CheckDef>, CatalogError> {
    let mut defs = Vec::with_capacity(CHECK_FILES.len());
    for (file, text) in CHECK_FILES {
        let def: CheckDef = toml::from_str(text).map_err(|e| CatalogError::Invalid {
            file: (*file).to_string(),
            message: e.message().to_string(),
        })?;
        if format!("{}.toml", def.id) != *file {
            return Err(CatalogError::Invalid {
                file: (*file).to_string(),
                message: format!("id `{}` does not match the file name", def.id),
            });
        }
        if !GROUPS.contains(&def.group.as_str()) {
            return Err(CatalogError::Invalid {
                file: (*file).to_string(),
                message: format!("unknown group `{}`", def.group),
            });
        }
        defs.push(def);
    }
    defs.sort_by_key(|d| (group_rank(&d.group), d.id.clone()));
    Ok(defs)
}

/// Position of a group in display order.
pub fn group_rank(group: &str) -> usize {
    GROUPS
        .iter()
        .position(|g| *g == group)
        .unwrap_or(GROUPS.len())
}

/// Every named query of the catalog for one dialect, once each, in catalog order.
pub fn queries(defs: &[CheckDef], dialect: Dialect) -> Vec<&CheckSql> {
    let mut seen = std::collections::BTreeSet::new();
    defs.iter()
        .flat_map(|d| d.sql.iter())
        .filter(|q| q.dialect == dialect && seen.insert(q.name.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_in_checks_dir_is_embedded() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/checks");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".toml"))
            .collect();
        on_disk.sort();
        let mut listed: Vec<String> = CHECK_FILES.iter().map(|(f, _)| f.to_string()).collect();
        listed.sort();
        assert_eq!(on_disk, listed, "add new checks/ files to CHECK_FILES");
    }

    #[test]
    fn catalog_parses_with_unique_ids() {
        let defs = load().unwrap();
        assert!(defs.len() >= 50, "only {} checks", defs.len());
        let mut ids: Vec<&str> = defs.iter().map(|d| d.id.as_str()).collect();
        ids.sort_unstable();
        let n = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), n);
    }

    #[test]
    fn a_query_name_always_means_the_same_sql() {
        let defs = load().unwrap();
        let mut by_name: BTreeMap<(String, String), &str> = BTreeMap::new();
        for q in defs.iter().flat_map(|d| d.sql.iter()) {
            let key = (format!("{:?}", q.dialect), q.name.clone());
            if let Some(prev) = by_name.insert(key, &q.text) {
                assert_eq!(prev, q.text, "query `{}` has two texts", q.name);
            }
        }
    }

    #[test]
    fn thresholds_are_read_from_the_file() {
        let defs = load().unwrap();
        let redo = defs.iter().find(|d| d.id == "redo-size").unwrap();
        assert_eq!(redo.threshold("min_bytes", 1.0), 524_288_000.0);
        assert_eq!(redo.threshold("absent", 7.0), 7.0);
    }

    #[test]
    fn statements_the_dm_checks_also_send_are_the_checks_own_text() {
        let defs = load().expect("the check catalog loads");
        let dm = queries(&defs, Dialect::Dm);
        let text_of = |name: &str| {
            dm.iter()
                .find(|q| q.name == name)
                .map(|q| q.text.clone())
                .unwrap_or_else(|| panic!("no dm query named {name}"))
        };
        assert_eq!(crate::source::dm::sql::LOGMNR_PACKAGE, text_of("dm_pkg"));
        assert_eq!(crate::source::dm::sql::ARCH_DESTS, text_of("dm_arch_ini"));
        assert_eq!(crate::source::dm::sql::DSC_NODES, text_of("dsc_ep_info"));
    }
}
