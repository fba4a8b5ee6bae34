//! `cdcctl redo replay`: a CSV export of V$LOGMNR_CONTENTS through the same
//! transaction buffer the live engine uses.
//!
//! Committed changes go to standard output as Debezium envelopes, one per
//! line, in commit order; a summary (commit SCN reached, restart SCN, open
//! transactions, rollbacks, findings) goes to standard error.
//! `--from-checkpoint` shows what a restart from that checkpoint would emit;
//! `--write-checkpoint` stores the position reached, so replaying twice
//! proves nothing is emitted twice.
//!
//! Exit codes: 0 done; 2 unreadable file, bad header or checkpoint; 4 a
//! statement that does not parse, a MISSING_SCN row, a truncated CSF chain or
//! a malformed row.

use crate::cli::log;
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Write};
use std::path::Path;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use cdcctl::engine::charset::{Charset, CharsetDictionary};
use cdcctl::engine::checkpoint::FileCheckpointStore;
use cdcctl::engine::contents_csv::{ContentsError, ContentsReader, REQUIRED_FOR_REPLAY};
use cdcctl::engine::event::{CapturedEvent, ColumnKinds, ValueForms};
use cdcctl::engine::row::Scn;
use cdcctl::engine::txn::{
    BufferConfig, DeadLetter, OnParseError, TxnBuffer, TxnError, TxnFinding,
};
use cdcctl::source::split_qualified;

use super::{exit, redo_dialect};

/// What to do with a statement that does not parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ParseErrorMode {
    /// Stop with exit code 4, naming the SCN, XID and raw text.
    Fail,
    /// List it as a dead letter in the summary, count it, and go on.
    Warn,
}

/// `--lob`: what LOB and XMLType columns carry (shared by `run`, `tail`
/// and `redo replay`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum LobArg {
    /// Reassemble CLOB, NCLOB, BLOB and XMLType values from their
    /// SELECT_LOB_LOCATOR / LOB_WRITE / LOB_TRIM / LOB_ERASE and XML DOC
    /// BEGIN / WRITE / END rows into the change's after image; a LOB
    /// written alone (`dbms_lob` on an existing row) is an UPDATE of that row.
    Capture,
    /// Give such columns as `__debezium_unavailable_value`, with a
    /// `lob_unavailable` finding per table and column.
    #[default]
    Placeholder,
}

impl From<LobArg> for cdcctl::engine::txn::LobMode {
    fn from(a: LobArg) -> Self {
        match a {
            LobArg::Capture => Self::Capture,
            LobArg::Placeholder => Self::Placeholder,
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct ReplayArgs {
    /// CSV export of V$LOGMNR_CONTENTS (`-` for standard input), mined
    /// without COMMITTED_DATA_ONLY, in view order. Header row; SCN, XID,
    /// OPERATION_CODE (or OPERATION), SQL_REDO and CSF are required, other
    /// known columns are used, extra ones ignored.
    #[arg(long, value_name = "FILE")]
    pub csv: PathBuf,
    /// Whose V$LOGMNR_CONTENTS the CSV is: `dm` reads DM8's operation codes
    /// (38 XA_COMMIT ends a transaction, 4 BATCH_UPDATE is an UPDATE) and
    /// `0x` XIDs, and names `dm` as the events' connector. Default: `dm`
    /// when the header names DM8's `ROLL_BACK`, else `oracle`.
    #[arg(long, value_enum, value_name = "DIALECT")]
    pub dialect: Option<crate::cli::redo_dialect::RedoDialect>,
    /// Restart from this checkpoint: rows at or below its restart SCN are
    /// ignored and what it records as emitted is not emitted again.
    #[arg(long, value_name = "FILE")]
    pub from_checkpoint: Option<PathBuf>,
    /// Write the position reached to this checkpoint file at the end (it may
    /// not move backwards from what the file holds).
    #[arg(long, value_name = "FILE")]
    pub write_checkpoint: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = ParseErrorMode::Fail)]
    pub on_parse_error: ParseErrorMode,
    /// Read string values holding a quote LogMiner did not double, finding
    /// each literal's end from the statement's column count; every value so
    /// recovered is reported as a finding. Without it such a statement is a
    /// parse error pointing at the quote.
    #[arg(long)]
    pub relaxed_quotes: bool,
    /// LOB and XMLType values: reassembled from their rows (`capture`) or
    /// the unavailable marker with a finding (`placeholder`). Extended
    /// strings (32K BEGIN/WRITE/END) are reassembled either way.
    #[arg(long, value_enum, default_value_t = LobArg::Placeholder)]
    pub lob: LobArg,
    /// The data dictionary's character sets and column types, to decode
    /// character data LogMiner printed as HEXTORAW: a JSON file
    /// `{"charset": "AL32UTF8", "nchar_charset": "AL16UTF16", "tables":
    /// {"APP.T": {"NAME": "VARCHAR2(40)", "TOKEN": "RAW(16)"}}}`. Without it
    /// HEXTORAW values stay lower-case hex with a `character_hex` finding.
    #[arg(long, value_name = "FILE")]
    pub dictionary: Option<PathBuf>,
    /// `source.db` of changes whose row has no SRC_CON_NAME.
    #[arg(long, value_name = "NAME", default_value = "")]
    pub db_name: String,
    /// `source.name` of the events (the logical server name).
    #[arg(long, value_name = "NAME", default_value = "cdcctl")]
    pub server_name: String,
    /// Spill a transaction to disk once its rows pass this many MiB (the
    /// same option as `run`'s).
    #[arg(
        long = "spill-mb",
        alias = "spill-txn-mib",
        value_name = "MIB",
        default_value_t = 64
    )]
    pub spill_txn_mib: u64,
    /// Directory for spill files (default: the system temporary directory).
    #[arg(long, value_name = "DIR")]
    pub spill_dir: Option<PathBuf>,
    /// Abandon transactions open longer than this (redo time): 30m, 4h, or
    /// plain seconds, as for `run`.
    #[arg(long, value_name = "DURATION", value_parser = crate::cli::duration::parse_duration)]
    pub abandon_after: Option<Duration>,
    /// Print row changes only, not DDL (to compare with `sim truth`).
    #[arg(long)]
    pub skip_ddl: bool,
    #[command(flatten)]
    pub forms: crate::cli::forms::FormsArgs,
    /// With `--on-parse-error warn`, also write each statement that did not
    /// parse to this file, one JSON object per line.
    #[arg(long, value_name = "FILE")]
    pub dead_letter: Option<PathBuf>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct DictionaryFile {
    charset: String,
    #[serde(default = "default_nchar_charset")]
    nchar_charset: String,
    #[serde(default)]
    tables: BTreeMap<String, BTreeMap<String, String>>,
}

