//! The offline evidence scripts for DM8 (`disql`) and YashanDB (`yasql`):
//! `cdcctl collect --dialect dm|yashandb`. Built from the catalog's queries
//! of that dialect, they run plain SELECT statements only (no block, no
//! package) and spool the `cdcctl-evidence` JSON of `source::evidence`.
//!
//! Neither client can catch an error the way the Oracle script's block
//! does, so the file is laid out one JSON line per printed row: a query
//! the database refuses leaves the client's error text between its
//! section's opening and closing lines, and the evidence reader turns that
//! section into `{"error": ...}` (see `source::evidence::repair_lines`).
//! Rows are built by concatenation: DM8's JSON functions and YashanDB's
//! differ between releases, and concatenation with REPLACE escaping runs
//! on every release of both.

use crate::preflight::collect::{quote, select_columns, SCOPES};
use crate::preflight::defs::{queries, CheckDef};
use crate::source::evidence::{FORMAT, VERSION};
use crate::source::{Dialect, TablePattern};

/// Schemas the database ships, left out of the table queries when no
/// `--table` narrows them.
pub const DM_SCHEMAS: &[&str] = &["SYS", "SYSDBA", "SYSAUDITOR", "SYSSSO", "CTISYS"];
/// YashanDB's own schemas.
pub const YASHANDB_SCHEMAS: &[&str] = &["SYS", "SYSTEM", "MDSYS"];

/// The client a dialect's script is written for.
pub fn client(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Oracle => "SQL*Plus",
        Dialect::Dm => "disql",
        Dialect::Yashandb => "yasql",
    }
}

fn dialect_name(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Oracle => "oracle",
        Dialect::Dm => "dm",
        Dialect::Yashandb => "yashandb",
    }
}

fn system_schemas(dialect: Dialect) -> &'static [&'static str] {
    match dialect {
        Dialect::Yashandb => YASHANDB_SCHEMAS,
        _ => DM_SCHEMAS,
    }
}

fn scope(dialect: Dialect, patterns: &[TablePattern], owner: &str, table: &str) -> String {
    if patterns.is_empty() {
        let quoted: Vec<String> = system_schemas(dialect)
            .iter()
            .map(|s| format!("'{s}'"))
            .collect();
        return format!("{owner} NOT IN ({})", quoted.join(", "));
    }
    let parts: Vec<String> = patterns
        .iter()
        .map(|p| {
            format!(
                "({owner} LIKE '{}' AND {table} LIKE '{}')",
                quote(&p.owner),
                quote(&p.table)
            )
        })
        .collect();
    format!("({})", parts.join(" OR "))
}

/// A query's `:scope` placeholders filled for `dialect`.
pub fn expand_scope(dialect: Dialect, sql: &str, patterns: &[TablePattern]) -> String {
    SCOPES
        .iter()
        .fold(sql.to_string(), |s, (bind, owner, table)| {
            s.replace(bind, &scope(dialect, patterns, owner, table))
        })
}

/// A column's value as a JSON string literal, or `null`. CHR codes, not
/// backslash literals: a server in MySQL mode reads `'\'` as an escape.
fn json_value(column: &str) -> String {
    let text = format!("CAST({column} AS VARCHAR(4000))");
    let escaped = [
        ("CHR(92)", "CHR(92) || CHR(92)"),
        ("CHR(34)", "CHR(92) || CHR(34)"),
        ("CHR(10)", "CHR(92) || 'n'"),
        ("CHR(13)", "CHR(92) || 'r'"),
        ("CHR(9)", "CHR(92) || 't'"),
    ]
    .iter()
    .fold(text, |inner, (from, to)| {
        format!("REPLACE({inner}, {from}, {to})")
    });
    format!("CASE WHEN {column} IS NULL THEN 'null' ELSE '\"' || {escaped} || '\"' END")
}

/// The statement printing one query's rows, one JSON object a line; every
/// row but the first starts with the comma that separates it.
fn rows_statement(dialect: Dialect, text: &str, patterns: &[TablePattern]) -> String {
    let columns = select_columns(text);
    let mut s = String::from("SELECT CASE WHEN ROWNUM > 1 THEN ',' ELSE ' ' END\n");
    for (i, c) in columns.iter().enumerate() {
        let sep = if i == 0 { "{" } else { "," };
        s.push_str(&format!("  || '{sep}\"{c}\":'\n  || {}\n", json_value(c)));
    }
    if columns.is_empty() {
        s.push_str("  || '{'\n");
    }
    s.push_str("  || '}'\n");
    s.push_str(&format!(
        "FROM ({}) q;\n",
        expand_scope(dialect, text, patterns)
    ));
    s
}

