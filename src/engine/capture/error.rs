//! Why capture stopped, and what that means: whether the data can be
//! trusted, the database code, and what an operator should run.

use crate::engine::port::{Incarnation, SourceError};
use crate::engine::session::PlanError;
use crate::engine::txn::TxnError;

/// Why capture stopped.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error(transparent)]
    Plan(#[from] PlanError),
    #[error(transparent)]
    Txn(#[from] TxnError),
    #[error(
        "the database is in another incarnation than the checkpoint: checkpoint {stored}, database \
         {current} (OPEN RESETLOGS after FLASHBACK DATABASE or an incomplete recovery); SCNs past \
         the RESETLOGS point name different changes now"
    )]
    IncarnationChanged {
        stored: Incarnation,
        current: Incarnation,
    },
    #[error(
        "cannot read DM8's open transactions (V$TRX): {error}; DM8 writes no row when a \
         transaction rolls back, so without this list a rolled-back transaction would stay \
         buffered for ever, holding the restart position back and growing memory and spill"
    )]
    OpenTransactionsUnlisted { error: SourceError },
}

impl CaptureError {
    /// The capture stopped because data could not be trusted (parse failure,
    /// missing log, gap) rather than because the source was unreachable.
    pub fn is_untrusted_data(&self) -> bool {
        match self {
            CaptureError::Txn(TxnError::Sink(_)) => false,
            CaptureError::Txn(_) | CaptureError::Plan(_) => true,
            CaptureError::IncarnationChanged { .. } => true,
            // A grant to give, not data to doubt.
            CaptureError::OpenTransactionsUnlisted { .. } => false,
            CaptureError::Source(e) => {
                matches!(
                    e,
                    SourceError::MissingLog { .. } | SourceError::ArchiveGap { .. }
                ) || matches!(e.ora_code(), Some(1291 | 1284 | 310))
            }
        }
    }

    /// The missing sequences when capture stopped on an archive gap:
    /// (thread, first sequence, last sequence).
    pub fn archive_gap(&self) -> Option<(u16, u64, u64)> {
        match self {
            CaptureError::Source(SourceError::ArchiveGap {
                thread,
                missing_from,
                missing_to,
            }) => Some((*thread, *missing_from, *missing_to)),
            CaptureError::Plan(PlanError::SequenceGap { thread, from, to }) => {
                Some((*thread, *from, *to))
            }
            _ => None,
        }
    }

    pub fn ora_code(&self) -> Option<u32> {
        match self {
            CaptureError::Source(e) => e.ora_code(),
            CaptureError::Plan(p) => p.to_source_error().ora_code(),
            CaptureError::Txn(_)
            | CaptureError::IncarnationChanged { .. }
            | CaptureError::OpenTransactionsUnlisted { .. } => None,
        }
    }

    pub fn advice(&self) -> Option<String> {
        match self {
            CaptureError::Source(e) => e.advice().map(std::borrow::Cow::into_owned),
            CaptureError::Plan(p) => p.to_source_error().advice().map(std::borrow::Cow::into_owned),
            CaptureError::Txn(TxnError::Parse { .. }) => Some(
                "the row is shown above; report it with `cdcctl redo parse`, or rerun with \
                 --on-parse-error warn to send such rows to the dead-letter file"
                    .into(),
            ),
            CaptureError::Txn(_) => None,
            CaptureError::IncarnationChanged { .. } => Some(
                "changes emitted from the old incarnation past its RESETLOGS SCN may never have \
                 happened on the new one: re-snapshot the captured tables, then remove the checkpoint \
                 file and start again"
                    .into(),
            ),
            CaptureError::OpenTransactionsUnlisted { .. } => Some(
                "GRANT SELECT ON SYS.V$TRX TO the capture user (as SYSDBA), then start again: \
                 a checkpoint resumes without loss"
                    .into(),
            ),
        }
    }
}
