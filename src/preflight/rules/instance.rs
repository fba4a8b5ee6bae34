//! Instance and logging rules: release, archive mode, supplemental logging,
//! force logging, role, parameters, TDE, RAC threads.

use super::{inst, inv, need, scoped};
use crate::preflight::defs::CheckDef;
use crate::preflight::facts::Facts;
use crate::preflight::model::{Outcome, Tally};

pub fn version_edition(f: &Facts, _d: &CheckDef) -> Outcome {
    let i = need!(f, instance, "instance");
    let Some(major) = i.major_version() else {
        return Outcome::skip(format!("the release `{}` could not be read", i.version));
    };
    let ev = format!("version {} / {}", i.version, i.banner);
    let express = i.banner.contains("Express Edition");
    if express && major >= 18 {
        return Outcome::fail(format!(
            "Oracle {major} Express Edition cannot be used for log-based capture"
        ))
        .with(ev);
    }
    if major == 11 {
        return Outcome::warn(
            "Oracle 11g is supported on a best-effort basis only (no LOGMINING privilege, no multitenant)",
        )
        .with(ev);
    }
    let note = if major >= 19 {
        "; CONTINUOUS_MINE is desupported from 19c, cdcctl adds log files itself"
    } else {
        ""
    };
    Outcome::pass(format!("Oracle {}{note}", i.version)).with(ev)
}

pub fn archivelog_mode(f: &Facts, _d: &CheckDef) -> Outcome {
    let i = need!(f, instance, "instance");
    let ev = format!("V$DATABASE.LOG_MODE = {}", i.log_mode);
    if i.log_mode == "ARCHIVELOG" {
        Outcome::pass("the database archives its redo").with(ev)
    } else {
        Outcome::fail(format!(
            "LOG_MODE is {}: online logs are overwritten without archiving and changes are lost",
            if i.log_mode.is_empty() {
                "unknown"
            } else {
                &i.log_mode
            }
        ))
        .with(ev)
    }
}

pub fn supp_min(f: &Facts, _d: &CheckDef) -> Outcome {
    let i = need!(f, instance, "instance");
    let ev = format!(
        "SUPPLEMENTAL_LOG_DATA_MIN = {}, ALL = {}",
        i.supplemental_log_data_min,
        if i.supplemental_log_data_all {
            "YES"
        } else {
            "NO"
        }
    );
    match i.supplemental_log_data_min.as_str() {
        "YES" | "IMPLICIT" => Outcome::pass("minimal supplemental logging is on").with(ev),
        _ => Outcome::fail(
            "minimal supplemental logging is off: LogMiner cannot rebuild UPDATEs and chained rows",
        )
        .with(ev),
    }
}

pub fn force_logging(f: &Facts, _d: &CheckDef) -> Outcome {
    let i = need!(f, instance, "instance");
    let _ = need!(f, tables, "tables");
    if i.force_logging {
        return Outcome::pass("FORCE LOGGING is on").with("V$DATABASE.FORCE_LOGGING = YES");
    }
    let nologging: Vec<String> = scoped(f)
        .iter()
        .filter(|t| !t.logging && !t.temporary)
        .map(|t| t.name.to_string())
        .collect();
    if nologging.is_empty() {
        Outcome::pass("FORCE LOGGING is off but every in-scope table logs its changes")
            .with("V$DATABASE.FORCE_LOGGING = NO")
    } else {
        Outcome::warn(format!(
            "FORCE LOGGING is off and {} in-scope table(s) are NOLOGGING: direct-path loads into them leave no redo",
            nologging.len()
        ))
        .with_all(nologging.into_iter().map(|t| format!("{t}: LOGGING = NO")))
    }
}

pub fn db_role(f: &Facts, _d: &CheckDef) -> Outcome {
    let i = need!(f, instance, "instance");
    let ev = format!(
        "DATABASE_ROLE = {}, OPEN_MODE = {}",
        i.database_role, i.open_mode
    );
    if i.database_role == "PRIMARY" && i.open_mode == "READ WRITE" {
        Outcome::pass("a read-write primary").with(ev)
    } else {
        Outcome::fail(format!(
            "the source is {} / {}, not a read-write primary",
            i.database_role, i.open_mode
        ))
        .with(ev)
    }
}

