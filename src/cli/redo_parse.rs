//! `cdcctl redo parse`: SQL_REDO statements (one per line, or a CSV export
//! of V$LOGMNR_CONTENTS) to one JSON object per statement.
//!
//! Output, one line each:
//! `{"op":"insert|update|delete","schema","table","before","after","findings"}`,
//! `{"op":"ddl","schema","table","sql"}` for DDL rows, and
//! `{"error","position","raw"}` for a statement that does not parse; CSV
//! input adds `"scn"`, `"rs_id"` and `"ssn"` when it has those columns.
//! Processing goes on after a bad statement; the exit code is then 4. Rows
//! carrying LOB, XML or 32k-string pieces are skipped and counted on
//! standard error.

use crate::cli::log;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::ops::Range;
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::{Map, Value};

use cdcctl::engine::charset::CharsetDictionary;
use cdcctl::engine::contents_csv::{Column, ContentsError, ContentsReader, REQUIRED_FOR_PARSE};
use cdcctl::engine::event::json::{push_json_string, RepeatedMembers};
use cdcctl::engine::event::UNAVAILABLE_VALUE;
use cdcctl::engine::finding::Finding;
use cdcctl::engine::redo::csf::{assemble, AssembleError};
use cdcctl::engine::redo::{
    finding_for_status, lob, parse_with, FieldText, Pair, ParseOptions, Value as RedoValue,
};
use cdcctl::engine::row::{LogMinerRow, OperationCode};

use super::exit;
use super::redo_dialect::RedoDialect;

#[derive(Debug, clap::Args)]
pub struct ParseArgs {
    /// Read from this file instead of standard input (`-` is standard input).
    #[arg(long, value_name = "PATH")]
    pub file: Option<PathBuf>,
    /// The input is a CSV export of V$LOGMNR_CONTENTS: a header row naming
    /// at least SQL_REDO and CSF; SCN, RS_ID, SSN, OPERATION(_CODE),
    /// SEG_OWNER, TABLE_NAME, ROLLBACK (DM8: ROLL_BACK), STATUS and INFO are used when
    /// present. Continuation rows (CSF=1) are joined.
    ///
    /// Printed: INSERT (1), DELETE (2), UPDATE (3) and DDL (5) rows.
    /// Errors (exit 4): UNSUPPORTED (255), MISSING_SCN (34), a DML row
    /// without SQL_REDO, a statement that does not parse; a STATUS=2 row
    /// carries an `unreconstructable` finding.
    /// Skipped: START (6), COMMIT (7), ROLLBACK (36), INTERNAL (0),
    /// SELECT_FOR_UPDATE (25), REPLICATION_MARKER (27) and other control
    /// rows. Read (a malformed one is an error, exit 4) but not printed,
    /// and counted on standard error, since a statement reassembles their
    /// values only with its transaction (`redo replay --lob capture`):
    /// LOB rows SELECT_LOB_LOCATOR (9), LOB_WRITE (10), LOB_TRIM (11),
    /// LOB_ERASE (29); XMLType rows XML DOC BEGIN/WRITE/END (68/70/71);
    /// extended-string rows (91/92/93): 32K BEGIN/WRITE/END, MAX_STRING_SIZE
    /// = EXTENDED. Codes cdcctl does not know are skipped and counted.
    ///
    /// Without --csv, each line is one statement: `commit`, `rollback`,
    /// `set transaction` and `savepoint` lines are skipped, DDL lines are
    /// printed as DDL, anything else must parse as DML.
    #[arg(long)]
    pub csv: bool,
    /// Read string values holding a quote LogMiner did not double (a defect
    /// of some releases), finding each literal's end from the statement's
    /// column count; every value so recovered gets an `unescaped_quote`
    /// finding. Without it such a statement is an error pointing at the quote.
    #[arg(long)]
    pub relaxed_quotes: bool,
    /// Whose V$LOGMNR_CONTENTS a --csv input is: `dm` reads DM8's operation
    /// codes (4 BATCH_UPDATE is an UPDATE, 38 XA_COMMIT a commit) and `0x`
    /// XIDs. Default: `dm` when the header names DM8's `ROLL_BACK`, else
    /// `oracle`. Statements of both are read by one parser, so lines
    /// without --csv read the same either way.
    #[arg(long, value_enum, value_name = "DIALECT")]
    pub dialect: Option<RedoDialect>,
    /// The data dictionary's character sets and column types, as `redo
    /// replay --dictionary` takes them: `HEXTORAW` values of character
    /// columns (LogMiner prints them so when it cannot convert) become
    /// text; RAW columns stay hex. A value the dictionary cannot place
    /// gets a `character_hex` finding.
    #[arg(long, value_name = "FILE")]
    pub dictionary: Option<PathBuf>,
    /// The database character set (`WE8ISO8859P1`, `ZHS16GBK`,
    /// `AL32UTF8`, ...): with --dictionary, instead of the file's; alone,
    /// every `HEXTORAW` value is taken for character data in it (a RAW
    /// column prints the same way: give --dictionary when there are some).
    #[arg(long, value_name = "NAME")]
    pub charset: Option<String>,
}

