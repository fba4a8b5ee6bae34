//! The SQL_REDO of the rows that carry a value in pieces after its DML row:
//! LOB rows (SELECT_LOB_LOCATOR 9, LOB_WRITE 10, LOB_TRIM 11, LOB_ERASE 29),
//! XMLType rows (XML DOC BEGIN 68, WRITE 70, END 71) and extended-string
//! rows (32K BEGIN 91, WRITE 92, END 93, `MAX_STRING_SIZE = EXTENDED`).
//! This module reads one row's text into a typed [`Piece`]; applying a
//! LOB's calls to its value is [`lob_value`](super::lob_value)'s,
//! reassembly the transaction buffer's.
//!
//! Forms read (whitespace and keyword case free):
//!
//! | code | SQL_REDO |
//! |---|---|
//! | 9 | `DECLARE loc_c CLOB; buf_c VARCHAR2(6156); ... BEGIN select "COL" into loc_c from "S"."T" where "K" = '1' and ROWID = '...' for update;` |
//! | 10 | ` buf_c := 'text'; dbms_lob.write(loc_c, 4, 1, buf_c); END;` (BLOB: `buf_b := HEXTORAW('0a0b'); dbms_lob.write(loc_b, 2, 1, buf_b);`) |
//! | 11 | `dbms_lob.trim(loc_c, 10);` |
//! | 29 | `dbms_lob.erase(loc_c, 10, 1);` |
//! | 68 | `update "S"."T" a set a."COL" = XMLType(:1) where a."K" = '1';` |
//! | 70 | `XML_REDO := '<a/>':4`, `XML_REDO := HEXTORAW('3c612f3e'):4`, `XML_REDO := NULL` |
//! | 71 | empty |
//! | 91 | `DECLARE ... BEGIN ... Stmt := 'update "S"."T" a set a."COL" = :COL where a."K" = ''1'';';` |
//! | 92 | ` buf_c := 'text'; DBMS_LOB.WRITEAPPEND(TempLob, 4, buf_c);` |
//! | 93 | any text (nothing is read from it) |
//!
//! A LOB row may hold several of these PL/SQL statements at once (the
//! locator's `select` and the writes of one call): every LOB row is read as
//! a block of statements, so both shapes give the same [`LobBlock`]. Code
//! 70's HEXTORAW may lack its closing quote (`HEXTORAW('3c61):2`), a
//! LogMiner quirk other connectors report; it is accepted.

use super::scan::{Res, Scanner};
use super::{column, conditions, new_statement, table_alias, table_name, DmlKind, ParseError};
use crate::engine::event::{decode_hex, Image};

/// The row a piece belongs to: table, the column whose value it carries,
/// and the key LogMiner printed to find the row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub schema: String,
    pub table: String,
    pub column: String,
    /// The WHERE pairs, without ROWID.
    pub key: Image,
    pub row_id: Option<String>,
}

/// Content of a LOB or XML piece: text (CLOB, NCLOB, XML as text) or bytes
/// (BLOB, XML sent as HEXTORAW).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LobData {
    Text(String),
    Bytes(Vec<u8>),
}

/// One `dbms_lob` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LobOp {
    /// Overwrite `amount` characters (bytes for a BLOB) of `data` at the
    /// 1-based `offset`.
    Write {
        data: LobData,
        amount: u64,
        offset: u64,
    },
    /// Cut the value to `length`.
    Trim { length: u64 },
    /// Blank `amount` characters (zero bytes) at `offset`.
    Erase { amount: u64, offset: u64 },
}

/// What one LOB row (9, 10, 11, 29) says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LobBlock {
    /// The `select ... for update` that opens the locator, with whether the
    /// locator is a BLOB's (`loc_b`).
    pub locator: Option<(Target, bool)>,
    pub ops: Vec<LobOp>,
}

/// One row's piece.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Lob(LobBlock),
    XmlBegin(Target),
    /// `None`: `XML_REDO := NULL`.
    XmlWrite(Option<LobData>),
    XmlEnd,
    StringBegin(Target),
    StringWrite(String),
    StringEnd,
}

/// The operation codes whose rows carry pieces.
pub fn is_piece_code(code: u16) -> bool {
    matches!(code, 9 | 10 | 11 | 29 | 68 | 70 | 71 | 91 | 92 | 93)
}

