//! `preflight --fix-script`: every warning's and failure's remediation as
//! one script SQL*Plus runs as it is (DM8's disql for a DM8 source), and
//! the RMAN steps, which SQL*Plus cannot run, as a second script for RMAN.
//!
//! Each check's block is headed by its id. Prose becomes `--` comments; a
//! comment on a statement's line moves above it (SQL*Plus takes a `;` only
//! at the end of a line). Statements under a comment that makes them
//! conditional or for later (`-- if ...`, `-- or ...`, `-- on Amazon RDS`,
//! `-- after the snapshot`), statements with a placeholder to fill in, and
//! those after one in the same block, are written commented out: a script
//! run with `WHENEVER SQLERROR EXIT` must not run them blind. A statement
//! an earlier block already ran is not run twice (CREATE USER would fail).
//! In the RMAN script, DELETE commands are written as comments to review:
//! they remove archived logs or their records.

use std::collections::BTreeSet;

use super::model::{Report, Status};
use crate::source::sim::apply::split_comment;

/// The scripts and what they hold.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FixScript {
    /// The SQL*Plus (or disql) script.
    pub sql: String,
    /// The RMAN script; `None` when no remediation has an RMAN step.
    pub rman: Option<String>,
    /// Statements the SQL script runs.
    pub statements: usize,
    /// Statements written commented out (conditional, for later, or to edit).
    pub held_back: usize,
    /// Statements in the RMAN script.
    pub rman_statements: usize,
    /// Checks with a remediation in the scripts.
    pub checks: usize,
}

/// Words that start a SQL or SQL*Plus statement the script may run.
const VERBS: &[&str] = &[
    "ALTER",
    "GRANT",
    "REVOKE",
    "CREATE",
    "DROP",
    "SHUTDOWN",
    "STARTUP",
    "EXEC",
    "EXECUTE",
    "BEGIN",
    "DECLARE",
    "SP_SET_PARA_VALUE",
    "CALL",
    "COMMENT",
    "TRUNCATE",
    "PURGE",
];

/// Comment openings after which statements are alternatives or for later.
const HOLDING: &[&str] = &["if ", "or ", "on ", "after ", "afterwards"];

/// Where the lines of one remediation are going.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Run,
    Rman,
    Hold,
}

/// Builds the scripts from a report's warnings and failures, in report order.
pub fn render(report: &Report, file_name: &str) -> FixScript {
    let mut out = FixScript::default();
    let mut sql = header(report, file_name);
    let mut rman = Vec::new();
    let mut seen = BTreeSet::new();
    for c in &report.checks {
        let Some(text) = c.remediation.as_deref() else {
            continue;
        };
        if !matches!(c.status, Status::Warn | Status::Fail) {
            continue;
        }
        out.checks += 1;
        let title = format!(
            "{} ({}): {}",
            c.id,
            c.status.as_str(),
            first_line(&c.detail)
        );
        sql.push(String::new());
        sql.push(format!("-- ==== {title}"));
        let block = block(text, &mut seen, &mut out);
        sql.extend(block.sql);
        if !block.rman.is_empty() {
            sql.push(format!(
                "-- its RMAN steps are in the RMAN script ({file_name}.rman)"
            ));
            rman.push(String::new());
            rman.push(format!("# ==== {title}"));
            rman.extend(block.rman);
        }
    }
    if out.checks == 0 {
        sql.push(String::new());
        sql.push("-- no check warns or fails: nothing to fix".into());
    }
    sql.push(String::new());
    sql.push("EXIT".into());
    out.sql = sql.join("\n") + "\n";
    if !rman.is_empty() {
        let mut text = vec![
            format!(
                "# RMAN steps of the remediation for {}",
                report.source.source
            ),
            format!("# run: rman target / @{file_name}.rman"),
        ];
        text.extend(rman);
        text.push(String::new());
        text.push("EXIT;".into());
        out.rman = Some(text.join("\n") + "\n");
    }
    out
}

fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    let mut s: String = line.chars().take(100).collect();
    if line.chars().count() > 100 {
        s.push('…');
    }
    s
}

