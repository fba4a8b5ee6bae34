//! Change events and their wire format: a Debezium-compatible envelope.
//!
//! The envelope is what every consumer of cdcctl reads (`run` sinks, `tail
//! --plain`, `redo replay`, `sim truth`), so Kafka Connect converters and
//! Flink's `debezium-json` format take it unchanged.
//!
//! Wire format of one change (one JSON object per line):
//!
//! ```text
//! {"before": {COL: value, ...} | null,
//!  "after":  {COL: value, ...} | null,
//!  "source": {"version", "connector": "oracle", "name", "ts_ms", "snapshot",
//!             "db", "schema", "table", "txId", "scn", "commit_scn",
//!             "rs_id", "ssn", "redo_thread", "row_id"},
//!  "op": "c" | "u" | "d" | "r",
//!  "ts_ms": commit time of the transaction (ms since the epoch, UTC),
//!  "transaction": {"id", "total_order", "data_collection_order",
//!                  "partial": true only when the transaction began before
//!                  capture could read it}}
//! ```
//!
//! Values are JSON `null` for NULL and strings otherwise, in the forms a
//! typed Flink `debezium-json` job or a Kafka Connect consumer reads:
//! numbers keep their exact decimal text, dates and timestamps are ISO 8601
//! (`2025-03-01T09:00:00.123456`), a timestamp with a time zone is the same
//! instant in UTC with `Z` (Flink's `TIMESTAMP_LTZ` takes no other offset),
//! and RAW/BLOB bytes follow [`BinaryHandling`] (base64 by default, as
//! Debezium's `binary.handling.mode=bytes` writes them in JSON and Flink's
//! `BYTES` reads them). A column whose value LogMiner could not show is the
//! Debezium placeholder [`UNAVAILABLE_VALUE`] (in a binary column, the
//! placeholder's bytes in the binary form), never a guessed value.
//! `ts_ms` is the commit time rather than the processing time so that the
//! same redo always yields byte-identical events.

use std::collections::BTreeMap;

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use super::row::Scn;
use crate::engine::port::Dialect;

/// What Debezium emits for a value the source could not provide.
pub const UNAVAILABLE_VALUE: &str = "__debezium_unavailable_value";

/// The `source.version` field.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// One column value of a before or after image.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Field {
    Null,
    /// The value's canonical text (see the module docs).
    Text(String),
    /// Bytes of a RAW or BLOB column, as lower-case hex; written in the
    /// chosen [`BinaryHandling`].
    Binary(String),
    /// LogMiner could not show it (`Unsupported Type`, a LOB not yet written).
    Unavailable,
    /// Like [`Field::Unavailable`], in a binary column: the placeholder is
    /// written as bytes, so a consumer decoding the column as binary reads
    /// it (Debezium does the same).
    UnavailableBinary,
}

impl Field {
    pub fn text(s: impl Into<String>) -> Self {
        Field::Text(s.into())
    }

    /// The canonical text (hex for binary values).
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Field::Text(s) | Field::Binary(s) => Some(s),
            _ => None,
        }
    }

    pub fn is_unavailable(&self) -> bool {
        matches!(self, Field::Unavailable | Field::UnavailableBinary)
    }

    /// The same value known to belong to a binary (RAW, LONG RAW, BLOB)
    /// column: text becomes bytes (it is the hex LogMiner printed) and the
    /// placeholder becomes the binary placeholder.
    pub fn into_binary(self) -> Field {
        match self {
            Field::Text(hex) if is_hex(&hex) => Field::Binary(hex.to_ascii_lowercase()),
            Field::Unavailable => Field::UnavailableBinary,
            other => other,
        }
    }
}

fn is_hex(s: &str) -> bool {
    s.len().is_multiple_of(2) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// How bytes are written in JSON, named as Debezium's
/// `binary.handling.mode` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BinaryHandling {
    /// Standard base64 with padding: what Debezium's `bytes` mode becomes in
    /// JSON and what Flink's `BYTES` and Kafka Connect's `bytes` read.
    #[default]
    Base64,
    /// URL-safe base64 alphabet, with padding.
    Base64UrlSafe,
    /// Lower-case hex.
    Hex,
}

/// How NUMBER values are written, named as Debezium's
/// `decimal.handling.mode` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DecimalHandling {
    /// The exact decimal text: what Flink's DECIMAL reads, nothing lost.
    #[default]
    String,
    /// A JSON number (a double: digits past the 15th may be lost).
    Double,
}

/// How DATE and TIMESTAMP values are written, named after Debezium's
/// `time.precision.mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimePrecision {
    /// ISO 8601 text with every fraction digit LogMiner gave.
    #[default]
    Iso,
    /// Milliseconds since the epoch (Kafka Connect's `Timestamp`): what
    /// Debezium's `connect` mode writes; finer digits are dropped.
    Connect,
}

/// The value forms of an envelope's images.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ValueForms {
    pub binary: BinaryHandling,
    pub decimal: DecimalHandling,
    pub time: TimePrecision,
}

/// The column types whose written form an option changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnKind {
    Number,
    /// DATE and TIMESTAMP without time zone.
    DateTime,
}

impl ColumnKind {
    /// The kind of an Oracle data type, as the dictionary names it.
    pub fn of_data_type(data_type: &str) -> Option<ColumnKind> {
        let base = data_type.split('(').next().unwrap_or_default().trim();
        let upper = base.to_ascii_uppercase();
        if [
            "NUMBER",
            "FLOAT",
            "BINARY_FLOAT",
            "BINARY_DOUBLE",
            "INTEGER",
        ]
        .contains(&upper.as_str())
        {
            return Some(ColumnKind::Number);
        }
        let zoned = data_type.to_ascii_uppercase().contains("TIME ZONE");
        if upper == "DATE" || (upper.starts_with("TIMESTAMP") && !zoned) {
            return Some(ColumnKind::DateTime);
        }
        None
    }
}

/// Column kinds by `(schema, table)`, then column name.
pub type ColumnKinds = BTreeMap<(String, String), BTreeMap<String, ColumnKind>>;