/// Reads one piece row's SQL_REDO. `code` is the row's OPERATION_CODE
/// (see [`is_piece_code`]).
pub fn parse_piece(code: u16, sql: &str) -> Result<Piece, ParseError> {
    let mut s = Scanner::new(sql);
    let piece = match code {
        9 | 10 | 11 | 29 => lob_block(&mut s).and_then(|b| check_block(&s, code, b)),
        68 => bind_update(&mut s, false).map(Piece::XmlBegin),
        70 => xml_write(&mut s),
        71 => Ok(Piece::XmlEnd),
        91 => string_begin(&mut s),
        92 => string_write(&mut s),
        93 => Ok(Piece::StringEnd),
        other => s.fail(format!(
            "operation code {other} carries no LOB, XML or string piece"
        )),
    };
    piece.map_err(|f| ParseError {
        message: f.message,
        position: f.position,
        raw: sql.to_string(),
    })
}

/// A row coded as one LOB call must hold that call: a LOB_WRITE without a
/// write, a LOB_TRIM without a trim would silently change nothing.
fn check_block(s: &Scanner<'_>, code: u16, block: LobBlock) -> Res<Piece> {
    let has = |f: fn(&LobOp) -> bool| block.ops.iter().any(f);
    let (ok, what) = match code {
        9 => (
            block.locator.is_some(),
            "a `select ... into loc_ ... for update`",
        ),
        10 => (
            has(|o| matches!(o, LobOp::Write { .. })),
            "a `dbms_lob.write`",
        ),
        11 => (
            has(|o| matches!(o, LobOp::Trim { .. })),
            "a `dbms_lob.trim`",
        ),
        _ => (
            has(|o| matches!(o, LobOp::Erase { .. })),
            "a `dbms_lob.erase`",
        ),
    };
    if !ok {
        return s.fail(format!(
            "the LOB row (operation code {code}) holds no {what}"
        ));
    }
    Ok(Piece::Lob(block))
}

/// `[DECLARE decls] [BEGIN] stmt; stmt; ... [END;]`
fn lob_block(s: &mut Scanner<'_>) -> Res<LobBlock> {
    let mut block = LobBlock {
        locator: None,
        ops: Vec::new(),
    };
    if s.keyword(b"DECLARE") {
        skip_declarations(s)?;
    }
    s.keyword(b"BEGIN");
    // buf_x := value; holds the data of the next dbms_lob.write.
    let mut buffer: Option<(String, LobData)> = None;
    loop {
        if s.at_end() {
            return Ok(block);
        }
        if s.keyword(b"END") {
            s.expect(b';', "after `end`")?;
            if !s.at_end() {
                return s.fail("unexpected text after `end;`");
            }
            return Ok(block);
        }
        if s.keyword(b"SELECT") {
            if block.locator.is_some() {
                return s.fail("a second `select ... for update` in one LOB row");
            }
            block.locator = Some(locator_select(s)?);
            s.expect(b';', "after `for update`")?;
            continue;
        }
        let at = s.pos;
        let name = s.word();
        if name.is_empty() {
            return s.fail(
                "expected a PL/SQL statement of a LOB row (`select`, `buf_ := ...` or `dbms_lob.`)",
            );
        }
        if name.eq_ignore_ascii_case("dbms_lob") {
            s.expect(b'.', "after `dbms_lob`")?;
            block.ops.push(lob_call(s, &mut buffer)?);
        } else if s.eat(b':') {
            s.expect(b'=', "in `:=`")?;
            let data = lob_value(s)?;
            buffer = Some((name.to_ascii_lowercase(), data));
        } else {
            s.pos = at;
            return s.fail(format!(
                "`{name}` is not a statement LogMiner writes in a LOB row"
            ));
        }
        s.expect(b';', "after the statement")?;
    }
}

/// Declarations up to `BEGIN`: `loc_c CLOB; buf_c VARCHAR2(6156); ...`.
fn skip_declarations(s: &mut Scanner<'_>) -> Res<()> {
    loop {
        if s.at_keyword(b"BEGIN") {
            return Ok(());
        }
        if s.at_end() {
            return s.fail("the DECLARE section has no BEGIN");
        }
        let name = s.word();
        if name.is_empty() {
            return s.fail("expected a declaration (`name TYPE;`)");
        }
        let ty = s.word_after_ws();
        if ty.is_empty() {
            return s.fail(format!("the declaration of `{name}` has no type"));
        }
        if s.eat(b'(') {
            s.skip_ws();
            s.word();
            s.expect(b')', "after the type's size")?;
        }
        if s.eat(b':') {
            // `amount integer := 10;` style initialisers.
            s.expect(b'=', "in `:=`")?;
            s.value()?;
        }
        s.expect(b';', "after the declaration")?;
    }
}

