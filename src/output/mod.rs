//! Renderers shared by commands: tables (comfy-table), JSON, JUnit, and
//! progress bars (indicatif) on stderr.

pub mod human;
pub mod junit;
pub mod partitions;
pub mod progress;

/// The output formats of report commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
    Junit,
}
