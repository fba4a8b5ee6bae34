//! Config fixes in the syntax of the file they fix: a Flink SQL `WITH`
//! option, a key under a pipeline YAML's `source:` block, a Debezium
//! property or a Kafka Connect JSON member. A fix is pasted, not translated.

use super::config::ConfigFormat;

/// An option, as each kind of file names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opt<'a> {
    /// A Debezium connector property (`log.mining.strategy`): Flink CDC
    /// passes it through with a `debezium.` prefix.
    Debezium(&'a str),
    /// A Flink CDC option of its own (`scan.incremental.snapshot.chunk.size`):
    /// Debezium has none.
    Flink(&'a str),
    /// The database the connector opens: Flink SQL's `database-name`, the
    /// pipeline's `database`, Debezium's `database.dbname`.
    DatabaseName,
    /// A key as the file already writes it.
    Written(&'a str),
}

impl ConfigFormat {
    /// The key this format gives `opt`, or `None` when its connector has no
    /// such option.
    pub fn key(self, opt: Opt) -> Option<String> {
        let flink = self.is_flink();
        match opt {
            Opt::Debezium(name) if flink => Some(format!("debezium.{name}")),
            Opt::Debezium(name) => Some(name.to_string()),
            Opt::Flink(name) => flink.then(|| name.to_string()),
            Opt::Written(key) => Some(key.to_string()),
            Opt::DatabaseName => Some(
                match self {
                    ConfigFormat::FlinkSql => "database-name",
                    ConfigFormat::FlinkPipelineYaml => "database",
                    _ => "database.dbname",
                }
                .to_string(),
            ),
        }
    }

    /// A key as the file writes it, for a sentence: `'key'` in Flink SQL,
    /// `"key"` in JSON, bare otherwise.
    pub fn quote_key(self, key: &str) -> String {
        match self {
            ConfigFormat::FlinkSql => sql_string(key),
            ConfigFormat::DebeziumJson => json_string(key),
            _ => key.to_string(),
        }
    }

    /// The settings as lines to paste into the file; options the connector
    /// does not have are left out.
    pub fn settings(self, pairs: &[(Opt, &str)]) -> String {
        let lines: Vec<String> = pairs
            .iter()
            .filter_map(|(opt, value)| Some(self.line(&self.key(*opt)?, value)))
            .collect();
        match self {
            ConfigFormat::FlinkSql | ConfigFormat::DebeziumJson => lines.join(",\n"),
            ConfigFormat::FlinkPipelineYaml if !lines.is_empty() => {
                format!("source:\n{}", lines.join("\n"))
            }
            _ => lines.join("\n"),
        }
    }

    /// One `key = value` in this format; a pipeline key is indented under
    /// `source:`.
    fn line(self, key: &str, value: &str) -> String {
        match self {
            ConfigFormat::FlinkSql => format!("{} = {}", sql_string(key), sql_string(value)),
            ConfigFormat::FlinkPipelineYaml => format!("  {key}: {}", yaml_scalar(value)),
            ConfigFormat::DebeziumProperties => format!("{key}={}", properties_value(value)),
            ConfigFormat::DebeziumJson => format!("{}: {}", json_string(key), json_string(value)),
        }
    }

    /// `text` as a comment line, or `None` in JSON, which has no comments.
    pub fn comment(self, text: &str) -> Option<String> {
        match self {
            ConfigFormat::FlinkSql => Some(format!("-- {text}")),
            ConfigFormat::DebeziumJson => None,
            _ => Some(format!("# {text}")),
        }
    }

    /// `block` followed by the comment lines (those the format can hold).
    pub fn with_comments(self, block: String, comments: &[&str]) -> String {
        let mut lines: Vec<String> = Vec::new();
        if !block.is_empty() {
            lines.push(block);
        }
        lines.extend(comments.iter().filter_map(|c| self.comment(c)));
        lines.join("\n")
    }
}

fn sql_string(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

fn json_string(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// A YAML scalar that reads back as the same string: bare when it is a
/// plain word, double-quoted (JSON escapes are YAML's) otherwise.
fn yaml_scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-/$".contains(c))
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "~"
        );
    if plain {
        s.to_string()
    } else {
        json_string(s)
    }
}

/// A `.properties` value: backslashes doubled, a leading blank escaped.
fn properties_value(s: &str) -> String {
    let escaped = s.replace('\\', "\\\\");
    match escaped.strip_prefix(' ') {
        Some(rest) => format!("\\ {rest}"),
        None => escaped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preflight::config::ConnectorConfig;

    const FIX: [(Opt, &str); 3] = [
        (Opt::Debezium("log.mining.strategy"), "hybrid"),
        (Opt::DatabaseName, "ORCLCDB"),
        (Opt::Flink("scan.incremental.snapshot.chunk.size"), "2000"),
    ];

    #[test]
    fn each_format_writes_the_keys_its_connector_reads() {
        assert_eq!(
            ConfigFormat::FlinkSql.settings(&FIX),
            "'debezium.log.mining.strategy' = 'hybrid',\n'database-name' = 'ORCLCDB',\n\
             'scan.incremental.snapshot.chunk.size' = '2000'"
        );
        assert_eq!(
            ConfigFormat::FlinkPipelineYaml.settings(&FIX),
            "source:\n  debezium.log.mining.strategy: hybrid\n  database: ORCLCDB\n  \
             scan.incremental.snapshot.chunk.size: 2000"
        );
        assert_eq!(
            ConfigFormat::DebeziumProperties.settings(&FIX),
            "log.mining.strategy=hybrid\ndatabase.dbname=ORCLCDB",
            "Debezium has no Flink chunk size"
        );
        assert_eq!(
            ConfigFormat::DebeziumJson.settings(&FIX),
            "\"log.mining.strategy\": \"hybrid\",\n\"database.dbname\": \"ORCLCDB\""
        );
    }

    #[test]
    fn values_that_need_quoting_read_back_as_written() {
        let odd = "it's: #1, = true";
        for format in [
            ConfigFormat::FlinkSql,
            ConfigFormat::FlinkPipelineYaml,
            ConfigFormat::DebeziumProperties,
        ] {
            let fix = format.settings(&[(Opt::Debezium("x.y"), odd), (Opt::DatabaseName, "true")]);
            let text = match format {
                ConfigFormat::FlinkSql => format!("CREATE TABLE t (i INT) WITH (\n{fix}\n)"),
                _ => fix.clone(),
            };
            let c = ConnectorConfig::parse("fix", &text).expect("the fix parses");
            assert_eq!(c.format, format, "{fix}");
            assert!(c.problems.is_empty(), "{:?}", c.problems);
            let key = format.key(Opt::Debezium("x.y")).expect("a key");
            assert_eq!(c.options.get(&key).map(String::as_str), Some(odd), "{fix}");
        }
    }

    #[test]
    fn comments_are_left_out_where_the_format_has_none() {
        assert_eq!(
            ConfigFormat::FlinkSql.with_comments("'a' = 'b'".into(), &["why"]),
            "'a' = 'b'\n-- why"
        );
        assert_eq!(
            ConfigFormat::DebeziumProperties.with_comments(String::new(), &["why"]),
            "# why"
        );
        assert_eq!(
            ConfigFormat::DebeziumJson.with_comments("\"a\": \"b\"".into(), &["why"]),
            "\"a\": \"b\""
        );
    }
}