/// `"COL" into loc_c from "S"."T" where ... for update`
fn locator_select(s: &mut Scanner<'_>) -> Res<(Target, bool)> {
    let column = s.quoted_ident("for the LOB column")?.to_string();
    s.expect_keyword(b"INTO", "after the LOB column")?;
    let var = s.word_after_ws();
    let binary = var.to_ascii_lowercase().ends_with("_b");
    if !var.to_ascii_lowercase().starts_with("loc_") {
        return s.fail(format!(
            "expected a LOB locator (`loc_c`, `loc_b`, `loc_nc`), found `{var}`"
        ));
    }
    s.expect_keyword(b"FROM", "after the locator")?;
    let (schema, table) = table_name(s)?;
    let alias = table_alias(s, b"WHERE");
    let mut stmt = new_statement(DmlKind::Update, schema, table, Vec::new());
    if s.keyword(b"WHERE") {
        conditions(s, &mut stmt, alias)?;
    }
    s.expect_keyword(b"FOR", "after the WHERE clause (`for update`)")?;
    s.expect_keyword(b"UPDATE", "after `for`")?;
    let target = Target {
        schema: schema.to_string(),
        table: table.to_string(),
        column,
        key: stmt.before_image().unwrap_or_default(),
        row_id: stmt.row_id().map(str::to_string),
    };
    Ok((target, binary))
}

/// `write(loc, amount, offset, buf)`, `trim(loc, length)`,
/// `erase(loc, amount, offset)` after `dbms_lob.`.
fn lob_call(s: &mut Scanner<'_>, buffer: &mut Option<(String, LobData)>) -> Res<LobOp> {
    s.skip_ws();
    let call = s.word().to_ascii_lowercase();
    s.expect(b'(', "after the dbms_lob call")?;
    let locator = s.word_after_ws();
    if locator.is_empty() {
        return s.fail("expected the LOB locator as the first argument");
    }
    let op = match call.as_str() {
        "write" => {
            let amount = number_arg(s)?;
            let offset = number_arg(s)?;
            s.expect(b',', "before the buffer")?;
            let buf = s.word_after_ws().to_ascii_lowercase();
            let Some((name, data)) = buffer.take() else {
                return s.fail(format!("dbms_lob.write of `{buf}`, which no `:=` set"));
            };
            if name != buf {
                return s.fail(format!("dbms_lob.write of `{buf}`, but `{name}` was set"));
            }
            LobOp::Write {
                data,
                amount,
                offset,
            }
        }
        "trim" => LobOp::Trim {
            length: number_arg(s)?,
        },
        "erase" => LobOp::Erase {
            amount: number_arg(s)?,
            offset: number_arg(s)?,
        },
        other => return s.fail(format!("`dbms_lob.{other}` is not a call LogMiner writes")),
    };
    s.expect(b')', "to close the dbms_lob call")?;
    Ok(op)
}

/// `, 123`
fn number_arg(s: &mut Scanner<'_>) -> Res<u64> {
    s.expect(b',', "between the dbms_lob arguments")?;
    s.skip_ws();
    let digits = s.word();
    match digits.parse::<u64>() {
        Ok(n) => Ok(n),
        Err(_) => s.fail(format!(
            "expected a whole number argument, found `{digits}`"
        )),
    }
}

/// A buffer's value: a string (or `||` chain) or `HEXTORAW('...')`.
fn lob_value(s: &mut Scanner<'_>) -> Res<LobData> {
    let at = s.pos;
    match s.value()? {
        super::Value::Text(t) => Ok(LobData::Text(t.into_owned())),
        super::Value::Raw(hex) => match decode_hex(&hex) {
            Some(b) => Ok(LobData::Bytes(b)),
            None => {
                s.pos = at;
                s.fail("the HEXTORAW digits are not whole bytes of hex")
            }
        },
        _ => {
            s.pos = at;
            s.fail("expected a string or HEXTORAW as the LOB buffer")
        }
    }
}