/// Why the command stopped early.
enum Stop {
    /// The input could not be opened or its header is wrong (exit 2).
    Input(String),
    /// A CSV row could not be read: nothing after it can be trusted (exit 4).
    Row(String),
    /// Writing the output failed.
    Output(io::Error),
}

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Self {
        Stop::Output(e)
    }
}

pub fn run(args: &ParseArgs) -> ExitCode {
    let input: Box<dyn Read> = match &args.file {
        Some(path) if path.as_os_str() == "-" => Box::new(io::stdin().lock()),
        Some(path) => match File::open(path) {
            Ok(f) => Box::new(f),
            Err(e) => {
                log::error(
                    "redo parse",
                    format!(
                        "cannot read {}: {e}; check the path given to --file",
                        path.display()
                    ),
                );
                return exit::code(exit::USAGE);
            }
        },
        None => Box::new(io::stdin().lock()),
    };
    let charsets = match super::redo_dictionary::for_parse(
        args.dictionary.as_deref(),
        args.charset.as_deref(),
    ) {
        Ok(c) => c,
        Err(msg) => {
            log::error("redo parse", &msg);
            return exit::code(exit::USAGE);
        }
    };
    let input = crate::cli::bounded::lines(input);
    let mut out = Printer {
        // Lines of a wide row run to kilobytes: a larger buffer than the
        // default 8 KiB makes a tenth of the write calls.
        out: BufWriter::with_capacity(1 << 16, io::stdout().lock()),
        line: String::new(),
        scratch: String::new(),
        members: Vec::new(),
        failed: 0,
        options: ParseOptions {
            relaxed_quotes: args.relaxed_quotes,
        },
        skipped_pieces: BTreeMap::new(),
        charsets,
    };
    let result = if args.csv {
        parse_csv(input, &mut out, args.dialect)
    } else {
        parse_lines(input, &mut out)
    };
    let result = result.and_then(|()| out.out.flush().map_err(Stop::Output));
    for (op, n) in &out.skipped_pieces {
        log::notice(
            "redo parse",
            log::Level::Warn,
            &format!(
                "skipped {n} {op} row(s): their LOB, XML or 32k-string pieces are \
                 reassembled with their transaction by `redo replay --lob capture`, not by \
                 `redo parse`"
            ),
            None,
            &[],
        );
    }
    match result {
        Ok(()) if out.failed > 0 => exit::code(exit::UNTRUSTED_DATA),
        Ok(()) => exit::code(exit::OK),
        Err(Stop::Input(msg)) => {
            log::error("redo parse", &msg);
            exit::code(exit::USAGE)
        }
        Err(Stop::Row(msg)) => {
            let _ = out.out.flush();
            log::error("redo parse", &msg);
            exit::code(exit::UNTRUSTED_DATA)
        }
        // A closed pipe (`| head`) is the reader's choice, not a failure.
        Err(Stop::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => exit::code(exit::OK),
        Err(Stop::Output(e)) => {
            log::error("redo parse", format!("cannot write the output: {e}"));
            exit::code(exit::USAGE)
        }
    }
}

/// What a statement is, judged from its first word when no OPERATION
/// column says it.
#[derive(Debug, PartialEq, Eq)]
enum Kind {
    Dml,
    Ddl,
    Control,
}

fn classify(sql: &str) -> Kind {
    let sql = sql.trim_start();
    let end = sql
        .bytes()
        .position(|b| !b.is_ascii_alphabetic())
        .unwrap_or(sql.len());
    // Longer than any keyword below: not one of them.
    let mut word = [0u8; 10];
    let Some(slot) = word.get_mut(..end) else {
        return Kind::Dml;
    };
    slot.copy_from_slice(&sql.as_bytes()[..end]);
    slot.make_ascii_lowercase();
    match std::str::from_utf8(slot).unwrap_or_default() {
        "commit" | "rollback" | "set" | "savepoint" => Kind::Control,
        "create" | "alter" | "drop" | "truncate" | "rename" | "comment" | "grant" | "revoke"
        | "analyze" | "audit" | "noaudit" | "purge" | "flashback" => Kind::Ddl,
        _ => Kind::Dml,
    }
}

/// Where a statement came from, for the output's position fields.
#[derive(Default)]
struct Origin<'r> {
    scn: Option<u64>,
    rs_id: Option<Option<&'r str>>,
    ssn: Option<u64>,
    schema: Option<&'r str>,
    table: Option<&'r str>,
    status: Option<Finding>,
    rollback: bool,
}

