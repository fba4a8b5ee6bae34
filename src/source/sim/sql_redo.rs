//! The SQL_REDO text of Oracle's DML and LOB rows, as sql-redo-format.md
//! shows it: INSERT, UPDATE and DELETE with the WHERE clause each
//! supplemental logging level gives, an optional table alias, unknown
//! objects named by number with their values as `HEXTORAW` of their bytes,
//! and the PL/SQL of LOB locator and LOB write rows.

use std::fmt::Write as _;

use super::charset;
use super::model::Table;
use super::scenario::SuppLevel;
use super::value::{hex, ColType, Nls, Value};

/// How one DML row's statement names its table, columns and values.
pub struct DmlStatement<'a> {
    /// The table the row changes.
    pub table: &'a Table,
    /// Whether the session's dictionary maps the object; when it does not,
    /// columns are `"COL n"` and values `HEXTORAW` of their stored bytes.
    pub known: bool,
    /// The owner and name the statement shows (`UNKNOWN`, `OBJ# n` when
    /// the object is not known).
    pub owner: &'a str,
    pub name: &'a str,
    /// UPDATE and DELETE may name the table by an alias, used before every
    /// column of SET and WHERE (not before ROWID).
    pub alias: bool,
    pub nls: &'a Nls,
    /// `NO_ROWID_IN_STMT`: WHERE ends without `ROWID = '...'`.
    pub no_rowid: bool,
    pub rowid: &'a str,
}

// Each statement is written into one buffer: rendering is a large share of
// what serving V$LOGMNR_CONTENTS costs.
impl DmlStatement<'_> {
    /// `insert into ... (...) values (...);` of the row's after image.
    pub fn insert(&self, vals: &[Value]) -> String {
        let mut sql = String::with_capacity(256);
        // XMLType and extended strings are left out: XML DOC
        // and 32K rows carry them (LOBs show EMPTY_LOB()).
        let shown = || {
            (0..vals.len())
                .filter(|&i| !matches!(vals[i], Value::Xml(_)) && !vals[i].is_extended_string())
        };
        sql.push_str("insert into ");
        self.push_target(&mut sql);
        sql.push('(');
        for (n, i) in shown().enumerate() {
            if n > 0 {
                sql.push(',');
            }
            self.push_col(&mut sql, i);
        }
        sql.push_str(") values (");
        for (n, i) in shown().enumerate() {
            if n > 0 {
                sql.push(',');
            }
            self.push_lit(&mut sql, i, &vals[i], true);
        }
        sql.push_str(");");
        sql
    }

    /// `update ... set ... where ...;`: the changed columns, then what
    /// the logging `level` puts of the before image in WHERE.
    pub fn update(&self, level: SuppLevel, b: &[Value], a: &[Value], changed: &[usize]) -> String {
        let t = self.table;
        let mut sql = String::with_capacity(256);
        sql.push_str("update ");
        self.push_target(&mut sql);
        sql.push_str(" set ");
        let mut first = true;
        for &i in changed {
            let Some(v) = a.get(i).filter(|v| !v.in_pieces()) else {
                continue;
            };
            if !first {
                sql.push_str(", ");
            }
            first = false;
            self.push_col(&mut sql, i);
            sql.push_str(" = ");
            self.push_lit(&mut sql, i, v, false);
        }
        sql.push_str(" where ");
        match level {
            SuppLevel::All => self.push_where(&mut sql, b, &mut self.non_lob()),
            SuppLevel::Pk => self.push_where(
                &mut sql,
                b,
                &mut self
                    .non_lob()
                    .filter(|i| t.pk.contains(i) || changed.contains(i)),
            ),
            SuppLevel::Min | SuppLevel::None => {
                self.push_where(&mut sql, b, &mut changed.iter().copied())
            }
        }
        sql.push(';');
        sql
    }

    /// `delete from ... where ...;`: the undo of a delete holds the whole
    /// row, whatever the logging level.
    pub fn delete(&self, b: &[Value]) -> String {
        let mut sql = String::with_capacity(256);
        sql.push_str("delete from ");
        self.push_target(&mut sql);
        sql.push_str(" where ");
        self.push_where(&mut sql, b, &mut self.non_lob());
        sql.push(';');
        sql
    }

    fn push_col(&self, out: &mut String, i: usize) {
        if self.known {
            out.push_str(if self.alias { "a." } else { "" });
            out.push('"');
            out.push_str(&self.table.columns[i].name);
            out.push('"');
        } else {
            let _ = write!(out, "\"COL {}\"", i + 1);
        }
    }

    fn bytes_of(&self, v: &Value) -> Vec<u8> {
        let text = |cs, s: &str| charset::encode(cs, s).unwrap_or_else(|| s.as_bytes().to_vec());
        match v {
            Value::Str(s) => text(self.nls.charsets.database, s),
            Value::NStr(s) => text(self.nls.charsets.national, s),
            other => other.storage_bytes(),
        }
    }

    fn push_lit(&self, out: &mut String, i: usize, v: &Value, insert: bool) {
        if self.known || v.is_null() {
            out.push_str(&v.literal_in(&self.table.columns[i].ty, self.nls, insert));
        } else {
            out.push_str("HEXTORAW('");
            out.push_str(&hex(&self.bytes_of(v)));
            out.push_str("')");
        }
    }

    fn push_target(&self, out: &mut String) {
        out.push('"');
        out.push_str(self.owner);
        out.push_str("\".\"");
        out.push_str(self.name);
        out.push('"');
        if self.alias {
            out.push_str(" a");
        }
    }

    fn push_cond(&self, out: &mut String, i: usize, v: &Value) {
        self.push_col(out, i);
        if v.is_null() {
            out.push_str(" IS NULL");
        } else {
            out.push_str(" = ");
            self.push_lit(out, i, v, false);
        }
    }

    /// `cols` of `values` as `a = 1 and b IS NULL`, then the ROWID.
    fn push_where(
        &self,
        out: &mut String,
        values: &[Value],
        cols: &mut dyn Iterator<Item = usize>,
    ) {
        let mut first = true;
        for i in cols {
            let Some(v) = values.get(i).filter(|v| !v.in_pieces()) else {
                continue;
            };
            if !first {
                out.push_str(" and ");
            }
            first = false;
            self.push_cond(out, i, v);
        }
        if !self.no_rowid {
            if !first {
                out.push_str(" and ");
            }
            let _ = write!(out, "ROWID = '{}'", self.rowid);
        }
    }

    /// The columns a WHERE clause may name: none LogMiner shows in pieces.
    fn non_lob(&self) -> impl Iterator<Item = usize> + '_ {
        let t = self.table;
        (0..t.columns.len()).filter(move |&i| !t.columns[i].ty.is_lob_like())
    }
}

