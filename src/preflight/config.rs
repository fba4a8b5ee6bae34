//! Connector configs cdcctl can lint: a Flink CDC SQL DDL (`CREATE TABLE ...
//! WITH ('connector' = 'oracle-cdc', ...)`), a Flink CDC pipeline YAML
//! (`source: type: oracle`), and Debezium connector properties or JSON
//! (Kafka Connect `{"name": .., "config": {..}}` or flat). All become one
//! flat option map; `debezium.` prefixes are looked through.

use std::collections::BTreeMap;
use std::path::Path;

/// Flink CDC's default `scan.incremental.snapshot.chunk.size`.
pub const FLINK_CHUNK_ROWS_DEFAULT: f64 = 8096.0;

/// Which syntax the file was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigFormat {
    FlinkSql,
    FlinkPipelineYaml,
    DebeziumJson,
    DebeziumProperties,
}

impl ConfigFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            ConfigFormat::FlinkSql => "Flink CDC SQL DDL",
            ConfigFormat::FlinkPipelineYaml => "Flink CDC pipeline YAML",
            ConfigFormat::DebeziumJson => "Debezium JSON",
            ConfigFormat::DebeziumProperties => "Debezium properties",
        }
    }

    /// Flink CDC: `database-name` is the PDB, names in `schema-name`/`table-name`.
    pub fn is_flink(self) -> bool {
        matches!(
            self,
            ConfigFormat::FlinkSql | ConfigFormat::FlinkPipelineYaml
        )
    }
}

/// A config that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read the connector config {path}: {reason}; pass a readable Flink CDC SQL, pipeline YAML or Debezium properties/JSON file")]
    Unreadable { path: String, reason: String },
    #[error("{path} is not a connector config cdcctl understands ({reason}); expected a Flink CDC `CREATE TABLE ... WITH (...)`, a pipeline YAML with `source:`, or Debezium properties/JSON")]
    NotAConfig { path: String, reason: String },
}

/// One parsed connector config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectorConfig {
    pub path: String,
    pub format: ConfigFormat,
    /// Option name (as written, lower-cased) → value.
    pub options: BTreeMap<String, String>,
    /// Lines the parser could not read, for the lint to report.
    pub problems: Vec<String>,
    /// Mistakes the connector refuses to start with (a pipeline without
    /// its `source:` block).
    pub refused: Vec<String>,
}

