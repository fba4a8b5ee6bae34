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
    s.len() % 2 == 0 && s.bytes().all(|b| b.is_ascii_hexdigit())
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
        let bytes: Vec<u8> = hex
            .as_bytes()
            .chunks_exact(2)
            .filter_map(|p| {
                let d = |h: u8| char::from(h).to_digit(16);
                Some((d(p[0])? << 4 | d(p[1])?) as u8)
            })
            .collect();
        self.encode(&bytes).unwrap_or_else(|| hex.to_string())
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

    fn unavailable_binary(self) -> String {
        self.encode(UNAVAILABLE_VALUE.as_bytes())
            .unwrap_or_else(|| hex_of(UNAVAILABLE_VALUE.as_bytes()))
    }
}

/// Milliseconds since the epoch of an ISO date-time as the envelope writes
/// it (`2025-03-01T09:00:00.123456789`).
fn epoch_millis(text: &str) -> Option<i64> {
    chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f")
        .ok()
        .map(|t| t.and_utc().timestamp_millis())
}

fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A field with the forms it is written in, and its column's kind when
/// the dictionary gave it.
struct FieldRef<'a>(&'a Field, ValueForms, Option<ColumnKind>);

impl Serialize for FieldRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Field::Null => s.serialize_none(),
            Field::Text(t) => match (self.2, self.1) {
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
            Field::Binary(hex) => s.serialize_str(&self.1.binary_text(hex)),
            Field::Unavailable => s.serialize_str(UNAVAILABLE_VALUE),
            Field::UnavailableBinary => s.serialize_str(&self.1.unavailable_binary()),
        }
    }
}

impl Serialize for Field {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        FieldRef(self, ValueForms::default(), None).serialize(s)
    }
}

/// Column name and value, in the table's column order.
pub type Image = Vec<(String, Field)>;

/// Looks a column up in an image.
pub fn image_get<'a>(image: &'a Image, column: &str) -> Option<&'a Field> {
    image.iter().find(|(c, _)| c == column).map(|(_, v)| v)
}

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
            m.serialize_entry(k, &FieldRef(v, self.1, kind))?;
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
        m.serialize_entry("connector", "oracle")?;
        m.serialize_entry("name", &p.name)?;
        m.serialize_entry("ts_ms", &p.change_ts_ms)?;
        m.serialize_entry("snapshot", if e.snapshot { "true" } else { "false" })?;
        m.serialize_entry("db", &p.db)?;
        m.serialize_entry("schema", &p.schema)?;
        m.serialize_entry("table", &p.table)?;
        m.serialize_entry("txId", &p.xid)?;
        // Debezium writes SCNs as strings: they exceed 2^53 on busy systems.
        m.serialize_entry("scn", &p.scn.to_string())?;
        m.serialize_entry("commit_scn", &p.commit_scn.to_string())?;
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
            .filter(|_| {
                forms.decimal != DecimalHandling::String || forms.time != TimePrecision::Iso
            })
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
        m.serialize_entry("transaction", &TransactionRef(e))?;
        m.end()
    }
}

impl Serialize for ChangeEvent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ChangeRef(self, ValueForms::default(), None).serialize(s)
    }
}

impl ChangeEvent {
    /// The envelope as one line of JSON (no trailing newline), in the
    /// default value forms.
    pub fn to_json_line(&self) -> String {
        self.to_json_line_with(ValueForms::default())
    }

    /// The envelope as one line of JSON in the given value forms.
    pub fn to_json_line_with(&self, forms: ValueForms) -> String {
        // Serialising owned strings and integers into a String cannot fail.
        serde_json::to_string(&ChangeRef(self, forms, None)).unwrap_or_default()
    }

    /// The envelope in the given value forms, with the column kinds the
    /// dictionary gave (for `--decimal-handling` and `--time-precision`).
    pub fn to_json_line_typed(&self, forms: ValueForms, kinds: Option<&ColumnKinds>) -> String {
        // Serialising owned strings and numbers into a String cannot fail.
        serde_json::to_string(&ChangeRef(self, forms, kinds)).unwrap_or_default()
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
        m.serialize_entry("connector", "oracle")?;
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
            before: Some(vec![
                ("ORDER_ID".into(), Field::text("1001")),
                ("NOTE".into(), Field::Null),
            ]),
            after: Some(vec![
                ("ORDER_ID".into(), Field::text("1001")),
                ("NOTE".into(), Field::Unavailable),
            ]),
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
        e.after = Some(vec![
            ("IMAGE".into(), Field::UnavailableBinary),
            ("TOKEN".into(), Field::Binary("a5ff".into())),
        ]);
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
        assert_eq!(hex["IMAGE"], hex_of(UNAVAILABLE_VALUE.as_bytes()));
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
        e.after = Some(vec![
            ("AMOUNT".into(), Field::text("1234.50")),
            ("BIG".into(), Field::text("1.0E+30")),
            (
                "ORDER_DATE".into(),
                Field::text("2025-03-01T09:00:00.123456789"),
            ),
            ("CODE".into(), Field::text("0042")),
            ("ODD".into(), Field::text("not a time")),
        ]);
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
