//! What a run tells its operator while it works: notices (resuming, a
//! finding, a retry, the periodic status line) and the snapshot's
//! progress. The daemon says what happened; a [`Reporter`] decides how it
//! looks (text or JSON lines on stderr, progress bars, or a list in a
//! test).

use std::sync::Mutex;

use crate::engine::snapshot::SnapshotProgress;

/// A notice's weight, as log collectors file it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Info,
    Warn,
    Error,
}

/// One thing a run says.
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    pub level: Level,
    pub message: String,
    pub advice: Option<String>,
    /// Named values a log collector can index (the status line's SCNs).
    pub fields: Vec<(&'static str, serde_json::Value)>,
}

impl Notice {
    pub fn info(message: impl Into<String>) -> Self {
        Self {
            level: Level::Info,
            message: message.into(),
            advice: None,
            fields: Vec::new(),
        }
    }

    pub fn warn(message: impl Into<String>, advice: Option<String>) -> Self {
        Self {
            level: Level::Warn,
            message: message.into(),
            advice,
            fields: Vec::new(),
        }
    }
}

/// Where a run's notices go. Called from the run's threads, so it is shared.
pub trait Reporter: Sync {
    fn notice(&self, notice: Notice);

    /// The snapshot's progress, after each chunk. A reporter that draws it
    /// (progress bars) returns `true`: the status line then leaves it out.
    fn snapshot(&self, progress: &SnapshotProgress) -> bool {
        let _ = progress;
        false
    }
}

/// Keeps every notice: for tests, and for callers that print at the end.
#[derive(Debug, Default)]
pub struct Collected(Mutex<Vec<Notice>>);

impl Collected {
    /// The messages so far, in order.
    pub fn messages(&self) -> Vec<String> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .map(|n| n.message.clone())
            .collect()
    }

    /// The messages of one level so far, in order.
    pub fn at(&self, level: Level) -> Vec<String> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .filter(|n| n.level == level)
            .map(|n| n.message.clone())
            .collect()
    }
}

impl Reporter for Collected {
    fn notice(&self, notice: Notice) {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(notice);
    }
}