fn default_nchar_charset() -> String {
    "AL16UTF16".into()
}

/// Reads `--dictionary`: tables as `OWNER.TABLE` (quoted parts keep case).
/// The column types also give the kinds the value-form options apply to.
fn load_dictionary(path: &Path) -> Result<(CharsetDictionary, ColumnKinds), String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}; check --dictionary", path.display()))?;
    let file: DictionaryFile = serde_json::from_str(&text)
        .map_err(|e| format!("{}: not a dictionary file: {e}", path.display()))?;
    let charset = |name: &str| {
        Charset::from_oracle_name(name).map_err(|e| format!("{}: {e}", path.display()))
    };
    let mut dict = CharsetDictionary::new(charset(&file.charset)?, charset(&file.nchar_charset)?);
    let mut kinds = ColumnKinds::new();
    for (name, columns) in &file.tables {
        let (owner, table) = split_qualified(name)
            .ok_or_else(|| format!("{}: table `{name}` is not OWNER.TABLE", path.display()))?;
        for (column, data_type) in columns {
            dict.add_column(&owner, &table, column, data_type);
            // The dictionary file does not say which columns allow NULL.
            kinds.add(&owner, &table, column, data_type, true);
        }
    }
    Ok((dict, kinds))
}

/// Why the replay stopped early, and the exit code that goes with it.
struct Stop {
    code: u8,
    message: String,
}

impl Stop {
    fn usage(message: String) -> Self {
        Self {
            code: exit::USAGE,
            message,
        }
    }

    fn untrusted(message: String) -> Self {
        Self {
            code: exit::UNTRUSTED_DATA,
            message,
        }
    }
}

