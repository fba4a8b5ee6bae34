//! `run --sink kafka`: the options of the Kafka sink and their checks.

use std::collections::BTreeMap;

use clap::Args;

use cdcctl::engine::event::ValueForms;
use cdcctl::sink::kafka::topics::{Cleanup, TopicSettings};
use cdcctl::sink::kafka::KafkaConfig;

#[derive(Debug, Args, Clone, Default)]
pub struct KafkaArgs {
    /// Where events go: `file` (JSON lines, see --output) or `kafka`
    /// (a topic per table, exactly-once with the checkpoint in Kafka).
    #[arg(long, value_parser = ["file", "kafka"], default_value = "file")]
    pub sink: String,
    /// Kafka bootstrap servers, HOST:PORT,...
    #[arg(long, value_name = "HOST:PORT,...")]
    pub brokers: Option<String>,
    /// Send a table's changes to another topic than PREFIX.SCHEMA.TABLE:
    /// SCHEMA.TABLE=TOPIC, repeated.
    #[arg(long, value_name = "SCHEMA.TABLE=TOPIC")]
    pub route: Vec<String>,
    /// Kafka compression codec.
    #[arg(long, value_parser = ["none", "gzip", "snappy", "lz4", "zstd"], default_value = "lz4")]
    pub compression: String,
    /// After each delete, send a tombstone (same key, null value) so
    /// compacted topics drop the row: the default, as Debezium's
    /// `tombstones.on.delete`.
    #[arg(long, overrides_with = "no_tombstones")]
    pub tombstones: bool,
    /// Send no tombstone after a delete.
    #[arg(long)]
    pub no_tombstones: bool,
    /// A librdkafka producer property, KEY=VALUE, repeated (e.g.
    /// linger.ms=50, security.protocol=SSL).
    #[arg(long, value_name = "KEY=VALUE")]
    pub kafka_property: Vec<String>,
    /// Partitions of each table topic cdcctl creates (before its first
    /// message; a topic that exists is used as it is).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(i32).range(1..=100_000))]
    pub topic_partitions: i32,
    /// Replication factor of the topics cdcctl creates. Default: the
    /// broker's default.replication.factor.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i32).range(1..=32))]
    pub topic_replication: Option<i32>,
    /// cleanup.policy of the table topics cdcctl creates: `compact` keeps
    /// each key's last row (tables without a primary key still get
    /// `delete`: a compacted topic refuses records without a key, and
    /// truncate events are then not sent); `delete` keeps every change for
    /// the retention. Default: `compact` when tombstones are on, else
    /// `delete`.
    #[arg(long, value_parser = ["compact", "delete"], value_name = "POLICY")]
    pub topic_cleanup: Option<String>,
}

fn pair<'a>(what: &str, s: &'a str) -> Result<(&'a str, &'a str), String> {
    s.split_once('=')
        .map(|(k, v)| (k.trim(), v.trim()))
        .filter(|(k, v)| !k.is_empty() && !v.is_empty())
        .ok_or_else(|| format!("{what} `{s}`: expected KEY=VALUE"))
}

/// Properties the sink's guarantee rests on: refused from
/// --kafka-property, so exactly-once cannot be switched off by accident.
const FIXED: [&str; 4] = [
    "transactional.id",
    "enable.idempotence",
    "acks",
    "bootstrap.servers",
];

/// The sink's configuration from the options, checked.
pub fn config(
    args: &KafkaArgs,
    server_name: &str,
    forms: ValueForms,
) -> Result<KafkaConfig, String> {
    let brokers = args
        .brokers
        .clone()
        .filter(|b| !b.trim().is_empty())
        .ok_or("--sink kafka needs --brokers HOST:PORT,...")?;
    let mut routes = BTreeMap::new();
    for r in &args.route {
        let (table, topic) = pair("--route", r)?;
        if !table.contains('.') {
            return Err(format!("--route `{r}`: name the table as SCHEMA.TABLE"));
        }
        routes.insert(table.to_string(), topic.to_string());
    }
    let mut properties = Vec::new();
    for p in &args.kafka_property {
        let (k, v) = pair("--kafka-property", p)?;
        if FIXED.contains(&k) {
            return Err(format!(
                "--kafka-property {k}: set by cdcctl for exactly-once delivery and not to be changed"
            ));
        }
        properties.push((k.to_string(), v.to_string()));
    }
    let config = KafkaConfig {
        brokers,
        server_name: server_name.to_string(),
        routes,
        key_columns: BTreeMap::new(),
        compression: args.compression.clone(),
        tombstones: !args.no_tombstones,
        properties,
        forms,
        oversize_dead_letter: None,
        topics: TopicSettings {
            partitions: args.topic_partitions,
            replication: args.topic_replication,
            cleanup: match args.topic_cleanup.as_deref() {
                Some("compact") => Cleanup::Compact,
                Some(_) => Cleanup::Delete,
                None => Cleanup::Auto,
            },
        },
    };
    config.check_topic_names()?;
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kafka_needs_brokers_and_well_formed_routes() {
        let mut a = KafkaArgs {
            sink: "kafka".into(),
            compression: "lz4".into(),
            ..KafkaArgs::default()
        };
        assert!(config(&a, "erp", ValueForms::default()).is_err_and(|e| e.contains("--brokers")));
        a.brokers = Some("127.0.0.1:9092".into());
        a.route = vec!["ORDERS=o".into()];
        assert!(config(&a, "erp", ValueForms::default()).is_err_and(|e| e.contains("SCHEMA.TABLE")));
        a.route = vec!["APP.ORDERS=orders".into()];
        let c = config(&a, "erp", ValueForms::default()).unwrap_or_default();
        assert_eq!(c.topic_for("APP", "ORDERS").as_deref(), Some("orders"));
        a.route = vec!["APP.ORDERS=bad topic#1".into()];
        assert!(config(&a, "erp", ValueForms::default()).is_err_and(|e| e.contains("bad topic#1")));
        a.route = vec![];
        assert!(
            config(&a, "e r p", ValueForms::default()).is_err_and(|e| e.contains("--server-name"))
        );
    }

    #[test]
    fn exactly_once_properties_cannot_be_overridden() {
        let a = KafkaArgs {
            brokers: Some("b:9092".into()),
            kafka_property: vec!["acks=1".into()],
            ..KafkaArgs::default()
        };
        assert!(config(&a, "erp", ValueForms::default()).is_err_and(|e| e.contains("acks")));
    }

    #[test]
    fn tombstones_are_on_unless_turned_off_as_debeziums_default_issue32() {
        let mut a = KafkaArgs {
            brokers: Some("b:9092".into()),
            ..KafkaArgs::default()
        };
        assert!(config(&a, "erp", ValueForms::default()).is_ok_and(|c| c.tombstones));
        a.no_tombstones = true;
        assert!(config(&a, "erp", ValueForms::default()).is_ok_and(|c| !c.tombstones));
    }
}
