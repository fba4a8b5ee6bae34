//! Why a capture run ended without finishing, typed by what the caller can
//! do about it; each maps to an exit code of the contract in [`crate::exit`].

use crate::connect::OpenError;
use crate::engine::capture::CaptureError;
use crate::exit;
use crate::sink::SinkError;
use crate::source::SourceError;

/// A run that could not start, or stopped on a failure.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    /// Options, files or the checkpoint do not allow the run (exit 2).
    #[error("{0}")]
    Usage(String),
    /// The output or the checkpoint cannot be trusted to continue from
    /// (exit 4): it lost events, or holds what no checkpoint accounts for.
    #[error("{0}")]
    Untrusted(String),
    /// The source could not be opened.
    #[error("{}", .0.message)]
    Open(OpenError),
    #[error("{}", exit::with_advice(.0, .0.advice().as_deref()))]
    Source(SourceError),
    #[error("{}", exit::with_advice(.0, .0.advice().as_deref()))]
    Capture(CaptureError),
    /// The sink failed to write or commit.
    #[error("{0}")]
    Sink(SinkError),
}

impl DaemonError {
    /// The exit code the contract gives this failure.
    pub fn exit_code(&self) -> u8 {
        match self {
            DaemonError::Sink(SinkError::Unreachable { .. }) => exit::UNREACHABLE,
            DaemonError::Usage(_) | DaemonError::Sink(_) => exit::USAGE,
            DaemonError::Untrusted(_) => exit::UNTRUSTED_DATA,
            DaemonError::Open(e) => e.exit_code,
            DaemonError::Source(e) => exit::for_source(e),
            DaemonError::Capture(e) => exit::for_capture(e),
        }
    }

    pub(crate) fn usage(message: impl Into<String>) -> Self {
        DaemonError::Usage(message.into())
    }
}
