//! Kafka Connect's JSON with schema, as `JsonConverter` writes it with
//! `schemas.enable=true`: each event is `{"schema": …, "payload": …}`. The
//! payload is the envelope exactly as written without the schema; the schema
//! is Debezium's for the Oracle connector (`PREFIX.SCHEMA.TABLE.Envelope`,
//! `…Value`, `io.debezium.connector.oracle.Source`), each column typed from
//! the dictionary in the value forms its values are written in, so a Connect
//! sink or Flink's `debezium-json` with `schema-include` reads them typed.

use std::collections::BTreeSet;
use std::sync::{Arc, LazyLock};

use serde_json::{json, Value};

use super::columns::{ColumnKinds, ColumnType, TableColumnTypes};
use super::forms::{
    is_binary_data_type, BinaryHandling, ColumnKind, DecimalHandling, TimePrecision, ValueForms,
};
#[cfg(doc)]
use super::DdlEvent;
use super::{ChangeEvent, FieldRef, Image, SourcePosition};

/// The envelope as the payload under its schema. The payload is spliced
/// in as written, so its bytes are those of the bare envelope.
pub(super) fn wrap(schema: &str, payload: &str) -> String {
    let mut out = String::with_capacity(schema.len() + payload.len() + 24);
    out.push_str("{\"schema\":");
    out.push_str(schema);
    out.push_str(",\"payload\":");
    out.push_str(payload);
    out.push('}');
    out
}

/// The envelope inside a line written with
/// [`EnvelopeForm::ConnectJson`](super::EnvelopeForm::ConnectJson),
/// or the line itself when it is a bare envelope: for readers of cdcctl's
/// own output (resuming after a restart) whichever form it was written in.
pub fn payload_of(line: &Value) -> &Value {
    match line.get("payload") {
        Some(p) if p.is_object() && line.get("schema").is_some() => p,
        _ => line,
    }
}

fn scalar(ty: &str, optional: bool) -> Value {
    json!({ "type": ty, "optional": optional })
}

fn named(ty: &str, name: &str, optional: bool) -> Value {
    json!({ "type": ty, "optional": optional, "name": name, "version": 1 })
}

/// A struct member: the member's schema with its name.
fn member(name: &str, mut schema: Value) -> Value {
    if let Some(m) = schema.as_object_mut() {
        m.insert("field".into(), Value::from(name));
    }
    schema
}

fn members(list: &[(&str, &str, bool)]) -> Vec<Value> {
    list.iter()
        .map(|(name, ty, optional)| member(name, scalar(ty, *optional)))
        .collect()
}

/// Bytes are `bytes` (base64 in JSON, as `JsonConverter` reads them) only
/// when written as standard base64; hex and URL-safe base64 are text, as
/// Debezium types them under those `binary.handling.mode`s.
fn binary_schema(forms: ValueForms, optional: bool) -> Value {
    match forms.binary {
        BinaryHandling::Base64 => scalar("bytes", optional),
        BinaryHandling::Base64UrlSafe | BinaryHandling::Hex => scalar("string", optional),
    }
}

/// The schema of a column's values in these forms, named as the Oracle
/// connector names it for the same form.
pub fn column_schema(column: &ColumnType, forms: ValueForms) -> Value {
    let optional = column.nullable;
    if is_binary_data_type(&column.data_type) {
        return binary_schema(forms, optional);
    }
    if column.data_type.to_ascii_uppercase().contains("TIME ZONE") {
        return named("string", "io.debezium.time.ZonedTimestamp", optional);
    }
    match (ColumnKind::of_data_type(&column.data_type), forms) {
        (
            Some(ColumnKind::Number),
            ValueForms {
                decimal: DecimalHandling::Double,
                ..
            },
        ) => scalar("float64", optional),
        (
            Some(ColumnKind::DateTime),
            ValueForms {
                time: TimePrecision::Connect,
                ..
            },
        ) => named("int64", "org.apache.kafka.connect.data.Timestamp", optional),
        _ => scalar("string", optional),
    }
}