/// Whether `column` of `t` is a BLOB (else a CLOB, as LOB rows see it).
fn is_blob(t: &Table, column: usize) -> bool {
    t.columns
        .get(column)
        .is_some_and(|c| matches!(c.ty, ColType::Blob))
}

/// The PL/SQL that opens a LOB row: the locator of `column` selected for
/// update. Its WHERE holds what supplemental logging logged of the row, as
/// an UPDATE's does: every column but the LOBs with `ALL COLUMNS` (what
/// Debezium's `SelectLobParser` tests show LogMiner print), the key
/// otherwise; then the ROWID unless `NO_ROWID_IN_STMT`.
impl DmlStatement<'_> {
    pub fn lob_locator(&self, level: SuppLevel, column: usize, values: &[Value]) -> String {
        let t = self.table;
        let var = if is_blob(t, column) { "loc_b" } else { "loc_c" };
        let mut sql = String::with_capacity(256);
        let _ = write!(
            sql,
            "DECLARE \n loc_c CLOB; \n buf_c VARCHAR2(6156); \n loc_b BLOB; \n buf_b RAW(6156);\n loc_nc NCLOB; \n buf_nc NVARCHAR2(6156); \nBEGIN\n select \"{}\" into {var} from ",
            t.columns.get(column).map_or("", |c| c.name.as_str()),
        );
        self.push_target(&mut sql);
        sql.push_str(" where ");
        match level {
            SuppLevel::All => self.push_where(&mut sql, values, &mut self.non_lob()),
            _ => self.push_where(&mut sql, values, &mut t.pk.iter().copied()),
        }
        sql.push_str(" for update;");
        sql
    }
}

/// The PL/SQL of one LOB write: `data` is hex for a BLOB, text for a CLOB.
pub fn lob_write(t: &Table, column: usize, data: &str, offset: u64) -> String {
    if is_blob(t, column) {
        format!(
            " buf_b := HEXTORAW('{data}'); \n  dbms_lob.write(loc_b, {}, {offset}, buf_b);\nEND;",
            data.len() / 2
        )
    } else {
        format!(
            " buf_c := '{}'; \n  dbms_lob.write(loc_c, {}, {offset}, buf_c);\nEND;",
            escape_quotes(data),
            data.chars().count()
        )
    }
}

/// `text` with each quote doubled, as in a SQL string literal; borrowed
/// when there is none, as in most LOB pieces.
fn escape_quotes(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\'') {
        text.replace('\'', "''").into()
    } else {
        text.into()
    }
}
