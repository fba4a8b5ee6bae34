//! An event larger than a Kafka message may be (a big CLOB or LONG row):
//! restarting cannot help, so it either stops capture once with what to
//! raise, or, with `--on-parse-error warn`, goes to the dead-letter file
//! and capture goes on.

use std::io::Write;
use std::path::Path;

use super::messages::Outgoing;
use super::SinkError;

/// The error for a message the producer refuses as too large, naming the
/// event and the settings that bound it.
pub(super) fn too_large(m: &Outgoing) -> SinkError {
    let bytes = m.value.as_ref().map_or(0, String::len) + m.key.as_ref().map_or(0, String::len);
    SinkError::TooLarge {
        message: format!(
            "the event at commit SCN {} (XID {}) for topic {} is {bytes} bytes, more than a \
             message may be. Raise the producer's limit (--kafka-property \
             message.max.bytes=N), and the topic's max.message.bytes and the brokers' \
             message.max.bytes and replica.fetch.max.bytes to match; or run with \
             --on-parse-error warn to send such events to the dead-letter file and go on",
            m.id.commit_scn, m.id.xid, m.topic
        ),
    }
}

/// Appends the event to the dead-letter file as one line (one write, so
/// the engine's own dead letters cannot interleave with it) and warns.
pub(super) fn set_aside(path: &Path, m: &Outgoing, why: &str) -> Result<(), SinkError> {
    let event: serde_json::Value = m
        .value
        .as_deref()
        .and_then(|v| serde_json::from_str(v).ok())
        .unwrap_or(serde_json::Value::Null);
    let letter = serde_json::json!({
        "commit_scn": m.id.commit_scn,
        "xid": m.id.xid,
        "topic": &*m.topic,
        "key": m.key,
        "error": why,
        "event": event,
    });
    let io = |source| SinkError::Io {
        path: path.display().to_string(),
        source,
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(io)?;
    file.write_all(format!("{letter}\n").as_bytes())
        .map_err(io)?;
    tracing::warn!(
        "kafka: the event at commit SCN {} for {} is too large for a message; it was written to \
         {} instead",
        m.id.commit_scn,
        m.topic,
        path.display()
    );
    Ok(())
}