impl ValueForms {
    /// How bytes given as hex are written.
    fn binary_text(self, hex: &str) -> String {
        self.encode(&hex_bytes(hex))
            .unwrap_or_else(|| hex.to_string())
    }

    fn encode(self, bytes: &[u8]) -> Option<String> {
        use base64::engine::general_purpose::{STANDARD, URL_SAFE};
        use base64::Engine as _;
        match self.binary {
            BinaryHandling::Base64 => Some(STANDARD.encode(bytes)),
            BinaryHandling::Base64UrlSafe => Some(URL_SAFE.encode(bytes)),
            BinaryHandling::Hex => None,
        }
    }

    /// A field as these forms write it in an image (for keys built
    /// outside the envelope, which must match its values).
    pub fn field_json<'f>(self, field: impl Into<FieldRef<'f>>) -> serde_json::Value {
        serde_json::to_value(Formed(field.into(), self, None)).unwrap_or(serde_json::Value::Null)
    }

    fn unavailable_binary(self) -> String {
        self.encode(UNAVAILABLE_VALUE.as_bytes())
            .unwrap_or_else(|| hex_lower(UNAVAILABLE_VALUE.as_bytes()))
    }
}

/// The bytes hex digits spell; a pair that is not two hex digits is
/// skipped, as is an odd last digit.
fn hex_bytes(hex: &str) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(hex.len() / 2);
    push_hex_pairs(hex.as_bytes(), &mut bytes);
    bytes
}

/// Appends the bytes the whole pairs of hex digits (either case) of `hex`
/// spell, skipping a pair that is not two digits and an odd last digit;
/// false when a pair was skipped. Sixteen digits at a time (BLOB values
/// and LOB pieces carry thousands), a block holding a non-digit and the
/// digits after the last block pair by pair.
fn push_hex_pairs(hex: &[u8], out: &mut Vec<u8>) -> bool {
    use crate::engine::block::{self, BLOCK};
    let mut whole = true;
    let mut blocks = hex.chunks_exact(BLOCK);
    for chunk in &mut blocks {
        let Ok(chunk) = <&[u8; BLOCK]>::try_from(chunk) else {
            return false;
        };
        match block::hex_pairs(chunk) {
            (pairs, true) => out.extend_from_slice(&pairs),
            _ => whole &= push_hex_pairs_one_by_one(chunk, out),
        }
    }
    push_hex_pairs_one_by_one(blocks.remainder(), out) && whole
}

/// [`push_hex_pairs`] a pair at a time, through the digit table.
fn push_hex_pairs_one_by_one(hex: &[u8], out: &mut Vec<u8>) -> bool {
    let mut whole = true;
    out.extend(hex.chunks_exact(2).filter_map(|p| {
        let (hi, lo) = (HEX_DIGIT[usize::from(p[0])], HEX_DIGIT[usize::from(p[1])]);
        let digits = (hi | lo) & 0x80 == 0;
        whole &= digits;
        digits.then_some(hi << 4 | lo)
    }));
    whole
}

/// Each byte's value as a hex digit, or 0xff.
static HEX_DIGIT: [u8; 256] = {
    let mut t = [0xff; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

/// The bytes whole pairs of hex digits (either case) spell; `None` for
/// an odd count or a character that is not a hex digit.
pub(crate) fn decode_hex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    let mut bytes = Vec::with_capacity(hex.len() / 2);
    push_hex_pairs(hex.as_bytes(), &mut bytes).then_some(bytes)
}

/// Milliseconds since the epoch of an ISO date-time as the envelope writes
/// it (`2025-03-01T09:00:00.123456789`).
fn epoch_millis(text: &str) -> Option<i64> {
    chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f")
        .ok()
        .map(|t| t.and_utc().timestamp_millis())
}

/// Lower-case hex of bytes: how RAW and BLOB values are held
/// ([`Field::Binary`]), whichever source read them.
pub fn hex_lower(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        hex.push(char::from(DIGITS[usize::from(b >> 4)]));
        hex.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    hex
}

/// A field with the forms it is written in, and its column's kind when
/// the dictionary gave it.
struct Formed<'a>(FieldRef<'a>, ValueForms, Option<ColumnKind>);

impl Serialize for Formed<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            FieldRef::Null => s.serialize_none(),
            FieldRef::Text(t) => match (self.2, self.1) {
                (
                    Some(ColumnKind::Number),
                    ValueForms {
                        decimal: DecimalHandling::Double,
                        ..
                    },
                ) => match t.parse::<f64>() {
                    Ok(x) if x.is_finite() => s.serialize_f64(x),
                    _ => s.serialize_str(t),
                },
                (
                    Some(ColumnKind::DateTime),
                    ValueForms {
                        time: TimePrecision::Connect,
                        ..
                    },
                ) => match epoch_millis(t) {
                    Some(ms) => s.serialize_i64(ms),
                    None => s.serialize_str(t),
                },
                _ => s.serialize_str(t),
            },
            FieldRef::Binary(hex) => s.serialize_str(&self.1.binary_text(hex)),
            FieldRef::Unavailable => s.serialize_str(UNAVAILABLE_VALUE),
            FieldRef::UnavailableBinary => s.serialize_str(&self.1.unavailable_binary()),
        }
    }
}

impl Serialize for Field {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Formed(self.as_ref(), ValueForms::default(), None).serialize(s)
    }
}

pub use super::image::{FieldRef, Image};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    Create,
    Update,
    Delete,
    /// A row read by a snapshot.
    Read,
}

impl Op {
    pub fn code(self) -> &'static str {
        match self {
            Op::Create => "c",
            Op::Update => "u",
            Op::Delete => "d",
            Op::Read => "r",
        }
    }
}

