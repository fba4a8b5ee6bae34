//! The wire format of change events: a Debezium-compatible envelope,
//! serialised through serde, or written straight into a line by
//! [`json`](super::json) when the value forms allow.
//!
//! The envelope is what every consumer of cdcctl reads (`run` sinks, `tail
//! --plain`, `redo replay`, `sim truth`), so Kafka Connect converters and
//! Flink's `debezium-json` format take it unchanged; with
//! [`EnvelopeForm::ConnectJson`] it is the payload under its Kafka Connect
//! schema.
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
//! and RAW/BLOB bytes follow [`BinaryHandling`](super::BinaryHandling)
//! (base64 by default, as Debezium's `binary.handling.mode=bytes` writes
//! them in JSON and Flink's `BYTES` reads them). A column whose value
//! LogMiner could not show is the Debezium placeholder
//! [`UNAVAILABLE_VALUE`](super::UNAVAILABLE_VALUE) (in a binary column, the
//! placeholder's bytes in the binary form), never a guessed value.
//! `ts_ms` is the commit time rather than the processing time so that the
//! same redo always yields byte-identical events.

use std::collections::BTreeMap;

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use super::columns::ColumnKinds;
use super::connect;
use super::forms::EnvelopeForm;
use super::forms::{ColumnKind, DecimalHandling, Formed, TimePrecision, ValueForms};
use super::image::Image;
use super::json;
use super::{ms_to_ns, ms_to_us, CapturedEvent, ChangeEvent, DdlEvent, Op, VERSION};

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
        let read = e.op == Op::Read;
        let mut m = s.serialize_map(None)?;
        source_head(&mut m, p, e.snapshot.label())?;
        if read {
            // A row read by a snapshot belongs to no transaction: Debezium
            // writes the read's SCN and no transaction or commit.
            m.serialize_entry("txId", &None::<&str>)?;
            m.serialize_entry("scn", &p.scn.to_string())?;
            m.serialize_entry("commit_scn", &None::<&str>)?;
            m.serialize_entry("snapshot_chunk", &e.index)?;
        } else {
            m.serialize_entry("txId", &p.tx_id())?;
            // Debezium writes SCNs as strings: they exceed 2^53 on busy systems.
            m.serialize_entry("scn", &p.scn.to_string())?;
            m.serialize_entry("commit_scn", &p.commit_scn.to_string())?;
        }
        m.serialize_entry("rs_id", &p.rs_id_trimmed())?;
        m.serialize_entry("ssn", &p.ssn)?;
        m.serialize_entry("redo_thread", &p.thread)?;
        m.serialize_entry("user_name", &p.user_name.as_deref())?;
        m.serialize_entry("row_id", &p.row_id)?;
        source_tail(&mut m, p, (!read).then_some(e.commit_ts_ms))?;
        m.end()
    }
}

/// The members every `source` block opens with, up to `table`.
fn source_head<M: SerializeMap>(
    m: &mut M,
    p: &super::SourcePosition,
    snapshot: &str,
) -> Result<(), M::Error> {
    m.serialize_entry("version", VERSION)?;
    m.serialize_entry("connector", p.dialect.connector())?;
    m.serialize_entry("name", &p.name)?;
    m.serialize_entry("ts_ms", &p.change_ts_ms)?;
    m.serialize_entry("ts_us", &ms_to_us(p.change_ts_ms))?;
    m.serialize_entry("ts_ns", &ms_to_ns(p.change_ts_ms))?;
    m.serialize_entry("snapshot", snapshot)?;
    m.serialize_entry("db", &p.db)?;
    m.serialize_entry("schema", &p.schema)?;
    m.serialize_entry("table", &p.table)
}

/// The transaction's times and start every `source` block closes with.
fn source_tail<M: SerializeMap>(
    m: &mut M,
    p: &super::SourcePosition,
    commit_ts_ms: Option<i64>,
) -> Result<(), M::Error> {
    m.serialize_entry("commit_ts_ms", &commit_ts_ms)?;
    m.serialize_entry("start_scn", &p.start_scn.map(|s| s.to_string()))?;
    m.serialize_entry("start_ts_ms", &p.start_ts_ms)
}

struct TransactionRef<'a>(&'a ChangeEvent);