impl ConnectorConfig {
    /// Reads and parses a config file.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let shown = path.display().to_string();
        let text = crate::limits::read_text(path, crate::limits::CONFIG_BYTES).map_err(|e| {
            ConfigError::Unreadable {
                path: shown.clone(),
                reason: e.to_string(),
            }
        })?;
        Self::parse(&shown, &text)
    }

    /// Parses config text; `path` is only used in messages.
    pub fn parse(path: &str, text: &str) -> Result<Self, ConfigError> {
        let trimmed = text.trim_start();
        let not = |reason: &str| ConfigError::NotAConfig {
            path: path.to_string(),
            reason: reason.to_string(),
        };
        let (format, options, problems) = if trimmed.starts_with('{') {
            let v: serde_json::Value =
                serde_json::from_str(text).map_err(|e| not(&format!("invalid JSON: {e}")))?;
            let obj = v
                .get("config")
                .and_then(|c| c.as_object())
                .or_else(|| v.as_object())
                .ok_or_else(|| not("the JSON is not an object"))?;
            let mut m = BTreeMap::new();
            for (k, val) in obj {
                let s = match val {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                m.insert(k.to_ascii_lowercase(), s);
            }
            (ConfigFormat::DebeziumJson, m, Vec::new())
        } else if contains_ci(text, "'connector'") || contains_ci(text, "create table") {
            let (m, problems) = parse_flink_with(text);
            (ConfigFormat::FlinkSql, m, problems)
        } else if is_pipeline_yaml(text) {
            let v: serde_yaml::Value =
                serde_yaml::from_str(text).map_err(|e| not(&format!("invalid YAML: {e}")))?;
            let (source, problems, refused) = pipeline_source(&v);
            let source = source.ok_or_else(|| not("the YAML has no `source:` section"))?;
            let mut m = BTreeMap::new();
            flatten_yaml("", source, &mut m);
            return Self::build(path, ConfigFormat::FlinkPipelineYaml, m, problems, refused);
        } else {
            let (m, problems) = parse_properties(text);
            (ConfigFormat::DebeziumProperties, m, problems)
        };
        Self::build(path, format, options, problems, Vec::new())
    }

    fn build(
        path: &str,
        format: ConfigFormat,
        options: BTreeMap<String, String>,
        problems: Vec<String>,
        refused: Vec<String>,
    ) -> Result<Self, ConfigError> {
        if options.is_empty() {
            return Err(ConfigError::NotAConfig {
                path: path.to_string(),
                reason: "no option found".into(),
            });
        }
        Ok(ConnectorConfig {
            path: path.to_string(),
            format,
            options,
            problems,
            refused,
        })
    }

    /// The first of `names` set in the config, looking through `debezium.`
    /// (Flink) and `database.` prefixes.
    pub fn get(&self, names: &[&str]) -> Option<&str> {
        for name in names {
            for key in [
                name.to_string(),
                format!("debezium.{name}"),
                format!("database.{name}"),
                format!("debezium.database.{name}"),
            ] {
                if let Some(v) = self.options.get(&key) {
                    return Some(v.as_str());
                }
            }
        }
        None
    }

    /// The key under which one of `names` was found (for messages).
    pub fn key_of(&self, names: &[&str]) -> Option<String> {
        for name in names {
            for key in [
                name.to_string(),
                format!("debezium.{name}"),
                format!("database.{name}"),
                format!("debezium.database.{name}"),
            ] {
                if self.options.contains_key(&key) {
                    return Some(key);
                }
            }
        }
        None
    }

    /// Flink CDC's `scan.incremental.snapshot.chunk.size`: rows per chunk
    /// of its incremental snapshot, its default when not set.
    pub fn flink_chunk_rows(&self) -> f64 {
        self.number(&["scan.incremental.snapshot.chunk.size"])
            .unwrap_or(FLINK_CHUNK_ROWS_DEFAULT)
    }

    pub fn flag(&self, names: &[&str]) -> Option<bool> {
        self.get(names)
            .map(|v| v.trim().eq_ignore_ascii_case("true"))
    }

    pub fn number(&self, names: &[&str]) -> Option<f64> {
        self.get(names).and_then(|v| v.trim().parse().ok())
    }

    /// The connector type (`oracle-cdc`, `oracle`, `io.debezium...OracleConnector`, `yashandb-cdc`).
    pub fn connector(&self) -> Option<&str> {
        self.get(&["connector", "type", "connector.class"])
    }

    /// The PDB named by `database.pdb.name`.
    pub fn pdb_name(&self) -> Option<&str> {
        self.get(&["pdb.name"])
    }

    /// Flink's `database-name` (the pipeline's `database`), Debezium's
    /// `database.dbname`.
    pub fn database_name(&self) -> Option<&str> {
        self.get(&["database-name", "dbname"]).or_else(|| {
            let pipeline = self.format == ConfigFormat::FlinkPipelineYaml;
            pipeline
                .then(|| self.options.get("database").map(String::as_str))
                .flatten()
        })
    }

    /// The service the connector connects to: from the JDBC URL, else the database name.
    pub fn service(&self) -> Option<String> {
        if let Some(url) = self.get(&["url"]) {
            return service_from_url(url);
        }
        self.database_name().map(str::to_string)
    }

    /// Configured `SCHEMA.TABLE` names, as written (Flink `schema-name` +
    /// `table-name`, pipeline `tables`, Debezium `table.include.list`).
    pub fn table_names(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let schema = self.get(&["schema-name"]);
        if let Some(tables) = self.get(&["table-name"]) {
            for t in tables.split(',').map(str::trim).filter(|t| !t.is_empty()) {
                match (t.split_once('.'), schema) {
                    (Some((s, n)), _) => out.push((s.to_string(), n.to_string())),
                    (None, Some(s)) => out.push((s.to_string(), t.to_string())),
                    (None, None) => {}
                }
            }
        }
        for key in ["tables", "table.include.list"] {
            if let Some(list) = self.get(&[key]) {
                for t in list.split(',').map(str::trim) {
                    // Include lists are regular expressions: `APP\.ORDERS` names APP.ORDERS.
                    let t = t.replace("\\.", ".");
                    if let Some((s, n)) = t.rsplit_once('.') {
                        // Pipeline/Debezium lists may carry a database prefix: DB.SCHEMA.TABLE.
                        let s = s.rsplit('.').next().unwrap_or(s);
                        out.push((s.to_string(), n.to_string()));
                    }
                }
            }
        }
        out
    }

    /// Options whose name says they hold a password, with a literal value.
    pub fn clear_passwords(&self) -> Vec<String> {
        self.options
            .iter()
            .filter(|(k, v)| {
                is_password_key(k)
                    && !v.trim().is_empty()
                    && !v.contains("${")
                    && !v.trim().chars().all(|c| c == '*')
            })
            .map(|(k, _)| k.clone())
            .collect()
    }
}