/// `update "S"."T" [a] set [a.]"COL" = XMLType(:1) | :COL where ...`: the
/// statement XML DOC BEGIN and 32K BEGIN name their target with; the value
/// is a bind the pieces that follow fill.
fn bind_update(s: &mut Scanner<'_>, string: bool) -> Res<Target> {
    s.expect_keyword(b"UPDATE", "at the start of the statement")?;
    let (schema, table) = table_name(s)?;
    let alias = table_alias(s, b"SET");
    s.expect_keyword(b"SET", "after the table name")?;
    let col = column(s, alias, "in the SET list")?;
    s.expect(b'=', "after the SET column")?;
    let xml = s.keyword(b"XMLTYPE");
    if xml {
        s.expect(b'(', "after XMLType")?;
    } else if !string {
        return s.fail("expected `XMLType(:n)` as the value XML DOC BEGIN sets");
    }
    s.expect(b':', "for the bind the pieces fill")?;
    s.skip_ws();
    if s.word().is_empty() {
        return s.fail("expected the bind's name or number after `:`");
    }
    if xml {
        s.expect(b')', "to close XMLType(")?;
    }
    let mut stmt = new_statement(DmlKind::Update, schema, table, Vec::new());
    if s.keyword(b"WHERE") {
        conditions(s, &mut stmt, alias)?;
    }
    s.eat(b';');
    if !s.at_end() {
        return s.fail("unexpected text after the end of the statement");
    }
    Ok(Target {
        schema: schema.to_string(),
        table: table.to_string(),
        column: col.to_string(),
        key: stmt.before_image().unwrap_or_default(),
        row_id: stmt.row_id().map(str::to_string),
    })
}

/// `XML_REDO := '...':n`, `XML_REDO := HEXTORAW('...'):n`, `XML_REDO := NULL`
fn xml_write(s: &mut Scanner<'_>) -> Res<Piece> {
    s.expect_keyword(b"XML_REDO", "at the start of XML DOC WRITE")?;
    s.expect(b':', "in `:=`")?;
    s.expect(b'=', "in `:=`")?;
    let data = if s.keyword(b"NULL") {
        None
    } else if s.keyword(b"HEXTORAW") {
        s.expect(b'(', "after HEXTORAW")?;
        s.expect(b'\'', "to open the HEXTORAW digits")?;
        let start = s.pos;
        while s.peek().is_some_and(|b| b.is_ascii_hexdigit()) {
            s.pos += 1;
        }
        let hex = s.slice(start, s.pos);
        let Some(bytes) = decode_hex(hex) else {
            return s.fail("the XML HEXTORAW digits are not whole bytes of hex");
        };
        s.eat(b'\'');
        s.expect(b')', "to close HEXTORAW")?;
        Some(LobData::Bytes(bytes))
    } else {
        Some(LobData::Text(s.string_lit()?.into_owned()))
    };
    if data.is_some() && s.eat(b':') {
        s.skip_ws();
        let n = s.word();
        if n.parse::<u64>().is_err() {
            return s.fail(format!(
                "expected the piece's length after `:`, found `{n}`"
            ));
        }
    }
    if !s.at_end() {
        return s.fail("unexpected text after the XML piece");
    }
    Ok(Piece::XmlWrite(data))
}

/// `DECLARE ... BEGIN ... Stmt := '<update with a :bind>';`
fn string_begin(s: &mut Scanner<'_>) -> Res<Piece> {
    // `Stmt` is declared first (`Stmt CLOB;`): the statement is the
    // `Stmt :=` assignment.
    let src = s.rest();
    let mut from = 0;
    let at = loop {
        let Some(at) = src.get(from..).and_then(|r| find_ci(r, "stmt")) else {
            return s.fail("32K BEGIN holds no `Stmt := '...'` statement");
        };
        let at = from + at;
        if src[at + 4..].trim_start().starts_with(':') {
            break at;
        }
        from = at + 4;
    };
    s.pos += at + 4;
    s.expect(b':', "in `Stmt :=`")?;
    s.expect(b'=', "in `Stmt :=`")?;
    let lit_at = s.pos;
    let inner = s.string_lit()?;
    s.eat(b';');
    if !s.at_end() {
        return s.fail("unexpected text after the `Stmt := '...';` statement");
    }
    let mut inner_s = Scanner::new(&inner);
    bind_update(&mut inner_s, true)
        .map(Piece::StringBegin)
        .map_err(|f| super::scan::Fail {
            message: format!("in the statement of `Stmt :=`: {}", f.message),
            position: lit_at,
        })
}