/// A column the dictionary did not give (a table it did not describe, or
/// a column added since): typed from its value, and optional.
fn unknown_column_schema(value: FieldRef<'_>, forms: ValueForms) -> Value {
    match value {
        FieldRef::Binary(_) | FieldRef::UnavailableBinary => binary_schema(forms, true),
        _ => scalar("string", true),
    }
}

/// The row's struct: the dictionary's columns in table order, then any
/// column of the images it did not give.
fn value_schema(e: &ChangeEvent, table: Option<&TableColumnTypes>, forms: ValueForms) -> Value {
    let columns = table.map_or(&[][..], TableColumnTypes::columns);
    let mut fields: Vec<Value> = columns
        .iter()
        .map(|c| member(&c.name, column_schema(c, forms)))
        .collect();
    let mut known: BTreeSet<&str> = columns.iter().map(|c| c.name.as_str()).collect();
    for image in [&e.before, &e.after].into_iter().flatten() {
        for (name, value) in image {
            if known.insert(name) {
                fields.push(member(name, unknown_column_schema(value, forms)));
            }
        }
    }
    json!({
        "type": "struct",
        "optional": true,
        "name": format!("{}.Value", record_prefix(e)),
        "fields": fields,
    })
}

fn record_prefix(e: &ChangeEvent) -> String {
    let p = &e.source;
    format!("{}.{}.{}", p.name, p.schema, p.table)
}

/// A message key (Debezium's key struct of the key columns, as `key`
/// already writes it) under its schema `PREFIX.SCHEMA.TABLE.Key`, each
/// column typed from its value in `image`.
pub fn key_with_schema(
    source: &SourcePosition,
    image: &Image,
    columns: &[String],
    forms: ValueForms,
    key: &str,
) -> String {
    let fields: Vec<Value> = columns
        .iter()
        .map(|c| {
            let schema = match image.get(c) {
                Some(FieldRef::Binary(_) | FieldRef::UnavailableBinary) => {
                    binary_schema(forms, false)
                }
                Some(FieldRef::Null) | None => scalar("string", true),
                Some(_) => scalar("string", false),
            };
            member(c, schema)
        })
        .collect();
    let schema = json!({
        "type": "struct",
        "optional": false,
        "name": format!("{}.{}.{}.Key", source.name, source.schema, source.table),
        "fields": fields,
    });
    wrap(&schema.to_string(), key)
}

/// The schema-change topic's key (`{"databaseName": …}`) under Debezium's
/// `SchemaChangeKey` schema.
pub fn schema_change_key_with_schema(key: &str) -> String {
    static KEY: LazyLock<String> = LazyLock::new(|| {
        json!({
            "type": "struct",
            "optional": false,
            "name": "io.debezium.connector.oracle.SchemaChangeKey",
            "fields": members(&[("databaseName", "string", false)]),
        })
        .to_string()
    });
    wrap(&KEY, key)
}

/// `source`: every member cdcctl writes, typed as it writes them.
static SOURCE: LazyLock<Value> = LazyLock::new(|| {
    let mut fields = members(&[
        ("version", "string", false),
        ("connector", "string", false),
        ("name", "string", false),
        ("ts_ms", "int64", false),
        ("ts_us", "int64", true),
        ("ts_ns", "int64", true),
    ]);
    let snapshot = named("string", "io.debezium.data.Enum", true);
    let mut snapshot = member("snapshot", snapshot);
    snapshot["parameters"] = json!({
        "allowed": "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental"
    });
    fields.push(snapshot);
    fields.extend(members(&[
        ("db", "string", false),
        ("schema", "string", false),
        ("table", "string", false),
        ("txId", "string", true),
        ("scn", "string", true),
        ("commit_scn", "string", true),
        ("snapshot_chunk", "int64", true),
        ("rs_id", "string", true),
        ("ssn", "int64", true),
        ("redo_thread", "int32", true),
        ("user_name", "string", true),
        ("row_id", "string", true),
        ("commit_ts_ms", "int64", true),
        ("start_scn", "string", true),
        ("start_ts_ms", "int64", true),
    ]));
    json!({
        "type": "struct",
        "optional": false,
        "name": "io.debezium.connector.oracle.Source",
        "fields": fields,
    })
});