/// Whether an option's name says it holds a password.
pub fn is_password_key(key: &str) -> bool {
    let last = key.rsplit(['.', '-']).next().unwrap_or(key);
    matches!(last, "password" | "passwd" | "pwd")
}

fn contains_ci(hay: &str, needle: &str) -> bool {
    hay.to_ascii_lowercase().contains(needle)
}

/// `jdbc:oracle:thin:@//host:port/SERVICE`, `@host:port/SERVICE`, `@host:port:SID`.
pub fn service_from_url(url: &str) -> Option<String> {
    let after = url.rsplit('@').next()?;
    let after = after.trim_start_matches("//");
    if let Some(i) = after.to_ascii_uppercase().find("SERVICE_NAME=") {
        let rest = &after[i + "SERVICE_NAME=".len()..];
        let end = rest.find(')').unwrap_or(rest.len());
        return Some(rest[..end].trim().to_string());
    }
    if let Some((_, svc)) = after.split_once('/') {
        return Some(svc.split('?').next().unwrap_or(svc).to_string());
    }
    after.rsplit(':').next().map(str::to_string)
}

/// Reads every `'key' = 'value'` pair; SQL `--` comments are ignored. A
/// pair that follows the previous one without a comma is still read, and
/// noted: Flink rejects such a DDL.
fn parse_flink_with(text: &str) -> (BTreeMap<String, String>, Vec<String>) {
    // Each quoted token with what preceded it since the previous token.
    struct Tok {
        text: String,
        after_eq: bool,
        after_comma: bool,
    }
    let mut tokens: Vec<Tok> = Vec::new();
    let mut problems = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let (mut saw_eq, mut saw_comma) = (false, false);
    while i < chars.len() {
        let c = chars[i];
        if c == '-' && chars.get(i + 1) == Some(&'-') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '\'' {
            let mut s = String::new();
            i += 1;
            while i < chars.len() {
                if chars[i] == '\'' {
                    if chars.get(i + 1) == Some(&'\'') {
                        s.push('\'');
                        i += 2;
                        continue;
                    }
                    break;
                }
                s.push(chars[i]);
                i += 1;
            }
            tokens.push(Tok {
                text: s,
                after_eq: saw_eq,
                after_comma: saw_comma,
            });
            saw_eq = false;
            saw_comma = false;
        } else if c == '=' {
            saw_eq = true;
        } else if c == ',' {
            saw_comma = true;
        }
        i += 1;
    }
    let mut m = BTreeMap::new();
    let mut k = 0;
    let mut pairs = 0;
    while k + 1 < tokens.len() {
        if tokens[k + 1].after_eq {
            let key = tokens[k].text.trim().to_ascii_lowercase();
            if pairs > 0 && !tokens[k].after_comma {
                problems.push(format!(
                    "no comma before option '{key}': Flink rejects the DDL"
                ));
            }
            if m.insert(key.clone(), tokens[k + 1].text.clone()).is_some() {
                problems.push(format!("option '{key}' is set twice"));
            }
            pairs += 1;
            k += 2;
        } else {
            k += 1;
        }
    }
    (m, problems)
}

