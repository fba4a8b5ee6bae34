//! `preflight --config`: the same mistakes written as a Flink SQL DDL, a
//! Flink CDC pipeline YAML and Debezium properties get the same findings;
//! each fix comes in the syntax of the file it fixes, and pasted into the
//! file it clears the findings without raising new ones.

use std::collections::BTreeMap;
use std::process::Command;

use cdcctl::preflight::config::{ConfigFormat, ConnectorConfig};

/// The mistakes, by Debezium option name (Flink files add `debezium.`):
/// CONTINUOUS_MINE on 19c, a path for the archive destination, a batch
/// max below the default, and the PDB as the database name next to
/// `database.pdb.name` (which makes the database name the CDB's).
const MISTAKES: [(&str, &str); 4] = [
    ("log.mining.continuous.mine", "true"),
    (
        "log.mining.archive.destination.name",
        "/u01/app/oracle/fra/ORCLCDB/archivelog",
    ),
    ("log.mining.batch.size.max", "10"),
    ("database.pdb.name", "ORCLPDB1"),
];

/// What each mistake (and the clear password, and the unset
/// `log.mining.session.max.ms`) makes of the cfg-* checks.
const FINDINGS: [(&str, &str); 5] = [
    ("cfg-archive-dest", "fail"),
    ("cfg-continuous-mine", "fail"),
    ("cfg-database-name", "fail"),
    ("cfg-mining-ranges", "warn"),
    ("cfg-password", "warn"),
];

/// A config file's options in order, written in its own syntax.
struct File {
    format: ConfigFormat,
    options: Vec<(String, String)>,
}

impl File {
    fn with_mistakes(format: ConfigFormat) -> File {
        let flink = format.is_flink();
        let base: Vec<(&str, &str)> = match format {
            ConfigFormat::FlinkSql => vec![
                ("connector", "oracle-cdc"),
                ("hostname", "db"),
                ("username", "C##CDCCTL"),
                ("password", "tiger"),
                ("database-name", "ORCLPDB1"),
                ("schema-name", "APP"),
                ("table-name", "ORDERS"),
            ],
            ConfigFormat::FlinkPipelineYaml => vec![
                ("type", "oracle"),
                ("hostname", "db"),
                ("username", "C##CDCCTL"),
                ("password", "tiger"),
                ("database", "ORCLPDB1"),
                ("tables", "ORCLPDB1.APP.ORDERS"),
            ],
            _ => vec![
                (
                    "connector.class",
                    "io.debezium.connector.oracle.OracleConnector",
                ),
                ("database.hostname", "db"),
                ("database.user", "C##CDCCTL"),
                ("database.password", "tiger"),
                ("database.dbname", "ORCLPDB1"),
                ("table.include.list", "APP.ORDERS"),
            ],
        };
        let mistakes = MISTAKES.iter().map(|(k, v)| {
            let key = if flink {
                format!("debezium.{k}")
            } else {
                k.to_string()
            };
            (key, v.to_string())
        });
        File {
            format,
            options: base
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .chain(mistakes)
                .collect(),
        }
    }

    fn text(&self) -> String {
        let lines = self.options.iter();
        match self.format {
            ConfigFormat::FlinkSql => format!(
                "CREATE TABLE orders (ORDER_ID DECIMAL(18, 0)) WITH (\n{}\n);\n",
                lines
                    .map(|(k, v)| format!("  '{k}' = '{}'", v.replace('\'', "''")))
                    .collect::<Vec<_>>()
                    .join(",\n")
            ),
            ConfigFormat::FlinkPipelineYaml => format!(
                "source:\n{}\nsink:\n  type: kafka\n",
                lines
                    .map(|(k, v)| format!("  {k}: {}", serde_json::Value::from(v.as_str())))
                    .collect::<Vec<_>>()
                    .join("\n")
            ),
            _ => lines.map(|(k, v)| format!("{k}={v}\n")).collect(),
        }
    }

    fn extension(&self) -> &str {
        match self.format {
            ConfigFormat::FlinkSql => "sql",
            ConfigFormat::FlinkPipelineYaml => "yaml",
            _ => "properties",
        }
    }

    /// Pastes a fix: each option it sets replaces the file's or is added.
    fn apply(&mut self, fix: &BTreeMap<String, String>) {
        for (k, v) in fix {
            match self.options.iter_mut().find(|(key, _)| key == k) {
                Some(slot) => slot.1 = v.clone(),
                None => self.options.push((k.clone(), v.clone())),
            }
        }
    }
}