/// `transaction`: Debezium's `event.block`, with cdcctl's `partial`.
static TRANSACTION: LazyLock<Value> = LazyLock::new(|| {
    json!({
        "type": "struct",
        "optional": true,
        "name": "event.block",
        "version": 1,
        "fields": members(&[
            ("id", "string", false),
            ("total_order", "int64", false),
            ("data_collection_order", "int64", false),
            ("partial", "boolean", true),
        ]),
    })
});

/// The schema of a change as text: the table's, written once, when the
/// dictionary gives every column of the event's images.
pub(super) fn change_schema_text(
    e: &ChangeEvent,
    kinds: Option<&ColumnKinds>,
    forms: ValueForms,
) -> Arc<str> {
    let table = kinds.and_then(|k| k.table(&e.source.schema, &e.source.table));
    let make = || change_schema(e, table, forms).to_string();
    match table {
        Some(t) if images_within(e, t) => t.schema(&e.source.name, forms, make),
        _ => make().into(),
    }
}

/// Whether the dictionary gave every column of the event's images.
fn images_within(e: &ChangeEvent, table: &TableColumnTypes) -> bool {
    [&e.before, &e.after]
        .into_iter()
        .flatten()
        .all(|image| image.names().all(|n| table.has_column(n)))
}

/// The schema of a change: `PREFIX.SCHEMA.TABLE.Envelope`.
fn change_schema(e: &ChangeEvent, table: Option<&TableColumnTypes>, forms: ValueForms) -> Value {
    let value = value_schema(e, table, forms);
    let mut fields = vec![
        member("before", value.clone()),
        member("after", value),
        member("source", SOURCE.clone()),
    ];
    fields.extend(members(&[
        ("op", "string", false),
        ("ts_ms", "int64", true),
        ("ts_us", "int64", true),
        ("ts_ns", "int64", true),
    ]));
    fields.push(member("transaction", TRANSACTION.clone()));
    json!({
        "type": "struct",
        "optional": false,
        "name": format!("{}.Envelope", record_prefix(e)),
        "fields": fields,
    })
}

