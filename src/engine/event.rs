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
//! Values are JSON `null` for NULL and strings otherwise: numbers keep their
//! exact decimal text, dates and timestamps are ISO 8601 as given, RAW is
//! lower-case hex. A column whose value LogMiner could not show is the
//! Debezium placeholder [`UNAVAILABLE_VALUE`], never a guessed value.
//! `ts_ms` is the commit time rather than the processing time so that the
//! same redo always yields byte-identical events.

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
    /// LogMiner could not show it (`Unsupported Type`, a LOB not yet written).
    Unavailable,
}

impl Field {
    pub fn text(s: impl Into<String>) -> Self {
        Field::Text(s.into())
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Field::Text(s) => Some(s),
            _ => None,
        }
    }
}

impl Serialize for Field {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Null => s.serialize_none(),
            Field::Text(t) => s.serialize_str(t),
            Field::Unavailable => s.serialize_str(UNAVAILABLE_VALUE),
        }
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

struct ImageRef<'a>(&'a Image);

impl Serialize for ImageRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            m.serialize_entry(k, v)?;
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

impl Serialize for ChangeEvent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(6))?;
        m.serialize_entry("before", &self.before.as_ref().map(ImageRef))?;
        m.serialize_entry("after", &self.after.as_ref().map(ImageRef))?;
        m.serialize_entry("source", &SourceRef(self))?;
        m.serialize_entry("op", self.op.code())?;
        m.serialize_entry("ts_ms", &self.commit_ts_ms)?;
        if self.op == Op::Read {
            m.serialize_entry("transaction", &None::<u8>)?;
        } else {
            m.serialize_entry("transaction", &TransactionRef(self))?;
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

    /// The envelope as one line of JSON (no trailing newline).
    pub fn to_json_line(&self) -> String {
        // Serialising owned strings and integers into a String cannot fail.
        serde_json::to_string(self).unwrap_or_default()
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
        match self {
            CapturedEvent::Change(c) => c.to_json_line(),
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
}