fn literal_line(text: &str) -> String {
    format!("SELECT '{}' FROM dual;\n", quote(text))
}

fn client_settings(dialect: Dialect) -> &'static str {
    match dialect {
        // LINESHOW OFF drops disql's row-number column; TRIMSPOOL the
        // padding of the value to its column's width.
        Dialect::Dm => {
            "SET ECHO OFF\nSET DEFINE OFF\nSET HEADING OFF\nSET FEEDBACK OFF\nSET TIMING OFF\nSET TIME OFF\nSET LINESHOW OFF\nSET PAGESIZE 0\nSET LINESIZE 32767\nSET TRIMSPOOL ON\n"
        }
        _ => "SET DEFINE OFF\nSET HEADING OFF\nSET FEEDBACK OFF\nSET TIMING OFF\n",
    }
}

fn how_to_run(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Dm => {
            "-- Log in to disql as the connector user (disql USER@HOST:5236), then run:\n--   SQL> START collect.sql\n"
        }
        _ => {
            "-- Log in to yasql as the connector user (yasql USER@HOST:1688), then run:\n--   SQL> @collect.sql\n"
        }
    }
}

/// The script for DM8 (disql) or YashanDB (yasql).
pub fn script(
    defs: &[CheckDef],
    patterns: &[TablePattern],
    spool: &str,
    dialect: Dialect,
) -> String {
    let client = client(dialect);
    let mut s = String::new();
    s.push_str("-- cdcctl evidence collection (generated by `cdcctl collect`).\n");
    s.push_str(how_to_run(dialect));
    s.push_str(&format!(
        "-- It only reads: SELECT statements, and {client} settings for how rows print.\n"
    ));
    s.push_str("-- A query the database refuses leaves its error text in the file; cdcctl\n");
    s.push_str("-- records it as that query's error.\n");
    s.push_str(&format!(
        "-- It writes {spool}; evaluate it with `cdcctl preflight --evidence {spool}`.\n"
    ));
    if !patterns.is_empty() {
        let p: Vec<String> = patterns.iter().map(|p| p.to_string()).collect();
        s.push_str(&format!("-- Table scope: {}\n", p.join(", ")));
    }
    s.push_str(client_settings(dialect));
    // disql's SPOOL refuses an existing file unless told to replace it;
    // yasql replaces by default.
    match dialect {
        Dialect::Dm => s.push_str(&format!("SPOOL {spool} REPLACE\n")),
        _ => s.push_str(&format!("SPOOL {spool}\n")),
    }
    s.push_str(&literal_line(&format!(
        "{{\"format\":\"{FORMAT}\",\"version\":{VERSION},\"dialect\":\"{}\",",
        dialect_name(dialect)
    )));
    s.push_str(
        "SELECT '\"collected_at\":\"' || to_char(sysdate, 'YYYY-MM-DD HH24:MI:SS') || '\",' FROM dual;\n",
    );
    s.push_str(&literal_line("\"queries\":{"));
    for (i, q) in queries(defs, dialect).into_iter().enumerate() {
        let sep = if i == 0 { "" } else { "," };
        s.push_str(&literal_line(&format!("{sep}\"{}\":[", q.name)));
        s.push_str(&rows_statement(dialect, &q.text, patterns));
        s.push_str(&literal_line("]"));
    }
    s.push_str(&literal_line("}}"));
    s.push_str("SPOOL OFF\n");
    s.push_str("EXIT\n");
    s
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    macro_rules! snap {
        ($name:expr, $value:expr) => {
            insta::with_settings!({
                snapshot_path => "../../snapshots",
                prepend_module_to_snapshot => false,
                omit_expression => true,
            }, {
                insta::assert_snapshot!($name, $value);
            })
        };
    }

    fn orders_scope() -> Vec<TablePattern> {
        vec![TablePattern {
            owner: "APP".into(),
            table: "ORDER%".into(),
        }]
    }

    #[test]
    fn collect_scripts_for_disql_and_yasql_are_pinned() {
        let defs = crate::preflight::defs::load().unwrap();
        snap!(
            "collect_script_dm_disql",
            script(&defs, &orders_scope(), "ev.json", Dialect::Dm)
        );
        snap!(
            "collect_script_yashandb_yasql",
            script(&defs, &orders_scope(), "ev.json", Dialect::Yashandb)
        );
    }

    /// The statements of a script: client commands are one line each,
    /// SQL runs to its `;`.
    fn statements(s: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut cur = String::new();
        for line in s.lines() {
            let t = line.trim();
            if cur.is_empty() && (t.starts_with("--") || t.is_empty()) {
                continue;
            }
            let word = t
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_ascii_uppercase();
            if cur.is_empty() && matches!(word.as_str(), "SET" | "SPOOL" | "EXIT") {
                out.push(t.to_string());
                continue;
            }
            cur.push_str(line);
            cur.push('\n');
            if t.ends_with(';') {
                out.push(std::mem::take(&mut cur));
            }
        }
        assert!(cur.trim().is_empty(), "an unterminated statement: {cur}");
        out
    }

    #[test]
    fn collect_scripts_for_dm_and_yashandb_only_select() {
        let defs = crate::preflight::defs::load().unwrap();
        let p = vec![TablePattern {
            owner: "APP".into(),
            table: "O'X%".into(),
        }];
        for dialect in [Dialect::Dm, Dialect::Yashandb] {
            let s = script(&defs, &p, "cdcctl-evidence.json", dialect);
            assert!(s.contains("table_name LIKE 'O''X%'"), "{dialect:?}");
            let mut selects = 0;
            for st in statements(&s) {
                let first = st
                    .split_whitespace()
                    .next()
                    .unwrap_or("")
                    .to_ascii_uppercase();
                match first.as_str() {
                    "SELECT" => selects += 1,
                    "SET" | "EXIT" => {}
                    "SPOOL" => assert!(
                        st.starts_with("SPOOL cdcctl-evidence.json") || st == "SPOOL OFF",
                        "{st}"
                    ),
                    _ => panic!("{dialect:?}: not a query: {st}"),
                }
            }
            let upper = s.to_ascii_uppercase();
            for verb in [
                "INSERT ",
                "UPDATE ",
                "DELETE ",
                "MERGE ",
                "CREATE ",
                "DROP ",
                "GRANT ",
                "TRUNCATE ",
                "ALTER ",
                "BEGIN",
                "DECLARE",
                "EXEC",
            ] {
                assert!(
                    !upper.contains(verb),
                    "{dialect:?}: the script contains {verb}"
                );
            }
            let named = queries(&defs, dialect);
            assert!(named.len() >= 5, "{dialect:?}");
            for q in named {
                assert!(
                    s.contains(&format!("\"{}\":[", q.name)),
                    "{dialect:?}: {}",
                    q.name
                );
            }
            // Every query line prints one line per row, and blank lines
            // never split a statement.
            assert!(s.lines().all(|l| !l.trim().is_empty()), "{dialect:?}");
            assert!(s.lines().all(|l| l.len() < 4000), "{dialect:?}");
            assert!(selects > 10, "{dialect:?}");
        }
    }

    #[test]
    fn without_table_patterns_the_shipped_schemas_are_left_out() {
        let defs = crate::preflight::defs::load().unwrap();
        let dm = script(&defs, &[], "ev.json", Dialect::Dm);
        assert!(dm.contains("FROM all_tables WHERE owner NOT IN ('SYS', 'SYSDBA'"));
        let ys = script(&defs, &[], "ev.json", Dialect::Yashandb);
        assert!(ys.contains("WHERE c.constraint_type IN ('P', 'U') AND c.owner NOT IN ('SYS'"));
        assert!(!ys.contains("oracle_maintained") && !dm.contains("oracle_maintained"));
    }

    /// A printed row: column name and text, in select order.
    type TestRow = Vec<(String, Option<String>)>;
    /// Each query's rows, or the error text its client prints instead.
    type TestRows<'a> = BTreeMap<&'a str, Result<Vec<TestRow>, &'a str>>;

    /// What the client prints for a script, given each query's rows (or
    /// the error text it would print instead): literal lines as they are,
    /// row statements as one JSON line per row with the ROWNUM comma.
    fn print_as_client(script: &str, rows: &TestRows<'_>) -> String {
        let mut out = String::new();
        let mut section = String::new();
        for st in statements(script) {
            if st.contains("to_char(sysdate") {
                out.push_str("\"collected_at\":\"2026-01-31 12:00:00\",\n\n");
            } else if let Some(lit) = st
                .strip_prefix("SELECT '")
                .and_then(|l| l.trim_end().strip_suffix("' FROM dual;"))
            {
                let lit = lit.replace("''", "'");
                if let Some(name) = lit
                    .trim_start_matches(',')
                    .strip_prefix('"')
                    .and_then(|n| n.strip_suffix("\":["))
                {
                    section = name.to_string();
                }
                out.push_str(&lit);
                out.push('\n');
            } else if st.starts_with("SELECT CASE WHEN ROWNUM") {
                match rows.get(section.as_str()) {
                    Some(Ok(rows)) => {
                        for (i, r) in rows.iter().enumerate() {
                            let members: Vec<String> = r
                                .iter()
                                .map(|(k, v)| {
                                    let v = v.as_ref().map_or("null".to_string(), |v| {
                                        serde_json::to_string(v).unwrap()
                                    });
                                    format!("\"{k}\":{v}")
                                })
                                .collect();
                            let lead = if i == 0 { ' ' } else { ',' };
                            // Padded to the column's width, as the clients print it.
                            out.push_str(&format!("{lead}{{{}}}      \n", members.join(",")));
                        }
                    }
                    Some(Err(e)) => out.push_str(&format!("{e}\n\n")),
                    None => {}
                }
            }
        }
        out
    }

    fn row(cols: &[(&str, Option<&str>)]) -> TestRow {
        cols.iter()
            .map(|(k, v)| (k.to_string(), v.map(str::to_string)))
            .collect()
    }

    #[test]
    fn what_the_dm8_script_prints_reads_back_as_its_rows_and_errors() {
        use crate::source::evidence::{EvidenceCatalog, EvidenceFile, QueryRows};
        use crate::source::Catalog;
        let defs = crate::preflight::defs::load().unwrap();
        let script = script(&defs, &[], "ev.json", Dialect::Dm);
        let mut rows: TestRows<'_> = BTreeMap::new();
        rows.insert("dm_database", Ok(vec![row(&[("ARCH_MODE", Some("Y"))])]));
        rows.insert(
            "dm_ini",
            Ok(vec![
                row(&[("PARA_NAME", Some("ARCH_INI")), ("PARA_VALUE", Some("1"))]),
                row(&[
                    ("PARA_NAME", Some("RLOG_APPEND_LOGIC")),
                    ("PARA_VALUE", Some("2")),
                ]),
                row(&[("PARA_NAME", Some("MPP_INI")), ("PARA_VALUE", Some("0"))]),
                row(&[
                    ("PARA_NAME", Some("RLOG_IGNORE_TABLE_SET")),
                    ("PARA_VALUE", None),
                ]),
            ]),
        );
        rows.insert(
            "dm_pkg",
            Err("[-2207]:Error in line: 1\nNo function [SF_CHECK_SYSTEM_PACKAGE]"),
        );
        rows.insert(
            "tables",
            Ok(vec![row(&[
                ("OWNER", Some("BIZ")),
                ("TABLE_NAME", Some("T\"1\\")),
            ])]),
        );
        let printed = print_as_client(&script, &rows);
        let ev = EvidenceFile::parse(&printed, "ev.json").unwrap();
        assert_eq!(ev.dialect, Dialect::Dm);
        assert_eq!(ev.collected_at.as_deref(), Some("2026-01-31 12:00:00"));
        for q in queries(&defs, Dialect::Dm) {
            assert!(ev.queries.contains_key(&q.name), "{} missing", q.name);
        }
        assert!(matches!(
            ev.queries.get("dm_pkg"),
            Some(QueryRows::Error { error }) if error.contains("[-2207]")
        ));
        assert_eq!(
            ev.queries.get("objects"),
            Some(&QueryRows::Rows(Vec::new()))
        );
        let mut c = EvidenceCatalog::from_file(&ev, "ev.json");
        let i = c.instance().unwrap();
        let dm = i.dm.clone().unwrap();
        assert_eq!(
            (i.log_mode.as_str(), dm.rlog_append_logic.as_deref(), dm.mpp),
            ("ARCHIVELOG", Some("2"), Some(false))
        );
        assert_eq!(dm.logmnr_package_installed, None);
        let t = c.tables(&[]).unwrap();
        assert_eq!(t[0].name.table, "T\"1\\");
    }

    #[test]
    fn values_are_escaped_for_json_without_backslash_literals() {
        let v = json_value("x");
        assert!(v.starts_with("CASE WHEN x IS NULL THEN 'null'"));
        for code in ["CHR(92)", "CHR(34)", "CHR(10)", "CHR(13)", "CHR(9)"] {
            assert!(v.contains(&format!(", {code}, ")), "{code}: {v}");
        }
        assert!(!v.contains('\\'), "{v}");
    }
}
