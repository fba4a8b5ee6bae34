//! Where the engine hands its events: the callback the transaction buffer,
//! the snapshot and the capture loop emit through, and what it fails with.

use super::event::CapturedEvent;

/// What an emit callback fails with. An error stops the stage that was
/// emitting; the buffer's checkpoint then records how far the transaction
/// got.
pub type SinkError = Box<dyn std::error::Error + Send + Sync>;

/// The emit callback, called once per event in commit order.
pub(crate) type Sink<'a> = dyn FnMut(CapturedEvent) -> Result<(), SinkError> + 'a;
