//! `run --config cdcctl.toml`: the daemon's options in a file. Every long
//! flag of `run` (and the global `source`) is a key of the same name
//! (`spill-mb` or `spill_mb`), `tables` holds the table list; a flag on the
//! command line overrides its key. Unknown keys are errors naming the key
//! and its line; a password is refused wherever it is written, since it
//! belongs in CDCCTL_PASSWORD, the prompt or a wallet.

use std::ffi::OsString;
use std::path::Path;

use clap::parser::ValueSource;
use clap::{ArgMatches, Command};

use cdcctl::connect::suggest;

/// The line where top-level `key` is given in `text` (1-based), for
/// messages: its assignment (`key = `, or a dotted `key.x = `), or a table
/// header naming it (`[key]`, `[key.x]`, `[[key]]`).
fn line_of(text: &str, key: &str) -> usize {
    text.lines()
        .position(|l| assigns(l, key) || heads(l, key))
        .map_or(0, |i| i + 1)
}

fn assigns(line: &str, key: &str) -> bool {
    let l = line.trim_start().trim_start_matches(['"', '\'']);
    l.strip_prefix(key).is_some_and(|rest| {
        let rest = rest.trim_start_matches(['"', '\'']).trim_start();
        rest.starts_with('=') || rest.starts_with('.')
    })
}

fn heads(line: &str, key: &str) -> bool {
    let Some(inner) = line.trim_start().strip_prefix('[') else {
        return false;
    };
    let first = inner
        .trim_start_matches('[')
        .split(['.', ']'])
        .next()
        .unwrap_or_default()
        .trim()
        .trim_matches(['"', '\'']);
    first == key
}

/// Whether a source string carries a password (`USER:PASSWORD@`).
fn has_password(source: &str) -> bool {
    source.split_once("://").is_some_and(|(_, rest)| {
        let authority = rest.split('/').next().unwrap_or(rest);
        authority
            .rsplit_once('@')
            .is_some_and(|(user, _)| user.contains(':'))
    })
}

fn scalar(key: &str, line: usize, v: &toml::Value) -> Result<String, String> {
    match v {
        toml::Value::String(s) => Ok(s.clone()),
        toml::Value::Integer(i) => Ok(i.to_string()),
        toml::Value::Float(f) => Ok(f.to_string()),
        toml::Value::Boolean(b) => Ok(b.to_string()),
        _ => Err(format!(
            "line {line}: `{key}` takes a string, number or boolean"
        )),
    }
}

/// The arguments the file adds to `run`'s command line: each key not given
/// as a flag there, as `--key=value` (a list as one per value; `true` as
/// the bare flag, `false` as nothing; `tables` as positional values).
pub fn arguments(
    path: &Path,
    text: &str,
    top: &Command,
    run: &Command,
    given: &ArgMatches,
    top_given: &ArgMatches,
) -> Result<Vec<OsString>, String> {
    let at = |m: String| format!("config {}: {m}", path.display());
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let line = e
            .span()
            .map(|s| text[..s.start.min(text.len())].lines().count().max(1));
        at(format!(
            "{}{}",
            line.map(|l| format!("line {l}: ")).unwrap_or_default(),
            e.message()
        ))
    })?;
    let longs: Vec<&str> = run
        .get_arguments()
        .filter_map(|a| a.get_long())
        .chain(["source", "oracle-client-lib", "log-format"])
        .filter(|l| !matches!(*l, "config" | "help" | "version"))
        .collect();
    let mut out = Vec::new();
    let mut positional = Vec::new();
    for (raw_key, value) in &table {
        let line = line_of(text, raw_key);
        let key = raw_key.replace('_', "-");
        if key.contains("password") || key == "passwd" || key == "pwd" {
            return Err(at(format!(
                "line {line}: `{raw_key}`: a password is never read from the config file; \
                 give it in CDCCTL_PASSWORD, at the prompt, or through an Oracle wallet"
            )));
        }
        if key == "tables" {
            if given.get_many::<String>("tables").is_none() {
                let list = match value {
                    toml::Value::Array(a) => a.clone(),
                    other => vec![other.clone()],
                };
                for v in &list {
                    positional.push(scalar(raw_key, line, v).map_err(at)?);
                }
            }
            continue;
        }
        if !longs.contains(&key.as_str()) {
            return Err(at(format!(
                "line {line}: unknown key `{raw_key}` (the keys are the long options of \
                 `cdcctl run --help`){}",
                suggest::did_you_mean(&key, longs.iter().copied())
            )));
        }
        if key == "source" {
            if let toml::Value::String(s) = value {
                if has_password(s) {
                    return Err(at(format!(
                        "line {line}: `{raw_key}` holds a password; write the source without \
                         it (oracle://USER@HOST:PORT/SERVICE) and give the password in \
                         CDCCTL_PASSWORD, at the prompt, or through an Oracle wallet"
                    )));
                }
            }
        }
        let arg = run
            .get_arguments()
            .chain(top.get_arguments())
            .find(|a| a.get_long() == Some(key.as_str()));
        let Some(arg) = arg else { continue };
        let id = arg.get_id().as_str();
        // value_source panics on an id its matches do not define.
        let from = |m: &ArgMatches| m.try_get_raw(id).ok().and_then(|_| m.value_source(id));
        let source = from(given).or_else(|| from(top_given));
        if matches!(
            source,
            Some(ValueSource::CommandLine | ValueSource::EnvVariable)
        ) {
            continue;
        }
        let flag = !arg.get_action().takes_values();
        let values = match value {
            toml::Value::Array(a) => a.clone(),
            other => vec![other.clone()],
        };
        for v in &values {
            match (flag, v) {
                (true, toml::Value::Boolean(true)) => out.push(OsString::from(format!("--{key}"))),
                (true, toml::Value::Boolean(false)) => {}
                (true, _) => {
                    return Err(at(format!(
                        "line {line}: `{raw_key}` is a switch: write {raw_key} = true or false"
                    )))
                }
                (false, v) => out.push(OsString::from(format!(
                    "--{key}={}",
                    scalar(raw_key, line, v).map_err(at)?
                ))),
            }
        }
    }
    out.extend(positional.into_iter().map(OsString::from));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_in_a_source_are_recognised() {
        assert!(has_password("oracle://app:secret@db:1521/ORCL"));
        assert!(!has_password("oracle://app@db:1521/ORCL"));
        assert!(!has_password("sim:demo?clock=virtual"));
    }

    #[test]
    fn a_key_is_found_on_its_line() {
        let text = "# comment\nserver-name = \"erp\"\n\n spill_mb=3\n";
        assert_eq!(line_of(text, "server-name"), 2);
        assert_eq!(line_of(text, "spill_mb"), 4);
        assert_eq!(line_of(text, "spill"), 0);
    }

    #[test]
    fn issue31_a_key_given_as_a_table_header_is_found_on_its_line() {
        let text = "source = \"sim\"\n\n[a.b]\nx = 1\n";
        assert_eq!(line_of(text, "a"), 3);
        let text = "source = \"sim\"\n[count]\nx=1\n";
        assert_eq!(line_of(text, "count"), 2);
        assert_eq!(line_of("[[tables]]\nx = 1\n", "tables"), 1);
        assert_eq!(line_of("server.name = 1\n", "server"), 1);
    }
}