/// The blocks Flink CDC's pipeline parser reads; it ignores any other
/// top-level key without a word.
pub const PIPELINE_BLOCKS: [&str; 5] = ["source", "sink", "route", "transform", "pipeline"];

/// A YAML file with one of the pipeline's blocks at its top level.
fn is_pipeline_yaml(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.split(" #").next().unwrap_or(l).trim_end();
        PIPELINE_BLOCKS
            .iter()
            .any(|b| l.strip_suffix(':') == Some(b))
    })
}

/// The pipeline's `source:` block, with the top-level keys Flink CDC does
/// not read. Without `source:`, an unknown block holding a `type:` is read
/// in its place (so the other checks still run) and refused: it is the
/// source block under a wrong name, and Flink CDC stops with `Missing
/// required field "source"`.
fn pipeline_source(
    v: &serde_yaml::Value,
) -> (Option<&serde_yaml::Value>, Vec<String>, Vec<String>) {
    let (mut problems, mut refused) = (Vec::new(), Vec::new());
    let Some(map) = v.as_mapping() else {
        return (None, problems, refused);
    };
    let mut source = v.get("source");
    for (k, block) in map {
        let Some(key) = k.as_str().filter(|k| !PIPELINE_BLOCKS.contains(k)) else {
            continue;
        };
        let like_source = block.get("type").is_some()
            && ["hostname", "jdbc.url", "tables"]
                .iter()
                .any(|k| block.get(k).is_some());
        if source.is_none() && like_source {
            source = Some(block);
            refused.push(format!(
                "`{key}:` is not a pipeline block and there is no `source:`: did you mean `source:`? Flink CDC stops with Missing required field \"source\""
            ));
            continue;
        }
        let close: Vec<String> = crate::suggest::close(key, PIPELINE_BLOCKS)
            .iter()
            .map(|b| format!("`{b}:`"))
            .collect();
        let hint = match close.as_slice() {
            [] => format!(" (it reads {})", PIPELINE_BLOCKS.join(", ")),
            names => {
                crate::suggest::question(&names.iter().map(String::as_str).collect::<Vec<_>>())
            }
        };
        problems.push(format!(
            "top-level key `{key}:` is not a pipeline block and Flink CDC ignores it{hint}"
        ));
    }
    (source, problems, refused)
}

fn parse_properties(text: &str) -> (BTreeMap<String, String>, Vec<String>) {
    let mut m = BTreeMap::new();
    let mut problems = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with('!') {
            continue;
        }
        match line.split_once(['=', ':']) {
            Some((k, v)) => {
                m.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
            }
            None => problems.push(format!("line {} is not key=value", n + 1)),
        }
    }
    (m, problems)
}