/// `buf_c := '...'; [DBMS_LOB.WRITEAPPEND(TempLob, n, buf_c);]`
fn string_write(s: &mut Scanner<'_>) -> Res<Piece> {
    s.skip_ws();
    let name = s.word();
    if name.is_empty() {
        return s.fail("expected `buf_c := '...'` in 32K WRITE");
    }
    s.expect(b':', "in `:=`")?;
    s.expect(b'=', "in `:=`")?;
    let at = s.pos;
    let text = match s.value()? {
        super::Value::Text(t) => t.into_owned(),
        _ => {
            s.pos = at;
            return s.fail("expected a string as the 32K WRITE buffer");
        }
    };
    s.expect(b';', "after the buffer")?;
    if !s.at_end() {
        s.skip_ws();
        let call = s.word();
        if !call.eq_ignore_ascii_case("dbms_lob") {
            return s.fail("expected `DBMS_LOB.WRITEAPPEND(...)` after the buffer");
        }
        s.expect(b'.', "after `dbms_lob`")?;
        s.expect_keyword(b"WRITEAPPEND", "after `dbms_lob.`")?;
        s.expect(b'(', "after WRITEAPPEND")?;
        s.word_after_ws();
        number_arg(s)?;
        s.expect(b',', "before the buffer")?;
        s.word_after_ws();
        s.expect(b')', "to close WRITEAPPEND")?;
        s.eat(b';');
        if !s.at_end() {
            return s.fail("unexpected text after the 32K WRITE piece");
        }
    }
    Ok(Piece::StringWrite(text))
}