struct Printer<W: Write> {
    out: W,
    /// One statement's line, reused so that writing it allocates nothing.
    line: String,
    /// Converted values (ISO dates, lower-case hex) on their way out.
    scratch: String,
    /// Where each before-image member (`"name":value`) is in the line.
    members: Vec<Range<usize>>,
    failed: usize,
    options: ParseOptions,
    /// Rows carrying LOB, XML or 32k-string pieces, by operation: skipped,
    /// but never without saying so.
    skipped_pieces: BTreeMap<String, usize>,
    /// Turns character data printed as `HEXTORAW` into text, when given.
    charsets: Option<CharsetDictionary>,
}

impl<W: Write> Printer<W> {
    fn line(&mut self, mut obj: Map<String, Value>, origin: &Origin<'_>) -> io::Result<()> {
        if let Some(scn) = origin.scn {
            // A string, as in the envelope: SCNs outgrow a double's 53 bits
            // and JSON readers would round them.
            obj.insert("scn".into(), scn.to_string().into());
        }
        if let Some(rs_id) = origin.rs_id {
            obj.insert("rs_id".into(), rs_id.into());
        }
        if let Some(ssn) = origin.ssn {
            obj.insert("ssn".into(), ssn.into());
        }
        if origin.rollback {
            obj.insert("rollback".into(), true.into());
        }
        serde_json::to_writer(&mut self.out, &obj).map_err(io::Error::from)?;
        self.out.write_all(b"\n")
    }

    fn error(
        &mut self,
        message: &str,
        position: usize,
        raw: &str,
        origin: &Origin<'_>,
    ) -> io::Result<()> {
        self.failed += 1;
        let mut obj = Map::new();
        obj.insert("error".into(), message.into());
        obj.insert("position".into(), position.into());
        obj.insert("raw".into(), raw.into());
        if let Some(f) = &origin.status {
            obj.insert("findings".into(), Value::Array(vec![finding_json(f)]));
        }
        self.line(obj, origin)
    }

    fn ddl(&mut self, sql: &str, origin: &Origin<'_>) -> io::Result<()> {
        let mut obj = Map::new();
        obj.insert("op".into(), "ddl".into());
        obj.insert("schema".into(), origin.schema.into());
        obj.insert("table".into(), origin.table.into());
        obj.insert("sql".into(), sql.into());
        self.line(obj, origin)
    }