/// The schema of a schema-change event, Debezium's `SchemaChangeValue`
/// (`tableChanges` is always empty: see [`DdlEvent`]'s envelope).
pub(super) static DDL: LazyLock<String> = LazyLock::new(|| {
    let change = json!({
        "type": "struct",
        "optional": false,
        "name": "io.debezium.connector.schema.Change",
        "fields": members(&[("type", "string", false), ("id", "string", false)]),
    });
    let mut fields = vec![member("source", SOURCE.clone())];
    fields.extend(members(&[
        ("ts_ms", "int64", false),
        ("databaseName", "string", true),
        ("schemaName", "string", true),
        ("ddl", "string", true),
    ]));
    fields.push(member(
        "tableChanges",
        json!({ "type": "array", "optional": false, "items": change }),
    ));
    json!({
        "type": "struct",
        "optional": false,
        "name": "io.debezium.connector.oracle.SchemaChangeValue",
        "fields": fields,
    })
    .to_string()
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::event::envelope::tests::sample;
    use crate::engine::event::EnvelopeForm;
    use crate::engine::event::{CapturedEvent, Field, Op};

    fn connect(forms: ValueForms) -> ValueForms {
        ValueForms {
            envelope: EnvelopeForm::ConnectJson,
            ..forms
        }
    }

    /// `APP.ORDERS` as the dictionary gives it.
    fn orders() -> ColumnKinds {
        let mut kinds = ColumnKinds::new();
        for (column, data_type, nullable) in [
            ("ORDER_ID", "NUMBER", false),
            ("AMOUNT", "NUMBER", true),
            ("PLACED", "DATE", true),
            ("SHIPPED", "TIMESTAMP(6) WITH TIME ZONE", true),
            ("TOKEN", "RAW", true),
            ("NOTE", "VARCHAR2", true),
        ] {
            kinds.add("APP", "ORDERS", column, data_type, nullable);
        }
        kinds
    }

    fn typed_event() -> ChangeEvent {
        let mut e = sample();
        e.after = Some(
            vec![
                ("ORDER_ID".into(), Field::text("1001")),
                ("AMOUNT".into(), Field::text("12.50")),
                ("PLACED".into(), Field::text("2025-03-01T09:00:00")),
                ("SHIPPED".into(), Field::text("2025-03-01T08:00:00.5Z")),
                ("TOKEN".into(), Field::Binary("a5ff".into())),
                ("NOTE".into(), Field::Null),
                ("ADDED_LATER".into(), Field::text("x")),
            ]
            .into(),
        );
        e
    }

    fn line(e: &ChangeEvent, forms: ValueForms) -> Value {
        let kinds = orders();
        let text = e.to_json_line_typed(connect(forms), Some(&kinds));
        serde_json::from_str(&text).expect("the line is JSON")
    }

    /// The `after` struct's member schemas by column name.
    fn after_fields(v: &Value) -> Vec<(String, Value)> {
        let fields = v["schema"]["fields"].as_array().expect("fields");
        let after = fields
            .iter()
            .find(|f| f["field"] == "after")
            .expect("after");
        after["fields"]
            .as_array()
            .expect("after's fields")
            .iter()
            .map(|f| {
                (
                    f["field"].as_str().unwrap_or_default().to_string(),
                    f.clone(),
                )
            })
            .collect()
    }

    /// What Kafka Connect's `JsonConverter` accepts for a schema: an
    /// optional member may be null or absent, a required one may not; each
    /// value's JSON type is its schema type's.
    fn conforms(schema: &Value, value: Option<&Value>, at: &str) -> Result<(), String> {
        let Some(value) = value.filter(|v| !v.is_null()) else {
            return match schema["optional"].as_bool() {
                Some(true) => Ok(()),
                _ => Err(format!("{at}: null in a required {schema}")),
            };
        };
        let ok = match schema["type"].as_str().unwrap_or_default() {
            "string" => value.is_string(),
            "bytes" => value.as_str().is_some_and(|s| {
                use base64::Engine as _;
                base64::engine::general_purpose::STANDARD.decode(s).is_ok()
            }),
            "int32" | "int64" => value.is_i64() || value.is_u64(),
            "float64" => value.is_number(),
            "boolean" => value.is_boolean(),
            "array" => value.is_array(),
            "struct" => {
                let fields = schema["fields"].as_array().cloned().unwrap_or_default();
                for f in &fields {
                    let name = f["field"].as_str().unwrap_or_default();
                    conforms(f, value.get(name), &format!("{at}.{name}"))?;
                }
                value.is_object()
            }
            other => return Err(format!("{at}: unknown schema type {other}")),
        };
        if ok {
            Ok(())
        } else {
            Err(format!("{at}: {value} is not a {schema}"))
        }
    }

    #[test]
    fn connect_json_wraps_the_bare_envelope_as_the_payload_issue32() {
        let e = typed_event();
        let kinds = orders();
        let forms = ValueForms::default();
        let v = line(&e, forms);
        let bare: Value =
            serde_json::from_str(&e.to_json_line_typed(forms, Some(&kinds))).expect("JSON");
        assert_eq!(v["payload"], bare);
        assert_eq!(v.as_object().map(|m| m.len()), Some(2));
        assert_eq!(payload_of(&v), &bare);
        assert_eq!(payload_of(&bare), &bare);
    }

    #[test]
    fn connect_schema_has_debeziums_names_issue32() {
        let v = line(&typed_event(), ValueForms::default());
        let schema = &v["schema"];
        assert_eq!(schema["name"], "cdcctl.APP.ORDERS.Envelope");
        let field = |name: &str| {
            schema["fields"]
                .as_array()
                .and_then(|f| f.iter().find(|f| f["field"] == name))
                .cloned()
                .unwrap_or_default()
        };
        assert_eq!(field("before")["name"], "cdcctl.APP.ORDERS.Value");
        assert_eq!(field("after")["name"], "cdcctl.APP.ORDERS.Value");
        assert_eq!(
            field("source")["name"],
            "io.debezium.connector.oracle.Source"
        );
        assert_eq!(field("transaction")["name"], "event.block");
        assert_eq!(field("op")["type"], "string");
        assert_eq!(field("ts_ms")["type"], "int64");
    }

    #[test]
    fn columns_are_typed_from_the_dictionary_in_their_value_forms_issue32() {
        let e = typed_event();
        let types = |forms: ValueForms| -> Vec<String> {
            after_fields(&line(&e, forms))
                .into_iter()
                .map(|(name, f)| {
                    let opt = if f["optional"] == true { "?" } else { "" };
                    let logical = f["name"]
                        .as_str()
                        .map(|n| format!(" {n}"))
                        .unwrap_or_default();
                    format!(
                        "{name}:{}{opt}{logical}",
                        f["type"].as_str().unwrap_or_default()
                    )
                })
                .collect()
        };
        // Table order, then the column the dictionary did not give.
        assert_eq!(
            types(ValueForms::default()),
            [
                "ORDER_ID:string",
                "AMOUNT:string?",
                "PLACED:string?",
                "SHIPPED:string? io.debezium.time.ZonedTimestamp",
                "TOKEN:bytes?",
                "NOTE:string?",
                "ADDED_LATER:string?",
            ]
        );
        let other = ValueForms {
            binary: BinaryHandling::Hex,
            decimal: DecimalHandling::Double,
            time: TimePrecision::Connect,
            ..ValueForms::default()
        };
        assert_eq!(
            types(other)[..5],
            [
                "ORDER_ID:float64",
                "AMOUNT:float64?",
                "PLACED:int64? org.apache.kafka.connect.data.Timestamp",
                "SHIPPED:string? io.debezium.time.ZonedTimestamp",
                "TOKEN:string?",
            ]
        );
    }

    #[test]
    fn a_tables_schema_is_written_once_and_a_column_added_since_still_gets_its_own_issue32() {
        let kinds = orders();
        let forms = ValueForms::default();
        let mut known = typed_event();
        known
            .after
            .as_mut()
            .expect("after")
            .retain(|c, _| c != "ADDED_LATER");
        let mut other = known.clone();
        other.op = Op::Create;
        other.before = None;
        let first = change_schema_text(&known, Some(&kinds), forms);
        assert!(Arc::ptr_eq(
            &first,
            &change_schema_text(&other, Some(&kinds), forms)
        ));
        let hex = ValueForms {
            binary: BinaryHandling::Hex,
            ..forms
        };
        assert!(change_schema_text(&known, Some(&kinds), hex)
            .contains(r#""type":"string","optional":true,"field":"TOKEN""#));
        let added = change_schema_text(&typed_event(), Some(&kinds), forms);
        assert!(added.contains("ADDED_LATER") && !first.contains("ADDED_LATER"));
    }

    #[test]
    fn every_value_conforms_to_its_schema_as_json_converter_reads_it_issue32() {
        let mut read = typed_event();
        read.op = Op::Read;
        read.before = None;
        let mut delete = typed_event();
        delete.op = Op::Delete;
        (delete.before, delete.after) = (delete.after.take(), None);
        let base = ValueForms::default();
        let forms = [
            base,
            ValueForms {
                binary: BinaryHandling::Base64UrlSafe,
                decimal: DecimalHandling::Double,
                time: TimePrecision::Connect,
                ..base
            },
        ];
        for e in [typed_event(), read, delete] {
            for f in forms {
                let v = line(&e, f);
                conforms(&v["schema"], Some(&v["payload"]), "payload").expect("conforms");
            }
        }
        let ddl = CapturedEvent::Ddl(crate::engine::event::DdlEvent {
            source: sample().source,
            ddl: "ALTER TABLE APP.ORDERS ADD (NOTE VARCHAR2(10))".into(),
            commit_ts_ms: 1,
        });
        let v: Value =
            serde_json::from_str(&ddl.to_json_line_typed(connect(base), None)).expect("JSON");
        assert_eq!(
            v["schema"]["name"],
            "io.debezium.connector.oracle.SchemaChangeValue"
        );
        conforms(&v["schema"], Some(&v["payload"]), "ddl").expect("conforms");
    }
}