fn find_ci(hay: &str, needle: &str) -> Option<usize> {
    let n = needle.len();
    hay.as_bytes()
        .windows(n)
        .position(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::event::Field;

    fn key(pairs: &[(&str, &str)]) -> Image {
        pairs
            .iter()
            .map(|(c, v)| (c.to_string(), Field::Text(v.to_string())))
            .collect()
    }

    fn lob(code: u16, sql: &str) -> LobBlock {
        match parse_piece(code, sql) {
            Ok(Piece::Lob(b)) => b,
            other => panic!("a LOB block, got {other:?}"),
        }
    }

    #[test]
    fn select_lob_locator_names_column_row_and_locator_kind() {
        let sql = "DECLARE \n loc_c CLOB; \n buf_c VARCHAR2(6174); \n loc_b BLOB; \n buf_b RAW(6174); \n \
                   loc_nc NCLOB; \n buf_nc NVARCHAR2(6174); \nBEGIN\n select \"VAL_CLOB\" into loc_c from \
                   \"DEBEZIUM\".\"CLOB_TEST\" where \"ID\" = '2' and \"VAL_DATA\" = 'Test2' and ROWID = 'AAAR3s' for update;";
        let b = lob(9, sql);
        let (t, binary) = b.locator.expect("a locator");
        assert!(!binary);
        assert_eq!(
            (t.schema.as_str(), t.table.as_str()),
            ("DEBEZIUM", "CLOB_TEST")
        );
        assert_eq!(t.column, "VAL_CLOB");
        assert_eq!(t.key, key(&[("ID", "2"), ("VAL_DATA", "Test2")]));
        assert_eq!(t.row_id.as_deref(), Some("AAAR3s"));
        assert!(b.ops.is_empty());
        let blob = sql.replace("into loc_c", "into loc_b");
        assert!(lob(9, &blob).locator.is_some_and(|(_, binary)| binary));
    }

    #[test]
    fn lob_write_reads_text_hex_amount_and_offset() {
        let b = lob(
            10,
            " buf_c := 'it''s'; \n  dbms_lob.write(loc_c, 4, 1001, buf_c);\nEND;",
        );
        assert_eq!(
            b.ops,
            vec![LobOp::Write {
                data: LobData::Text("it's".into()),
                amount: 4,
                offset: 1001
            }]
        );
        let b = lob(
            10,
            "buf_b := HEXTORAW('0A0b'); dbms_lob.write(loc_b, 2, 1, buf_b);",
        );
        assert_eq!(
            b.ops,
            vec![LobOp::Write {
                data: LobData::Bytes(vec![10, 11]),
                amount: 2,
                offset: 1
            }]
        );
        // Locator, write and trim in one row.
        let one = "DECLARE loc_c CLOB; buf_c VARCHAR2(10); BEGIN select \"B\" into loc_c from \"A\".\"T\" \
                   where \"ID\" = '2' for update; buf_c := 'ab'; dbms_lob.write(loc_c, 2, 1, buf_c); \
                   dbms_lob.trim(loc_c, 2); END;";
        let b = lob(10, one);
        assert!(b.locator.is_some());
        assert_eq!(b.ops.len(), 2);
    }

    #[test]
    fn lob_trim_and_erase_read_their_arguments() {
        assert_eq!(
            lob(11, "dbms_lob.trim(loc_c, 10);").ops,
            vec![LobOp::Trim { length: 10 }]
        );
        assert_eq!(
            lob(29, " dbms_lob.erase(loc_b, 3, 2);").ops,
            vec![LobOp::Erase {
                amount: 3,
                offset: 2
            }]
        );
    }

    #[test]
    fn xml_doc_begin_write_and_end_forms() {
        // Oracle's XMLType example.
        let begin = "update \"SCOTT\".\"XML_CLOB_COL_TAB\" a set a.\"F3\" = XMLType(:1) \
                     where a.\"F1\" = '5010' and a.\"F2\" = 'Aho40431' and a.\"F5\" = 'PETER'";
        match parse_piece(68, begin) {
            Ok(Piece::XmlBegin(t)) => {
                assert_eq!(t.column, "F3");
                assert_eq!(
                    t.key,
                    key(&[("F1", "5010"), ("F2", "Aho40431"), ("F5", "PETER")])
                );
            }
            other => panic!("{other:?}"),
        }
        let text = parse_piece(70, "XML_REDO := '<a x=''1''/>':10");
        assert_eq!(
            text,
            Ok(Piece::XmlWrite(Some(LobData::Text("<a x='1'/>".into()))))
        );
        let hex = parse_piece(70, "XML_REDO := HEXTORAW('3c612f3e'):4");
        assert_eq!(
            hex,
            Ok(Piece::XmlWrite(Some(LobData::Bytes(b"<a/>".to_vec()))))
        );
        // The last piece of an out-of-line document may lack its quote.
        let unclosed = parse_piece(70, "XML_REDO := HEXTORAW('3c612f3e):4");
        assert_eq!(unclosed, hex);
        assert_eq!(
            parse_piece(70, "XML_REDO := NULL"),
            Ok(Piece::XmlWrite(None))
        );
        assert_eq!(parse_piece(71, ""), Ok(Piece::XmlEnd));
    }

    #[test]
    fn extended_string_begin_and_write_forms() {
        let begin = "DECLARE\n TempLob CLOB;\n buf_c   VARCHAR2(32767);\n Stmt    CLOB;\nBEGIN\n \
                     DBMS_LOB.CreateTemporary(TempLob, FALSE);\n Stmt := 'update \"DEBEZIUM\".\"TEST_TABLE\" a \
                     set a.\"DATA\" = :DATA where a.\"ID\" = ''1'';';";
        match parse_piece(91, begin) {
            Ok(Piece::StringBegin(t)) => {
                assert_eq!(
                    (t.table.as_str(), t.column.as_str()),
                    ("TEST_TABLE", "DATA")
                );
                assert_eq!(t.key, key(&[("ID", "1")]));
            }
            other => panic!("{other:?}"),
        }
        let write = " buf_c := 'a''b'; \n DBMS_LOB.WRITEAPPEND(TempLob, 3, buf_c);";
        assert_eq!(parse_piece(92, write), Ok(Piece::StringWrite("a'b".into())));
        assert_eq!(parse_piece(93, "anything"), Ok(Piece::StringEnd));
    }

    #[test]
    fn malformed_piece_rows_are_errors_with_the_raw_text() {
        for (code, sql) in [
            (
                9,
                "select \"DOC\" from \"APP\".\"T\" where \"ID\" = '1' for update;",
            ),
            (9, "DECLARE loc_c CLOB; buf_c VARCHAR2(6174); loc_b BLOB;"),
            (10, "buf_c := 'x';"),
            (10, "buf_c := 'x'; dbms_lob.write(loc_c, x, 1, buf_c);"),
            (10, "buf_c := 'x'; dbms_lob.write(loc_c, 1, 1, buf_b);"),
            (11, "dbms_lob.trim(loc_c);"),
            (29, "dbms_lob.erase(loc_c, 1);"),
            (
                10,
                "buf_b := HEXTORAW('abc'); dbms_lob.write(loc_b, 1, 1, buf_b);",
            ),
            (
                68,
                "update \"A\".\"T\" a set a.\"X\" = 'text' where a.\"ID\" = '1';",
            ),
            (70, "XML Data"),
            (70, "XML_REDO := '<a/>' trailing"),
            (91, "DECLARE Stmt CLOB; BEGIN END;"),
            (91, "Stmt := 'delete from x';"),
            (92, "buf_c := HEXTORAW('00');"),
            (1, "insert"),
        ] {
            match parse_piece(code, sql) {
                Err(e) => assert_eq!(e.raw, sql),
                Ok(p) => panic!("code {code}: `{sql}` was read as {p:?}"),
            }
        }
    }
}