/// Where a change came from: the `source` block of the envelope.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SourcePosition {
    /// `source.name`: the logical server name (topic prefix).
    pub name: String,
    /// `source.db`: the PDB (or database) the change was made in.
    pub db: String,
    pub schema: String,
    pub table: String,
    /// Transaction id, as 16 hex digits.
    pub xid: String,
    /// SCN of the change itself.
    pub scn: Scn,
    /// SCN of the transaction's COMMIT.
    pub commit_scn: Scn,
    /// Redo time of the change, ms since the epoch.
    pub change_ts_ms: i64,
    pub rs_id: Option<String>,
    pub ssn: u64,
    pub thread: u16,
    pub row_id: Option<String>,
    /// `source.connector`: the database family (`oracle`, `dm`).
    pub dialect: Dialect,
}

/// A committed row change.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ChangeEvent {
    pub op: Op,
    pub before: Option<Image>,
    pub after: Option<Image>,
    pub source: SourcePosition,
    pub snapshot: bool,
    /// The transaction began before capture could see it (its START row
    /// was never read): its earlier changes are missing. Serialised as
    /// `transaction.partial = true`, and only then.
    pub partial: bool,
    /// Commit time of the transaction, ms since the epoch.
    pub commit_ts_ms: i64,
    /// 0-based position of this change among the emitted changes of its
    /// transaction; with (commit SCN, XID) it identifies the event for
    /// de-duplication after a restart.
    pub index: u32,
    /// 1-based position among the transaction's changes to the same table.
    pub table_order: u32,
}

/// Whether the column kinds change how a value is written in `forms`.
fn kinds_matter(forms: ValueForms) -> bool {
    forms.decimal != DecimalHandling::String || forms.time != TimePrecision::Iso
}

struct ImageRef<'a>(
    &'a Image,
    ValueForms,
    Option<&'a BTreeMap<String, ColumnKind>>,
);

impl Serialize for ImageRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            let kind = self.2.and_then(|kinds| kinds.get(k)).copied();
            m.serialize_entry(k, &Formed(v, self.1, kind))?;
        }
        m.end()
    }
}

struct SourceRef<'a>(&'a ChangeEvent);

impl Serialize for SourceRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let e = self.0;
        let p = &e.source;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("version", VERSION)?;
        m.serialize_entry("connector", p.dialect.connector())?;
        m.serialize_entry("name", &p.name)?;
        m.serialize_entry("ts_ms", &p.change_ts_ms)?;
        m.serialize_entry("snapshot", e.snapshot_marker())?;
        m.serialize_entry("db", &p.db)?;
        m.serialize_entry("schema", &p.schema)?;
        m.serialize_entry("table", &p.table)?;
        if e.op == Op::Read {
            // A row read by a snapshot belongs to no transaction: Debezium
            // writes the read's SCN and no transaction or commit.
            m.serialize_entry("txId", &None::<&str>)?;
            m.serialize_entry("scn", &p.scn.to_string())?;
            m.serialize_entry("commit_scn", &None::<&str>)?;
            m.serialize_entry("snapshot_chunk", &e.index)?;
        } else {
            m.serialize_entry("txId", &p.xid)?;
            // Debezium writes SCNs as strings: they exceed 2^53 on busy systems.
            m.serialize_entry("scn", &p.scn.to_string())?;
            m.serialize_entry("commit_scn", &p.commit_scn.to_string())?;
        }
        m.serialize_entry("rs_id", &p.rs_id)?;
        m.serialize_entry("ssn", &p.ssn)?;
        m.serialize_entry("redo_thread", &p.thread)?;
        m.serialize_entry("row_id", &p.row_id)?;
        m.end()
    }
}

struct TransactionRef<'a>(&'a ChangeEvent);

impl Serialize for TransactionRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("id", &self.0.source.xid)?;
        m.serialize_entry("total_order", &(u64::from(self.0.index) + 1))?;
        m.serialize_entry("data_collection_order", &self.0.table_order)?;
        if self.0.partial {
            m.serialize_entry("partial", &true)?;
        }
        m.end()
    }
}

/// An event with the value forms it is written in.
struct ChangeRef<'a>(&'a ChangeEvent, ValueForms, Option<&'a ColumnKinds>);

impl Serialize for ChangeRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let e = self.0;
        let forms = self.1;
        // Kinds matter only when an option writes some kind differently.
        let kinds = self
            .2
            .filter(|_| kinds_matter(forms))
            .and_then(|k| k.get(&(e.source.schema.clone(), e.source.table.clone())));
        let mut m = s.serialize_map(Some(6))?;
        m.serialize_entry(
            "before",
            &e.before.as_ref().map(|i| ImageRef(i, forms, kinds)),
        )?;
        m.serialize_entry(
            "after",
            &e.after.as_ref().map(|i| ImageRef(i, forms, kinds)),
        )?;
        m.serialize_entry("source", &SourceRef(e))?;
        m.serialize_entry("op", e.op.code())?;
        m.serialize_entry("ts_ms", &e.commit_ts_ms)?;
        if e.op == Op::Read {
            m.serialize_entry("transaction", &None::<u8>)?;
        } else {
            m.serialize_entry("transaction", &TransactionRef(e))?;
        }
        m.end()
    }
}

/// `table_order` of the final row of a snapshot (`source.snapshot` is
/// `"last"` there). A read row has no transaction, so the field is free.
pub const SNAPSHOT_LAST: u32 = u32::MAX;

/// The XID a snapshot row's position carries for de-duplication after a
/// restart: above every hexadecimal XID, so a row read at SCN `s` sorts
/// after every change committed at `s`, which the read includes.
pub const SNAPSHOT_XID: &str = "~snapshot";

impl Serialize for ChangeEvent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ChangeRef(self, ValueForms::default(), None).serialize(s)
    }
}

