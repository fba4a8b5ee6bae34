//! The exit-code contract (documented in README.md).

use std::process::ExitCode;

/// Healthy, or the command finished.
pub const OK: u8 = 0;
/// Findings at or above `--fail-on`.
pub const FINDINGS: u8 = 1;
/// Usage or configuration error.
pub const USAGE: u8 = 2;
/// Source unreachable, or authentication failed.
pub const UNREACHABLE: u8 = 3;
/// Capture stopped on data it could not trust (parse failure, missing log, gap).
pub const UNTRUSTED_DATA: u8 = 4;

pub fn code(c: u8) -> ExitCode {
    ExitCode::from(c)
}
