//! Log lines on stderr through `tracing`: time-stamped, filtered by `-v`,
//! `-q`, or `CDCCTL_LOG` / `RUST_LOG` directives (`cdcctl=debug,warn`);
//! and the commands' own notices (`cdcctl run: resuming from ...`), as
//! text or, with `--log-format json`, one JSON object per line for a log
//! collector.

use std::sync::atomic::{AtomicBool, Ordering};

use tracing_subscriber::EnvFilter;

/// `-q`: notices that are not errors (the simulator line) stay unsaid.
static QUIET: AtomicBool = AtomicBool::new(false);

/// `--log-format json`.
static JSON: AtomicBool = AtomicBool::new(false);

/// How log lines and notices are written on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum LogFormat {
    /// `cdcctl run: ...` lines and time-stamped log lines, for people.
    #[default]
    Text,
    /// One JSON object per line (`timestamp`, `level`, `command`,
    /// `message`, and fields such as `mined_scn`), for log collectors.
    Json,
}

/// A notice's weight, as log collectors file it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Info,
    Warn,
    Error,
}

impl Level {
    fn name(self) -> &'static str {
        match self {
            Level::Info => "INFO",
            Level::Warn => "WARN",
            Level::Error => "ERROR",
        }
    }
}

/// A command's notice on stderr: `cdcctl COMMAND: MESSAGE` as text (the
/// advice on its own indented line), or one JSON object with `fields`
/// added. A message written as `warning: ...` is filed as a warning.
pub fn notice(
    command: &str,
    level: Level,
    message: &str,
    advice: Option<&str>,
    fields: &[(&str, serde_json::Value)],
) {
    let message = &without_errno(message);
    if !JSON.load(Ordering::Relaxed) {
        eprintln!("cdcctl {command}: {message}");
        if let Some(a) = advice {
            eprintln!("  advice: {a}");
        }
        return;
    }
    eprintln!("{}", json_notice(command, level, message, advice, fields));
}

/// The message without the `(os error 2)` that Rust's I/O errors append:
/// the words before it already say what went wrong.
pub(crate) fn without_errno(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(i) = rest.find(" (os error ") {
        out.push_str(&rest[..i]);
        let after = &rest[i + " (os error ".len()..];
        match after.find(')') {
            Some(j) if after[..j].bytes().all(|b| b.is_ascii_digit()) => rest = &after[j + 1..],
            _ => {
                out.push_str(" (os error ");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A command's error on stderr (`cdcctl COMMAND: MESSAGE`, or JSON). An
/// error worded with its advice on an indented `advice:` line gives the
/// JSON object an `advice` member rather than a message of two lines.
pub fn error(command: &str, message: impl std::fmt::Display) {
    let text = message.to_string();
    let (message, advice) = split_advice(&text);
    notice(command, Level::Error, message, advice, &[]);
}

/// A message and the advice on its `\n  advice: ` line, if it has one.
fn split_advice(text: &str) -> (&str, Option<&str>) {
    match text.split_once("\n  advice: ") {
        Some((message, advice)) => (message, Some(advice)),
        None => (text, None),
    }
}

/// A usage error found while the command line was parsed, before
/// `--log-format` took effect: written as JSON when the arguments or
/// CDCCTL_LOG_FORMAT ask for it.
pub fn usage_error(text: &str) {
    let args: Vec<String> = std::env::args().collect();
    let json = args
        .windows(2)
        .any(|w| w[0] == "--log-format" && w[1] == "json")
        || args.iter().any(|a| a == "--log-format=json")
        || std::env::var("CDCCTL_LOG_FORMAT").is_ok_and(|v| v == "json");
    if !json {
        eprintln!("{text}");
        return;
    }
    // "cdcctl COMMAND: message", as every usage error is worded.
    let (command, message) = text
        .strip_prefix("cdcctl")
        .and_then(|rest| rest.split_once(": "))
        .map_or(("", text), |(c, m)| (c.trim(), m));
    eprintln!("{}", json_notice(command, Level::Error, message, None, &[]));
}

fn json_notice(
    command: &str,
    level: Level,
    message: &str,
    advice: Option<&str>,
    fields: &[(&str, serde_json::Value)],
) -> String {
    let (level, message) = match message.strip_prefix("warning: ") {
        Some(rest) if level == Level::Info => (Level::Warn, rest),
        _ => (level, message),
    };
    let mut o = serde_json::Map::new();
    o.insert(
        "timestamp".into(),
        chrono::Utc::now()
            .to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
            .into(),
    );
    o.insert("level".into(), level.name().into());
    o.insert("command".into(), command.into());
    o.insert("message".into(), message.into());
    if let Some(a) = advice {
        o.insert("advice".into(), a.into());
    }
    for (k, v) in fields {
        o.insert((*k).into(), v.clone());
    }
    serde_json::Value::Object(o).to_string()
}

/// Whether `--log-format json` asked for JSON lines (no progress bars then).
pub fn json() -> bool {
    JSON.load(Ordering::Relaxed)
}

/// Whether `-q` asked for errors only.
pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// Installs the stderr subscriber; an environment filter wins over the flags.
pub fn init(verbose: u8, quiet: bool, format: LogFormat) {
    QUIET.store(quiet, Ordering::Relaxed);
    JSON.store(format == LogFormat::Json, Ordering::Relaxed);
    let level = match (quiet, verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        (false, 2) => "debug",
        _ => "trace",
    };
    let from_env = ["CDCCTL_LOG", "RUST_LOG"]
        .iter()
        .find_map(|var| std::env::var(var).ok().filter(|v| !v.trim().is_empty()))
        .and_then(|directives| EnvFilter::try_new(directives).ok());
    let filter = from_env.unwrap_or_else(|| EnvFilter::new(level));
    let fmt = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_target(false);
    let _ = match format {
        LogFormat::Text => fmt.try_init(),
        LogFormat::Json => fmt
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .try_init(),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errno_suffixes_of_io_errors_are_left_out() {
        assert_eq!(
            without_errno("cannot read x.sql: No such file or directory (os error 2); check it"),
            "cannot read x.sql: No such file or directory; check it"
        );
        assert_eq!(without_errno("kept (os error x)"), "kept (os error x)");
    }

    #[test]
    fn json_notice_files_a_warning_prefix_as_warn_and_keeps_fields() {
        let line = json_notice(
            "run",
            Level::Info,
            "warning: the output is behind",
            Some("use --rewind"),
            &[("mined_scn", 42.into())],
        );
        let v: serde_json::Value = serde_json::from_str(&line).expect("one JSON object");
        assert_eq!(v["level"], "WARN");
        assert_eq!(v["command"], "run");
        assert_eq!(v["message"], "the output is behind");
        assert_eq!(v["advice"], "use --rewind");
        assert_eq!(v["mined_scn"], 42);
        assert!(v["timestamp"].as_str().is_some_and(|t| t.ends_with('Z')));
    }
}