impl ChangeEvent {
    /// `source.snapshot`: `"false"` for changes, `"true"` for rows a
    /// snapshot read (`op: "r"`), `"last"` on the final one.
    pub fn snapshot_marker(&self) -> &'static str {
        match (self.snapshot, self.table_order) {
            (false, _) => "false",
            (true, SNAPSHOT_LAST) => "last",
            (true, _) => "true",
        }
    }

    /// The envelope as one line of JSON (no trailing newline), in the
    /// default value forms.
    pub fn to_json_line(&self) -> String {
        self.to_json_line_with(ValueForms::default())
    }

    /// The envelope as one line of JSON in the given value forms.
    pub fn to_json_line_with(&self, forms: ValueForms) -> String {
        self.to_json_line_typed(forms, None)
    }

    /// The envelope in the given value forms, with the column kinds the
    /// dictionary gave (for `--decimal-handling` and `--time-precision`).
    pub fn to_json_line_typed(&self, forms: ValueForms, kinds: Option<&ColumnKinds>) -> String {
        if kinds_matter(forms) {
            // Serialising owned strings and numbers into a String cannot fail.
            return serde_json::to_string(&ChangeRef(self, forms, kinds)).unwrap_or_default();
        }
        let mut out = String::with_capacity(self.json_size_hint());
        envelope::write_change(&mut out, self, forms);
        out
    }

    /// Roughly the length of the envelope, so the line is written into one
    /// allocation rather than regrown a few times per wide row.
    fn json_size_hint(&self) -> usize {
        // From the images' text rather than a walk over their columns:
        // this runs for every event, and a statement's text is about the
        // size of each of its images in JSON (quotes, separators, escapes
        // and placeholders allowed for).
        let image = |i: &Option<Image>| {
            i.as_ref()
                .map_or(4, |i| i.text_len() + i.text_len() / 4 + 32 * i.len() + 2)
        };
        let p = &self.source;
        image(&self.before)
            + image(&self.after)
            + p.name.len()
            + p.db.len()
            + p.schema.len()
            + p.table.len()
            + 2 * p.xid.len()
            + p.rs_id.as_ref().map_or(0, String::len)
            + p.row_id.as_ref().map_or(0, String::len)
            + 400
    }

    /// Identity used to drop duplicates after a restart.
    pub fn dedup_key(&self) -> (Scn, &str, u32) {
        (self.source.commit_scn, &self.source.xid, self.index)
    }
}

/// A DDL statement seen in the redo (OPERATION_CODE 5), passed through in
/// commit order like a change.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DdlEvent {
    pub source: SourcePosition,
    pub ddl: String,
    pub commit_ts_ms: i64,
}

impl Serialize for DdlEvent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // The shape of a Debezium schema-change record, minus tableChanges,
        // which needs a dictionary the redo does not carry.
        let p = &self.source;
        let mut m = s.serialize_map(Some(6))?;
        m.serialize_entry("source", &DdlSourceRef(self))?;
        m.serialize_entry("ts_ms", &self.commit_ts_ms)?;
        m.serialize_entry("databaseName", &p.db)?;
        m.serialize_entry("schemaName", &p.schema)?;
        m.serialize_entry("ddl", &self.ddl)?;
        m.serialize_entry("tableChanges", &[] as &[u8])?;
        m.end()
    }
}

struct DdlSourceRef<'a>(&'a DdlEvent);

impl Serialize for DdlSourceRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let p = &self.0.source;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("version", VERSION)?;
        m.serialize_entry("connector", p.dialect.connector())?;
        m.serialize_entry("name", &p.name)?;
        m.serialize_entry("ts_ms", &p.change_ts_ms)?;
        m.serialize_entry("snapshot", "false")?;
        m.serialize_entry("db", &p.db)?;
        m.serialize_entry("schema", &p.schema)?;
        m.serialize_entry("table", &p.table)?;
        m.serialize_entry("txId", &p.xid)?;
        m.serialize_entry("scn", &p.scn.to_string())?;
        m.serialize_entry("commit_scn", &p.commit_scn.to_string())?;
        m.end()
    }
}

/// Appends `s` as a JSON string, escaped as serde_json escapes it, for
/// writers of other JSON lines that keep the envelope's pace. Inline, so
/// a short clean name costs its copy in other crates too.
#[inline]
pub fn push_json_string(out: &mut String, s: &str) {
    envelope::string(out, s);
}

/// Members (`"name":value`) of an object already written in a line that
/// the object being written repeats, gathered into runs so neighbours are
/// copied at once: an UPDATE's after image repeats the before image's
/// members its SET left alone.
#[derive(Debug, Default)]
pub struct RepeatedMembers {
    /// The run's first member's index in the object being written, and
    /// the range of the line the run takes, commas between included.
    run: Option<(usize, std::ops::Range<usize>)>,
}

impl RepeatedMembers {
    /// Member `i` of the object being written is the earlier object's
    /// member written at `at`, the one after the last repeated.
    pub fn repeat(&mut self, i: usize, at: &std::ops::Range<usize>) {
        self.run = Some(match self.run.take() {
            Some((first, r)) => (first, r.start..at.end),
            None => (i, at.clone()),
        });
    }

    /// Copies the run gathered so far to the end of `out`, with the comma
    /// before it unless it starts the object: before a member written
    /// anew, and at the object's end.
    pub fn flush(&mut self, out: &mut String) {
        if let Some((first, r)) = self.run.take() {
            if first > 0 {
                out.push(',');
            }
            out.extend_from_within(r);
        }
    }
}

/// The envelope written straight into a string, for the forms whose values
/// do not depend on column kinds: the same bytes as serialising
/// [`ChangeRef`] with serde_json (a test compares the two), without the
/// serializer's per-call overhead or its regrowing buffer.
mod envelope {
    use std::ops::Range;

    use super::{
        BinaryHandling, ChangeEvent, FieldRef, Image, Op, RepeatedMembers, ValueForms,
        UNAVAILABLE_VALUE, VERSION,
    };