/// The script's opening: where to run it and SQL*Plus's error handling.
fn header(report: &Report, file_name: &str) -> Vec<String> {
    let src = &report.source;
    let mut h = vec![format!(
        "-- cdcctl preflight remediation for {} ({} {}, {})",
        src.source, src.dialect, src.version, src.db_name
    )];
    if src.dialect == "dm" {
        h.push(format!(
            "-- run as SYSDBA with DM8's client: disql SYSDBA@HOST:PORT `{file_name}"
        ));
    } else {
        let at = if src.cdb {
            "connected to CDB$ROOT"
        } else {
            "connected to the database"
        };
        h.push(format!(
            "-- run as SYSDBA (a shutdown or grant needs it), {at}: sqlplus / as sysdba @{file_name}"
        ));
    }
    h.push(
        "-- statements written commented out are conditional, for later, or need a value filled in: read them"
            .into(),
    );
    if src.dialect != "dm" {
        h.push("WHENEVER SQLERROR EXIT FAILURE".into());
        h.push("WHENEVER OSERROR EXIT FAILURE".into());
        h.push("SET ECHO ON".into());
    }
    h
}

/// One remediation's lines for each script.
#[derive(Default)]
struct Block {
    sql: Vec<String>,
    rman: Vec<String>,
}

fn block(text: &str, seen: &mut BTreeSet<String>, out: &mut FixScript) -> Block {
    let mut b = Block::default();
    let mut mode = Mode::Run;
    // After a statement held for editing, the rest of the block depends on it.
    let mut edit_held = false;
    for raw in text.lines() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(comment) = line.strip_prefix("--") {
            mode = mode_after(comment.trim());
            if mode == Mode::Rman {
                b.rman.push(format!("# {}", comment.trim()));
            } else {
                b.sql.push(line.to_string());
            }
            continue;
        }
        if mode == Mode::Rman {
            rman_line(line, &mut b, out);
            continue;
        }
        let Some((stmt, note)) = statement(line) else {
            b.sql.push(format!("-- {line}"));
            continue;
        };
        if let Some(n) = note {
            b.sql.push(format!("-- {n}"));
        }
        if placeholder(&stmt) && !edit_held {
            edit_held = true;
            b.sql
                .push("-- fill in the value in <...> or (...) before running:".into());
        }
        if mode == Mode::Hold || edit_held {
            b.sql.push(format!("-- {stmt}"));
            out.held_back += 1;
            continue;
        }
        let key = stmt.to_ascii_uppercase();
        if !key.starts_with("ALTER SESSION SET CONTAINER") && !seen.insert(key) {
            b.sql.push(format!("-- (already run above) {stmt}"));
            continue;
        }
        b.sql.push(stmt);
        out.statements += 1;
    }
    b
}

/// A line under `-- in RMAN`: a command when it ends with `;` (RMAN's
/// own verbs: CROSSCHECK, RESTORE ...), else prose, as `#` comments; a
/// DELETE is held back.
fn rman_line(line: &str, b: &mut Block, out: &mut FixScript) {
    let (code, note) = split_comment(line);
    if let Some(n) = note {
        b.rman.push(format!("# {n}"));
    }
    let code = code.trim();
    if code.to_ascii_uppercase().starts_with("DELETE") {
        // A deletion is a retention policy or clean-up to decide on, not a
        // fix: run blind it removes logs (or their records) capture needs.
        b.rman.push(format!("# review, then run by hand: {code}"));
        out.held_back += 1;
    } else if code.ends_with(';') {
        b.rman.push(code.to_string());
        out.rman_statements += 1;
    } else if !code.is_empty() {
        b.rman.push(format!("# {code}"));
    }
}

/// The mode a prose comment puts the lines below it in.
fn mode_after(comment: &str) -> Mode {
    let lower = comment.to_ascii_lowercase();
    if lower.starts_with("in rman") {
        Mode::Rman
    } else if HOLDING.iter().any(|h| lower.starts_with(h)) {
        Mode::Hold
    } else {
        Mode::Run
    }
}

