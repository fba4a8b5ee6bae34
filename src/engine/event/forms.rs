//! The value forms of an envelope's images, named as Debezium's options
//! name them (binary, decimal and time handling), the column kinds some of
//! them depend on, and a value written in them.

use serde::ser::Serializer;
use serde::Serialize;

use super::field::{Field, FieldRef, UNAVAILABLE_VALUE};
use super::hex::{hex_bytes, hex_lower};

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

/// Whether events are written as the bare envelope or wrapped with their
/// Kafka Connect schema (`--envelope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EnvelopeForm {
    /// The Debezium envelope alone (`JsonConverter` with
    /// `schemas.enable=false`).
    #[default]
    Plain,
    /// `{"schema": …, "payload": envelope}`.
    ConnectJson,
}

/// The value forms of an envelope's images.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ValueForms {
    pub binary: BinaryHandling,
    pub decimal: DecimalHandling,
    pub time: TimePrecision,
    /// Whether the envelope goes bare or under its Kafka Connect schema.
    pub envelope: EnvelopeForm,
}

/// The column types whose written form an option changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnKind {
    Number,
    /// DATE and TIMESTAMP without time zone.
    DateTime,
}

impl ColumnKind {
    /// The kind of an Oracle (or DM8) data type, as the dictionary names it.
    pub fn of_data_type(data_type: &str) -> Option<ColumnKind> {
        let base = data_type.split('(').next().unwrap_or_default().trim();
        let upper = base.to_ascii_uppercase();
        if [
            "NUMBER",
            "FLOAT",
            "BINARY_FLOAT",
            "BINARY_DOUBLE",
            "INTEGER",
            // DM8's exact and approximate numbers.
            "INT",
            "BIGINT",
            "SMALLINT",
            "TINYINT",
            "BYTE",
            "DECIMAL",
            "DEC",
            "NUMERIC",
            "DOUBLE",
            "DOUBLE PRECISION",
            "REAL",
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

/// Whether an Oracle data type holds bytes (RAW, LONG RAW, BLOB), whose
/// values are written in the [`BinaryHandling`].
pub fn is_binary_data_type(data_type: &str) -> bool {
    let base = data_type.split('(').next().unwrap_or_default().trim();
    ["RAW", "LONG RAW", "BLOB"]
        .iter()
        .any(|t| base.eq_ignore_ascii_case(t))
}

impl ValueForms {
    /// How bytes given as hex are written.
    pub(super) fn binary_text(self, hex: &str) -> String {
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
        self.field_json_of(field, None)
    }

    /// [`ValueForms::field_json`] for a column of a known kind, as an image
    /// with the dictionary's types writes it.
    pub fn field_json_of<'f>(
        self,
        field: impl Into<FieldRef<'f>>,
        kind: Option<ColumnKind>,
    ) -> serde_json::Value {
        serde_json::to_value(Formed(field.into(), self, kind)).unwrap_or(serde_json::Value::Null)
    }

    pub(super) fn unavailable_binary(self) -> String {
        self.encode(UNAVAILABLE_VALUE.as_bytes())
            .unwrap_or_else(|| hex_lower(UNAVAILABLE_VALUE.as_bytes()))
    }
}

#[cfg(test)]
impl ValueForms {
    /// The default forms in each binary handling, for tests that compare
    /// two writers of the same values.
    pub(crate) fn in_each_binary_form() -> [ValueForms; 3] {
        [
            BinaryHandling::Base64,
            BinaryHandling::Base64UrlSafe,
            BinaryHandling::Hex,
        ]
        .map(|binary| ValueForms {
            binary,
            ..ValueForms::default()
        })
    }
}

/// Milliseconds since the epoch of an ISO date-time as the envelope writes
/// it (`2025-03-01T09:00:00.123456789`).
fn epoch_millis(text: &str) -> Option<i64> {
    chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f")
        .ok()
        .map(|t| t.and_utc().timestamp_millis())
}

/// A field with the forms it is written in, and its column's kind when
/// the dictionary gave it.
pub(super) struct Formed<'a>(
    pub(super) FieldRef<'a>,
    pub(super) ValueForms,
    pub(super) Option<ColumnKind>,
);

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
