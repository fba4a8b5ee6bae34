//! The offline evidence script: `cdcctl collect` prints a SQL*Plus script
//! built from the catalog's named queries, for 18c+ (JSON_OBJECT returning
//! CLOB, helper functions in WITH clauses) or for 11.2 to 12.2 (JSON built
//! by concatenation in the anonymous block, that release's columns). Run by
//! the connector user, it spools one JSON file in the `cdcctl-evidence`
//! format (see `source::evidence`) and changes nothing: only SELECTs run,
//! and the ALTER SESSION lines touch the session's formats only.

use crate::preflight::defs::{queries, CheckDef};
use crate::source::evidence::{FORMAT, REQUIRED_OBJECTS, VERSION};
use crate::source::oracle::sql::ORACLE_SCHEMAS;
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

pub(crate) fn quote(s: &str) -> String {
    s.replace('\'', "''")
}

/// The release a script is written for, as `cdcctl collect --oracle-version` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScriptRelease {
    /// 18c and later: rows built by `JSON_OBJECT ... RETURNING CLOB`.
    Json,
    /// 11.2 to 12.2: rows built by PL/SQL concatenation. JSON_OBJECT is 12.2
    /// only and cannot return a CLOB before 18c; WITH FUNCTION is 12.1.
    Concatenated { major: u32, minor: u32 },
}

impl ScriptRelease {
    /// Reads `11.2`, `12.1`, `12.2`, `18`, `19.22` and the like.
    pub fn parse(version: &str) -> Result<Self, String> {
        let mut parts = version.trim().trim_end_matches(['c', 'C']).split('.');
        let number = |p: Option<&str>| p.map(|x| x.trim().parse::<u32>());
        let bad = || {
            format!(
                "--version `{version}`: give the database release, such as 11.2, 12.1, 12.2 or 19"
            )
        };
        let major = match number(parts.next()) {
            Some(Ok(m)) => m,
            _ => return Err(bad()),
        };
        let minor = match number(parts.next()) {
            None => 0,
            Some(Ok(m)) => m,
            Some(Err(_)) => return Err(bad()),
        };
        match major {
            0..=10 => Err(format!(
                "--version {version}: cdcctl reads Oracle 11.2 and later"
            )),
            11..=12 => Ok(Self::Concatenated { major, minor }),
            _ => Ok(Self::Json),
        }
    }

    /// 11g has no containers and no ORACLE_MAINTAINED column.
    fn is_11g(self) -> bool {
        matches!(self, Self::Concatenated { major: 11, .. })
    }

    fn label(self) -> String {
        match self {
            Self::Json => "18c or later".into(),
            Self::Concatenated { major, minor } => format!("{major}.{minor}"),
        }
    }
}

/// The `:scope` predicate for `owner`/`table` column expressions. Without
/// table patterns it keeps the schemas Oracle does not maintain.
pub fn scope_predicate(patterns: &[TablePattern], owner: &str, table: &str) -> String {
    scope_for(patterns, owner, table, ScriptRelease::Json)
}