    fn statement(&mut self, sql: &str, origin: &Origin<'_>) -> io::Result<()> {
        let mut stmt = match parse_with(sql, self.options) {
            Ok(s) => s,
            Err(e) => return self.error(&e.message, e.position, &e.raw, origin),
        };
        if let Some(dict) = &self.charsets {
            stmt.decode_character_hex(Some(dict));
        }
        // Written straight into the line, in the key order `line` writes
        // (pinned byte for byte by a test): this is the path every
        // statement takes.
        let mut out = std::mem::take(&mut self.line);
        out.clear();
        out.push_str("{\"op\":");
        push_json_string(&mut out, stmt.kind.as_str());
        out.push_str(",\"schema\":");
        push_json_string(&mut out, stmt.schema());
        out.push_str(",\"table\":");
        push_json_string(&mut out, stmt.table());
        // The images' values go from the statement to the line: building
        // owned images first would only copy them once more.
        out.push_str(",\"before\":");
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut members = std::mem::take(&mut self.members);
        members.clear();
        let before = stmt.before_pairs();
        push_image(
            &mut out,
            &mut scratch,
            before.map(|p| p.iter().map(|(c, v)| (*c, v))),
            Written::Record(&mut members),
        );
        out.push_str(",\"after\":");
        let reuse = match before {
            Some(pairs) => Written::Reuse(pairs, &members),
            None => Written::Neither,
        };
        push_image(&mut out, &mut scratch, stmt.after_pairs(), reuse);
        self.scratch = scratch;
        self.members = members;
        out.push_str(",\"findings\":[");
        for (i, f) in origin.status.iter().chain(stmt.findings()).enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&finding_json(f).to_string());
        }
        out.push(']');
        if let Some(scn) = origin.scn {
            out.push_str(",\"scn\":");
            push_json_string(&mut out, &scn.to_string());
        }
        if let Some(rs_id) = origin.rs_id {
            out.push_str(",\"rs_id\":");
            match rs_id {
                Some(r) => push_json_string(&mut out, r),
                None => out.push_str("null"),
            }
        }
        if let Some(ssn) = origin.ssn {
            out.push_str(",\"ssn\":");
            out.push_str(&ssn.to_string());
        }
        if origin.rollback {
            out.push_str(",\"rollback\":true");
        }
        out.push_str("}\n");
        let written = self.out.write_all(out.as_bytes());
        self.line = out;
        written
    }
}

