//! The value-form options users choose for the envelope, named as
//! Debezium's connector options name them.

use cdcctl::engine::event::{
    BinaryHandling, DecimalHandling, EnvelopeForm, TimePrecision, ValueForms,
};

#[derive(Debug, Clone, clap::Args)]
pub struct FormsArgs {
    /// How RAW, LONG RAW and BLOB bytes (and the unavailable placeholder of
    /// a BLOB) are written: `base64` (`bytes` is the same: what Debezium's
    /// `binary.handling.mode=bytes` puts in JSON, and what Flink's BYTES and
    /// Kafka Connect's bytes read), `base64-url-safe` or `hex`.
    #[arg(long, value_enum, default_value = "base64", value_name = "MODE")]
    pub binary_handling: BinaryMode,
    /// How NUMBER values are written: `string` (the exact decimal text,
    /// what Flink's DECIMAL reads) or `double` (a JSON number; digits past
    /// the 15th may be lost). Applies where the column types are known:
    /// `run`, `sim truth`, and `redo replay --dictionary`.
    #[arg(long, value_enum, default_value = "string", value_name = "MODE")]
    pub decimal_handling: DecimalMode,
    /// How DATE and TIMESTAMP values are written: `iso` (ISO 8601 text with
    /// every fraction digit) or `connect` (milliseconds since the epoch, as
    /// Kafka Connect's Timestamp and Debezium's `connect` mode). TIMESTAMP
    /// WITH TIME ZONE stays ISO text in UTC either way.
    #[arg(long, value_enum, default_value = "iso", value_name = "MODE")]
    pub time_precision: TimeMode,
    /// How each event is framed: `plain` (the Debezium envelope alone, as
    /// Kafka Connect's JsonConverter with schemas.enable=false reads it) or
    /// `connect-json` (`{"schema": …, "payload": envelope}`, as JsonConverter
    /// writes it with schemas.enable=true: Debezium's schema names, each
    /// column typed from the dictionary in the forms above, for a Connect
    /// sink or Flink's debezium-json with 'debezium-json.schema-include').
    #[arg(long, value_enum, default_value = "plain", value_name = "FORM")]
    pub envelope: EnvelopeMode,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EnvelopeMode {
    Plain,
    ConnectJson,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DecimalMode {
    String,
    Double,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TimeMode {
    Iso,
    Connect,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BinaryMode {
    #[value(alias = "bytes")]
    Base64,
    Base64UrlSafe,
    Hex,
}

impl FormsArgs {
    pub fn forms(&self) -> ValueForms {
        ValueForms {
            binary: match self.binary_handling {
                BinaryMode::Base64 => BinaryHandling::Base64,
                BinaryMode::Base64UrlSafe => BinaryHandling::Base64UrlSafe,
                BinaryMode::Hex => BinaryHandling::Hex,
            },
            decimal: match self.decimal_handling {
                DecimalMode::String => DecimalHandling::String,
                DecimalMode::Double => DecimalHandling::Double,
            },
            time: match self.time_precision {
                TimeMode::Iso => TimePrecision::Iso,
                TimeMode::Connect => TimePrecision::Connect,
            },
            envelope: match self.envelope {
                EnvelopeMode::Plain => EnvelopeForm::Plain,
                EnvelopeMode::ConnectJson => EnvelopeForm::ConnectJson,
            },
        }
    }
}