pub fn run(args: &ReplayArgs) -> ExitCode {
    let input: Box<dyn io::Read> = if args.csv.as_os_str() == "-" {
        Box::new(io::stdin().lock())
    } else {
        match File::open(&args.csv) {
            Ok(f) => Box::new(f),
            Err(e) => {
                log::error(
                    "redo replay",
                    format!(
                        "cannot read {}: {e}; check the path given to --csv",
                        args.csv.display()
                    ),
                );
                return exit::code(exit::USAGE);
            }
        }
    };
    let input = crate::cli::bounded::lines(input);
    let reader = match ContentsReader::new(BufReader::new(input), REQUIRED_FOR_REPLAY) {
        Ok(r) => r,
        Err(e) => {
            log::error("redo replay", format!("{}: {e}", args.csv.display()));
            return exit::code(exit::USAGE);
        }
    };
    let dialect = redo_dialect::resolve("redo replay", args.dialect, reader.header_dialect());
    let reader = reader.with_forms(dialect.forms());
    let (charsets, kinds) = match args.dictionary.as_deref().map(load_dictionary).transpose() {
        Ok(Some((d, k))) => (Some(Arc::new(d)), k),
        Ok(None) => (None, ColumnKinds::new()),
        Err(msg) => {
            log::error("redo replay", &msg);
            return exit::code(exit::USAGE);
        }
    };
    let config = BufferConfig {
        charsets,
        server_name: args.server_name.clone(),
        db_name: args.db_name.clone(),
        on_parse_error: match args.on_parse_error {
            ParseErrorMode::Fail => OnParseError::Fail,
            ParseErrorMode::Warn => OnParseError::Warn,
        },
        relaxed_quotes: args.relaxed_quotes,
        lob: args.lob.into(),
        spill_txn_bytes: Some(args.spill_txn_mib.saturating_mul(1 << 20)),
        spill_dir: args.spill_dir.clone(),
        abandon_after: args.abandon_after,
        dialect: dialect.dialect(),
        ..BufferConfig::default()
    };
    let mut buffer = match &args.from_checkpoint {
        None => TxnBuffer::new(config),
        Some(path) => match FileCheckpointStore::new(path).load() {
            Ok(Some(cp)) => TxnBuffer::resume(config, &cp),
            Ok(None) => {
                log::error(
                    "redo replay",
                    format!(
                        "no checkpoint at {}; give the file written by --write-checkpoint",
                        path.display()
                    ),
                );
                return exit::code(exit::USAGE);
            }
            Err(e) => {
                log::error("redo replay", &e);
                return exit::code(exit::USAGE);
            }
        },
    };

    let mut out = BufWriter::new(io::stdout().lock());
    let mut findings = FindingTally::default();
    let mut reader_gone = false;
    let mut stopped = replay(
        reader,
        &mut buffer,
        &mut out,
        args.skip_ddl,
        (args.forms.forms(), &kinds),
        &mut findings,
        &mut reader_gone,
    )
    .err();
    findings.absorb(buffer.take_findings());
    if let Err(e) = out.flush() {
        if e.kind() == io::ErrorKind::BrokenPipe {
            reader_gone = true;
        } else if stopped.is_none() {
            stopped = Some(Stop::usage(format!("cannot write the output: {e}")));
        }
    }
    drop(out);
    // The reader of stdout went away (`| head`): its choice, not a failure;
    // no checkpoint either, since the output it would describe was cut.
    if reader_gone {
        return exit::code(exit::OK);
    }

    let dead = buffer.take_dead_letters();
    if let Some(path) = &args.dead_letter {
        if let Err(e) = write_dead_letters(path, &dead) {
            log::error(
                "redo replay",
                format!(
                "cannot write the dead-letter file {}: {e}; check the path given to --dead-letter",
                path.display()
            ),
            );
            return exit::code(exit::USAGE);
        }
    }
    summary(&mut buffer, &findings, &dead);
    if let Some(path) = &args.write_checkpoint {
        if let Err(e) = FileCheckpointStore::new(path).save(&buffer.checkpoint()) {
            log::error("redo replay", &e);
            return exit::code(stopped.map_or(exit::USAGE, |s| s.code));
        }
    }
    match stopped {
        None => exit::code(exit::OK),
        Some(s) => {
            log::error("redo replay", &s.message);
            exit::code(s.code)
        }
    }
}

fn replay<R: io::Read>(
    reader: ContentsReader<R>,
    buffer: &mut TxnBuffer,
    out: &mut impl Write,
    skip_ddl: bool,
    (forms, kinds): (ValueForms, &ColumnKinds),
    findings: &mut FindingTally,
    reader_gone: &mut bool,
) -> Result<(), Stop> {
    let mut sink = |e: CapturedEvent| -> Result<(), _> {
        if skip_ddl && matches!(e, CapturedEvent::Ddl(_)) {
            return Ok(());
        }
        out.write_all(e.to_json_line_typed(forms, Some(kinds)).as_bytes())
            .and_then(|()| out.write_all(b"\n"))
            .inspect_err(|err| *reader_gone |= err.kind() == io::ErrorKind::BrokenPipe)?;
        Ok(())
    };
    let mut last_scn: Option<Scn> = None;
    for (n, row) in reader.enumerate() {
        let row = row.map_err(|e| match e {
            ContentsError::Io(_) => Stop::usage(e.to_string()),
            other => Stop::untrusted(other.to_string()),
        })?;
        last_scn = Some(last_scn.map_or(row.scn, |s| s.max(row.scn)));
        buffer.push(row, &mut sink).map_err(stop_for)?;
        buffer.abandon_expired();
        if n % 4096 == 4095 {
            findings.absorb(buffer.take_findings());
        }
    }
    // The export is the whole window: a continuation chain must be complete
    // and DDL still waiting for its COMMIT auto-commits, as Oracle's does.
    buffer
        .finish_window(last_scn.unwrap_or(0), &mut sink)
        .map_err(stop_for)
}