/// A statement line as `(statement;, trailing comment)`, or `None` for prose.
fn statement(line: &str) -> Option<(String, Option<String>)> {
    let (code, note) = split_comment(line);
    let code = code.trim();
    let first = code
        .split(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("")
        .to_ascii_uppercase();
    if !code.ends_with(';') || !VERBS.contains(&first.as_str()) {
        return None;
    }
    Some((code.to_string(), note.map(str::to_string)))
}

/// A value the operator must supply: `<password>`, `(...)`.
fn placeholder(stmt: &str) -> bool {
    stmt.contains("(...)")
        || stmt.split('<').skip(1).any(|rest| {
            rest.split_once('>').is_some_and(|(inner, _)| {
                !inner.is_empty()
                    && inner
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ' ')
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preflight::model::{CheckResult, SourceInfo, Summary};

    fn report(checks: &[(&str, Status, &str)]) -> Report {
        Report {
            source: SourceInfo {
                source: "sim:t".into(),
                dialect: "oracle".into(),
                version: "19.22.0.0.0".into(),
                db_name: "ORCLCDB".into(),
                cdb: true,
                ..SourceInfo::default()
            },
            checks: checks
                .iter()
                .map(|(id, status, fix)| CheckResult {
                    id: id.to_string(),
                    group: "instance".into(),
                    status: *status,
                    title: String::new(),
                    detail: format!("{id} is off"),
                    evidence: Vec::new(),
                    remediation: Some(fix.to_string()),
                    references: Vec::new(),
                })
                .collect(),
            summary: Summary::default(),
        }
    }

    #[test]
    fn statements_run_prose_is_commented_and_inline_comments_move_above() {
        let r = report(&[(
            "undo",
            Status::Warn,
            "ALTER SYSTEM SET undo_retention = 900;  -- at least 900 s\nUpgrade the release.",
        )]);
        let s = render(&r, "fix.sql");
        assert!(
            s.sql.contains("WHENEVER SQLERROR EXIT FAILURE"),
            "{}",
            s.sql
        );
        assert!(
            s.sql.contains("-- ==== undo (warn): undo is off"),
            "{}",
            s.sql
        );
        assert!(
            s.sql
                .contains("-- at least 900 s\nALTER SYSTEM SET undo_retention = 900;\n"),
            "{}",
            s.sql
        );
        assert!(s.sql.contains("-- Upgrade the release."), "{}", s.sql);
        assert_eq!((s.statements, s.held_back, s.checks), (1, 0, 1));
        assert!(s.sql.trim_end().ends_with("EXIT"));
        assert_eq!(s.rman, None);
    }

    #[test]
    fn rman_steps_go_to_their_own_script_with_hash_comments() {
        let r = report(&[(
            "arch-gap",
            Status::Fail,
            "-- in RMAN (rman target /), restore:\nRESTORE ARCHIVELOG SEQUENCE BETWEEN 1 AND 2 THREAD 1;\n-- if they cannot be restored, snapshot again",
        )]);
        let s = render(&r, "fix.sql");
        let rman = s.rman.expect("an RMAN script");
        assert!(rman.contains("# in RMAN (rman target /), restore:\nRESTORE ARCHIVELOG SEQUENCE BETWEEN 1 AND 2 THREAD 1;"), "{rman}");
        assert!(!s.sql.contains("RESTORE ARCHIVELOG"), "{}", s.sql);
        assert!(s.sql.contains("fix.sql.rman"), "{}", s.sql);
        assert_eq!((s.statements, s.rman_statements), (0, 1));
    }

    #[test]
    fn conditional_later_and_placeholder_statements_are_held_back() {
        let r = report(&[
            (
                "part",
                Status::Warn,
                "ALTER TABLE T SET INTERVAL ();\n-- after the snapshot: restore\nALTER TABLE T SET INTERVAL (NUMTOYMINTERVAL(1, 'MONTH'));",
            ),
            (
                "user",
                Status::Fail,
                "CREATE USER C##U IDENTIFIED BY \"<password>\" CONTAINER=ALL;\nGRANT LOGMINING TO C##U CONTAINER=ALL;",
            ),
            ("rds", Status::Fail, "-- on Amazon RDS:\nexec rdsadmin.x(1);"),
        ]);
        let s = render(&r, "f");
        assert!(
            s.sql.contains("\nALTER TABLE T SET INTERVAL ();\n"),
            "{}",
            s.sql
        );
        assert!(
            s.sql
                .contains("-- ALTER TABLE T SET INTERVAL (NUMTOYMINTERVAL"),
            "{}",
            s.sql
        );
        assert!(s.sql.contains("-- CREATE USER C##U"), "{}", s.sql);
        assert!(s.sql.contains("-- GRANT LOGMINING TO C##U"), "{}", s.sql);
        assert!(s.sql.contains("-- exec rdsadmin.x(1);"), "{}", s.sql);
        assert_eq!((s.statements, s.held_back), (1, 4));
    }

    #[test]
    fn a_statement_an_earlier_check_ran_is_not_run_again() {
        let grant = "GRANT LOGMINING TO C##U CONTAINER=ALL;";
        let r = report(&[("a", Status::Fail, grant), ("b", Status::Warn, grant)]);
        let s = render(&r, "f");
        assert_eq!(s.statements, 1);
        assert!(
            s.sql.contains(&format!("-- (already run above) {grant}")),
            "{}",
            s.sql
        );
    }

    #[test]
    fn passing_checks_give_a_script_that_says_there_is_nothing_to_fix() {
        let s = render(&report(&[("a", Status::Pass, "GRANT X TO Y;")]), "f");
        assert_eq!((s.statements, s.checks), (0, 0));
        assert!(s.sql.contains("nothing to fix"), "{}", s.sql);
    }
}
