//! The value-form options users choose for the envelope, named as
//! Debezium's connector options name them.

use cdcctl::engine::event::{BinaryHandling, ValueForms};

#[derive(Debug, Clone, clap::Args)]
pub struct FormsArgs {
    /// How RAW, LONG RAW and BLOB bytes (and the unavailable placeholder of
    /// a BLOB) are written: `base64` (`bytes` is the same: what Debezium's
    /// `binary.handling.mode=bytes` puts in JSON, and what Flink's BYTES and
    /// Kafka Connect's bytes read), `base64-url-safe` or `hex`.
    #[arg(long, value_enum, default_value = "base64", value_name = "MODE")]
    pub binary_handling: BinaryMode,
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
        }
    }
}