/// The cfg-* checks of a preflight of `file` on the demo CDB: id →
/// (status, remediation).
fn lint(file: &File) -> BTreeMap<String, (String, String)> {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(format!("connector.{}", file.extension()));
    std::fs::write(&path, file.text()).expect("write the config");
    let out = Command::new(env!("CARGO_BIN_EXE_cdcctl"))
        .args(["--source", "sim:demo", "preflight", "--format", "json"])
        .arg("--config")
        .arg(&path)
        .env_remove("CDCCTL_SOURCE")
        .output()
        .expect("cdcctl runs");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
    });
    report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| c["id"].as_str().is_some_and(|id| id.starts_with("cfg-")))
        .map(|c| {
            let text = |k: &str| c[k].as_str().unwrap_or_default().to_string();
            (text("id"), (text("status"), text("remediation")))
        })
        .collect()
}

/// The options a fix sets, read back in the file's own format; panics
/// when the fix is not written in it.
fn read_fix(format: ConfigFormat, fix: &str) -> BTreeMap<String, String> {
    let text = match format {
        ConfigFormat::FlinkSql => format!("CREATE TABLE t (i INT) WITH (\n{fix}\n)"),
        _ => fix.to_string(),
    };
    let parsed = ConnectorConfig::parse("fix", &text)
        .unwrap_or_else(|e| panic!("{format:?}: the fix is no config ({e}):\n{fix}"));
    assert_eq!(
        parsed.format, format,
        "the fix is in another syntax:\n{fix}"
    );
    assert!(parsed.problems.is_empty(), "{:?}:\n{fix}", parsed.problems);
    for line in fix.lines().map(str::trim) {
        let comment = ["--", "#"].iter().any(|c| line.starts_with(c));
        let setting = match format {
            ConfigFormat::FlinkSql => line.starts_with('\'') && line.contains("' = '"),
            ConfigFormat::FlinkPipelineYaml => line == "source:" || line.contains(": "),
            _ => line.contains('=') && !line.contains(" = "),
        };
        assert!(comment || setting, "{format:?}: `{line}` in\n{fix}");
    }
    parsed.options
}

fn not_passing(lint: &BTreeMap<String, (String, String)>) -> BTreeMap<String, String> {
    lint.iter()
        .filter(|(_, (status, _))| status == "warn" || status == "fail")
        .map(|(id, (status, _))| (id.clone(), status.clone()))
        .collect()
}

#[test]
fn the_same_mistakes_in_three_formats_get_fixes_in_each_file_s_own_syntax_issue36() {
    let expected: BTreeMap<String, String> = FINDINGS
        .iter()
        .map(|(id, s)| (id.to_string(), s.to_string()))
        .collect();
    for format in [
        ConfigFormat::FlinkSql,
        ConfigFormat::FlinkPipelineYaml,
        ConfigFormat::DebeziumProperties,
    ] {
        let mut file = File::with_mistakes(format);
        let before = lint(&file);
        assert_eq!(
            not_passing(&before),
            expected,
            "{format:?}:\n{}",
            file.text()
        );
        let prefix = if format.is_flink() { "debezium." } else { "" };
        for (id, _) in FINDINGS {
            let fix = read_fix(format, &before[id].1);
            if id == "cfg-mining-ranges" {
                // The max is at fault, not the default it is below.
                let max = format!("{prefix}log.mining.batch.size.max");
                assert_eq!(fix.get(&max).map(String::as_str), Some("100000"), "{fix:?}");
                let default = format!("{prefix}log.mining.batch.size.default");
                assert!(!fix.contains_key(&default), "{fix:?}");
            }
            file.apply(&fix);
        }
        let after = lint(&file);
        assert!(
            not_passing(&after).is_empty(),
            "{format:?}: the pasted fixes leave {:?}\n{}",
            not_passing(&after),
            file.text()
        );
    }
}

#[test]
fn flink_gets_no_kafka_connect_provider_for_its_password_issue36() {
    let sql = lint(&File::with_mistakes(ConfigFormat::FlinkSql));
    let fix = &sql["cfg-password"].1;
    assert!(
        !fix.contains("${env:"),
        "Flink resolves no ${{env:…}}: {fix}"
    );
    assert!(fix.contains("'password' = '${ORACLE_PASSWORD}'"), "{fix}");
    assert!(fix.contains("envsubst"), "{fix}");
    let props = lint(&File::with_mistakes(ConfigFormat::DebeziumProperties));
    let fix = &props["cfg-password"].1;
    assert!(
        fix.starts_with("database.password=${env:ORACLE_PASSWORD}"),
        "{fix}"
    );
    assert!(fix.contains("EnvVarConfigProvider"), "{fix}");
    // A provider reference left in a Flink file reaches Oracle as written.
    let mut file = File::with_mistakes(ConfigFormat::FlinkSql);
    file.apply(&BTreeMap::from([(
        "password".to_string(),
        "${env:ORACLE_PASSWORD}".to_string(),
    )]));
    let (status, _) = &lint(&file)["cfg-password"];
    assert_eq!(status, "warn");
}