pub fn compat_params(f: &Facts, _d: &CheckDef) -> Outcome {
    let i = need!(f, instance, "instance");
    let mut t = Tally::default();
    let mut fixes = Vec::new();
    match i.parameter("compatible") {
        Some(c) => {
            let release: Vec<&str> = i.version.split('.').take(2).collect();
            let comp: Vec<&str> = c.split('.').take(2).collect();
            t.note(format!("compatible = {c}, release {}", i.version));
            // 19c and later keep compatible at x.0.0; compare the major only there.
            let same = if i.major_version().unwrap_or(0) >= 18 {
                release.first() == comp.first()
            } else {
                release == comp
            };
            if !same {
                t.warn(format!(
                    "compatible = {c} does not match the release {}: redo is written in the older format",
                    i.version
                ));
                // From 18c the release is x.0.0; before, x.y.0.
                let target = if i.major_version().unwrap_or(0) >= 18 {
                    format!("{}.0.0", release.first().copied().unwrap_or("19"))
                } else {
                    format!("{}.0", release.join("."))
                };
                fixes.push(format!(
                    "ALTER SYSTEM SET compatible = '{target}' SCOPE = SPFILE;  -- from {c}; irreversible: test first, then restart"
                ));
            }
        }
        None => t.note("compatible not read"),
    }
    if let Some(m) = i.parameter("max_string_size") {
        t.note(format!("max_string_size = {m}"));
        if m.eq_ignore_ascii_case("EXTENDED") {
            let lob = f
                .config
                .as_ref()
                .and_then(|c| c.flag(&["lob.enabled"]))
                .unwrap_or(false);
            if !lob {
                t.warn("max_string_size = EXTENDED but LOB handling is off: VARCHAR2 values over 4000 bytes arrive truncated or missing");
                let key = match f.config.as_ref() {
                    Some(c) if c.format.is_flink() => "'debezium.lob.enabled' = 'true'",
                    _ => "lob.enabled=true",
                };
                fixes.push(format!(
                    "-- in the connector config (max_string_size = {m}):\n{key}"
                ));
            }
        }
    }
    let outcome = t.finish("compatible and max_string_size are consistent");
    if fixes.is_empty() {
        outcome
    } else {
        outcome.fix(fixes.join("\n"))
    }
}

pub fn tde_wallet(f: &Facts, _d: &CheckDef) -> Outcome {
    let i = need!(f, instance, "instance");
    let _ = need!(f, tables, "tables");
    let encrypted: Vec<String> = scoped(f)
        .iter()
        .filter(|t| t.encrypted)
        .map(|t| t.name.to_string())
        .collect();
    let wallet = i.wallet_status.clone().unwrap_or_else(|| "unknown".into());
    let ev = format!(
        "wallet status {wallet}; encrypted tablespaces: {}",
        if i.encrypted_tablespaces.is_empty() {
            "none".to_string()
        } else {
            i.encrypted_tablespaces.join(", ")
        }
    );
    if encrypted.is_empty() {
        return Outcome::pass("no in-scope table is encrypted").with(ev);
    }
    if wallet == "OPEN" {
        Outcome::pass(format!(
            "{} encrypted table(s), the wallet is open",
            encrypted.len()
        ))
        .with(ev)
    } else {
        Outcome::fail(format!(
            "{} in-scope table(s) are encrypted and the wallet is {wallet}: LogMiner cannot decrypt them",
            encrypted.len()
        ))
        .with(ev)
        .with_all(encrypted)
    }
}

pub fn rac_threads(f: &Facts, _d: &CheckDef) -> Outcome {
    let inv = match inv(f) {
        Some(i) => i,
        None => return Outcome::skip(f.missing_reason("logs")),
    };
    let enabled: Vec<String> = inv
        .enabled_threads()
        .map(|t| format!("thread {} {} ({})", t.thread, t.status, t.enabled))
        .collect();
    if enabled.len() > 1 {
        Outcome::warn(format!(
            "{} redo threads are enabled (RAC): the archived logs of every thread must be reachable",
            enabled.len()
        ))
        .with_all(enabled)
    } else if enabled.is_empty() && inst(f).is_some() {
        Outcome::skip("V$THREAD returned no enabled thread")
    } else {
        Outcome::pass("one redo thread").with_all(enabled)
    }
}
