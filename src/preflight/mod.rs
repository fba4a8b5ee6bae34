//! Preflight: go-live checks for log-based capture. The catalog (`checks/`,
//! see [`defs`]) says what each check verifies; [`rules`] are pure functions
//! from catalog [`facts`] (and an optional connector [`config`]) to
//! [`model::Outcome`]s; [`run`] evaluates every applicable check.

pub mod collect;
pub mod collect_line;
pub mod config;
pub mod config_syntax;
pub mod defs;
pub mod facts;
pub mod fix_script;
pub mod model;
pub mod partitions;
pub mod remedy;
pub mod rules;
pub mod smoke;
pub mod startup;
pub mod yashandb_live;

use crate::source::Dialect;
use defs::CheckDef;
use facts::Facts;
use model::{CheckResult, Report, SourceInfo, Status, Summary};

/// Evaluates every check that applies to the facts' dialect. Config checks
/// run only when a connector config is present.
pub fn run(defs: &[CheckDef], facts: &Facts, source: &str) -> Report {
    let dialect = facts
        .instance
        .as_ref()
        .map(|i| i.dialect)
        .unwrap_or(Dialect::Oracle);
    let mut checks = Vec::new();
    for def in defs {
        if def.dialect != dialect || (def.needs_config && facts.config.is_none()) {
            continue;
        }
        let outcome = match rules::rule_for(&def.id) {
            Some(rule) => rule(facts, def),
            None => model::Outcome::skip("this version of cdcctl has no rule for the check"),
        };
        let remediation = matches!(outcome.status, Status::Warn | Status::Fail).then(|| {
            let text = outcome.remediation.as_deref().unwrap_or(&def.remediation);
            let text = remedy::personalize(
                text,
                facts.session.as_ref(),
                facts.instance.as_ref().map(|i| i.cdb),
            );
            match (facts.table_pdb(), facts.tables.as_deref()) {
                (Some(pdb), Some(tables)) => {
                    let names: Vec<_> = tables.iter().map(|t| t.name.clone()).collect();
                    remedy::in_table_container(&text, &pdb, &names)
                }
                _ => text,
            }
        });
        checks.push(CheckResult {
            id: def.id.clone(),
            group: def.group.clone(),
            status: outcome.status,
            title: def.title.clone(),
            detail: outcome.detail,
            evidence: outcome.evidence,
            remediation,
            references: def.references.clone(),
        });
    }
    let summary = Summary::of(&checks);
    Report {
        source: source_info(facts, source, dialect),
        checks,
        summary,
    }
}

fn source_info(facts: &Facts, source: &str, dialect: Dialect) -> SourceInfo {
    let i = facts.instance.as_ref();
    let s = facts.session.as_ref();
    SourceInfo {
        source: source.to_string(),
        dialect: format!("{dialect:?}").to_lowercase(),
        version: i.map(|i| i.version.clone()).unwrap_or_default(),
        db_name: i.map(|i| i.db_name.clone()).unwrap_or_default(),
        cdb: i.is_some_and(|i| i.cdb),
        user: s.map(|s| s.user.clone()).unwrap_or_default(),
        container: s.map(|s| s.con_name.clone()).unwrap_or_default(),
        scope: facts.scope.iter().map(|p| p.to_string()).collect(),
        config: facts.config.as_ref().map(|c| c.path.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_catalog_check_has_a_rule() {
        for d in defs::load().unwrap() {
            assert!(rules::rule_for(&d.id).is_some(), "no rule for {}", d.id);
        }
    }
}
