//! What a preflight run produces: one result per check, with its status,
//! the evidence it read and what to run about it.

use serde::{Deserialize, Serialize};

/// The verdict of one check. Ordered by severity for `--fail-on`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    /// Not evaluated: the facts or the config it needs are missing.
    Skip,
    Warn,
    Fail,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Skip => "skip",
            Status::Warn => "warn",
            Status::Fail => "fail",
        }
    }
}

/// What a rule returns: the verdict, one sentence, and the facts behind it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub status: Status,
    pub detail: String,
    pub evidence: Vec<String>,
    /// The catalog's remediation written out for what the rule found (the
    /// tables, sequences and names it knows); `None` keeps the catalog's.
    pub remediation: Option<String>,
}

impl Outcome {
    pub fn pass(detail: impl Into<String>) -> Self {
        Self::new(Status::Pass, detail)
    }
    pub fn warn(detail: impl Into<String>) -> Self {
        Self::new(Status::Warn, detail)
    }
    pub fn fail(detail: impl Into<String>) -> Self {
        Self::new(Status::Fail, detail)
    }
    /// Not evaluated; `reason` says which fact or option was missing.
    pub fn skip(reason: impl Into<String>) -> Self {
        Self::new(Status::Skip, reason)
    }
    pub fn new(status: Status, detail: impl Into<String>) -> Self {
        Outcome {
            status,
            detail: detail.into(),
            evidence: Vec::new(),
            remediation: None,
        }
    }
    /// The remediation for this outcome in place of the catalog's template.
    pub fn fix(mut self, remediation: impl Into<String>) -> Self {
        self.remediation = Some(remediation.into());
        self
    }
    pub fn with(mut self, evidence: impl Into<String>) -> Self {
        self.evidence.push(evidence.into());
        self
    }
    pub fn with_all(mut self, evidence: impl IntoIterator<Item = String>) -> Self {
        self.evidence.extend(evidence);
        self
    }
}

/// Collects per-item problems and turns them into one outcome.
#[derive(Debug, Default)]
pub struct Tally {
    pub fails: Vec<String>,
    pub warns: Vec<String>,
    pub notes: Vec<String>,
}

impl Tally {
    pub fn fail(&mut self, s: impl Into<String>) {
        self.fails.push(s.into());
    }
    pub fn warn(&mut self, s: impl Into<String>) {
        self.warns.push(s.into());
    }
    pub fn note(&mut self, s: impl Into<String>) {
        self.notes.push(s.into());
    }
    /// Fail if any failure, else warn if any warning, else pass with `ok`.
    pub fn finish(self, ok: impl Into<String>) -> Outcome {
        let status = if !self.fails.is_empty() {
            Status::Fail
        } else if !self.warns.is_empty() {
            Status::Warn
        } else {
            Status::Pass
        };
        let detail = match status {
            Status::Fail => join_limited(&self.fails),
            Status::Warn => join_limited(&self.warns),
            _ => ok.into(),
        };
        let mut evidence: Vec<String> = Vec::new();
        if status == Status::Fail {
            evidence.extend(self.warns);
        }
        evidence.extend(self.notes);
        Outcome {
            status,
            detail,
            evidence,
            remediation: None,
        }
    }
}

fn join_limited(items: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut s = items
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    if items.len() > SHOWN {
        s.push_str(&format!("; and {} more", items.len() - SHOWN));
    }
    s
}

/// One evaluated check, as every output format shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckResult {
    pub id: String,
    pub group: String,
    pub status: Status,
    pub title: String,
    pub detail: String,
    pub evidence: Vec<String>,
    /// SQL or config to run; present for warnings and failures.
    pub remediation: Option<String>,
    pub references: Vec<String>,
}

/// Counts per status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub pass: usize,
    pub warn: usize,
    pub fail: usize,
    pub skip: usize,
}

impl Summary {
    pub fn of(results: &[CheckResult]) -> Self {
        let mut s = Summary::default();
        for r in results {
            match r.status {
                Status::Pass => s.pass += 1,
                Status::Warn => s.warn += 1,
                Status::Fail => s.fail += 1,
                Status::Skip => s.skip += 1,
            }
        }
        s
    }
}

/// What was checked.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SourceInfo {
    /// `sim:demo`, `evidence:PATH`, `oracle://...`.
    pub source: String,
    pub dialect: String,
    pub version: String,
    pub db_name: String,
    pub cdb: bool,
    pub user: String,
    pub container: String,
    /// `--table` patterns, or empty for every application schema.
    pub scope: Vec<String>,
    pub config: Option<String>,
}

/// A whole preflight run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub source: SourceInfo,
    pub checks: Vec<CheckResult>,
    pub summary: Summary,
}

impl Report {
    /// The most severe status among the results.
    pub fn worst(&self) -> Status {
        self.checks
            .iter()
            .map(|c| c.status)
            .filter(|s| *s != Status::Skip)
            .max()
            .unwrap_or(Status::Pass)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tally_fails_over_warns_and_keeps_warns_as_evidence() {
        let mut t = Tally::default();
        t.warn("small redo");
        t.fail("no archivelog");
        let o = t.finish("ok");
        assert_eq!(o.status, Status::Fail);
        assert_eq!(o.detail, "no archivelog");
        assert_eq!(o.evidence, vec!["small redo".to_string()]);
    }

    #[test]
    fn severity_orders_fail_above_warn_above_skip() {
        assert!(Status::Fail > Status::Warn);
        assert!(Status::Warn > Status::Skip);
        assert!(Status::Skip > Status::Pass);
    }
}
