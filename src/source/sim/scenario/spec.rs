//! The whole scenario file ([`Scenario`]) and what its keys mean together:
//! the dialect, the full version, the start time.

use chrono::NaiveDateTime;
use serde::Deserialize;
use toml::Spanned;

use super::instance::{ConnectionSpec, DmSpec, InstanceSpec, LogMinerSpec, RedoSpec};
use super::tables::TableSpec;
use super::workload::{FaultSpec, WorkloadSpec};

fn default_seed() -> u64 {
    42
}
fn default_start_time() -> Spanned<String> {
    Spanned::new(0..0, "2025-03-01T09:00:00".to_string())
}

/// The whole scenario file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Database time when the simulation starts (`YYYY-MM-DDTHH:MM:SS`).
    #[serde(default = "default_start_time")]
    pub start_time: Spanned<String>,
    /// Seconds of workload generated before the first call, so that logs
    /// have switched and archives exist.
    #[serde(default)]
    pub warmup_s: u64,
    /// MB of memory the tables' initial rows may take (about 1.2 KB a row;
    /// by default 1,800: 1,500,000 rows). A benchmark that needs a larger
    /// table raises it, on a machine that has the memory.
    #[serde(default)]
    pub memory_mb: Option<u64>,
    pub instance: InstanceSpec,
    pub connection: ConnectionSpec,
    #[serde(default)]
    pub redo: RedoSpec,
    #[serde(default)]
    pub tables: Vec<TableSpec>,
    #[serde(default)]
    pub workload: WorkloadSpec,
    #[serde(default)]
    pub logminer: LogMinerSpec,
    #[serde(default)]
    pub faults: Vec<FaultSpec>,
    /// The DM8 settings of an `instance.dialect = "dm"` scenario.
    #[serde(default)]
    pub dm: DmSpec,
}

/// Version aliases a scenario may use and the `VERSION_FULL` they stand for.
pub const VERSIONS: &[(&str, &str)] = &[
    ("11.2", "11.2.0.4.0"),
    ("12.2", "12.2.0.1.0"),
    ("19c", "19.22.0.0.0"),
    ("21c", "21.3.0.0.0"),
    ("23ai", "23.5.0.24.07"),
];

impl Scenario {
    /// Whether the scenario simulates a Dameng DM8 instance.
    pub fn is_dm(&self) -> bool {
        self.instance.dialect == crate::source::Dialect::Dm
    }

    /// `VERSION_FULL` for the scenario's version.
    pub fn version_full(&self) -> Option<String> {
        let v = self.instance.version.get_ref().trim();
        if self.is_dm() {
            // DM8 versions read `8.1.4.6`: four numbers, the first 8.
            let parts: Vec<&str> = v.split('.').collect();
            let ok = parts.len() == 4
                && parts[0] == "8"
                && parts
                    .iter()
                    .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
            return ok.then(|| v.to_string());
        }
        if let Some((_, full)) = VERSIONS.iter().find(|(a, _)| a.eq_ignore_ascii_case(v)) {
            return Some((*full).to_string());
        }
        let parts: Vec<&str> = v.split('.').collect();
        let ok = parts.len() >= 2
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
        let major: u32 = parts.first()?.parse().ok()?;
        (ok && [11, 12, 18, 19, 21, 23].contains(&major)).then(|| v.to_string())
    }

    pub fn start(&self) -> NaiveDateTime {
        parse_time(self.start_time.get_ref()).unwrap_or_default()
    }
}

pub fn parse_time(text: &str) -> Option<NaiveDateTime> {
    let t = text.trim();
    NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S")
        .or_else(|_| NaiveDateTime::parse_from_str(t, "%Y-%m-%d %H:%M:%S"))
        .ok()
}