/// What [`push_image`] does with the members it writes besides writing
/// them.
enum Written<'p, 'v> {
    Neither,
    /// Notes where each member went.
    Record(&'p mut Vec<Range<usize>>),
    /// An UPDATE's after image: a member whose value is the before image's
    /// own (the same pair of `before`, which the SET left alone) is copied
    /// from where `members` says the before image wrote it, rather than
    /// converted and escaped once more; neighbouring ones in one copy.
    Reuse(&'p [Pair<'v>], &'p [Range<usize>]),
}

/// An image as a JSON object, from the statement's pairs; `scratch` holds
/// the text of values whose canonical form differs from the statement's.
fn push_image<'v>(
    out: &mut String,
    scratch: &mut String,
    pairs: Option<impl Iterator<Item = (&'v str, &'v RedoValue<'v>)>>,
    mut written: Written<'_, 'v>,
) {
    let Some(pairs) = pairs else {
        out.push_str("null");
        return;
    };
    out.push('{');
    let mut repeated = RepeatedMembers::default();
    for (i, (c, v)) in pairs.enumerate() {
        if let Written::Reuse(before, members) = &written {
            let unchanged = before.get(i).is_some_and(|(_, b)| std::ptr::eq(b, v));
            if let (true, Some(m)) = (unchanged, members.get(i)) {
                repeated.repeat(i, m);
                continue;
            }
        }
        repeated.flush(out);
        if i > 0 {
            out.push(',');
        }
        let start = out.len();
        push_json_string(out, c);
        out.push(':');
        push_value(out, scratch, v);
        if let Written::Record(members) = &mut written {
            members.push(start..out.len());
        }
    }
    repeated.flush(out);
    out.push('}');
}

/// A value as JSON; `scratch` holds its text when its canonical form
/// differs from the statement's.
fn push_value(out: &mut String, scratch: &mut String, v: &RedoValue<'_>) {
    // Most values: as `Value::field_text` gives them, without its checks.
    match v {
        RedoValue::Null => return out.push_str("null"),
        RedoValue::Text(t) => return push_json_string(out, t),
        _ => {}
    }
    if let Some((date, time)) = v.iso_parts() {
        // Digits and separators only: no escaping, no conversion.
        out.push('"');
        out.push_str(date);
        out.push('T');
        out.push_str(time);
        out.push('"');
        return;
    }
    scratch.clear();
    match v.field_text(scratch) {
        FieldText::Null => out.push_str("null"),
        // Diagnostics show bytes as LogMiner printed them: hex.
        FieldText::Text(t) | FieldText::Binary(t) => push_json_string(out, t),
        FieldText::TextAppended(r) | FieldText::BinaryAppended(r) => {
            push_json_string(out, scratch.get(r).unwrap_or_default())
        }
        FieldText::Unavailable | FieldText::UnavailableBinary => {
            push_json_string(out, UNAVAILABLE_VALUE)
        }
    }
}

fn finding_json(f: &Finding) -> Value {
    let mut v = serde_json::to_value(f).unwrap_or(Value::Null);
    if let Value::Object(m) = &mut v {
        m.insert("message".into(), f.message().into());
    }
    v
}

fn parse_lines<W: Write>(mut input: Box<dyn Read>, out: &mut Printer<W>) -> Result<(), Stop> {
    // Lines are parsed where they were read into rather than copied out
    // one by one; only a line cut by the end of a read moves, to the front.
    let mut buf = vec![0u8; 1 << 18];
    let mut filled = 0;
    let mut line_no = 0usize;
    loop {
        if filled == buf.len() {
            // One line longer than the buffer (the input's line bound
            // stops one that never ends).
            buf.resize(buf.len() * 2, 0);
        }
        let n = match input.read(&mut buf[filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Stop::Input(format!("cannot read the input: {e}"))),
        };
        let end = filled + n;
        let complete = match n {
            0 => end,
            _ => memchr::memrchr(b'\n', &buf[filled..end]).map_or(0, |i| filled + i + 1),
        };
        let ends = memchr::memchr_iter(b'\n', &buf[..complete]).map(|i| i + 1);
        // At the end of the input, what is left (which holds no newline)
        // is a last line without one.
        let last = (n == 0 && complete > 0).then_some(complete);
        let mut start = 0;
        for stop in ends.chain(last) {
            line_no += 1;
            one_line(&buf[start..stop], line_no, out)?;
            start = stop;
        }
        if n == 0 {
            return Ok(());
        }
        buf.copy_within(complete..end, 0);
        filled = end - complete;
    }
}

/// One line of `redo parse`'s line mode, newline included.
fn one_line<W: Write>(line: &[u8], line_no: usize, out: &mut Printer<W>) -> Result<(), Stop> {
    let origin = Origin::default();
    let Ok(text) = std::str::from_utf8(line) else {
        let raw = String::from_utf8_lossy(line);
        out.error(
            &format!("line {line_no} is not valid UTF-8"),
            0,
            raw.trim_end(),
            &origin,
        )?;
        return Ok(());
    };
    let sql = text.trim_end_matches(['\n', '\r']);
    if sql.trim().is_empty() {
        return Ok(());
    }
    match classify(sql) {
        Kind::Control => {}
        Kind::Ddl => out.ddl(sql, &origin)?,
        Kind::Dml => out.statement(sql, &origin)?,
    }
    Ok(())
}

fn parse_csv<W: Write>(
    input: Box<dyn Read>,
    out: &mut Printer<W>,
    dialect: Option<RedoDialect>,
) -> Result<(), Stop> {
    let reader = ContentsReader::new(input, REQUIRED_FOR_PARSE).map_err(|e| match e {
        ContentsError::Io(e) => Stop::Input(format!("cannot read the input: {e}")),
        other => Stop::Input(other.to_string()),
    })?;
    let dialect = super::redo_dialect::resolve("redo parse", dialect, reader.header_dialect());
    let reader = reader.with_forms(dialect.forms());
    let has_op = reader.has(Column::OperationCode) || reader.has(Column::Operation);
    let cols = (
        reader.has(Column::Scn),
        reader.has(Column::RsId),
        reader.has(Column::Ssn),
    );
    for row in assemble(reader) {
        match row {
            Ok(logical) => logical_row(&logical, has_op, cols, out)?,
            Err(AssembleError::Csf(e)) => out.error(&e.to_string(), 0, "", &Origin::default())?,
            Err(AssembleError::Source(e)) => {
                return Err(Stop::Row(format!("{e}; nothing after it was parsed")))
            }
        }
    }
    Ok(())
}

fn logical_row<W: Write>(
    row: &LogMinerRow,
    has_op: bool,
    (scn, rs_id, ssn): (bool, bool, bool),
    out: &mut Printer<W>,
) -> Result<(), Stop> {
    let sql = row.sql_redo.as_deref().unwrap_or("");
    let origin = Origin {
        scn: scn.then_some(row.scn),
        rs_id: rs_id.then_some(row.rs_id.as_deref()),
        ssn: ssn.then_some(row.ssn),
        schema: row.seg_owner.as_deref(),
        table: row.table_name.as_deref(),
        status: finding_for_status(row.status, row.info.as_deref()),
        rollback: row.rollback,
    };
    let kind = if has_op {
        match row.operation_code {
            op if op.is_dml() => Kind::Dml,
            OperationCode::Ddl => Kind::Ddl,
            // Changes LogMiner saw but could not show: skipping them would
            // pass a hole in the data off as a clean run.
            OperationCode::Unsupported => {
                let msg = "LogMiner could not mine this change (OPERATION UNSUPPORTED)";
                out.error(msg, 0, sql, &origin)?;
                return Ok(());
            }
            OperationCode::MissingScn => {
                let msg = "LogMiner reports missing redo here (MISSING_SCN): changes in this \
                           range are lost to the miner; add the missing log files";
                out.error(msg, 0, sql, &origin)?;
                return Ok(());
            }
            OperationCode::SelectLobLocator
            | OperationCode::LobWrite
            | OperationCode::LobTrim
            | OperationCode::LobErase
            | OperationCode::Other(_) => {
                let op = row.operation_code;
                if lob::is_piece_code(op.code()) {
                    if let Err(e) = lob::parse_piece(op.code(), sql) {
                        out.error(&e.message, e.position, sql, &origin)?;
                        return Ok(());
                    }
                }
                let name = match op.operation_name() {
                    "UNKNOWN" => format!("OPERATION_CODE {}", op.code()),
                    known => known.to_string(),
                };
                *out.skipped_pieces.entry(name).or_default() += 1;
                Kind::Control
            }
            _ => Kind::Control,
        }
    } else if sql.trim().is_empty() {
        Kind::Control
    } else {
        classify(sql)
    };
    match kind {
        Kind::Control => {}
        Kind::Ddl => out.ddl(sql, &origin)?,
        Kind::Dml if sql.trim().is_empty() => {
            out.error("the DML row has no SQL_REDO", 0, sql, &origin)?
        }
        Kind::Dml => out.statement(sql, &origin)?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_word_sorts_statements_into_dml_ddl_and_control() {
        assert_eq!(classify("insert into x"), Kind::Dml);
        assert_eq!(classify("  COMMIT;"), Kind::Control);
        assert_eq!(classify("set transaction read write;"), Kind::Control);
        assert_eq!(
            classify("ALTER TABLE \"A\".\"T\" TRUNCATE PARTITION \"P\";"),
            Kind::Ddl
        );
        assert_eq!(classify("garbage"), Kind::Dml);
    }
}
