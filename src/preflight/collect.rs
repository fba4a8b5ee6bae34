//! The offline evidence script: `cdcctl collect` prints a SQL*Plus script
//! (12.2+: JSON_OBJECT, PL/SQL in WITH) built from the catalog's named
//! queries. Run by the connector user, it spools one JSON file in the
//! `cdcctl-evidence` format (see `source::evidence`) and changes nothing:
//! only SELECTs run, helper functions live inside the statements' WITH
//! clauses, and the ALTER SESSION lines touch the session's date format only.

use crate::preflight::defs::{queries, CheckDef};
use crate::source::evidence::{FORMAT, REQUIRED_OBJECTS, VERSION};
use crate::source::{Dialect, TablePattern};

/// Splits SQL into tokens: identifiers (with `$` and `#`), quoted strings,
/// binds (`:x`), numbers and single punctuation characters.
pub fn tokens(sql: &str) -> Vec<String> {
    let chars: Vec<char> = sql.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '\'' {
            let start = i;
            i += 1;
            while i < chars.len() {
                if chars[i] == '\'' {
                    if chars.get(i + 1) == Some(&'\'') {
                        i += 2;
                        continue;
                    }
                    break;
                }
                i += 1;
            }
            i += 1;
            out.push(chars[start..i.min(chars.len())].iter().collect());
        } else if c.is_alphabetic() || c == '_' || c == ':' {
            let start = i;
            i += 1;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || matches!(chars[i], '_' | '$' | '#'))
            {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else {
            out.push(c.to_string());
            i += 1;
        }
    }
    out
}

/// The output column names of a query's top-level select list, upper case.
pub fn select_columns(sql: &str) -> Vec<String> {
    let toks = tokens(sql);
    let mut depth = 0i32;
    let mut items: Vec<Vec<&str>> = vec![Vec::new()];
    let mut started = false;
    for t in &toks {
        let up = t.to_ascii_uppercase();
        if !started {
            if up == "SELECT" {
                started = true;
            }
            continue;
        }
        match t.as_str() {
            "(" => depth += 1,
            ")" => depth -= 1,
            _ => {}
        }
        if depth == 0 && up == "FROM" {
            break;
        }
        if depth == 0 && t == "," {
            items.push(Vec::new());
            continue;
        }
        if let Some(last) = items.last_mut() {
            last.push(t);
        }
    }
    items
        .into_iter()
        .filter(|i| !i.is_empty())
        .map(|i| {
            let name = i.last().copied().unwrap_or_default();
            name.to_ascii_uppercase()
        })
        .collect()
}

fn quote(s: &str) -> String {
    s.replace('\'', "''")
}