    pub(super) fn write_change(out: &mut String, e: &ChangeEvent, forms: ValueForms) {
        let p = &e.source;
        out.push_str("{\"before\":");
        // An UPDATE's images share the statement's text: the after image's
        // columns the SET left alone are copied from the before image's JSON.
        let shared = match (&e.before, &e.after) {
            (Some(b), Some(a)) => b.shares_text(a).then(|| (b, Vec::with_capacity(b.len()))),
            _ => None,
        };
        match shared {
            Some((before, mut members)) => {
                image(out, Some(before), forms, Members::Record(&mut members));
                out.push_str(",\"after\":");
                image(
                    out,
                    e.after.as_ref(),
                    forms,
                    Members::Reuse(before, &members),
                );
            }
            None => {
                image(out, e.before.as_ref(), forms, Members::Neither);
                out.push_str(",\"after\":");
                image(out, e.after.as_ref(), forms, Members::Neither);
            }
        }
        out.push_str(",\"source\":{\"version\":");
        string(out, VERSION);
        out.push_str(",\"connector\":\"");
        out.push_str(p.dialect.connector());
        out.push_str("\",\"name\":");
        string(out, &p.name);
        out.push_str(",\"ts_ms\":");
        int(out, p.change_ts_ms);
        out.push_str(",\"snapshot\":");
        string(out, e.snapshot_marker());
        out.push_str(",\"db\":");
        string(out, &p.db);
        out.push_str(",\"schema\":");
        string(out, &p.schema);
        out.push_str(",\"table\":");
        string(out, &p.table);
        if e.op == Op::Read {
            out.push_str(",\"txId\":null,\"scn\":\"");
            uint(out, p.scn);
            out.push_str("\",\"commit_scn\":null,\"snapshot_chunk\":");
            uint(out, u64::from(e.index));
        } else {
            out.push_str(",\"txId\":");
            string(out, &p.xid);
            out.push_str(",\"scn\":\"");
            uint(out, p.scn);
            out.push_str("\",\"commit_scn\":\"");
            uint(out, p.commit_scn);
            out.push('"');
        }
        out.push_str(",\"rs_id\":");
        opt_string(out, p.rs_id.as_deref());
        out.push_str(",\"ssn\":");
        uint(out, p.ssn);
        out.push_str(",\"redo_thread\":");
        uint(out, u64::from(p.thread));
        out.push_str(",\"row_id\":");
        opt_string(out, p.row_id.as_deref());
        out.push_str("},\"op\":\"");
        out.push_str(e.op.code());
        out.push_str("\",\"ts_ms\":");
        int(out, e.commit_ts_ms);
        if e.op == Op::Read {
            out.push_str(",\"transaction\":null}");
        } else {
            out.push_str(",\"transaction\":{\"id\":");
            string(out, &p.xid);
            out.push_str(",\"total_order\":");
            uint(out, u64::from(e.index) + 1);
            out.push_str(",\"data_collection_order\":");
            uint(out, u64::from(e.table_order));
            if e.partial {
                out.push_str(",\"partial\":true");
            }
            out.push_str("}}");
        }
    }

    /// What [`image`] does with the members (`"name":value`) it writes
    /// besides writing them.
    enum Members<'m> {
        Neither,
        /// Notes where each one went in the line.
        Record(&'m mut Vec<Range<usize>>),
        /// Copies those this image shares with the one given (whose members
        /// are where the ranges say), neighbouring ones in one copy.
        Reuse(&'m Image, &'m [Range<usize>]),
    }

    fn image(out: &mut String, image: Option<&Image>, forms: ValueForms, mut members: Members<'_>) {
        let Some(image) = image else {
            out.push_str("null");
            return;
        };
        out.push('{');
        let mut repeated = RepeatedMembers::default();
        for (i, (column, value)) in image.iter().enumerate() {
            if let Members::Reuse(other, at) = &members {
                if let (true, Some(m)) = (image.shares_column(other, i), at.get(i)) {
                    repeated.repeat(i, m);
                    continue;
                }
            }
            repeated.flush(out);
            if i > 0 {
                out.push(',');
            }
            let start = out.len();
            string(out, column);
            out.push(':');
            match value {
                FieldRef::Null => out.push_str("null"),
                FieldRef::Text(t) => string(out, t),
                FieldRef::Binary(hex) => binary(out, hex, forms),
                FieldRef::Unavailable => string(out, UNAVAILABLE_VALUE),
                FieldRef::UnavailableBinary => string(out, &forms.unavailable_binary()),
            }
            if let Members::Record(at) = &mut members {
                at.push(start..out.len());
            }
        }
        repeated.flush(out);
        out.push('}');
    }

    /// [`ValueForms::binary_text`] written in place: base64 needs no
    /// escaping, so it goes straight into the line.
    fn binary(out: &mut String, hex: &str, forms: ValueForms) {
        use base64::engine::general_purpose::{STANDARD, URL_SAFE};
        use base64::Engine as _;
        let engine = match forms.binary {
            BinaryHandling::Base64 => &STANDARD,
            BinaryHandling::Base64UrlSafe => &URL_SAFE,
            BinaryHandling::Hex => return string(out, hex),
        };
        let bytes = super::hex_bytes(hex);
        out.push('"');
        engine.encode_string(&bytes, out);
        out.push('"');
    }

    fn opt_string(out: &mut String, s: Option<&str>) {
        match s {
            Some(s) => string(out, s),
            None => out.push_str("null"),
        }
    }

    /// Bytes JSON strings must escape: control characters, `"` and `\`.
    static NEEDS_ESCAPE: [bool; 256] = {
        let mut t = [false; 256];
        let mut b = 0;
        while b < 0x20 {
            t[b] = true;
            b += 1;
        }
        t[b'"' as usize] = true;
        t[b'\\' as usize] = true;
        t
    };

    #[inline]
    fn needs_escape(b: u8) -> bool {
        NEEDS_ESCAPE[usize::from(b)]
    }

    /// A JSON string, escaped as serde_json escapes it (short escapes where
    /// JSON has them, `\u00xx` in lower-case hex for other controls). The
    /// text is tested sixteen bytes at a time (`engine::block`): long text
    /// columns are mostly clean, with a newline or quote here and there,
    /// and a clean block costs a handful of instructions.
    #[inline]
    pub(super) fn string(out: &mut String, s: &str) {
        // Column names and most values of a row are short and clean: tested
        // in a register or two and copied, without the block loop's set-up
        // or a call.
        if s.len() <= 16 && !short_needs_escape(s.as_bytes()) {
            out.reserve(s.len() + 2);
            out.push('"');
            out.push_str(s);
            out.push('"');
            return;
        }
        escaped(out, s);
    }

