//! [`LagFacts`] from what the engine reports ([`CaptureStatus`]) and, when
//! known, the sink's and the snapshot's side.

use std::time::Instant;

use super::{LagFacts, PinningTxn, RetriedError, SnapshotHold, SpillingTxn};
use crate::engine::metrics::{CaptureStatus, MiningState};
use crate::engine::snapshot::{SnapshotProgress, TableState};

/// The engine's side of the facts, with the lag as of `now`.
pub fn from_status(status: &CaptureStatus, now: Instant) -> LagFacts {
    let m = &status.mining;
    LagFacts {
        lag_s: status.time_lag_s_at(now),
        busy_share: m.busy_share,
        window: m.recent_windows.or(m.last_window),
        pinning: status.oldest_open.as_ref().map(|o| PinningTxn {
            xid: o.xid.clone(),
            start_scn: o.start_scn,
            age_s: match (status.current_time, o.start_time) {
                (Some(n), Some(s)) => Some((n - s).num_seconds().max(0)),
                _ => None,
            },
            events: o.events,
            bytes: o.bytes,
            held_logs: m.held_logs,
            ..PinningTxn::default()
        }),
        log_switches_per_hour: m.redo.switches_per_hour,
        redo_log_bytes: m.redo.log_bytes,
        online_not_archived: m.redo.online_not_archived,
        redo_groups: m.redo.groups,
        retrying: match &status.state {
            MiningState::Retrying {
                attempt,
                error,
                advice,
                code,
            } => Some(RetriedError {
                code: code.clone(),
                attempts: *attempt,
                message: error.clone(),
                advice: advice.clone(),
            }),
            _ => None,
        },
        spilling: status
            .largest_open
            .as_ref()
            .filter(|t| t.spilled)
            .map(|t| SpillingTxn {
                xid: t.xid.clone(),
                events: t.events,
                bytes: t.bytes,
            }),
        ..LagFacts::default()
    }
}

/// The table a running snapshot reads on the engine's thread, while the
/// stream waits for it; `None` once it has finished.
pub fn snapshot_hold(progress: &SnapshotProgress) -> Option<SnapshotHold> {
    progress
        .tables
        .iter()
        .find(|t| t.state == TableState::Reading)
        .map(|t| SnapshotHold {
            table: t.table.to_string(),
            rows_read: t.rows,
        })
}