fn flatten_yaml(prefix: &str, v: &serde_yaml::Value, out: &mut BTreeMap<String, String>) {
    match v {
        serde_yaml::Value::Mapping(map) => {
            for (k, val) in map {
                let key = match k {
                    serde_yaml::Value::String(s) => s.clone(),
                    other => serde_yaml::to_string(other)
                        .unwrap_or_default()
                        .trim()
                        .to_string(),
                };
                let full = if prefix.is_empty() {
                    key
                } else {
                    format!("{prefix}.{key}")
                };
                flatten_yaml(&full, val, out);
            }
        }
        serde_yaml::Value::String(s) => {
            out.insert(prefix.to_ascii_lowercase(), s.clone());
        }
        serde_yaml::Value::Number(n) => {
            out.insert(prefix.to_ascii_lowercase(), n.to_string());
        }
        serde_yaml::Value::Bool(b) => {
            out.insert(prefix.to_ascii_lowercase(), b.to_string());
        }
        serde_yaml::Value::Sequence(items) => {
            let joined: Vec<String> = items
                .iter()
                .filter_map(|i| i.as_str().map(str::to_string))
                .collect();
            out.insert(prefix.to_ascii_lowercase(), joined.join(","));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flink_ddl_options_are_read_with_debezium_prefix_looked_through() {
        let c = ConnectorConfig::parse(
            "t.sql",
            "CREATE TABLE t (id INT) WITH (\n 'connector' = 'oracle-cdc', -- a comment\n 'debezium.log.mining.continuous.mine' = 'true',\n 'database-name' = 'ORCLPDB1')",
        )
        .unwrap();
        assert_eq!(c.format, ConfigFormat::FlinkSql);
        assert_eq!(c.flag(&["log.mining.continuous.mine"]), Some(true));
        assert_eq!(c.database_name(), Some("ORCLPDB1"));
    }

    #[test]
    fn flink_ddl_with_a_missing_comma_still_reads_each_pair() {
        let c = ConnectorConfig::parse(
            "t.sql",
            "WITH ('connector' = 'yashandb-cdc',\n 'hostname' = 'h'\n 'port' = '1688')",
        )
        .unwrap();
        assert_eq!(c.get(&["port"]), Some("1688"));
        assert_eq!(c.get(&["hostname"]), Some("h"));
        assert_eq!(
            c.problems,
            vec!["no comma before option 'port': Flink rejects the DDL".to_string()]
        );
    }

    #[test]
    fn kafka_connect_json_and_urls_give_the_service() {
        let c = ConnectorConfig::parse(
            "c.json",
            r#"{"name":"x","config":{"connector.class":"io.debezium.connector.oracle.OracleConnector","database.url":"jdbc:oracle:thin:@//db:1521/ORCLPDB1","database.password":"secret"}}"#,
        )
        .unwrap();
        assert_eq!(c.service().as_deref(), Some("ORCLPDB1"));
        assert_eq!(c.clear_passwords(), vec!["database.password".to_string()]);
    }

    #[test]
    fn pipeline_yaml_source_section_is_flattened() {
        let c = ConnectorConfig::parse(
            "p.yaml",
            "source:\n  type: oracle\n  port: 1521\n  password: \"***\"\n  tables: ADMIN.ORDERS\nsink:\n  type: kafka\n",
        )
        .unwrap();
        assert_eq!(c.format, ConfigFormat::FlinkPipelineYaml);
        assert_eq!(c.get(&["port"]), Some("1521"));
        assert!(
            c.clear_passwords().is_empty(),
            "masked passwords are not clear text"
        );
        assert_eq!(c.table_names(), vec![("ADMIN".into(), "ORDERS".into())]);
    }

    proptest::proptest! {
        #[test]
        fn parsing_arbitrary_text_never_panics(text in "\\PC{0,200}") {
            if let Ok(c) = ConnectorConfig::parse("x", &text) {
                let _ = c.service();
                let _ = c.table_names();
                let _ = c.clear_passwords();
            }
            let _ = service_from_url(&text);
        }
    }

    #[test]
    fn a_pipeline_whose_source_block_is_misnamed_is_read_and_refused_issue36() {
        let c = ConnectorConfig::parse(
            "p.yaml",
            "database:\n  type: oracle\n  hostname: db\n  tables: ORCLPDB1.APP.ORDERS\nsink:\n  type: kafka\n",
        )
        .expect("a pipeline");
        assert_eq!(c.format, ConfigFormat::FlinkPipelineYaml);
        assert_eq!(c.get(&["hostname"]), Some("db"), "read as the source");
        assert_eq!(c.refused.len(), 1, "{:?}", c.refused);
        assert!(
            c.refused[0].contains("`database:` is not a pipeline block")
                && c.refused[0].contains("did you mean `source:`?"),
            "{:?}",
            c.refused
        );
    }

    #[test]
    fn an_unknown_top_level_pipeline_key_is_reported_with_the_close_block_issue36() {
        let c = ConnectorConfig::parse(
            "p.yaml",
            "source:\n  type: oracle\n  hostname: db\nsnik:\n  type: kafka\n",
        )
        .expect("a pipeline");
        assert!(c.refused.is_empty(), "{:?}", c.refused);
        assert_eq!(
            c.problems,
            vec!["top-level key `snik:` is not a pipeline block and Flink CDC ignores it: did you mean `sink:`?".to_string()]
        );
    }

    #[test]
    fn text_without_options_is_not_a_config() {
        assert!(ConnectorConfig::parse("x", "hello world").is_err());
        assert!(ConnectorConfig::parse("x", "{not json").is_err());
    }
}
