//! The `tail` screen: state, input and widgets; the engine runs on its own
//! thread and sends [`EngineMessage`](crate::engine::metrics::EngineMessage)s.
//!
//! - [`app`] owns the state and its pure update (`App::update`), over the
//!   list's [`entry`]s, the [`alerts`], the [`lag`] levels and the
//!   [`throughput`] window;
//! - [`ui`] draws a frame from `&App`, [`widgets`] holds the panels and
//!   [`format`] the numbers' forms;
//! - [`term`] owns the terminal (raw mode, alternate screen, restore on
//!   quit, error and panic) and the loop over {input, engine, tick};
//! - [`plain`] is the no-terminal mode: JSON lines and a lag line;
//! - [`feed`] produces realistic engine messages for tests and demos;
//! - [`txns`] merges the database's open transactions with the buffer's.

pub mod alerts;
pub mod app;
pub mod entry;
pub mod feed;
pub mod format;
pub mod lag;
pub mod plain;
pub mod term;
pub mod throughput;
pub mod txns;
pub mod ui;
pub mod widgets;

#[cfg(test)]
mod cause_screens;
#[cfg(test)]
mod snapshot_tests;

pub use app::{App, AppEvent, HeaderInfo, ViewConfig};
pub use lag::Thresholds;