impl Serialize for TransactionRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("id", &self.0.source.tx_id())?;
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
            .and_then(|k| k.table(&e.source.schema, &e.source.table))
            .map(|t| t.kinds());
        let mut m = s.serialize_map(Some(8))?;
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
        m.serialize_entry("ts_us", &ms_to_us(e.commit_ts_ms))?;
        m.serialize_entry("ts_ns", &ms_to_ns(e.commit_ts_ms))?;
        if e.op == Op::Read {
            m.serialize_entry("transaction", &None::<u8>)?;
        } else {
            m.serialize_entry("transaction", &TransactionRef(e))?;
        }
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
        self.to_json_line_typed(forms, None)
    }

    /// The envelope in the given value forms, with the column kinds the
    /// dictionary gave (for `--decimal-handling` and `--time-precision`).
    pub fn to_json_line_typed(&self, forms: ValueForms, kinds: Option<&ColumnKinds>) -> String {
        let line = self.envelope_line(forms, kinds);
        match forms.envelope {
            EnvelopeForm::Plain => line,
            EnvelopeForm::ConnectJson => {
                connect::wrap(&connect::change_schema_text(self, kinds, forms), &line)
            }
        }
    }

    /// The bare envelope in these forms.
    fn envelope_line(&self, forms: ValueForms, kinds: Option<&ColumnKinds>) -> String {
        if kinds_matter(forms) {
            // Serialising owned strings and numbers into a String cannot fail.
            return serde_json::to_string(&ChangeRef(self, forms, kinds)).unwrap_or_default();
        }
        let mut out = String::with_capacity(self.json_size_hint());
        json::write_change(&mut out, self, forms);
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
        source_head(&mut m, p, "false")?;
        m.serialize_entry("txId", &p.tx_id())?;
        m.serialize_entry("scn", &p.scn.to_string())?;
        m.serialize_entry("commit_scn", &p.commit_scn.to_string())?;
        m.serialize_entry("user_name", &p.user_name.as_deref())?;
        source_tail(&mut m, p, Some(self.0.commit_ts_ms))?;
        m.end()
    }
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
            CapturedEvent::Ddl(d) => {
                let line = serde_json::to_string(d).unwrap_or_default();
                match forms.envelope {
                    EnvelopeForm::Plain => line,
                    EnvelopeForm::ConnectJson => connect::wrap(&connect::DDL, &line),
                }
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::engine::event::field::UNAVAILABLE_VALUE;
    use crate::engine::event::forms::BinaryHandling;
    use crate::engine::event::hex::hex_lower;
    use crate::engine::event::{Field, SnapshotMark, SourcePosition};

    /// An update of `APP.ORDERS` with a NULL before and an unavailable
    /// after value.
    pub(in crate::engine::event) fn sample() -> ChangeEvent {
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
                user_name: Some("APP_USER".into()),
                start_scn: Some(9_007_199_254_740_990),
                start_ts_ms: Some(1_740_819_599_000),
            },
            snapshot: SnapshotMark::Stream,
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
            [
                "before",
                "after",
                "source",
                "op",
                "ts_ms",
                "ts_us",
                "ts_ns",
                "transaction"
            ]
        );
        assert_eq!(v["op"], "u");
        assert_eq!(v["source"]["connector"], "oracle");
        assert_eq!(v["transaction"]["total_order"], 3);
    }

    /// The members of Debezium's `io.debezium.connector.oracle.Source` in
    /// its order, with cdcctl's `snapshot_chunk` after `commit_scn` on a
    /// read row.
    #[test]
    fn source_has_the_oracle_connectors_fields_in_order_issue32() {
        let keys = |e: &ChangeEvent| {
            let v: serde_json::Value = serde_json::from_str(&e.to_json_line()).unwrap();
            v["source"]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect::<Vec<_>>()
        };
        let (head, tail) = (
            "version connector name ts_ms ts_us ts_ns snapshot db schema table txId",
            "rs_id ssn redo_thread user_name row_id commit_ts_ms start_scn start_ts_ms",
        );
        let joined = |middle: &str| format!("{head} {middle} {tail}");
        assert_eq!(keys(&sample()).join(" "), joined("scn commit_scn"));
        let mut read = sample();
        read.op = Op::Read;
        assert_eq!(
            keys(&read).join(" "),
            joined("scn commit_scn snapshot_chunk")
        );
    }

    #[test]
    fn source_carries_the_transactions_user_start_and_commit_time_issue32() {
        let v: serde_json::Value = serde_json::from_str(&sample().to_json_line()).unwrap();
        let src = &v["source"];
        assert_eq!(src["user_name"], "APP_USER");
        assert_eq!(src["commit_ts_ms"], 1_740_819_601_000_i64);
        // SCNs are strings, as Debezium writes them.
        assert_eq!(src["start_scn"], "9007199254740990");
        assert_eq!(src["start_ts_ms"], 1_740_819_599_000_i64);
        let mut unknown = sample();
        unknown.source.user_name = None;
        unknown.source.start_scn = None;
        unknown.source.start_ts_ms = None;
        let v: serde_json::Value = serde_json::from_str(&unknown.to_json_line()).unwrap();
        for field in ["user_name", "start_scn", "start_ts_ms"] {
            assert!(v["source"][field].is_null(), "{field}");
        }
        assert_eq!(v["source"]["commit_ts_ms"], 1_740_819_601_000_i64);
    }

    #[test]
    fn times_are_also_given_in_micro_and_nanoseconds_issue32() {
        let v: serde_json::Value = serde_json::from_str(&sample().to_json_line()).unwrap();
        assert_eq!(v["source"]["ts_us"], 1_740_819_600_000_000_i64);
        assert_eq!(v["source"]["ts_ns"], 1_740_819_600_000_000_000_i64);
        assert_eq!(v["ts_us"], 1_740_819_601_000_000_i64);
        assert_eq!(v["ts_ns"], 1_740_819_601_000_000_000_i64);
        // A time past what nanoseconds in i64 hold saturates, never panics.
        let mut far = sample();
        far.commit_ts_ms = i64::MAX / 1_000;
        let v: serde_json::Value = serde_json::from_str(&far.to_json_line()).unwrap();
        assert_eq!(v["ts_ns"], i64::MAX);
    }

    #[test]
    fn txid_is_lower_case_hex_and_rs_id_is_trimmed_as_debezium_writes_them_issue32() {
        let v: serde_json::Value = serde_json::from_str(&sample().to_json_line()).unwrap();
        assert_eq!(v["source"]["txId"], "0a0014005d3c0000");
        assert_eq!(v["transaction"]["id"], "0a0014005d3c0000");
        assert_eq!(v["source"]["rs_id"], "0x000003.00000010.0010");
    }

    #[test]
    fn a_snapshot_read_has_no_transaction_user_or_commit_time_issue32() {
        let mut e = sample();
        e.op = Op::Read;
        e.snapshot = SnapshotMark::Row;
        e.source.user_name = None;
        e.source.start_scn = None;
        e.source.start_ts_ms = None;
        let v: serde_json::Value = serde_json::from_str(&e.to_json_line()).unwrap();
        for field in [
            "txId",
            "commit_scn",
            "user_name",
            "commit_ts_ms",
            "start_scn",
        ] {
            assert!(v["source"][field].is_null(), "{field}");
        }
        assert!(v["source"]["start_ts_ms"].is_null());
        assert!(v["transaction"].is_null());
        assert_eq!(v["source"]["scn"], "9007199254740993");
    }

    #[test]
    fn a_ddl_events_source_has_the_same_transaction_fields_issue32() {
        let e = sample();
        let ddl = CapturedEvent::Ddl(DdlEvent {
            source: e.source.clone(),
            ddl: "ALTER TABLE APP.ORDERS ADD (NOTE VARCHAR2(10))".into(),
            commit_ts_ms: e.commit_ts_ms,
        });
        let v: serde_json::Value = serde_json::from_str(&ddl.to_json_line()).unwrap();
        let src = &v["source"];
        assert_eq!(src["txId"], "0a0014005d3c0000");
        assert_eq!(src["ts_us"], 1_740_819_600_000_000_i64);
        assert_eq!(src["user_name"], "APP_USER");
        assert_eq!(src["commit_ts_ms"], 1_740_819_601_000_i64);
        assert_eq!(src["start_scn"], "9007199254740990");
        assert_eq!(src["start_ts_ms"], 1_740_819_599_000_i64);
    }

    #[test]
    fn the_direct_writer_gives_the_bytes_serde_json_gives() {
        let every_byte: String = (0u8..=0x7f).map(char::from).collect();
        let mut variants = Vec::new();
        for op in [Op::Create, Op::Update, Op::Delete, Op::Read] {
            for (snapshot, partial, table_order) in [
                (SnapshotMark::Stream, false, 1),
                (SnapshotMark::Stream, true, 7),
                (SnapshotMark::Last, false, 0),
                (SnapshotMark::FirstInTable, false, 0),
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
                if partial {
                    e.source.user_name = Some("\"odd\" user".into());
                    e.source.start_scn = None;
                    e.source.start_ts_ms = None;
                    e.source.rs_id = None;
                }
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
            for forms in ValueForms::in_each_binary_form() {
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
        let mut kinds = ColumnKinds::new();
        for (column, data_type) in [
            ("AMOUNT", "NUMBER"),
            ("BIG", "NUMBER"),
            ("ORDER_DATE", "TIMESTAMP(9)"),
            ("CODE", "VARCHAR2"),
            ("ODD", "DATE"),
        ] {
            kinds.add("APP", "ORDERS", column, data_type, true);
        }
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