    /// Whether any of up to 16 bytes must be escaped: from 4 bytes on, read
    /// as 8-byte words (two overlapping ones, or two overlapping 4-byte
    /// halves), so a name or a short value costs no loop.
    #[inline]
    fn short_needs_escape(b: &[u8]) -> bool {
        fn word<const N: usize>(b: &[u8]) -> [u8; N] {
            let mut w = [0; N];
            w.copy_from_slice(&b[..N]);
            w
        }
        let n = b.len();
        if n >= 8 {
            let first = u64::from_le_bytes(word(b));
            let last = u64::from_le_bytes(word(&b[n - 8..]));
            escape_flags(first) | escape_flags(last) != 0
        } else if n >= 4 {
            let first = u64::from(u32::from_le_bytes(word(b)));
            let last = u64::from(u32::from_le_bytes(word(&b[n - 4..])));
            escape_flags(first | last << 32) != 0
        } else {
            b.iter().any(|&c| needs_escape(c))
        }
    }

    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);

    /// High bit set in the bytes of `w` below `n` (`n` at most 0x80). A
    /// borrow can flag a byte above a flagged one too, never a word with
    /// none flagged, so whether any is flagged is exact.
    #[inline]
    fn below(w: u64, n: u8) -> u64 {
        w.wrapping_sub(ONES * u64::from(n)) & !w & HIGHS
    }

    /// Flags, as [`below`], the bytes of an 8-byte word JSON must escape.
    #[inline]
    fn escape_flags(w: u64) -> u64 {
        below(w, 0x20)
            | below(w ^ (ONES * u64::from(b'"')), 1)
            | below(w ^ (ONES * u64::from(b'\\')), 1)
    }

    /// [`string`] for text that is long or has bytes to escape.
    #[inline(never)]
    fn escaped(out: &mut String, s: &str) {
        use crate::engine::block::{self, BLOCK};
        let b = s.as_bytes();
        out.reserve(b.len() + 2);
        out.push('"');
        let mut start = 0;
        let mut at = 0;
        while at < b.len() {
            let mut mask = match b
                .get(at..at + BLOCK)
                .and_then(|c| <&[u8; BLOCK]>::try_from(c).ok())
            {
                Some(chunk) => block::json_escape_mask(chunk),
                None if b.len() >= BLOCK => block::tail_mask(b, at, block::json_escape_mask),
                None => b[at..]
                    .iter()
                    .enumerate()
                    .fold(0, |m, (i, &c)| m | (u32::from(needs_escape(c)) << i)),
            };
            while mask != 0 {
                let j = at + mask.trailing_zeros() as usize;
                // Every escaped byte is ASCII, so both slices end on char
                // boundaries.
                out.push_str(&s[start..j]);
                escape(out, b[j]);
                start = j + 1;
                mask &= mask - 1;
            }
            at += BLOCK;
        }
        out.push_str(&s[start..]);
        out.push('"');
    }

    fn escape(out: &mut String, c: u8) {
        match c {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(c >> 4)]));
                out.push(char::from(HEX[usize::from(c & 0xf)]));
            }
        }
    }

    fn uint(out: &mut String, n: u64) {
        out.push_str(itoa::Buffer::new().format(n));
    }

    fn int(out: &mut String, n: i64) {
        out.push_str(itoa::Buffer::new().format(n));
    }
}

/// Anything the engine emits in commit order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CapturedEvent {
    Change(ChangeEvent),
    Ddl(DdlEvent),
}

impl CapturedEvent {
    pub fn to_json_line(&self) -> String {
        self.to_json_line_with(ValueForms::default())
    }

    pub fn to_json_line_with(&self, forms: ValueForms) -> String {
        self.to_json_line_typed(forms, None)
    }

    /// The line in the given forms, with the dictionary's column kinds.
    pub fn to_json_line_typed(&self, forms: ValueForms, kinds: Option<&ColumnKinds>) -> String {
        match self {
            CapturedEvent::Change(c) => c.to_json_line_typed(forms, kinds),
            CapturedEvent::Ddl(d) => serde_json::to_string(d).unwrap_or_default(),
        }
    }