fn stop_for(e: TxnError) -> Stop {
    match e {
        TxnError::Sink(s) => Stop::usage(format!("cannot write the output: {s}")),
        TxnError::Spill { .. } => Stop::usage(e.to_string()),
        _ => Stop::untrusted(e.to_string()),
    }
}

fn write_dead_letters(path: &std::path::Path, dead: &[DeadLetter]) -> io::Result<()> {
    let mut w = BufWriter::new(File::create(path)?);
    for d in dead {
        serde_json::to_writer(&mut w, d)?;
        w.write_all(b"\n")?;
    }
    w.flush()
}

/// Findings grouped by message, in order of first appearance: a table
/// without supplemental logging yields one finding per change.
#[derive(Default)]
struct FindingTally {
    total: u64,
    /// Message, count, SCN and XID of the first occurrence.
    kinds: Vec<(String, u64, Scn, String)>,
    index: HashMap<String, usize>,
}

impl FindingTally {
    fn absorb(&mut self, findings: Vec<TxnFinding>) {
        for f in findings {
            self.total += 1;
            let message = f.finding.message();
            match self.index.get(&message) {
                Some(&i) => self.kinds[i].1 += 1,
                None => {
                    self.index.insert(message.clone(), self.kinds.len());
                    self.kinds.push((message, 1, f.scn, f.xid));
                }
            }
        }
    }
}

/// Distinct finding messages listed before the rest is only counted.
const FINDING_KINDS_SHOWN: usize = 20;

fn summary(buffer: &mut TxnBuffer, findings: &FindingTally, dead: &[DeadLetter]) {
    let counts = buffer.counts();
    let stats = buffer.stats();
    let mut err = io::stderr().lock();
    let mut lines = vec![
        format!(
            "replay: {} rows, {} transactions committed ({} inserts, {} updates, {} deletes, {} DDL), \
             {} rolled back, {} partial rollbacks",
            stats.rows,
            counts.commits,
            counts.inserts,
            counts.updates,
            counts.deletes,
            counts.ddl,
            counts.rollbacks,
            counts.partial_rollbacks
        ),
        format!("commit SCN reached: {}", buffer.commit_scn()),
        format!("restart SCN: {}", buffer.restart_scn()),
    ];
    if stats.skipped_as_emitted > 0 {
        lines.push(format!(
            "skipped as already emitted (checkpoint): {}",
            stats.skipped_as_emitted
        ));
    }
    if stats.lob_rows > 0 {
        lines.push(format!(
            "LOB, XML and 32k-string rows: {} (values reassembled with --lob capture; extended \
             strings always)",
            stats.lob_rows
        ));
    }
    if stats.spilled_transactions > 0 {
        lines.push(format!(
            "spilled to disk: {} transactions, {} bytes",
            stats.spilled_transactions, stats.spilled_bytes
        ));
    }
    let open = buffer.open_transactions();
    lines.push(format!("open transactions: {}", open.len()));
    let now = buffer.redo_time();
    for t in &open {
        let age = match (now, t.start_time) {
            (Some(n), Some(s)) => format!(", open {}s", (n - s).num_seconds().max(0)),
            _ => String::new(),
        };
        lines.push(format!(
            "  {} start SCN {}, {}, {} bytes{}{age}",
            t.xid,
            t.start_scn,
            cdcctl::output::count(t.events, "change", "changes"),
            t.bytes,
            if t.spilled { ", spilled" } else { "" }
        ));
    }
    lines.push(format!("findings: {}", findings.total));
    for (message, count, scn, xid) in findings.kinds.iter().take(FINDING_KINDS_SHOWN) {
        let times = if *count > 1 {
            format!("{count} times, first ")
        } else {
            String::new()
        };
        lines.push(format!("  {message} ({times}at SCN {scn}, XID {xid})"));
    }
    if findings.kinds.len() > FINDING_KINDS_SHOWN {
        lines.push(format!(
            "  ... and {} more kinds of finding",
            findings.kinds.len() - FINDING_KINDS_SHOWN
        ));
    }
    let warnings = buffer.take_warnings();
    if !warnings.is_empty() {
        lines.push(format!("warnings: {}", warnings.len()));
        lines.extend(warnings.iter().map(|w| format!("  {}", w.message())));
    }
    if !dead.is_empty() {
        lines.push(format!(
            "dead letters (not parsed, not emitted): {}",
            dead.len()
        ));
        for d in dead {
            lines.push(format!(
                "  SCN {} XID {}: {} at byte {}: {}",
                d.scn, d.xid, d.message, d.position, d.raw
            ));
        }
    }
    for l in lines {
        // Standard error gone: nothing left to tell.
        if writeln!(err, "{l}").is_err() {
            break;
        }
    }
}
