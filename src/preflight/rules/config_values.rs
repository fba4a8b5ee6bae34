//! Connector-config lint of option values: `log.mining.*` ranges (the
//! value at fault, not the one it is compared with) and passwords (a
//! secret reference the file's runtime resolves), each fix in the syntax
//! of the file it fixes.

use super::config::key_as_written;
use super::need_config;
use crate::preflight::config::{is_password_key, ConfigFormat, ConnectorConfig};
use crate::preflight::config_syntax::Opt;
use crate::preflight::defs::CheckDef;
use crate::preflight::facts::Facts;
use crate::preflight::model::{Outcome, Tally};

/// Debezium's `log.mining.*` (min, default, max) triples with its defaults.
const BATCH_SIZES: [(&str, f64); 3] = [
    ("log.mining.batch.size.min", 1000.0),
    ("log.mining.batch.size.default", 20000.0),
    ("log.mining.batch.size.max", 100000.0),
];
const SLEEP_TIMES: [(&str, f64); 3] = [
    ("log.mining.sleep.time.min.ms", 0.0),
    ("log.mining.sleep.time.default.ms", 1000.0),
    ("log.mining.sleep.time.max.ms", 3000.0),
];

/// A value to set, with the Debezium name of its option.
type Setting = (String, String);

/// When min <= default <= max does not hold: the warning and the value to
/// change. The value at fault is the one set whose Debezium default
/// restores the order; when several do, the one furthest from its default
/// (a max of 10 against a default of 20000 is the max, not the default).
/// When none alone does, every set value goes back to its default.
fn order_repair(
    c: &ConnectorConfig,
    triple: &[(&'static str, f64); 3],
    what: &str,
) -> Option<(String, Vec<Setting>)> {
    let set: Vec<Option<f64>> = triple.iter().map(|(k, _)| c.number(&[k])).collect();
    let vals: Vec<f64> = triple
        .iter()
        .zip(&set)
        .map(|((_, d), v)| v.unwrap_or(*d))
        .collect();
    let ordered = |v: &[f64]| v[0] <= v[1] && v[1] <= v[2];
    if ordered(&vals) {
        return None;
    }
    let order = format!(
        "{what} are out of order: min {} <= default {} <= max {} does not hold",
        vals[0], vals[1], vals[2]
    );
    // How far a value is from its default, either way.
    let off = |v: f64, d: f64| (v.max(d) + 1.0) / (v.min(d) + 1.0);
    let repairs: Vec<usize> = (0..3)
        .filter(|&i| set[i].is_some())
        .filter(|&i| {
            let mut v = vals.clone();
            v[i] = triple[i].1;
            ordered(&v)
        })
        .collect();
    let fault = repairs
        .iter()
        .copied()
        .max_by(|&a, &b| off(vals[a], triple[a].1).total_cmp(&off(vals[b], triple[b].1)));
    let Some(i) = fault else {
        let reset: Vec<Setting> = (0..3)
            .filter(|&i| set[i].is_some_and(|v| v != triple[i].1))
            .map(|i| (triple[i].0.to_string(), triple[i].1.to_string()))
            .collect();
        return Some((
            format!("{order}; no one value is at fault: set them back to Debezium's defaults"),
            reset,
        ));
    };
    let (name, default) = triple[i];
    let key = c.key_of(&[name]).unwrap_or_else(|| name.to_string());
    let verb = if vals[i] < default { "raise" } else { "lower" };
    let why = if repairs.len() == 1 {
        "the only value whose Debezium default restores the order"
    } else {
        "of the values whose Debezium default restores the order, the furthest from it"
    };
    Some((
        format!(
            "{order}: {key} = {} is the value at fault ({why}); {verb} it to {default}",
            vals[i]
        ),
        vec![(name.to_string(), default.to_string())],
    ))
}

pub fn mining_ranges(f: &Facts, _d: &CheckDef) -> Outcome {
    let c = need_config!(f);
    let mut t = Tally::default();
    let mut fix: Vec<Setting> = Vec::new();
    let num = |k: &str| c.number(&[k]);
    for (triple, what) in [(&BATCH_SIZES, "batch sizes"), (&SLEEP_TIMES, "sleep times")] {
        if let Some((warning, settings)) = order_repair(c, triple, what) {
            t.warn(warning);
            fix.extend(settings);
        }
    }
    let (default_key, default_batch) = BATCH_SIZES[1];
    if let Some(bdef) = num(default_key).filter(|b| *b > 100_000.0) {
        t.warn(format!(
            "log.mining.batch.size.default = {bdef}: SCN windows that large keep LogMiner sessions long and PGA high"
        ));
        if !fix.iter().any(|(k, _)| k == default_key) {
            fix.push((default_key.to_string(), default_batch.to_string()));
        }
    }
    for (wrong, right) in [
        (
            "log.mining.sleep.time.ms",
            "log.mining.sleep.time.default.ms",
        ),
        (
            "log.mining.batch.size.max.default",
            "log.mining.batch.size.max",
        ),
    ] {
        if let Some(key) = c.key_of(&[wrong]) {
            t.note(format!(
                "{key} is not a Debezium option and is ignored; did you mean {right}?"
            ));
            if let Some(v) = c
                .get(&[wrong])
                .filter(|_| !fix.iter().any(|(k, _)| k == right))
            {
                fix.push((right.to_string(), v.to_string()));
            }
        }
    }
    match num("log.mining.session.max.ms") {
        None | Some(0.0) => {
            t.warn(
                "log.mining.session.max.ms is unset: the LogMiner session never restarts and PGA grows until ORA-04036",
            );
            fix.push(("log.mining.session.max.ms".into(), "600000".into()));
        }
        Some(_) => {}
    }
    if let Some((warning, setting)) = archive_hours_warning(f, c) {
        t.warn(warning);
        fix.push(setting);
    }
    let pairs: Vec<(Opt, &str)> = fix
        .iter()
        .map(|(k, v)| (Opt::Debezium(k), v.as_str()))
        .collect();
    t.finish("log.mining.* values are in range")
        .fix(c.format.settings(&pairs))
}

/// `archive.log.hours` asks for more hours than the archived logs reach
/// back: the hours they do reach, under the option's name as written.
fn archive_hours_warning(f: &Facts, c: &ConnectorConfig) -> Option<(String, Setting)> {
    let names = ["log.mining.archive.log.hours", "archive.log.hours"];
    let h = c.number(&names)?;
    let inv = f.inventory.as_ref()?;
    let oldest = inv
        .archived
        .iter()
        .filter(|a| a.is_available())
        .filter_map(|a| a.first_time)
        .min()?;
    let have = (f.now() - oldest).num_minutes() as f64 / 60.0;
    let key = key_as_written(c, &names, Opt::Debezium(names[0]));
    let name = key.strip_prefix("debezium.").unwrap_or(&key).to_string();
    (h > have).then(|| {
        (
            format!("{key} = {h} but archived logs reach back only {have:.1} h"),
            (name, format!("{}", have.floor().max(1.0))),
        )
    })
}

pub fn password(f: &Facts, _d: &CheckDef) -> Outcome {
    let c = need_config!(f);
    let clear = c.clear_passwords();
    // Kafka Connect's config providers: Flink reads `${env:..}` as the password itself.
    let unresolved: Vec<&String> = c
        .options
        .iter()
        .filter(|(k, v)| c.format.is_flink() && is_password_key(k) && is_provider_reference(v))
        .map(|(k, _)| k)
        .collect();
    let Some(key) = clear.first().or(unresolved.first().copied()) else {
        return Outcome::pass("no password is written in clear");
    };
    let mut t = Tally::default();
    if !clear.is_empty() {
        // The value itself is never echoed.
        t.warn(format!(
            "{} holds a password in clear text in {}",
            clear.join(", "),
            c.path
        ));
    }
    for k in unresolved {
        t.warn(format!(
            "{k} holds a Kafka Connect config provider reference, which Flink does not resolve: it is sent to Oracle as the password"
        ));
    }
    let (fix, note) = password_fix(c.format, key);
    let out = t.finish("no password is written in clear").fix(fix);
    match note {
        Some(n) => out.with(n),
        None => out,
    }
}

/// `${env:NAME}`, `${file:PATH:KEY}`: a Kafka Connect config provider.
fn is_provider_reference(value: &str) -> bool {
    value.trim().starts_with("${") && value.contains(':')
}

/// Where the password comes from instead, in what the file's runtime
/// supports, and a sentence for what the file cannot hold as a comment.
/// Apache Flink substitutes no variable in a DDL or a pipeline YAML (its
/// `${...}` secrets are a feature of hosted platforms), so the Flink fix
/// is a template rendered at deploy time; Kafka Connect resolves config
/// providers declared in the worker's configuration.
fn password_fix(format: ConfigFormat, key: &str) -> (String, Option<String>) {
    let worker = "in the Kafka Connect worker's configuration (Kafka 3.5+): config.providers=env and config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider; before 3.5, FileConfigProvider with ${file:/path/secrets.properties:password}";
    let setting = |value: &str| format.settings(&[(Opt::Written(key), value)]);
    if format.is_flink() {
        let fix = format.with_comments(
            setting("${ORACLE_PASSWORD}"),
            &[
                "Flink substitutes no variable in this file: keep it as a template in version control",
                "and render it at deploy time from a secret: envsubst < job.tmpl > job (not committed);",
                "hosted Flink platforms have their own secret variables (Ververica: ${secret_values.NAME})",
            ],
        );
        (fix, None)
    } else {
        let fix = format.with_comments(setting("${env:ORACLE_PASSWORD}"), &[worker]);
        let note = (format == ConfigFormat::DebeziumJson).then(|| worker.to_string());
        (fix, note)
    }
}