fn scope_for(
    patterns: &[TablePattern],
    owner: &str,
    table: &str,
    release: ScriptRelease,
) -> String {
    if patterns.is_empty() {
        if release.is_11g() {
            // ALL_USERS.ORACLE_MAINTAINED is 12.1+.
            let quoted: Vec<String> = ORACLE_SCHEMAS.iter().map(|s| format!("'{s}'")).collect();
            return format!("{owner} NOT IN ({})", quoted.join(", "));
        }
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

/// `:scope` placeholders and the owner/table columns they filter; longer
/// names first, since `:scope` is a prefix of the others.
pub(crate) const SCOPES: &[(&str, &str, &str)] = &[
    (":scope_c", "c.owner", "c.table_name"),
    (":scope_i", "i.table_owner", "i.table_name"),
    (":scope_s", "owner", "segment_name"),
    (":scope_o", "owner", "object_name"),
    (":scope_p", "table_owner", "table_name"),
    (":scope", "owner", "table_name"),
];

fn expand_scope(sql: &str, patterns: &[TablePattern], release: ScriptRelease) -> String {
    SCOPES
        .iter()
        .fold(sql.to_string(), |s, (bind, owner, table)| {
            s.replace(bind, &scope_for(patterns, owner, table, release))
        })
}

/// Columns of type LONG: SQL functions (JSON_OBJECT among them) refuse
/// them, so their queries are read through DBMS_SQL in one cursor loop.
const LONG_COLUMNS: &[&str] = &["HIGH_VALUE"];

/// The text of a query on an older release: columns and views that
/// release lacks are read as NULL (or the query is left to fail and be
/// recorded as an error, like CDB_CONTAINER_DATA on 11g).
fn release_text(name: &str, text: &str, release: ScriptRelease) -> String {
    let ScriptRelease::Concatenated { major, minor } = release else {
        return text.to_string();
    };
    let mut t = text.to_string();
    if major == 11 {
        for (from, to) in [
            (" cdb,", " 'NO' AS cdb,"),
            (" common,", " 'NO' AS common,"),
            (
                "sys_context('USERENV', 'CON_NAME') AS con_name",
                "NULL AS con_name",
            ),
            (", pdb FROM v$services", ", NULL AS pdb FROM v$services"),
        ] {
            t = t.replace(from, to);
        }
        if name == "transactions" {
            t = t
                .replace("c.name AS con_name", "NULL AS con_name")
                .replace(" LEFT JOIN v$containers c ON c.con_id = t.con_id", "");
        }
    }
    if major == 12 && minor < 2 {
        // Application containers are 12.2.
        t = t.replace(
            "application_root, application_pdb FROM v$pdbs",
            "NULL AS application_root, NULL AS application_pdb FROM v$pdbs",
        );
    }
    t
}

const HELPERS: &str = r#"WITH
  FUNCTION cdcctl_probe(p_object VARCHAR2) RETURN NUMBER IS
%PROBE_BODY%
  FUNCTION cdcctl_flashback_probe(p_owner VARCHAR2, p_table VARCHAR2) RETURN NUMBER IS
%FLASHBACK_BODY%
  cdcctl_required_objects AS (SELECT column_value AS object_name FROM TABLE(sys.odcivarchar2list(%OBJECTS%)))
"#;

/// The body of the object probe: a package counts when the user can see
/// it (EXECUTE makes it visible in ALL_OBJECTS); a view when a query on it
/// parses. ORA-01306 (no LogMiner session) proves the grant.
const PROBE_BODY: &str = r#"    n NUMBER;
  BEGIN
    IF p_object LIKE 'DBMS%' THEN
      SELECT count(*) INTO n FROM all_objects WHERE object_name = p_object AND object_type = 'PACKAGE';
      RETURN CASE WHEN n > 0 THEN 0 ELSE 942 END;
    END IF;
    EXECUTE IMMEDIATE 'SELECT count(*) FROM ' || dbms_assert.simple_sql_name(p_object) || ' WHERE 1 = 0' INTO n;
    RETURN 0;
  EXCEPTION WHEN OTHERS THEN
    RETURN CASE WHEN SQLCODE = -1306 THEN 0 ELSE -SQLCODE END;
  END;"#;

const FLASHBACK_BODY: &str = r#"    n NUMBER;
    s NUMBER;
  BEGIN
    SELECT current_scn INTO s FROM v$database;
    EXECUTE IMMEDIATE 'SELECT count(*) FROM ' || dbms_assert.enquote_name(p_owner, FALSE) || '.'
      || dbms_assert.enquote_name(p_table, FALSE) || ' AS OF SCN :s WHERE ROWNUM = 1' INTO n USING s;
    RETURN 0;
  EXCEPTION WHEN OTHERS THEN
    RETURN -SQLCODE;
  END;"#;

fn required_objects() -> String {
    let objects: Vec<String> = REQUIRED_OBJECTS.iter().map(|o| format!("'{o}'")).collect();
    objects.join(", ")
}

/// The JSON-producing statement for one named query (18c+). RETURNING
/// CLOB: without it JSON_OBJECT returns VARCHAR2(4000) and a longer row
/// raises ORA-40459.
fn wrapped(text: &str, patterns: &[TablePattern]) -> String {
    let cols = select_columns(text);
    let pairs: Vec<String> = cols
        .iter()
        .map(|c| format!("'{c}' VALUE \"{c}\""))
        .collect();
    let body = expand_scope(text, patterns, ScriptRelease::Json);
    let needs_helpers = body.contains("cdcctl_");
    let head = if needs_helpers {
        HELPERS
            .replace("%PROBE_BODY%", PROBE_BODY)
            .replace("%FLASHBACK_BODY%", FLASHBACK_BODY)
            .replace("%OBJECTS%", &required_objects())
    } else {
        String::new()
    };
    format!(
        "{head}SELECT json_object({} NULL ON NULL RETURNING CLOB) FROM ({body})",
        pairs.join(", ")
    )
}

/// PL/SQL declarations every script shares: the JSON string escaper, the
/// row printer and the DBMS_SQL reader of any query.
const BLOCK_COMMON: &str = r#"DECLARE
  l_first BOOLEAN := TRUE;
  TYPE t_rows IS TABLE OF CLOB;
  -- A JSON string literal (or null): backslash, quote and control characters escaped.
  FUNCTION js(p VARCHAR2) RETURN VARCHAR2 IS
    l VARCHAR2(32767);
  BEGIN
    IF p IS NULL THEN
      RETURN 'null';
    END IF;
    l := replace(replace(p, '\', '\\'), '"', '\"');
    l := replace(replace(replace(l, chr(10), '\n'), chr(13), '\r'), chr(9), '\t');
    FOR i IN 0 .. 31 LOOP
      IF i NOT IN (9, 10, 13) AND instr(l, chr(i)) > 0 THEN
        l := replace(l, chr(i), '\u00' || to_char(i, 'FM0X'));
      END IF;
    END LOOP;
    RETURN '"' || l || '"';
  END;
  -- DBMS_OUTPUT holds at most 32767 bytes a line, so a longer row is printed
  -- in lines of at most 8000 characters, each break placed before a `,"NAME"`
  -- member separator, where JSON allows a line break. The breaks are found
  -- before anything is printed so that a row is never left half written.
  PROCEDURE put_row(p_prefix VARCHAR2, p_row CLOB) IS
    c_max CONSTANT PLS_INTEGER := 8000;
    TYPE t_cuts IS TABLE OF PLS_INTEGER;
    l_cuts t_cuts := t_cuts();
    l_len PLS_INTEGER := dbms_lob.getlength(p_row);
    l_pos PLS_INTEGER := 1;
    l_chunk VARCHAR2(32767);
    l_cut PLS_INTEGER;
    l_n PLS_INTEGER;
  BEGIN
    WHILE l_len - l_pos + 1 > c_max LOOP
      l_chunk := dbms_lob.substr(p_row, c_max + 1, l_pos);
      l_n := 1;
      LOOP
        l_cut := instr(l_chunk, ',"', -1, l_n);
        EXIT WHEN l_cut = 0 OR regexp_like(substr(l_chunk, l_cut + 2, 1), '^[A-Z_]$');
        l_n := l_n + 1;
      END LOOP;
      IF l_cut < 2 THEN
        dbms_output.put_line(p_prefix || '{"CDCCTL_ERROR":"a value of this row is longer than 8000 characters"}');
        RETURN;
      END IF;
      l_cuts.EXTEND;
      l_cuts(l_cuts.COUNT) := l_cut - 1;
      l_pos := l_pos + l_cut - 1;
    END LOOP;
    l_pos := 1;
    FOR i IN 1 .. l_cuts.COUNT LOOP
      dbms_output.put_line(CASE WHEN i = 1 THEN p_prefix END || dbms_lob.substr(p_row, l_cuts(i), l_pos));
      l_pos := l_pos + l_cuts(i);
    END LOOP;
    dbms_output.put_line(CASE WHEN l_cuts.COUNT = 0 THEN p_prefix END || dbms_lob.substr(p_row, c_max, l_pos));
  END;
  PROCEDURE put_rows(p_name VARCHAR2, p_sep VARCHAR2, p_rows t_rows) IS
  BEGIN
    dbms_output.put_line(p_sep || '"' || p_name || '":[');
    FOR i IN 1 .. p_rows.COUNT LOOP
      put_row(CASE WHEN i > 1 THEN ',' END, p_rows(i));
    END LOOP;
    dbms_output.put_line(']');
  END;
  PROCEDURE put_error(p_name VARCHAR2, p_sep VARCHAR2, p_code NUMBER) IS
  BEGIN
    dbms_output.put_line(p_sep || '"' || p_name || '":{"error":"ORA-' || to_char(-p_code, 'FM00000') || '"}');
  END;
  FUNCTION next_sep RETURN VARCHAR2 IS
    l_sep VARCHAR2(1) := CASE WHEN l_first THEN NULL ELSE ',' END;
  BEGIN
    l_first := FALSE;
    RETURN l_sep;
  END;
  -- Any query through DBMS_SQL, one row at a time, every value as text in the
  -- session's formats; LONG columns (HIGH_VALUE) read up to 8000 characters.
  PROCEDURE qd(p_name VARCHAR2, p_sql VARCHAR2) IS
    l_rows t_rows := t_rows();
    l_c INTEGER;
    l_cols INTEGER;
    l_desc dbms_sql.desc_tab2;
    l_v VARCHAR2(32767);
    l_len INTEGER;
    l_row CLOB;
    l_sep VARCHAR2(1) := next_sep;
  BEGIN
    l_c := dbms_sql.open_cursor;
    dbms_sql.parse(l_c, p_sql, dbms_sql.native);
    dbms_sql.describe_columns2(l_c, l_cols, l_desc);
    FOR j IN 1 .. l_cols LOOP
      IF l_desc(j).col_type = 8 THEN
        dbms_sql.define_column_long(l_c, j);
      ELSE
        dbms_sql.define_column(l_c, j, l_v, 32767);
      END IF;
    END LOOP;
    l_len := dbms_sql.execute(l_c);
    WHILE dbms_sql.fetch_rows(l_c) > 0 LOOP
      l_row := '{';
      FOR j IN 1 .. l_cols LOOP
        IF l_desc(j).col_type = 8 THEN
          dbms_sql.column_value_long(l_c, j, 8000, 0, l_v, l_len);
        ELSE
          dbms_sql.column_value(l_c, j, l_v);
        END IF;
        l_row := l_row || CASE WHEN j > 1 THEN ',' END || '"' || upper(l_desc(j).col_name) || '":' || js(l_v);
      END LOOP;
      l_rows.EXTEND;
      l_rows(l_rows.COUNT) := l_row || '}';
    END LOOP;
    dbms_sql.close_cursor(l_c);
    put_rows(p_name, l_sep, l_rows);
  EXCEPTION WHEN OTHERS THEN
    IF dbms_sql.is_open(l_c) THEN
      dbms_sql.close_cursor(l_c);
    END IF;
    put_error(p_name, l_sep, SQLCODE);
  END;
"#;

/// The JSON_OBJECT reader (18c+).
const BLOCK_JSON: &str = r#"  PROCEDURE q(p_name VARCHAR2, p_sql VARCHAR2) IS
    l_rows t_rows;
    l_cur SYS_REFCURSOR;
    l_sep VARCHAR2(1) := next_sep;
  BEGIN
    OPEN l_cur FOR p_sql;
    FETCH l_cur BULK COLLECT INTO l_rows;
    CLOSE l_cur;
    put_rows(p_name, l_sep, l_rows);
  EXCEPTION WHEN OTHERS THEN
    put_error(p_name, l_sep, SQLCODE);
  END;
"#;

/// Before 12.1 a statement cannot declare functions (WITH FUNCTION), so
/// the probes run as the block's own functions and print their rows.
const BLOCK_PROBES: &str = r#"  FUNCTION cdcctl_probe(p_object VARCHAR2) RETURN NUMBER IS
%PROBE_BODY%
  FUNCTION cdcctl_flashback_probe(p_owner VARCHAR2, p_table VARCHAR2) RETURN NUMBER IS
%FLASHBACK_BODY%
  PROCEDURE probe_objects(p_name VARCHAR2) IS
    TYPE t_names IS TABLE OF VARCHAR2(128);
    l_names t_names := t_names(%OBJECTS%);
    l_rows t_rows := t_rows();
    l_sep VARCHAR2(1) := next_sep;
  BEGIN
    FOR i IN 1 .. l_names.COUNT LOOP
      l_rows.EXTEND;
      l_rows(i) := '{"OBJECT_NAME":' || js(l_names(i)) || ',"ORA_CODE":' || to_char(cdcctl_probe(l_names(i))) || '}';
    END LOOP;
    put_rows(p_name, l_sep, l_rows);
  EXCEPTION WHEN OTHERS THEN
    put_error(p_name, l_sep, SQLCODE);
  END;
  PROCEDURE probe_flashback(p_name VARCHAR2, p_tables VARCHAR2) IS
    l_rows t_rows := t_rows();
    l_cur SYS_REFCURSOR;
    l_owner VARCHAR2(128);
    l_table VARCHAR2(128);
    l_sep VARCHAR2(1) := next_sep;
  BEGIN
    OPEN l_cur FOR p_tables;
    LOOP
      FETCH l_cur INTO l_owner, l_table;
      EXIT WHEN l_cur%NOTFOUND;
      l_rows.EXTEND;
      l_rows(l_rows.COUNT) := '{"OWNER":' || js(l_owner) || ',"TABLE_NAME":' || js(l_table)
        || ',"ORA_CODE":' || to_char(cdcctl_flashback_probe(l_owner, l_table)) || '}';
    END LOOP;
    CLOSE l_cur;
    put_rows(p_name, l_sep, l_rows);
  EXCEPTION WHEN OTHERS THEN
    put_error(p_name, l_sep, SQLCODE);
  END;
"#;

/// The call that spools one named query.
fn query_call(name: &str, text: &str, patterns: &[TablePattern], release: ScriptRelease) -> String {
    let has_long = select_columns(text)
        .iter()
        .any(|c| LONG_COLUMNS.contains(&c.as_str()));
    match release {
        ScriptRelease::Json if has_long => format!(
            "  qd('{name}', q'~{}~');\n",
            expand_scope(text, patterns, release)
        ),
        ScriptRelease::Json => format!("  q('{name}', q'~{}~');\n", wrapped(text, patterns)),
        ScriptRelease::Concatenated { .. } => {
            let text = expand_scope(&release_text(name, text, release), patterns, release);
            if text.contains("cdcctl_probe(") {
                format!("  probe_objects('{name}');\n")
            } else if let Some(from) = text
                .find("cdcctl_flashback_probe(")
                .and_then(|_| text.find(" FROM "))
            {
                // The probe's own rows: the tables it would probe, read
                // by the block, which calls the probe for each.
                format!(
                    "  probe_flashback('{name}', q'~SELECT owner, table_name{}~');\n",
                    &text[from..]
                )
            } else {
                format!("  qd('{name}', q'~{text}~');\n")
            }
        }
    }
}

/// The whole SQL*Plus script for the Oracle queries of the catalog, for
/// Oracle 18c and later.
pub fn script(defs: &[CheckDef], patterns: &[TablePattern], spool: &str) -> String {
    script_for(defs, patterns, spool, ScriptRelease::Json)
}

/// The script for a given release.
pub fn script_for(
    defs: &[CheckDef],
    patterns: &[TablePattern],
    spool: &str,
    release: ScriptRelease,
) -> String {
    let mut s = String::new();
    s.push_str("-- cdcctl evidence collection (generated by `cdcctl collect`).\n");
    s.push_str(&format!(
        "-- Run as the connector user with SQL*Plus against Oracle {}:\n",
        release.label()
    ));
    s.push_str("--   sqlplus -S -L user@//host:1521/service @collect.sql\n");
    s.push_str(
        "-- It only reads. One anonymous PL/SQL block runs its queries with OPEN ... FOR and DBMS_SQL\n\
         -- and probes each view it needs with EXECUTE IMMEDIATE of a SELECT count(*) ... WHERE 1 = 0;\n\
         -- its output goes through DBMS_OUTPUT. ALTER SESSION sets this session's date and number formats.\n",
    );
    if release == ScriptRelease::Json {
        s.push_str("-- Some queries declare helper functions inside their WITH clauses.\n");
    }
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
    s.push_str(BLOCK_COMMON);
    match release {
        ScriptRelease::Json => s.push_str(BLOCK_JSON),
        ScriptRelease::Concatenated { .. } => s.push_str(
            &BLOCK_PROBES
                .replace("%PROBE_BODY%", PROBE_BODY)
                .replace("%FLASHBACK_BODY%", FLASHBACK_BODY)
                .replace("%OBJECTS%", &required_objects()),
        ),
    }
    s.push_str("BEGIN\n");
    for q in queries(defs, Dialect::Oracle) {
        s.push_str(&query_call(&q.name, &q.text, patterns, release));
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

    fn releases() -> Vec<(&'static str, ScriptRelease)> {
        ["19", "12.2", "12.1", "11.2"]
            .into_iter()
            .map(|v| (v, ScriptRelease::parse(v).unwrap()))
            .collect()
    }

    #[test]
    fn collect_scripts_are_pinned_per_release() {
        let defs = crate::preflight::defs::load().unwrap();
        for (version, name) in [
            ("19", "collect_script_18c"),
            ("12.1", "collect_script_12_1"),
            ("11.2", "collect_script_11_2"),
        ] {
            let release = ScriptRelease::parse(version).unwrap();
            snap!(name, script_for(&defs, &orders_scope(), "ev.json", release));
        }
    }

    #[test]
    fn versions_pick_the_json_object_script_only_from_18c() {
        assert_eq!(ScriptRelease::parse("19.22").unwrap(), ScriptRelease::Json);
        assert_eq!(ScriptRelease::parse("18c").unwrap(), ScriptRelease::Json);
        assert_eq!(
            ScriptRelease::parse("12.2").unwrap(),
            ScriptRelease::Concatenated {
                major: 12,
                minor: 2
            }
        );
        assert_eq!(
            ScriptRelease::parse("11.2.0.4").unwrap(),
            ScriptRelease::Concatenated {
                major: 11,
                minor: 2
            }
        );
        assert!(ScriptRelease::parse("10.2").is_err());
        assert!(ScriptRelease::parse("latest").is_err());
    }

    #[test]
    fn json_object_rows_are_clobs_printed_in_lines_under_the_dbms_output_limit() {
        let defs = crate::preflight::defs::load().unwrap();
        let s = script(&defs, &[], "ev.json");
        let calls = s.lines().filter(|l| l.starts_with("  q('")).count();
        assert!(calls > 20);
        assert_eq!(s.matches("json_object(").count(), calls);
        assert_eq!(
            s.matches(" NULL ON NULL RETURNING CLOB) FROM (").count(),
            calls
        );
        assert!(s.contains("TYPE t_rows IS TABLE OF CLOB;"));
        assert!(s.contains("c_max CONSTANT PLS_INTEGER := 8000;"));
        assert!(!s.contains("TABLE OF VARCHAR2(32767)"));
    }

    #[test]
    fn heavy_dictionary_queries_are_scoped_and_high_value_is_read_in_one_loop() {
        let defs = crate::preflight::defs::load().unwrap();
        for (version, release) in releases() {
            let s = script_for(&defs, &orders_scope(), "ev.json", release);
            let call = |name: &str| -> String {
                s.lines()
                    .find(|l| l.contains(&format!("('{name}', ")))
                    .unwrap_or_else(|| panic!("{version}: no call of {name}"))
                    .to_string()
            };
            assert!(
                call("segments").contains("(owner LIKE 'APP' AND segment_name LIKE 'ORDER%')"),
                "{version}"
            );
            assert!(
                call("objects").contains("(owner LIKE 'APP' AND object_name LIKE 'ORDER%')"),
                "{version}"
            );
            let parts = call("tab_partitions");
            assert!(
                parts.contains("(table_owner LIKE 'APP' AND table_name LIKE 'ORDER%')"),
                "{version}"
            );
            assert!(
                parts.starts_with("  qd('tab_partitions'"),
                "{version}: {parts}"
            );
            assert!(!s.contains("cdcctl_high_value"), "{version}");
            assert!(s.contains("dbms_sql.column_value_long"), "{version}");
        }
        // Without patterns: the schemas Oracle does not maintain.
        let all = script(&defs, &[], "ev.json");
        assert!(all.contains(
            "FROM dba_segments WHERE segment_type LIKE 'TABLE%' AND owner IN (SELECT username FROM all_users WHERE oracle_maintained = 'N')"
        ));
        let old = script_for(&defs, &[], "ev.json", ScriptRelease::parse("11.2").unwrap());
        assert!(!old.contains("oracle_maintained"));
        assert!(old.contains("AND owner NOT IN ('ANONYMOUS',"));
    }

    #[test]
    fn transactions_are_labelled_with_their_own_container() {
        let defs = crate::preflight::defs::load().unwrap();
        for (version, release) in releases() {
            let s = script_for(&defs, &[], "ev.json", release);
            let line = s
                .lines()
                .find(|l| l.contains("('transactions', "))
                .unwrap_or_default();
            assert!(!line.contains("CON_NAME')"), "{version}: {line}");
            if version == "11.2" {
                assert!(line.contains("NULL AS con_name"), "{line}");
            } else {
                assert!(
                    line.contains("LEFT JOIN v$containers c ON c.con_id = t.con_id"),
                    "{version}: {line}"
                );
            }
        }
    }

    #[test]
    fn scripts_before_18c_use_neither_json_object_nor_with_function() {
        let defs = crate::preflight::defs::load().unwrap();
        for (version, release) in releases().into_iter().skip(1) {
            let s = script_for(&defs, &orders_scope(), "ev.json", release);
            let upper = s.to_ascii_uppercase();
            assert!(!upper.contains("JSON_OBJECT"), "{version}");
            assert!(!upper.contains("WITH\n  FUNCTION"), "{version}");
            assert!(s.contains("FUNCTION js(p VARCHAR2)"), "{version}");
            assert!(s.contains("probe_objects('object_access')"), "{version}");
            assert!(
                s.contains("probe_flashback('flashback_probe', q'~SELECT owner, table_name FROM all_tables WHERE ((owner LIKE 'APP'"),
                "{version}"
            );
            for q in crate::preflight::defs::queries(&defs, Dialect::Oracle) {
                assert!(
                    s.contains(&format!("('{}'", q.name)),
                    "{version}: {}",
                    q.name
                );
            }
        }
        let old = script_for(&defs, &[], "ev.json", ScriptRelease::parse("11.2").unwrap());
        for column in [
            "restricted, application_root",
            "open_mode, cdb,",
            "username, common,",
            "network_name, pdb FROM",
        ] {
            let line = old
                .lines()
                .find(|l| l.contains(column) && !l.contains("v$pdbs"));
            assert!(line.is_none(), "11g reads {column}: {line:?}");
        }
    }

    #[test]
    fn queries_sharing_a_name_share_their_text() {
        let defs = crate::preflight::defs::load().unwrap();
        // Within one dialect: DM8 and YashanDB read their own dictionary
        // into rows of the same names.
        let mut seen: std::collections::BTreeMap<(String, &str), &str> = Default::default();
        for q in defs.iter().flat_map(|d| d.sql.iter()) {
            if let Some(text) = seen.insert((format!("{:?}", q.dialect), &q.name), &q.text) {
                assert_eq!(text, q.text, "two texts for query {}", q.name);
            }
        }
    }

    #[test]
    fn every_script_line_fits_sql_plus() {
        let defs = crate::preflight::defs::load().unwrap();
        for (version, release) in releases() {
            let s = script_for(&defs, &orders_scope(), "ev.json", release);
            for line in s.lines() {
                // SQL*Plus refuses lines over 2499 characters and ends a
                // statement at a blank line.
                assert!(line.chars().count() < 2500, "{version}: {line}");
                assert!(!line.trim().is_empty(), "{version}: a blank line");
            }
        }
    }

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

    /// Issue 36: the header said "only SELECT statements" over a PL/SQL
    /// block that runs its queries through DBMS_SQL and EXECUTE IMMEDIATE.
    #[test]
    fn header_names_every_kind_of_statement_the_script_runs_issue36() {
        let defs = crate::preflight::defs::load().unwrap();
        for (version, release) in releases() {
            let s = script_for(&defs, &[], "ev.json", release);
            let header: String = s
                .lines()
                .take_while(|l| l.starts_with("--"))
                .collect::<Vec<_>>()
                .join("\n");
            assert!(
                !header.contains("only SELECT statements"),
                "{version}: {header}"
            );
            let body = s.to_ascii_uppercase();
            for kind in [
                "DBMS_SQL",
                "EXECUTE IMMEDIATE",
                "ALTER SESSION",
                "OPEN L_CUR FOR",
            ] {
                if body.contains(kind) {
                    let said = kind.trim_end_matches(" L_CUR FOR");
                    let said = if said == "OPEN" { "OPEN ... FOR" } else { said };
                    assert!(
                        header.contains(said),
                        "{version}: header omits {said}: {header}"
                    );
                }
            }
            assert!(header.contains("PL/SQL block"), "{version}: {header}");
        }
    }

    #[test]
    fn script_reads_only_and_quotes_table_patterns() {
        let defs = crate::preflight::defs::load().unwrap();
        let p = vec![TablePattern {
            owner: "APP".into(),
            table: "O'X%".into(),
        }];
        for (version, release) in releases() {
            script_reads_only(&defs, &p, release, version);
        }
    }

    fn script_reads_only(
        defs: &[CheckDef],
        p: &[TablePattern],
        release: ScriptRelease,
        version: &str,
    ) {
        let s = script_for(defs, p, "cdcctl-evidence.json", release);
        assert!(s.contains("table_name LIKE 'O''X%'"), "{version}");
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
            assert!(
                !upper.contains(verb),
                "{version}: the script contains {verb}"
            );
        }
        assert!(
            !s.contains("~'~"),
            "no query text may end the q-quote early"
        );
        for q in crate::preflight::defs::queries(defs, Dialect::Oracle) {
            assert!(
                s.contains(&format!("('{}'", q.name)),
                "{version}: {}",
                q.name
            );
        }
        // Every statement the block opens is a query.
        for line in s.lines().filter(|l| l.contains(", q'~")) {
            let text = line.split_once(", q'~").map(|(_, t)| t).unwrap_or_default();
            assert!(
                text.starts_with("SELECT ")
                    || text.starts_with("WITH\n")
                    || text.starts_with("WITH"),
                "{version}: {line}"
            );
        }
    }
}
