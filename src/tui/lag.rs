//! How far capture is behind, as the gauges judge it: the time lag the
//! screen shows and the thresholds that colour it.

use crate::engine::metrics::{CaptureStatus, MiningState};

/// Lag thresholds for the gauges' colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thresholds {
    pub time_warn_s: u64,
    pub time_crit_s: u64,
    pub scn_warn: u64,
    pub scn_crit: u64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Self {
            time_warn_s: 10,
            time_crit_s: 60,
            scn_warn: 100_000,
            scn_crit: 1_000_000,
        }
    }
}

/// How bad a lag is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Ok,
    Warn,
    Crit,
}

impl Thresholds {
    pub fn time_level(&self, lag_s: u64) -> Level {
        level(lag_s, self.time_warn_s, self.time_crit_s)
    }

    pub fn scn_level(&self, lag: u64) -> Level {
        level(lag, self.scn_warn, self.scn_crit)
    }
}

pub(super) fn level(v: u64, warn: u64, crit: u64) -> Level {
    if v >= crit {
        Level::Crit
    } else if v >= warn {
        Level::Warn
    } else {
        Level::Ok
    }
}

/// Time lag as the screen shows it: zero while the engine is caught up
/// (idle), since then no redo is waiting however old the last row is;
/// otherwise as of now, counting the time since the engine's last poll, so
/// that a reader falling behind shows its backlog while it reads a window
/// and when it is done with it.
pub fn time_lag_s(status: &CaptureStatus) -> Option<u64> {
    if status.state == MiningState::Idle {
        return Some(0);
    }
    status.time_lag_s().map(|s| s.max(0) as u64)
}
