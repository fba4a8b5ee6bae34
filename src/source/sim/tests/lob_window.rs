//! The LOB pieces a window mines are counted for the lag cause (issue 35).

use super::*;
use crate::engine::capture::{Capture, CaptureConfig, Progress, StartAt};
use crate::engine::emit::SinkError;
use crate::engine::event::CapturedEvent;
use crate::engine::txn::{BufferConfig, LobMode};

#[test]
fn windows_of_the_lobs_scenario_count_their_lob_pieces_issue35() {
    let source = Sim::new(
        Sim::from_spec("lobs")
            .expect("lobs")
            .model()
            .scenario
            .clone(),
        Clock::Virtual { step_ms: 1000 },
    );
    let from = source.model().scn;
    let config = CaptureConfig {
        buffer: BufferConfig {
            db_name: source.db_name().to_string(),
            lob: LobMode::Capture,
            ..BufferConfig::default()
        },
        start: StartAt::Scn(from),
        until_scn: Some(from + 3_000),
        ..CaptureConfig::default()
    };
    let mut cap = Capture::new(source, config).expect("capture");
    let (mut lob_rows, mut rows) = (0, 0);
    loop {
        let r = cap.poll(&mut |_: CapturedEvent| -> Result<(), SinkError> { Ok(()) });
        let progress = r.expect("poll");
        if let (Progress::Advanced { .. }, Some(w)) = (progress, cap.status().mining.last_window) {
            assert!(w.lob_rows <= w.rows, "{w:?}");
            lob_rows += w.lob_rows;
            rows += w.rows;
        }
        if progress == Progress::Finished {
            break;
        }
    }
    assert!(
        lob_rows > 0 && lob_rows < rows,
        "{lob_rows} LOB pieces of {rows} rows"
    );
}