/// The `:scope` predicate for `owner`/`table` column expressions.
pub fn scope_predicate(patterns: &[TablePattern], owner: &str, table: &str) -> String {
    if patterns.is_empty() {
        return format!(
            "{owner} IN (SELECT username FROM all_users WHERE oracle_maintained = 'N')"
        );
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

fn expand_scope(sql: &str, patterns: &[TablePattern]) -> String {
    sql.replace(
        ":scope_c",
        &scope_predicate(patterns, "c.owner", "c.table_name"),
    )
    .replace(
        ":scope_i",
        &scope_predicate(patterns, "i.table_owner", "i.table_name"),
    )
    .replace(":scope", &scope_predicate(patterns, "owner", "table_name"))
}

const HELPERS: &str = r#"WITH
  FUNCTION cdcctl_probe(p_object VARCHAR2) RETURN NUMBER IS
    n NUMBER;
  BEGIN
    IF p_object LIKE 'DBMS%' THEN
      SELECT count(*) INTO n FROM all_objects WHERE object_name = p_object AND object_type = 'PACKAGE';
      RETURN CASE WHEN n > 0 THEN 0 ELSE 942 END;
    END IF;
    EXECUTE IMMEDIATE 'SELECT count(*) FROM ' || dbms_assert.simple_sql_name(p_object) || ' WHERE 1 = 0' INTO n;
    RETURN 0;
  EXCEPTION WHEN OTHERS THEN
    RETURN CASE WHEN SQLCODE = -1306 THEN 0 ELSE -SQLCODE END;
  END;
  FUNCTION cdcctl_high_value(p_owner VARCHAR2, p_table VARCHAR2, p_partition VARCHAR2) RETURN VARCHAR2 IS
    v LONG;
  BEGIN
    SELECT high_value INTO v FROM all_tab_partitions
     WHERE table_owner = p_owner AND table_name = p_table AND partition_name = p_partition;
    RETURN substr(v, 1, 3900);
  END;
  FUNCTION cdcctl_flashback_probe(p_owner VARCHAR2, p_table VARCHAR2) RETURN NUMBER IS
    n NUMBER;
    s NUMBER;
  BEGIN
    SELECT current_scn INTO s FROM v$database;
    EXECUTE IMMEDIATE 'SELECT count(*) FROM ' || dbms_assert.enquote_name(p_owner, FALSE) || '.'
      || dbms_assert.enquote_name(p_table, FALSE) || ' AS OF SCN :s WHERE ROWNUM = 1' INTO n USING s;
    RETURN 0;
  EXCEPTION WHEN OTHERS THEN
    RETURN -SQLCODE;
  END;
  cdcctl_required_objects AS (SELECT column_value AS object_name FROM TABLE(sys.odcivarchar2list(%OBJECTS%)))
"#;

/// The JSON-producing statement for one named query.
fn wrapped(text: &str, patterns: &[TablePattern]) -> String {
    let cols = select_columns(text);
    let pairs: Vec<String> = cols
        .iter()
        .map(|c| format!("'{c}' VALUE \"{c}\""))
        .collect();
    let body = expand_scope(text, patterns);
    let needs_helpers = body.contains("cdcctl_");
    let head = if needs_helpers {
        let objects: Vec<String> = REQUIRED_OBJECTS.iter().map(|o| format!("'{o}'")).collect();
        HELPERS.replace("%OBJECTS%", &objects.join(", "))
    } else {
        String::new()
    };
    format!(
        "{head}SELECT json_object({} NULL ON NULL) FROM ({body})",
        pairs.join(", ")
    )
}

/// The whole SQL*Plus script for the Oracle queries of the catalog.
pub fn script(defs: &[CheckDef], patterns: &[TablePattern], spool: &str) -> String {
    let mut s = String::new();
    s.push_str("-- cdcctl evidence collection (generated by `cdcctl collect`).\n");
    s.push_str(
        "-- Run as the connector user with SQL*Plus 12.2 or later against Oracle 12.2 or later:\n",
    );
    s.push_str("--   sqlplus -S -L user@//host:1521/service @collect.sql\n");
    s.push_str("-- It only reads: SELECT statements, with helper functions declared inside their WITH clauses.\n");
    s.push_str(&format!(
        "-- It writes {spool}; evaluate it with `cdcctl preflight --evidence {spool}`.\n"
    ));
    if !patterns.is_empty() {
        let p: Vec<String> = patterns.iter().map(|p| p.to_string()).collect();
        s.push_str(&format!("-- Table scope: {}\n", p.join(", ")));
    }
    s.push_str("WHENEVER SQLERROR CONTINUE\n");
    s.push_str("SET DEFINE OFF\n");
    s.push_str("SET ECHO OFF FEEDBACK OFF HEADING OFF VERIFY OFF TERMOUT OFF TRIMSPOOL ON TRIMOUT ON TAB OFF\n");
    s.push_str("SET PAGESIZE 0 LINESIZE 32767 LONG 1000000 LONGCHUNKSIZE 32767\n");
    s.push_str("SET SERVEROUTPUT ON SIZE UNLIMITED FORMAT WRAPPED\n");
    s.push_str("ALTER SESSION SET NLS_DATE_FORMAT = 'YYYY-MM-DD\"T\"HH24:MI:SS';\n");
    s.push_str("ALTER SESSION SET NLS_NUMERIC_CHARACTERS = '.,';\n");
    s.push_str(&format!("SPOOL {spool}\n"));
    s.push_str(&format!(
        "PROMPT {{\"format\":\"{FORMAT}\",\"version\":{VERSION},\"dialect\":\"oracle\",\n"
    ));
    s.push_str("SELECT '\"collected_at\":\"' || to_char(sysdate, 'YYYY-MM-DD\"T\"HH24:MI:SS') || '\",' FROM dual;\n");
    s.push_str("PROMPT \"queries\":{\n");
    s.push_str("DECLARE\n");
    s.push_str("  l_first BOOLEAN := TRUE;\n");
    s.push_str("  PROCEDURE q(p_name VARCHAR2, p_sql VARCHAR2) IS\n");
    s.push_str("    TYPE t_rows IS TABLE OF VARCHAR2(32767);\n");
    s.push_str("    l_rows t_rows;\n");
    s.push_str("    l_cur SYS_REFCURSOR;\n");
    s.push_str("    l_sep VARCHAR2(1) := CASE WHEN l_first THEN NULL ELSE ',' END;\n");
    s.push_str("  BEGIN\n");
    s.push_str("    l_first := FALSE;\n");
    s.push_str("    OPEN l_cur FOR p_sql;\n");
    s.push_str("    FETCH l_cur BULK COLLECT INTO l_rows;\n");
    s.push_str("    CLOSE l_cur;\n");
    s.push_str("    dbms_output.put_line(l_sep || '\"' || p_name || '\":[');\n");
    s.push_str("    FOR i IN 1 .. l_rows.COUNT LOOP\n");
    s.push_str("      dbms_output.put_line(CASE WHEN i > 1 THEN ',' END || l_rows(i));\n");
    s.push_str("    END LOOP;\n");
    s.push_str("    dbms_output.put_line(']');\n");
    s.push_str("  EXCEPTION WHEN OTHERS THEN\n");
    s.push_str("    dbms_output.put_line(l_sep || '\"' || p_name || '\":{\"error\":\"ORA-' || to_char(-SQLCODE, 'FM00000') || '\"}');\n");
    s.push_str("  END;\n");
    s.push_str("BEGIN\n");
    for q in queries(defs, Dialect::Oracle) {
        s.push_str(&format!(
            "  q('{}', q'~{}~');\n",
            q.name,
            wrapped(&q.text, patterns)
        ));
    }
    s.push_str("END;\n/\n");
    s.push_str("PROMPT }}\n");
    s.push_str("SPOOL OFF\n");
    s.push_str("EXIT\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_columns_take_aliases_and_strip_table_prefixes() {
        assert_eq!(
            select_columns("SELECT l.group#, max(x) AS peak, sys_context('USERENV', 'CON_NAME') AS con_name FROM v$log l"),
            vec!["GROUP#", "PEAK", "CON_NAME"]
        );
    }

    #[test]
    fn every_catalog_query_yields_named_columns() {
        let defs = crate::preflight::defs::load().unwrap();
        for q in defs.iter().flat_map(|d| d.sql.iter()) {
            let cols = select_columns(&q.text);
            assert!(!cols.is_empty(), "{}", q.name);
            for c in cols {
                assert!(
                    c.chars().all(|ch| ch.is_ascii_alphanumeric()
                        || ch == '_'
                        || ch == '#'
                        || ch == '$'),
                    "query {} has an unnamed column `{c}`: give it an AS alias",
                    q.name
                );
            }
        }
    }

    #[test]
    fn script_reads_only_and_quotes_table_patterns() {
        let defs = crate::preflight::defs::load().unwrap();
        let p = vec![TablePattern {
            owner: "APP".into(),
            table: "O'X%".into(),
        }];
        let s = script(&defs, &p, "cdcctl-evidence.json");
        assert!(s.contains("table_name LIKE 'O''X%'"));
        assert!(s.contains("SPOOL cdcctl-evidence.json"));
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
        ] {
            assert!(!upper.contains(verb), "the script contains {verb}");
        }
        assert!(
            !s.contains("~'~"),
            "no query text may end the q-quote early"
        );
        for q in crate::preflight::defs::queries(&defs, Dialect::Oracle) {
            assert!(s.contains(&format!("q('{}'", q.name)));
        }
    }
}