    pub fn source(&self) -> &SourcePosition {
        match self {
            CapturedEvent::Change(c) => &c.source,
            CapturedEvent::Ddl(d) => &d.source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ChangeEvent {
        ChangeEvent {
            op: Op::Update,
            before: Some(
                vec![
                    ("ORDER_ID".into(), Field::text("1001")),
                    ("NOTE".into(), Field::Null),
                ]
                .into(),
            ),
            after: Some(
                vec![
                    ("ORDER_ID".into(), Field::text("1001")),
                    ("NOTE".into(), Field::Unavailable),
                ]
                .into(),
            ),
            source: SourcePosition {
                name: "cdcctl".into(),
                db: "ORCLPDB1".into(),
                schema: "APP".into(),
                table: "ORDERS".into(),
                xid: "0A0014005D3C0000".into(),
                scn: 9_007_199_254_740_993,
                commit_scn: 9_007_199_254_740_995,
                change_ts_ms: 1_740_819_600_000,
                rs_id: Some(" 0x000003.00000010.0010 ".into()),
                ssn: 0,
                thread: 1,
                row_id: None,
                dialect: crate::engine::port::Dialect::Oracle,
            },
            snapshot: false,
            partial: false,
            commit_ts_ms: 1_740_819_601_000,
            index: 2,
            table_order: 1,
        }
    }

    #[test]
    fn envelope_has_debezium_fields_in_order() {
        let v: serde_json::Value = serde_json::from_str(&sample().to_json_line()).unwrap();
        let keys: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
        assert_eq!(
            keys,
            ["before", "after", "source", "op", "ts_ms", "transaction"]
        );
        assert_eq!(v["op"], "u");
        assert_eq!(v["source"]["connector"], "oracle");
        assert_eq!(v["source"]["txId"], "0A0014005D3C0000");
        assert_eq!(v["transaction"]["total_order"], 3);
    }

    #[test]
    fn the_direct_writer_gives_the_bytes_serde_json_gives() {
        let every_byte: String = (0u8..=0x7f).map(char::from).collect();
        let mut variants = Vec::new();
        for op in [Op::Create, Op::Update, Op::Delete, Op::Read] {
            for (snapshot, partial, table_order) in [
                (false, false, 1),
                (false, true, 7),
                (true, false, SNAPSHOT_LAST),
            ] {
                let mut e = sample();
                e.op = op;
                e.snapshot = snapshot;
                e.partial = partial;
                e.table_order = table_order;
                e.commit_ts_ms = -1_234;
                e.source.scn = u64::MAX;
                e.source.commit_scn = 0;
                e.source.row_id = Some("AAAS\"x\\".into());
                e.source.name = every_byte.clone();
                e.before = (op != Op::Create).then(Image::new);
                e.after = Some(
                    vec![
                        ("ASCII".into(), Field::text(every_byte.clone())),
                        (
                            "WIDE".into(),
                            Field::text("中文 é \u{1F600}\u{7f}\u{2028}".repeat(9)),
                        ),
                        (
                            "LONG".into(),
                            Field::text(format!("{}\"{}", "x".repeat(40), "y".repeat(17))),
                        ),
                        ("\"Q\tK\"".into(), Field::Null),
                        ("RAW".into(), Field::Binary("00ff7f".into())),
                        ("ODD".into(), Field::Binary("abc".into())),
                        ("GONE".into(), Field::Unavailable),
                        ("GONE_BIN".into(), Field::UnavailableBinary),
                        ("EMPTY".into(), Field::text("")),
                    ]
                    .into(),
                );
                variants.push(e);
            }
        }
        for e in &variants {
            for binary in [
                BinaryHandling::Base64,
                BinaryHandling::Base64UrlSafe,
                BinaryHandling::Hex,
            ] {
                let forms = ValueForms {
                    binary,
                    ..ValueForms::default()
                };
                let by_serde = serde_json::to_string(&ChangeRef(e, forms, None)).unwrap();
                assert_eq!(e.to_json_line_with(forms), by_serde);
            }
        }
    }

    /// An UPDATE's images located in one statement share its text: the
    /// after image's columns the SET left alone are copied from the before
    /// image's JSON, which must give serde_json's bytes wherever the SET
    /// columns fall.
    #[test]
    fn issue12_an_update_after_image_copies_unchanged_members_as_serde_json_writes_them() {
        let w = r#"where "A" = 'a''b' and "D" = TO_DATE('2025-03-01 09:00:00', 'YYYY-MM-DD HH24:MI:SS') and "R" = HEXTORAW('0A0B') and "N" IS NULL"#;
        let sets = [
            r#"set "A" = 'x'"#,
            r#"set "R" = HEXTORAW('FF')"#,
            "set \"N\" = 'tab\t\"q\"'",
            r#"set "D" = NULL, "A" = 'y'"#,
            r#"set "Z" = '1', "D" = NULL, "Z" = '2'"#,
            r#"set "A" = 'a''b'"#,
        ];
        let mut copied = 0;
        for set in sets {
            let sql = format!(r#"update "S"."T" {set} {w}"#);
            let stmt = crate::engine::redo::parse(&sql).unwrap();
            let (before, after) = stmt.images();
            let (b, a) = (before.clone().unwrap(), after.clone().unwrap());
            copied += (0..b.len()).filter(|&i| a.shares_column(&b, i)).count();
            let mut e = sample();
            (e.before, e.after) = (before, after);
            for binary in [BinaryHandling::Base64, BinaryHandling::Hex] {
                let forms = ValueForms {
                    binary,
                    ..ValueForms::default()
                };
                let by_serde = serde_json::to_string(&ChangeRef(&e, forms, None)).unwrap();
                assert_eq!(e.to_json_line_with(forms), by_serde, "{sql}");
            }
        }
        // Three unchanged columns for each of the first three, two for the
        // fourth and fifth, all four for the last.
        assert_eq!(copied, 3 * 3 + 2 * 2 + 4);
    }

    #[test]
    fn string_escaping_matches_serde_json_for_every_special_byte_at_every_block_offset() {
        let specials: Vec<char> = (0u8..0x20)
            .chain([b'"', b'\\', 0x7f, b' ', b'!', b'#', b'[', b']'])
            .map(char::from)
            .chain(['é', '中', '\u{1F600}', '\u{2028}'])
            .collect();
        for len in 0..40 {
            for at in 0..len {
                for &c in &specials {
                    let mut text: String = (0..len)
                        .map(|i| char::from(b'a' + (i % 26) as u8))
                        .collect();
                    text.replace_range(at..at + 1, &c.to_string());
                    // A second special further on: escapes after an escape.
                    text.push(specials[(at * 7 + len) % specials.len()]);
                    let mut out = String::new();
                    push_json_string(&mut out, &text);
                    assert_eq!(out, serde_json::to_string(&text).unwrap(), "{text:?}");
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn string_escaping_matches_serde_json_for_any_text(text in "(?s).{0,80}") {
            let mut out = String::new();
            push_json_string(&mut out, &text);
            proptest::prop_assert_eq!(out, serde_json::to_string(&text).unwrap());
        }
    }

    #[test]
    fn hex_is_lower_case() {
        assert_eq!(hex_lower(&[0x0a, 0xff, 0x00]), "0aff00");
    }

    /// Mostly hex digits of either case, now and then another ASCII byte,
    /// up to five blocks and an odd length now and then.
    fn hex_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        proptest::collection::vec(
            prop_oneof![
                30 => proptest::sample::select(b"0123456789abcdefABCDEF".to_vec()),
                1 => any::<u8>().prop_map(|b| b & 0x7f),
            ],
            0..80,
        )
        .prop_map(|text| text.iter().map(|&b| char::from(b)).collect())
    }

    /// Each whole pair read as two digits, `None` for one that is not.
    fn pairs_one_by_one(hex: &str) -> Vec<Option<u8>> {
        let d = |h: u8| char::from(h).to_digit(16);
        hex.as_bytes()
            .chunks_exact(2)
            .map(|p| Some((d(p[0])? << 4 | d(p[1])?) as u8))
            .collect()
    }

    proptest::proptest! {
        /// The block and table decoder against reading each pair as two
        /// digits: either case, now and then a byte in the way, odd lengths,
        /// whole blocks and the digits after them.
        #[test]
        fn decode_hex_reads_what_digit_by_digit_reading_reads(hex in hex_text()) {
            let expected: Option<Vec<u8>> = if hex.len().is_multiple_of(2) {
                pairs_one_by_one(&hex).into_iter().collect()
            } else {
                None
            };
            proptest::prop_assert_eq!(decode_hex(&hex), expected);
        }

        /// Lenient reading, a block at a time, against reading each pair:
        /// a pair with a non-digit is skipped wherever it falls, in a
        /// whole block or after the last one.
        #[test]
        fn hex_bytes_skips_what_pair_by_pair_reading_skips(hex in hex_text()) {
            let expected: Vec<u8> = pairs_one_by_one(&hex).into_iter().flatten().collect();
            proptest::prop_assert_eq!(hex_bytes(&hex), expected);
        }
    }

    #[test]
    fn decode_hex_refuses_non_digits_and_half_bytes() {
        assert_eq!(decode_hex("0aFF10"), Some(vec![0x0a, 0xff, 0x10]));
        assert_eq!(decode_hex(""), Some(vec![]));
        assert_eq!(decode_hex("0g"), None);
        assert_eq!(decode_hex("abc"), None);
        assert_eq!(decode_hex("é"), None);
    }

    #[test]
    fn the_envelope_skips_hex_pairs_that_are_not_two_digits() {
        assert_eq!(hex_bytes("0aZZFf1"), vec![0x0a, 0xff]);
        assert_eq!(hex_bytes("x0"), Vec::<u8>::new());
    }

    #[test]
    fn scn_beyond_2_pow_53_survives_as_string() {
        let v: serde_json::Value = serde_json::from_str(&sample().to_json_line()).unwrap();
        assert_eq!(v["source"]["scn"], "9007199254740993");
        assert_eq!(v["source"]["commit_scn"], "9007199254740995");
    }

    #[test]
    fn null_is_json_null_and_unavailable_is_the_debezium_placeholder() {
        let v: serde_json::Value = serde_json::from_str(&sample().to_json_line()).unwrap();
        assert!(v["before"]["NOTE"].is_null());
        assert_eq!(v["after"]["NOTE"], UNAVAILABLE_VALUE);
    }

    #[test]
    fn binary_values_and_their_placeholder_follow_the_binary_handling() {
        let mut e = sample();
        e.after = Some(
            vec![
                ("IMAGE".into(), Field::UnavailableBinary),
                ("TOKEN".into(), Field::Binary("a5ff".into())),
            ]
            .into(),
        );
        let written = |binary| {
            let line = e.to_json_line_with(ValueForms {
                binary,
                ..ValueForms::default()
            });
            serde_json::from_str::<serde_json::Value>(&line).unwrap()["after"].clone()
        };
        let b64 = written(BinaryHandling::Base64);
        assert_eq!(b64["TOKEN"], "pf8=");
        assert_eq!(b64["IMAGE"], "X19kZWJleml1bV91bmF2YWlsYWJsZV92YWx1ZQ==");
        assert_eq!(written(BinaryHandling::Base64UrlSafe)["TOKEN"], "pf8=");
        let hex = written(BinaryHandling::Hex);
        assert_eq!(hex["TOKEN"], "a5ff");
        assert_eq!(hex["IMAGE"], hex_lower(UNAVAILABLE_VALUE.as_bytes()));
        assert_eq!(e.to_json_line(), e.to_json_line_with(ValueForms::default()));
    }

    #[test]
    fn a_binary_column_turns_hex_text_into_bytes_and_leaves_other_text_alone() {
        assert_eq!(
            Field::text("A5ff").into_binary(),
            Field::Binary("a5ff".into())
        );
        assert_eq!(Field::Unavailable.into_binary(), Field::UnavailableBinary);
        assert_eq!(Field::text("not hex").into_binary(), Field::text("not hex"));
        assert_eq!(Field::Null.into_binary(), Field::Null);
    }

    #[test]
    fn numbers_and_times_follow_their_options_only_where_the_column_kind_is_known() {
        let mut e = sample();
        e.after = Some(
            vec![
                ("AMOUNT".into(), Field::text("1234.50")),
                ("BIG".into(), Field::text("1.0E+30")),
                (
                    "ORDER_DATE".into(),
                    Field::text("2025-03-01T09:00:00.123456789"),
                ),
                ("CODE".into(), Field::text("0042")),
                ("ODD".into(), Field::text("not a time")),
            ]
            .into(),
        );
        let table = (e.source.schema.clone(), e.source.table.clone());
        let kinds: ColumnKinds = [(
            table,
            [
                ("AMOUNT".to_string(), ColumnKind::Number),
                ("BIG".to_string(), ColumnKind::Number),
                ("ORDER_DATE".to_string(), ColumnKind::DateTime),
                ("ODD".to_string(), ColumnKind::DateTime),
            ]
            .into_iter()
            .collect(),
        )]
        .into_iter()
        .collect();
        let forms = ValueForms {
            decimal: DecimalHandling::Double,
            time: TimePrecision::Connect,
            ..ValueForms::default()
        };
        let v: serde_json::Value =
            serde_json::from_str(&e.to_json_line_typed(forms, Some(&kinds))).unwrap();
        assert_eq!(v["after"]["AMOUNT"], serde_json::json!(1234.5));
        assert_eq!(v["after"]["BIG"], serde_json::json!(1.0e30));
        assert_eq!(
            v["after"]["ORDER_DATE"],
            serde_json::json!(1_740_819_600_123_i64)
        );
        // A VARCHAR2 of digits stays text; so does what does not parse.
        assert_eq!(v["after"]["CODE"], "0042");
        assert_eq!(v["after"]["ODD"], "not a time");
        // Defaults: the same text as without kinds.
        assert_eq!(
            e.to_json_line_typed(ValueForms::default(), Some(&kinds)),
            e.to_json_line()
        );
    }
}
